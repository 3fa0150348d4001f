import Testing
@testable import GestureCore
import GestureVocabulary

@Suite struct GeometryTests {
    let x = AxisInfo(minimum: 0, maximum: 1000, resolution: 10)
    let y = AxisInfo(minimum: 0, maximum: 500, resolution: 10)

    @Test func identity() {
        let g = DeviceGeometry(xAxis: x, yAxis: y, settings: GeometrySettings())
        #expect(g.normalised(rawX: 250, rawY: 100) == Vector2(0.25, 0.2))
        #expect(g.screenSizeMM == (100, 50))
        #expect(g.millimetres(Vector2(0.25, 0.2)) == Vector2(25, 10))
        #expect(g.sizeSource == .axisResolution)
    }

    @Test(arguments: [
        (Rotation.clockwise90, Vector2(0.8, 0.25)),
        (Rotation.upsideDown, Vector2(0.75, 0.8)),
        (Rotation.clockwise270, Vector2(0.2, 0.75)),
    ])
    func rotations(rotation: Rotation, expected: Vector2) {
        var settings = GeometrySettings()
        settings.rotation = rotation
        let g = DeviceGeometry(xAxis: x, yAxis: y, settings: settings)
        let p = g.normalised(rawX: 250, rawY: 100)
        #expect(abs(p.x - expected.x) < 1e-12 && abs(p.y - expected.y) < 1e-12)
        if rotation == .upsideDown {
            #expect(g.screenSizeMM == (100, 50))
        } else {
            #expect(g.screenSizeMM == (50, 100))
        }
    }

    @Test func flips() {
        var settings = GeometrySettings()
        settings.flipX = true
        settings.flipY = true
        let g = DeviceGeometry(xAxis: x, yAxis: y, settings: settings)
        #expect(g.normalised(rawX: 250, rawY: 100) == Vector2(0.75, 0.8))
    }

    @Test func calibrationMatrixAfterRotation() {
        var settings = GeometrySettings()
        // Scale x by half and shift it right by a quarter; y untouched.
        settings.calibration = [0.5, 0, 0.25, 0, 1, 0]
        let g = DeviceGeometry(xAxis: x, yAxis: y, settings: settings)
        #expect(g.normalised(rawX: 500, rawY: 250) == Vector2(0.5, 0.5))
        #expect(g.normalised(rawX: 0, rawY: 0) == Vector2(0.25, 0))
        // Results outside the screen are clamped to its border.
        settings.calibration = [2, 0, 0, 0, 1, 0]
        let h = DeviceGeometry(xAxis: x, yAxis: y, settings: settings)
        #expect(h.normalised(rawX: 800, rawY: 0).x == 1)
    }

    @Test func aRotatingCalibrationMatrixSwapsTheMillimetres() {
        // libinput's matrix for a panel mounted 90° clockwise, as udev's LIBINPUT_CALIBRATION_MATRIX gives it.
        var settings = GeometrySettings()
        settings.calibration = [0, -1, 1, 1, 0, 0]
        let g = DeviceGeometry(xAxis: x, yAxis: y, settings: settings)
        #expect(g.screenSizeMM == (50, 100))
        let p = g.normalised(rawX: 250, rawY: 100)
        #expect(abs(p.x - 0.8) < 1e-12 && abs(p.y - 0.25) < 1e-12)  // the same as rotation 90
        // A scaling matrix does not swap.
        settings.calibration = [0.9, 0, 0.05, 0, 0.9, 0.05]
        #expect(DeviceGeometry(xAxis: x, yAxis: y, settings: settings).screenSizeMM == (100, 50))
    }

    /// The orientation set at run time turns the screen after everything configured: a touch the
    /// configured geometry puts at (x, y) is where turning the screen puts it, and 90 and 270 swap the
    /// screen's millimetres (back again when the configuration already turned them).
    @Test(arguments: [
        (Rotation.none, Vector2(0.25, 0.2)), (.clockwise90, Vector2(0.8, 0.25)), (.upsideDown, Vector2(0.75, 0.8)),
        (.clockwise270, Vector2(0.2, 0.75)),
    ])
    func turningComposesAfterTheConfiguredGeometry(orientation: Rotation, expected: Vector2) {
        func close(_ p: Vector2, _ q: Vector2) -> Bool { abs(p.x - q.x) < 1e-12 && abs(p.y - q.y) < 1e-12 }
        // Nothing configured: the turn alone, the same as the `rotation` key.
        let plain = DeviceGeometry(xAxis: x, yAxis: y, settings: GeometrySettings().turned(by: orientation))
        #expect(close(plain.normalised(rawX: 250, rawY: 100), expected), "\(orientation)")
        let swapped = orientation == .clockwise90 || orientation == .clockwise270
        #expect(plain.screenSizeMM == (swapped ? (50, 100) : (100, 50)))
        // Configured upside down plus a calibration: the turn applies to what they give.
        var configured = GeometrySettings()
        configured.rotation = .upsideDown
        configured.calibration = [0.5, 0, 0.25, 0, 1, 0]
        let base = DeviceGeometry(xAxis: x, yAxis: y, settings: configured).normalised(rawX: 250, rawY: 100)
        let turnedPoint: Vector2
        switch orientation {
        case .none: turnedPoint = base
        case .clockwise90: turnedPoint = Vector2(1 - base.y, base.x)
        case .upsideDown: turnedPoint = Vector2(1 - base.x, 1 - base.y)
        case .clockwise270: turnedPoint = Vector2(base.y, 1 - base.x)
        }
        let turned = DeviceGeometry(xAxis: x, yAxis: y, settings: configured.turned(by: orientation))
        #expect(close(turned.normalised(rawX: 250, rawY: 100), turnedPoint), "\(orientation) after rotation and calibration")
        // udev's matrix for a panel mounted 90° clockwise, turned 270: the screen is the panel's own again.
        var udev = GeometrySettings()
        udev.calibration = [0, -1, 1, 1, 0, 0]
        let back = DeviceGeometry(xAxis: x, yAxis: y, settings: udev.turned(by: .clockwise270))
        #expect(close(back.normalised(rawX: 250, rawY: 100), Vector2(0.25, 0.2)))
        #expect(back.screenSizeMM == (100, 50))
    }

    @Test func axesWithNonZeroMinimum() {
        let ax = AxisInfo(minimum: 42, maximum: 1981)
        let g = DeviceGeometry(xAxis: ax, yAxis: ax, settings: GeometrySettings())
        #expect(g.normalised(rawX: 42, rawY: 1981) == Vector2(0, 1))
        #expect(abs(g.normalised(rawX: 1011, rawY: 42).x - 0.5) < 0.001)
    }

    @Test func unequalResolutions() {
        let g = DeviceGeometry(
            xAxis: AxisInfo(minimum: 0, maximum: 32767, resolution: 55),
            yAxis: AxisInfo(minimum: 0, maximum: 32767, resolution: 98), settings: GeometrySettings())
        #expect(abs(g.screenSizeMM.width - 595.76) < 0.01)
        #expect(abs(g.screenSizeMM.height - 334.36) < 0.01)
    }

    @Test func oneAxisWithoutResolutionBorrowsTheOther() {
        let g = DeviceGeometry(
            xAxis: AxisInfo(minimum: 0, maximum: 1000, resolution: 10), yAxis: AxisInfo(minimum: 0, maximum: 500),
            settings: GeometrySettings())
        #expect(g.screenSizeMM == (100, 50))
    }

    @Test func configuredPanelSizeWhenNoResolution() {
        var settings = GeometrySettings()
        settings.panelSizeMM = (width: 150, height: 90)
        let noRes = AxisInfo(minimum: 0, maximum: 799)
        let g = DeviceGeometry(xAxis: noRes, yAxis: AxisInfo(minimum: 0, maximum: 479), settings: settings)
        #expect(g.sizeSource == .configured)
        #expect(g.screenSizeMM == (150, 90))
        // The axis resolution, when the device reports one, is the truth and wins.
        let h = DeviceGeometry(xAxis: x, yAxis: y, settings: settings)
        #expect(h.sizeSource == .axisResolution)
    }

    @Test func assumedSizeKeepsTheAxisAspect() {
        let g = DeviceGeometry(
            xAxis: AxisInfo(minimum: 0, maximum: 4000), yAxis: AxisInfo(minimum: 0, maximum: 3000),
            settings: GeometrySettings())
        #expect(g.sizeSource == .assumed)
        #expect(abs(g.screenSizeMM.width - 280) < 1e-9)
        #expect(abs(g.screenSizeMM.height - 210) < 1e-9)
    }

    @Test func portraitPanelsAreAssumedToBePhones() {
        // A PinePhone-like panel: 720 × 1440 units, no resolution.
        let g = DeviceGeometry(
            xAxis: AxisInfo(minimum: 0, maximum: 720), yAxis: AxisInfo(minimum: 0, maximum: 1440),
            settings: GeometrySettings())
        #expect(g.sizeSource == .assumed && g.assumedDiagonalMM == 150)
        let diagonal = (g.screenSizeMM.width * g.screenSizeMM.width + g.screenSizeMM.height * g.screenSizeMM.height).squareRoot()
        #expect(abs(diagonal - 150) < 1e-9)
        // Square and landscape ranges are not phones.
        let square = DeviceGeometry(
            xAxis: AxisInfo(minimum: 0, maximum: 4095), yAxis: AxisInfo(minimum: 0, maximum: 4095), settings: GeometrySettings())
        #expect(square.assumedDiagonalMM == 350)
    }

    @Test func rotatedScreenEdgesFollowTheUser() throws {
        // Mounted 90° clockwise: moving along the device's +y is moving left on screen... so a touch at the
        // device's top edge (y = 0) is at the screen's right edge.
        var settings = GeometrySettings()
        settings.rotation = .clockwise90
        var s = TouchScript()
        s.down(0, 50, 0.5); s.frame()
        s.drag([0], by: 0, 60)
        s.up(0); s.frame()
        let events = try s.run(geometry: settings)
        #expect(events.first?.kind == .edgeSwipe)
        #expect(events.first?.edge == .right)
    }

    @Test func anglesWithoutLibm() {
        #expect(abs(Angles.atan2(1, 1) - Angles.pi / 4) < 1e-9)
        #expect(abs(Angles.atan2(1, -1) - 3 * Angles.pi / 4) < 1e-9)
        #expect(abs(Angles.atan2(-1, -1) + 3 * Angles.pi / 4) < 1e-9)
        #expect(abs(Angles.atan2(-2, 0) + Angles.pi / 2) < 1e-9)
        #expect(Angles.atan2(0, 0) == 0)
        for deg in stride(from: -179.0, through: 180, by: 7) {
            let r = deg * Angles.pi / 180
            let v = Vector2(TouchMath.cos(r), TouchMath.sin(r))
            #expect(abs(Angles.degrees(of: v) - deg) < 1e-6, "\(deg)")
        }
        #expect(abs(Angles.cosine(degrees: 60) - 0.5) < 1e-9)
        #expect(abs(Angles.cosine(degrees: 30) - 0.8660254037844386) < 1e-9)
    }
}
