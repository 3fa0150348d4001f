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

    /// A 21.5-inch kiosk panel without resolution whose axes are both 0…4095 (common on such panels).
    static let squareAxesKiosk = DeviceDescription(
        name: "ILITEK Multi-Touch", properties: [INPUT_PROP.direct],
        axes: [
            ABS.mtSlot: AxisInfo(minimum: 0, maximum: 9), ABS.mtTrackingID: AxisInfo(minimum: 0, maximum: 65535),
            ABS.mtPositionX: AxisInfo(minimum: 0, maximum: 4095), ABS.mtPositionY: AxisInfo(minimum: 0, maximum: 4095),
        ])

    static func kioskEngine(_ text: String, device: DeviceDescription = squareAxesKiosk) throws -> GestureEngine {
        let configuration = try Configuration.parse(text: "[[device]]\nmatch_name = \"*\"\n" + text, fileName: "gestured.toml")
        return try GestureEngine(device: device, geometry: configuration.resolve(for: device, path: nil).geometry)
    }

    /// A diagonal on square axes is a square panel, silently before: now it warns, naming panel_aspect.
    @Test func aDiagonalOnSquareAxesWarnsAndTheAspectGivesTheRealSize() throws {
        let square = try Self.kioskEngine("panel_diagonal_inches = 21.5\n")
        // 546.1 mm / √2 = 386.2 mm a side.
        #expect(abs(square.geometry.deviceSizeMM.width - 386.15) < 0.05 && abs(square.geometry.deviceSizeMM.height - 386.15) < 0.05)
        let warning = try #require(square.deviceWarnings.first?.message)
        #expect(warning.contains("set panel_aspect") && warning.contains("0…4095 × 0…4095") && warning.contains("386.2 × 386.2 mm"), "\(warning)")

        let wide = try Self.kioskEngine("panel_diagonal_inches = 21.5\npanel_aspect = \"16:9\"\n")
        #expect(wide.deviceWarnings.isEmpty)
        // 21.5 inches at 16:9: 546.1 mm / √(1 + (16/9)²) = 267.7 mm high, 476.0 mm wide, the long side along x (the axes are equal).
        #expect(abs(wide.geometry.deviceSizeMM.width - 476.0) < 0.05 && abs(wide.geometry.deviceSizeMM.height - 267.74) < 0.05)
        #expect(wide.geometry.sizeDescription == "476 × 267.7 mm, from panel_diagonal_inches 21.5 and panel_aspect 16:9")

        // On a portrait panel the long side goes along y; the order the numbers are written in does not matter.
        let phone = try Self.kioskEngine("panel_diagonal_inches = 6\npanel_aspect = \"9:18\"\n", device: Self.phoneWithoutResolution)
        #expect(phone.geometry.deviceSizeMM.height > phone.geometry.deviceSizeMM.width * 1.99)
        // Axes of different ranges give no warning: their aspect is taken as the panel's.
        #expect(try Self.kioskEngine("panel_diagonal_inches = 6\n", device: Self.phoneWithoutResolution).deviceWarnings.isEmpty)
    }

    @Test func theAspectIsCheckedWhereItIsWritten() {
        #expect(
            errors("[[device]]\nmatch_name = \"*\"\npanel_aspect = \"16:9\"\n")
                == ["gestured.toml:3:1: device[1].panel_aspect: panel_aspect goes with panel_diagonal_inches in the same section (with panel_width_mm and panel_height_mm the aspect is already known)"])
        #expect(
            errors("[[device]]\nmatch_name = \"*\"\npanel_diagonal_inches = 20\npanel_aspect = \"16x9\"\n")
                == ["gestured.toml:4:1: device[1].panel_aspect: expected the panel's aspect as two positive numbers and a colon, such as \"16:9\", \"16:10\" or \"3:2\", got \"16x9\""])
        #expect(
            errors("[[device]]\nmatch_name = \"*\"\npanel_diagonal_inches = 20\npanel_aspect = \"9:0\"\n").count == 1)
        #expect(
            errors("[[device]]\nmatch_name = \"*\"\npanel_diagonal_inches = 20\npanel_aspect = \"10:1\"\n")
                == ["gestured.toml:4:1: device[1].panel_aspect: an aspect of 10:1 is wider than any panel (at most 4:1); check the two numbers"])
        #expect(
            errors("[[device]]\nmatch_name = \"*\"\npanel_diagonal_inches = 20\npanel_aspect = 1.7\n")
                == ["gestured.toml:4:1: device[1].panel_aspect: expected the panel's aspect as a string such as \"16:9\", got the number 1.7"])
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
