import GestureCore
import GestureVocabulary
import Testing

@testable import GestureConfig

/// Saying a panel's size once ("6-inch"), and every edge's zone at once.
@Suite struct PanelSizeAndZoneTests {
    /// A 1080 x 2160 panel without resolution: 6 inches with the axes' 1:2 aspect is 68.2 x 136.3 mm.
    static let phoneWithoutResolution = DeviceDescription(
        name: "Goodix Capacitive TouchScreen", properties: [INPUT_PROP.direct],
        axes: [
            ABS.mtSlot: AxisInfo(minimum: 0, maximum: 9), ABS.mtTrackingID: AxisInfo(minimum: 0, maximum: 65535),
            ABS.mtPositionX: AxisInfo(minimum: 0, maximum: 1080), ABS.mtPositionY: AxisInfo(minimum: 0, maximum: 2160),
        ])

    @Test func aDiagonalInInchesGivesTheSizeFromTheAxesAspect() throws {
        let configuration = try Configuration.parse(
            text: "[[device]]\nmatch_name = \"Goodix*\"\npanel_diagonal_inches = 6\n", fileName: "gestured.toml")
        let resolved = configuration.resolve(for: Self.phoneWithoutResolution, path: nil)
        #expect(abs((resolved.geometry.panelDiagonalMM ?? 0) - 152.4) < 1e-9)
        let engine = try GestureEngine(device: Self.phoneWithoutResolution, geometry: resolved.geometry)
        #expect(engine.geometry.sizeSource == .configured)
        #expect(abs(engine.geometry.deviceSizeMM.width - 68.16) < 0.01 && abs(engine.geometry.deviceSizeMM.height - 136.31) < 0.01)
        #expect(engine.deviceWarnings.isEmpty)
        // Without it the size is assumed, and the warning says what to set.
        let assumed = try GestureEngine(device: Self.phoneWithoutResolution)
        #expect(assumed.deviceWarnings.first?.message.contains("panel_diagonal_inches") == true)
    }

    @Test func theSizeIsGivenOnce() {
        #expect(
            errors("[[device]]\nmatch_name = \"*\"\npanel_width_mm = 70\npanel_height_mm = 140\npanel_diagonal_inches = 6\n")
                == [
                    "gestured.toml:5:1: device[1].panel_diagonal_inches: give the panel's size once: panel_diagonal_inches, or panel_width_mm and panel_height_mm, not both"
                ])
        #expect(
            errors("[[device]]\nmatch_name = \"*\"\npanel_diagonal_inches = 0.5\n")
                == ["gestured.toml:3:1: device[1].panel_diagonal_inches: must be between 1 and 100 (inches), got 0.5"])
    }

    @Test func zoneMMSetsEveryEdgeAndAnEdgesOwnWins() throws {
        for text in [
            "[recognizer.edge_swipe]\nzone_mm = 8\n[recognizer.edge_swipe.left]\nzone_mm = 12\n",
            "[recognizer.edge_swipe.left]\nzone_mm = 12\n[recognizer.edge_swipe]\nzone_mm = 8\n",
        ] {
            let r = try Configuration.parse(text: text, fileName: "gestured.toml").recognizer.edgeZones
            #expect(r[.left].widthMM == 12 && r[.right].widthMM == 8, "\(text)")
            #expect(r[.top].widthMM == 8 && r[.bottom].widthMM == 8, "\(text)")
            #expect(r[.left].enabled && r[.bottom].enabled)
        }
        let device = try Configuration.parse(
            text: "[[device]]\nmatch_name = \"*\"\nedge_swipe.zone_mm = 9\n", fileName: "gestured.toml")
        let resolved = device.resolve(for: Self.phoneWithoutResolution, path: nil)
        #expect(Edge.sides.allSatisfy { resolved.recognizer.edgeZones[$0].widthMM == 9 })
        #expect(
            errors("[recognizer.edge_swipe]\nzone_mm = 80\n")
                == ["gestured.toml:2:1: recognizer.edge_swipe.zone_mm: must be between 0.5 and 50 (mm), got 80"])
    }
}
