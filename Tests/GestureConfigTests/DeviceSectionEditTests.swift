import GestureCore
import Testing

@testable import GestureConfig

/// `gesturectl tune --write`'s edit of a configuration file: the keys go into the device's [[device]]
/// section (or a new one), every other byte stays, and the result must give the device exactly the
/// proposed settings.
@Suite struct DeviceSectionEditTests {
    static let kiosk = touchscreen("Kiosk Panel", vendor: 0x1234, product: 0x5678)

    /// The settings `text` gives the kiosk, with `values` set on top: what the edited file must give.
    static func expected(_ text: String, _ values: [(key: String, value: Double)]) throws -> RecognizerSettings {
        var settings = try load(text).resolve(for: kiosk, paths: []).recognizer
        for (key, value) in values { RecognizerSettings.keys.first { $0.key == key }!.set(&settings, .number(value)) }
        return settings
    }

    static func edit(_ text: String, _ values: [(key: String, value: Double)]) throws -> DeviceSectionEdit {
        try DeviceSectionEdit(
            text: text, fileName: "gestured.toml", device: kiosk, paths: [], values: values, expected: try expected(text, values))
    }

    @Test func keysGoIntoTheMatchingSectionKeepingEverythingElse() throws {
        let original = """
            # my configuration
            [recognizer]
            slop_mm = 3   # the default

            [[device]]
            match_name = "Other Panel"
            rotation = 90

            [[device]]
            # the kiosk by the door
            match_name = "Kiosk Panel"
            slop_mm = 2.5
            grab = false

            [device.edge_swipe]
            left.zone_mm = 6    # widened by hand
            commit_distance_mm = 30

            [daemon]
            log_level = "info"

            """
        let values: [(key: String, value: Double)] = [
            ("edge_swipe.left.zone_mm", 10), ("edge_swipe.right.zone_mm", 9.5), ("slop_mm", 4), ("edge_swipe.commit_distance_mm", 18.5),
            ("angle_tolerance_degrees", 35),
        ]
        let e = try Self.edit(original, values)
        #expect(
            e.text == """
                # my configuration
                [recognizer]
                slop_mm = 3   # the default

                [[device]]
                match_name = "Other Panel"
                rotation = 90

                [[device]]
                # the kiosk by the door
                match_name = "Kiosk Panel"
                slop_mm = 4
                grab = false
                angle_tolerance_degrees = 35

                [device.edge_swipe]
                left.zone_mm = 10    # widened by hand
                commit_distance_mm = 18.5
                right.zone_mm = 9.5

                [daemon]
                log_level = "info"

                """)
        #expect(e.sectionLine == 9)
        #expect(!e.addedSection)
    }

    @Test func aDeviceWithoutASectionGetsOneAtTheEnd() throws {
        // No line ending at the end, CRLF lines: kept as they are, the new section after them.
        let original = "# settings\r\n[recognizer]\r\nslop_mm = 3\r\n\r\n[[device]]\r\nmatch_name = \"*\"\r\nrotation = 0"
        let e = try Self.edit(original, [("edge_swipe.left.zone_mm", 10)])
        #expect(
            e.text == original + "\n\n# Added by gesturectl tune for \"Kiosk Panel\".\n[[device]]\nmatch_name = \"Kiosk Panel\"\nedge_swipe.left.zone_mm = 10\n")
        #expect(e.addedSection)
        #expect(e.sectionLine == 10)
        // An empty file (or none) becomes the section alone.
        let fresh = try Self.edit("", [("slop_mm", 4)])
        #expect(fresh.text == "# Added by gesturectl tune for \"Kiosk Panel\".\n[[device]]\nmatch_name = \"Kiosk Panel\"\nslop_mm = 4\n")
    }

    @Test func aNameWithGlobCharactersIsMatchedLiterally() throws {
        let odd = touchscreen("Panel [v2] *new*")
        let e = try DeviceSectionEdit(
            text: "", fileName: "gestured.toml", device: odd, paths: [], values: [("slop_mm", 4)],
            expected: { var s = RecognizerSettings(); s.slopMM = 4; return s }())
        #expect(e.text.contains("match_name = \"Panel \\\\[v2\\\\] \\\\*new\\\\*\"\n"))
        let reread = try load(e.text)
        #expect(reread.resolve(for: odd, paths: []).recognizer.slopMM == 4)
        #expect(reread.resolve(for: touchscreen("Panel v new"), paths: []).recognizer.slopMM == 3)
    }

    @Test func aFileThatWouldNotGiveTheSettingsIsLeftAlone() throws {
        // An inline table cannot take another key: the edit does not load, and is refused.
        let inline = "[[device]]\nmatch_name = \"Kiosk Panel\"\nedge_swipe = { commit_distance_mm = 20 }\n"
        #expect(throws: ConfigError.self) { try Self.edit(inline, [("edge_swipe.left.zone_mm", 10)]) }
        // The settings wanted are not what the edited file gives: refused, with what to do.
        do {
            _ = try DeviceSectionEdit(
                text: "", fileName: "gestured.toml", device: Self.kiosk, paths: [], values: [("slop_mm", 4)], expected: RecognizerSettings())
            Issue.record("an edit that does not give the expected settings was accepted")
        } catch {
            #expect("\(error)".contains("the file is left as it is: add the lines above by hand"))
        }
    }
}
