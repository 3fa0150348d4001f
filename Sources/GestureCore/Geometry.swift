import GestureVocabulary

/// Where the physical size of a panel came from.
public enum PanelSizeSource: String, Sendable {
    /// The axes' resolution (units per millimetre), as the kernel reports it.
    case axisResolution = "axis resolution"
    /// A panel size configured for the device.
    case configured = "configured panel size"
    /// Neither: a diagonal is assumed, 150 mm for a portrait panel and 350 mm for a landscape one
    /// (see GeometrySettings.assumedDiagonalMM).
    case assumed = "assumed size"
}

/// Maps raw device coordinates to the screen as the user sees it: normalised [0,1]² (origin top-left)
/// after flips, rotation and calibration, and millimetres on the screen's axes.
public struct DeviceGeometry: Sendable {
    public let xAxis: AxisInfo
    public let yAxis: AxisInfo
    public let settings: GeometrySettings
    /// Physical size along the device's own X and Y axes.
    public let deviceSizeMM: (width: Double, height: Double)
    /// Physical size along the screen's axes (width and height swapped for 90° and 270°).
    public let screenSizeMM: (width: Double, height: Double)
    public let sizeSource: PanelSizeSource
    /// The diagonal assumed when `sizeSource` is `.assumed`.
    public private(set) var assumedDiagonalMM: Double? = nil

    private let calibration: (a: Double, b: Double, c: Double, d: Double, e: Double, f: Double)?

    /// The sides a touchscreen's panel can have, millimetres: from a watch's to a wall's. A size the axis
    /// resolution gives outside this is the firmware's mistake (or a forged device), and is not used.
    public static let plausibleSideMM = 20.0...3000.0

    /// The resolution the axes report when it was not used because the size it gives is implausible
    /// (`plausibleSideMM`): the geometry then rests on the configured or assumed size.
    public private(set) var implausibleResolution: (x: Int32, y: Int32)? = nil

    public init(xAxis: AxisInfo, yAxis: AxisInfo, settings: GeometrySettings) {
        self.xAxis = xAxis
        self.yAxis = yAxis
        self.settings = settings
        // One axis without resolution borrows the other's (square device units).
        let rx = Double(xAxis.resolution > 0 ? xAxis.resolution : yAxis.resolution)
        let ry = Double(yAxis.resolution > 0 ? yAxis.resolution : xAxis.resolution)
        let fromResolution = (xAxis.span / rx, yAxis.span / ry)
        let hasResolution = xAxis.resolution > 0 || yAxis.resolution > 0
        let plausible = DeviceGeometry.plausibleSideMM.contains(fromResolution.0) && DeviceGeometry.plausibleSideMM.contains(fromResolution.1)
        if hasResolution && !plausible { implausibleResolution = (xAxis.resolution, yAxis.resolution) }
        if hasResolution && plausible {
            deviceSizeMM = fromResolution
            sizeSource = .axisResolution
        } else if let panel = settings.panelSizeMM, panel.width > 0, panel.height > 0 {
            deviceSizeMM = panel
            sizeSource = .configured
        } else if let diagonal = settings.panelDiagonalMM, diagonal > 0, let aspect = settings.panelAspect {
            // The configured aspect, its long side along the longer axis.
            let short = diagonal / (1 + aspect.ratio * aspect.ratio).squareRoot()
            let long = short * aspect.ratio
            deviceSizeMM = yAxis.span > xAxis.span ? (short, long) : (long, short)
            sizeSource = .configured
        } else if let diagonal = settings.panelDiagonalMM, diagonal > 0 {
            // Square device units: the axis ranges' aspect is the panel's.
            let diagonalUnits = (xAxis.span * xAxis.span + yAxis.span * yAxis.span).squareRoot()
            deviceSizeMM = (xAxis.span * diagonal / diagonalUnits, yAxis.span * diagonal / diagonalUnits)
            sizeSource = .configured
        } else {
            // Assume square device units and a typical diagonal: a panel built portrait is a phone or a
            // small tablet; a landscape one gets the geometric middle between a 7-inch tablet and a
            // 32-inch monitor, so millimetre thresholds are off by at most ~2.3x there.
            let diagonalUnits = (xAxis.span * xAxis.span + yAxis.span * yAxis.span).squareRoot()
            assumedDiagonalMM = GeometrySettings.assumedDiagonalMM(widthUnits: xAxis.span, heightUnits: yAxis.span)
            let mmPerUnit = assumedDiagonalMM! / diagonalUnits
            deviceSizeMM = (xAxis.span * mmPerUnit, yAxis.span * mmPerUnit)
            sizeSource = .assumed
        }
        var rotated: (width: Double, height: Double)
        switch settings.rotation {
        case .none, .upsideDown: rotated = deviceSizeMM
        case .clockwise90, .clockwise270: rotated = (deviceSizeMM.height, deviceSizeMM.width)
        }
        if let m = settings.calibration, m.count == 6 {
            calibration = (m[0], m[1], m[2], m[3], m[4], m[5])
            // A matrix that rotates by 90° or 270° (libinput's rotation matrices, as udev's
            // LIBINPUT_CALIBRATION_MATRIX carries them) swaps the axes: swap their millimetres too.
            if abs(m[1]) + abs(m[3]) > abs(m[0]) + abs(m[4]) { rotated = (rotated.height, rotated.width) }
        } else {
            calibration = nil
        }
        screenSizeMM = rotated
    }

    /// Whether the size rests on a diagonal and axes of (nearly) equal range with no aspect given: a square
    /// panel, which few are (`panel_aspect` says the real one).
    public var isSquareFromDiagonal: Bool {
        guard sizeSource == .configured, settings.panelSizeMM == nil, settings.panelDiagonalMM != nil,
            settings.panelAspect == nil
        else { return false }
        return abs(xAxis.span - yAxis.span) <= 0.01 * max(xAxis.span, yAxis.span)
    }

    /// The size in use and where it came from, as `gesturectl replay`, `plot` and the log say it:
    /// "386.1 × 386.1 mm, from panel_diagonal_inches 21.5 and the axes' aspect (0…4095 × 0…4095)".
    public var sizeDescription: String {
        let size = "\(millimetres(deviceSizeMM.width)) × \(millimetres(deviceSizeMM.height)) mm"
        let axes = "\(xAxis.minimum)…\(xAxis.maximum) × \(yAxis.minimum)…\(yAxis.maximum)"
        switch sizeSource {
        case .axisResolution:
            return "\(size), from the axes' resolution (\(xAxis.resolution) × \(yAxis.resolution) units/mm)"
        case .configured:
            if let panel = settings.panelSizeMM, panel.width > 0, panel.height > 0 {
                return "\(size), from panel_width_mm and panel_height_mm"
            }
            let inches = millimetres((settings.panelDiagonalMM ?? 0) / 25.4)
            if let aspect = settings.panelAspect {
                return "\(size), from panel_diagonal_inches \(inches) and panel_aspect \(aspect)"
            }
            return "\(size), from panel_diagonal_inches \(inches) and the axes' aspect (\(axes))"
        case .assumed:
            return "\(size), assumed: the axes report no resolution and no size is configured (a \(millimetres(assumedDiagonalMM ?? 0)) mm diagonal)"
        }
    }

    private func millimetres(_ v: Double) -> String {
        let tenths = (v * 10).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0 ? String(Int(tenths / 10)) : String(tenths / 10)
    }

    /// Raw device coordinates (already clamped to the axis range) to normalised screen coordinates.
    @inlinable
    public func normalised(rawX: Int32, rawY: Int32) -> Vector2 {
        var x = (Double(rawX) - Double(xAxis.minimum)) / xAxis.span
        var y = (Double(rawY) - Double(yAxis.minimum)) / yAxis.span
        if settings.flipX { x = 1 - x }
        if settings.flipY { y = 1 - y }
        // Same convention as libinput's calibration matrices for rotated screens.
        switch settings.rotation {
        case .none: break
        case .clockwise90: (x, y) = (1 - y, x)
        case .upsideDown: (x, y) = (1 - x, 1 - y)
        case .clockwise270: (x, y) = (y, 1 - x)
        }
        return applyCalibration(x, y)
    }

    @usableFromInline
    func applyCalibration(_ x: Double, _ y: Double) -> Vector2 {
        guard let m = calibration else { return Vector2(x, y) }
        let cx = m.a * x + m.b * y + m.c
        let cy = m.d * x + m.e * y + m.f
        return Vector2(min(max(cx, 0), 1), min(max(cy, 0), 1))
    }

    /// Normalised screen coordinates to millimetres from the screen's top-left corner.
    @inlinable
    public func millimetres(_ p: Vector2) -> Vector2 {
        Vector2(p.x * screenSizeMM.width, p.y * screenSizeMM.height)
    }
}

extension GeometrySettings {
    /// These settings with the screen turned by `orientation` on top of everything they already do
    /// (flips, rotation, calibration, udev's LIBINPUT_CALIBRATION_MATRIX when it is the calibration): the
    /// turn is composed into the calibration matrix, applied last, so the edges, directions and the screen's
    /// millimetre axes follow it. The convention is the `rotation` key's (and libinput's matrices'): at 90, a
    /// touch on the panel's natural left edge is on the top edge of the screen the user sees.
    public func turned(by orientation: Rotation) -> GeometrySettings {
        // The turn as a matrix on normalised coordinates: x' = r0·x + r1·y + r2, y' = r3·x + r4·y + r5.
        let r: [Double]
        switch orientation {
        case .none: return self
        case .clockwise90: r = [0, -1, 1, 1, 0, 0]  // (x, y) -> (1 - y, x), as DeviceGeometry's rotation
        case .upsideDown: r = [-1, 0, 1, 0, -1, 1]  // (x, y) -> (1 - x, 1 - y)
        case .clockwise270: r = [0, 1, 0, -1, 0, 1]  // (x, y) -> (y, 1 - x)
        }
        let m = calibration.flatMap { $0.count == 6 ? $0 : nil } ?? [1, 0, 0, 0, 1, 0]
        var turned = self
        turned.calibration = [
            r[0] * m[0] + r[1] * m[3], r[0] * m[1] + r[1] * m[4], r[0] * m[2] + r[1] * m[5] + r[2],
            r[3] * m[0] + r[4] * m[3], r[3] * m[1] + r[4] * m[4], r[3] * m[2] + r[4] * m[5] + r[5],
        ]
        return turned
    }
}
