import Testing
@testable import GestureCore

/// The same physical gestures on panels from a phone to a 32-inch monitor, with and without axis
/// resolution: the defaults must recognize them alike. Each panel is described by its real size and its
/// axes; the script moves fingers in real millimetres.
@Suite struct PanelGeometryTests {
    struct Panel: CustomStringConvertible, Sendable {
        var name: String
        var widthMM: Double
        var heightMM: Double
        var maxX: Int32
        var maxY: Int32
        /// Whether the device reports its resolution (units/mm); if not, whether a panel size is configured.
        var reportsResolution: Bool
        var configuredSize: Bool
        var description: String { name }

        var device: DeviceDescription {
            let rx = reportsResolution ? Int32((Double(maxX) / widthMM).rounded()) : 0
            let ry = reportsResolution ? Int32((Double(maxY) / heightMM).rounded()) : 0
            return DeviceDescription(
                name: name, properties: [INPUT_PROP.direct],
                axes: [
                    ABS.mtSlot: AxisInfo(minimum: 0, maximum: 9),
                    ABS.mtPositionX: AxisInfo(minimum: 0, maximum: maxX, resolution: rx),
                    ABS.mtPositionY: AxisInfo(minimum: 0, maximum: maxY, resolution: ry),
                    ABS.mtTrackingID: AxisInfo(minimum: 0, maximum: 65535),
                ])
        }

        var geometry: GeometrySettings {
            var g = GeometrySettings()
            if configuredSize { g.panelSizeMM = (widthMM, heightMM) }
            return g
        }

        var script: TouchScript {
            var s = TouchScript(device: device)
            s.unitsPerMM = Double(maxX) / widthMM
            s.unitsPerMMY = Double(maxY) / heightMM
            return s
        }
    }

    static let panels: [Panel] = [
        Panel(name: "phone 6.5\" with resolution", widthMM: 68, heightMM: 150, maxX: 1080, maxY: 2400, reportsResolution: true, configuredSize: false),
        Panel(name: "PinePhone-like, no resolution", widthMM: 68, heightMM: 136, maxX: 720, maxY: 1440, reportsResolution: false, configuredSize: false),
        Panel(name: "10\" tablet, unequal resolutions", widthMM: 217, heightMM: 136, maxX: 4095, maxY: 4095, reportsResolution: true, configuredSize: false),
        Panel(name: "13\" convertible, no resolution", widthMM: 294, heightMM: 165, maxX: 2776, maxY: 1569, reportsResolution: false, configuredSize: false),
        Panel(name: "27\" Dell Canvas-like", widthMM: 596, heightMM: 334, maxX: 32767, maxY: 32767, reportsResolution: true, configuredSize: false),
        Panel(name: "32\" kiosk, configured size", widthMM: 698, heightMM: 393, maxX: 32767, maxY: 32767, reportsResolution: false, configuredSize: true),
        // The assumption's worst cases: nothing reported, nothing configured.
        Panel(name: "7\" landscape tablet, no resolution", widthMM: 154, heightMM: 92, maxX: 799, maxY: 479, reportsResolution: false, configuredSize: false),
        Panel(name: "32\" monitor, square axes, no resolution", widthMM: 698, heightMM: 393, maxX: 32767, maxY: 32767, reportsResolution: false, configuredSize: false),
    ]

    @Test(arguments: panels)
    func edgeSwipeFromTheLeft(panel: Panel) throws {
        var s = panel.script
        s.down(0, 1.5, panel.heightMM / 2); s.frame()
        s.drag([0], by: panel.widthMM * 0.6, 0, steps: 30)
        s.up(0); s.frame()
        let events = try s.run(geometry: panel.geometry)
        #expect(events.first?.kind == .edgeSwipe && events.first?.edge == .left)
        #expect(events.last?.committed == true)
        #expect(abs((events.last?.progress ?? 0) - 0.6) < 0.01)
    }

    @Test(arguments: panels)
    func swipeFromTheBottomEdge(panel: Panel) throws {
        var s = panel.script
        s.down(0, panel.widthMM / 2, panel.heightMM - 1.5); s.frame()
        s.drag([0], by: 1, -panel.heightMM * 0.3, steps: 8)  // a quick flick a third of the way up
        s.up(0); s.frame()
        let events = try s.run(geometry: panel.geometry)
        #expect(events.first?.edge == .bottom)
        #expect(events.last?.committed == true)  // short of half way, but flung
    }

    @Test(arguments: panels)
    func oneFingerSwipeUp(panel: Panel) throws {
        var s = panel.script
        s.down(0, panel.widthMM / 2, panel.heightMM * 0.7); s.frame()
        s.drag([0], by: 0, -min(60, panel.heightMM * 0.3), steps: 15)
        s.up(0); s.frame()
        let events = try s.run(geometry: panel.geometry)
        #expect(events.phases == ["pan:begin", "pan:update", "pan:end"])
        #expect(events.last?.direction == .up && events.last?.committed == true)
    }

    @Test(arguments: panels)
    func tapWithJitterIsATap(panel: Panel) throws {
        var s = panel.script
        s.down(0, panel.widthMM / 2, panel.heightMM / 2); s.frame()
        s.move(0, panel.widthMM / 2 + 0.8, panel.heightMM / 2 - 0.6); s.frame()
        s.up(0); s.frame()
        s.wait(0.5); s.frame()
        let events = try s.run(geometry: panel.geometry)
        #expect(events.phases == ["tap:begin", "tap:end"])
        #expect(events.allSatisfy { $0.taps == 1 && $0.fingers == 1 && abs($0.position.x - 0.5) < 0.01 })
    }

    /// A double tap a finger's width apart is one sequence on every panel (the distance is in mm).
    @Test(arguments: panels)
    func doubleTapIsOneSequence(panel: Panel) throws {
        var s = panel.script
        let (x, y) = (panel.widthMM / 2, panel.heightMM / 2)
        s.down(0, x, y); s.frame(); s.frame()
        s.up(0); s.frame()
        s.wait(0.15)
        s.down(0, x + 6, y + 4); s.frame(); s.frame()
        s.up(0); s.frame()
        let events = try s.run(geometry: panel.geometry)
        #expect(events.phases == ["tap:begin", "tap:update", "tap:end"])
        #expect(events.map { $0.taps } == [1, 2, 2])
        #expect(Set(events.map(\.id)).count == 1)
    }

    @Test(arguments: panels)
    func twoFingerScrollIsAPanAndSpreadIsAPinch(panel: Panel) throws {
        let cx = panel.widthMM / 2
        let cy = panel.heightMM / 2
        var scroll = panel.script
        scroll.down(0, cx - 10, cy); scroll.down(1, cx + 10, cy + 1); scroll.frame()
        scroll.drag([0, 1], by: 0, 40, steps: 15)
        scroll.up(0); scroll.up(1); scroll.frame()
        let pan = try scroll.run(geometry: panel.geometry)
        #expect(pan.first?.kind == .pan && pan.first?.fingers == 2)
        #expect(pan.last?.direction == .down)

        // People pinch bigger on bigger screens: fingers 20 mm apart spreading 15 mm each on a phone,
        // 6 % of the width apart spreading 5 % each on a monitor.
        let apart = max(10, panel.widthMM * 0.03)
        let spreadBy = max(15, panel.widthMM * 0.05)
        var spread = panel.script
        spread.down(0, cx - apart, cy); spread.down(1, cx + apart, cy); spread.frame()
        spread.animate([0, 1], steps: 15) { finger, f in
            finger == 0 ? (cx - apart - spreadBy * f, cy) : (cx + apart + spreadBy * f, cy)
        }
        spread.up(0); spread.up(1); spread.frame()
        let pinch = try spread.run(geometry: panel.geometry)
        #expect(pinch.first?.kind == .pinch)
        #expect(pinch.last?.scale ?? 0 > 1.5)
        #expect(pinch.last?.committed == true)
    }
}
