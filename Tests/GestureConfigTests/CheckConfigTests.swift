import GestureCore
import Testing

@testable import GestureConfig

@Suite("gestured --check-config")
struct CheckConfigTests {
    @Test func theDefaultFileChecksOK() {
        let path = repositoryRoot + "/config/gestured.toml"
        let result = Configuration.checkConfig(path: path)
        #expect(result.ok)
        #expect(
            result.message == """
                \(path): OK
                daemon: socket by who runs the daemon (/run/gestured/gestured.sock as root or gestured, else $XDG_RUNTIME_DIR/gestured.sock), mode 0660, group by who runs the daemon (gestured as root or gestured, else the user's own), at most 64 clients, 1048576-byte client buffers, log level info
                recognizer: built-in defaults
                devices: no [[device]] sections; every touchscreen uses the settings above
                exclusions: no [[exclusion]] sections; every edge zone is whole
                pointers: no [[pointer]] sections; each panel's own pointer key holds for every app
                values in force:
                  a device no [[device]] section matches: edge zones left 5 mm (edge_swipe.left.zone_mm), right 5 mm (edge_swipe.right.zone_mm), top 5 mm (edge_swipe.top.zone_mm), bottom 5 mm (edge_swipe.bottom.zone_mm), corner swipes on; slop 3 mm (slop_mm); angle tolerance 30° (angle_tolerance_degrees); no exclusions
                """)
    }

    @Test func aFileWithSettingsIsSummarised() throws {
        let path = try temporaryFile(
            bytes: Array(
                """
                [daemon]
                socket_path = "/run/gestured/gestured.sock"
                socket_mode = "0666"
                socket_group = ""
                [recognizer]
                slop_mm = 2.5
                pan.enabled = false
                [[device]]
                match_name = "Goodix*"
                match_id = "27c6:0111"
                rotation = 90
                panel_width_mm = 154
                panel_height_mm = 86
                calibration = [1, 0, 0, 0, 1, 0.5]
                pan.commit_distance_mm = 20
                [[device]]
                match_path = "/dev/input/event9"
                """.utf8))
        defer { removeFile(path) }
        let result = Configuration.checkConfig(path: path)
        #expect(result.ok)
        #expect(
            result.message == """
                \(path): OK
                daemon: socket /run/gestured/gestured.sock, mode 0666, group unchanged, at most 64 clients, 1048576-byte client buffers, log level info
                recognizer: built-in defaults except slop_mm = 2.5, pan.enabled = false
                devices: 2 [[device]] sections
                  device[1] at \(path):8:1: matches name "Goodix*" and id 27c6:0111; sets rotation = 90, calibration = [1, 0, 0, 0, 1, 0.5], panel 154 x 86 mm, pan.commit_distance_mm = 20
                  device[2] at \(path):16:1: matches path "/dev/input/event9"; sets nothing
                exclusions: no [[exclusion]] sections; every edge zone is whole
                pointers: no [[pointer]] sections; each panel's own pointer key holds for every app
                warning: \(path):3:1: daemon.socket_mode: 0666 lets every local user connect and watch gestures (touches on an on-screen keyboard among them); 0660 with socket_group limits it to that group
                values in force:
                  a device no [[device]] section matches: edge zones left 5 mm (edge_swipe.left.zone_mm), right 5 mm (edge_swipe.right.zone_mm), top 5 mm (edge_swipe.top.zone_mm), bottom 5 mm (edge_swipe.bottom.zone_mm), corner swipes on; slop 2.5 mm (slop_mm); angle tolerance 30° (angle_tolerance_degrees); no exclusions
                  a device only device[1] matches: edge zones left 5 mm (edge_swipe.left.zone_mm), right 5 mm (edge_swipe.right.zone_mm), top 5 mm (edge_swipe.top.zone_mm), bottom 5 mm (edge_swipe.bottom.zone_mm), corner swipes on; slop 2.5 mm (slop_mm); angle tolerance 30° (angle_tolerance_degrees); no exclusions
                  a device only device[2] matches: edge zones left 5 mm (edge_swipe.left.zone_mm), right 5 mm (edge_swipe.right.zone_mm), top 5 mm (edge_swipe.top.zone_mm), bottom 5 mm (edge_swipe.bottom.zone_mm), corner swipes on; slop 2.5 mm (slop_mm); angle tolerance 30° (angle_tolerance_degrees); no exclusions
                """)
    }

    /// Issue 38: `zone_mm` under [recognizer.edge_swipe] beside each edge's own (as the shipped file sets
    /// them) changes nothing, and says so; in a [[device]] section beside one edge's own, it sets the
    /// others. The values in force name the key that decides each zone, and the [[exclusion]] sections
    /// are listed.
    @Test func shadowedKeysExclusionsAndValuesInForceAreSaid() throws {
        let path = try temporaryFile(
            bytes: Array(
                """
                [recognizer.edge_swipe]
                zone_mm = 8
                left.zone_mm = 5
                right.zone_mm = 5
                top.zone_mm = 5
                bottom.zone_mm = 5
                [[device]]
                match_name = "Goodix*"
                edge_swipe.zone_mm = 7
                edge_swipe.top.zone_mm = 6
                [[exclusion]]
                app = ["sketch", "org.kde.*"]
                edges = ["left"]
                edge_position = [0.25, 0.75]
                [[exclusion]]
                device = "Goodix*"
                edges = ["bottom"]
                """.utf8))
        defer { removeFile(path) }
        let result = Configuration.checkConfig(
            path: path,
            devices: [
                CheckedDevice(label: "/dev/input/event5", description: DeviceDescription(name: "Goodix Capacitive TouchScreen", vendor: 0x27c6, product: 0x111), paths: ["/dev/input/event5"]),
                CheckedDevice(label: "/dev/input/event7", description: DeviceDescription(name: "ELAN Touchscreen"), paths: ["/dev/input/event7"]),
            ])
        #expect(result.ok)
        let lines = result.message.split(separator: "\n").map(String.init)
        #expect(lines.contains("exclusions: 2 [[exclusion]] sections"))
        #expect(lines.contains("  exclusion[1] at \(path):11:1: while the focused app matches \"sketch\" or \"org.kde.*\" (app_id globs, case-sensitive), on every device: left 0.25...0.75"))
        #expect(lines.contains("  exclusion[2] at \(path):15:1: whatever app is focused, on devices matching \"Goodix*\": bottom 0...1"))
        #expect(lines.contains("warning: \(path):2:1: recognizer.edge_swipe.zone_mm: is shadowed by recognizer.edge_swipe.left.zone_mm, recognizer.edge_swipe.right.zone_mm, recognizer.edge_swipe.top.zone_mm, recognizer.edge_swipe.bottom.zone_mm (lines 3, 4, 5, 6), which win over it wherever they are written, so it changes nothing: remove it, or set the value in those keys"))
        #expect(lines.contains("warning: \(path):9:12: device[1].edge_swipe.zone_mm: is shadowed by device[1].edge_swipe.top.zone_mm (line 10), which wins over it wherever it is written, so it sets only device[1].edge_swipe.left.zone_mm, device[1].edge_swipe.right.zone_mm, device[1].edge_swipe.bottom.zone_mm"))
        #expect(lines.contains("  a device no [[device]] section matches: edge zones left 5 mm (edge_swipe.left.zone_mm), right 5 mm (edge_swipe.right.zone_mm), top 5 mm (edge_swipe.top.zone_mm), bottom 5 mm (edge_swipe.bottom.zone_mm), corner swipes on; slop 3 mm (slop_mm); angle tolerance 30° (angle_tolerance_degrees); exclusions: left 0.25...0.75 while \"sketch\" or \"org.kde.*\" is focused (\(path):11:1)"))
        #expect(lines.contains("  /dev/input/event5 \"Goodix Capacitive TouchScreen\" (27c6:0111, device[1]): edge zones left 7 mm (edge_swipe.zone_mm), right 7 mm (edge_swipe.zone_mm), top 6 mm (edge_swipe.top.zone_mm), bottom 7 mm (edge_swipe.zone_mm), corner swipes on; slop 3 mm (slop_mm); angle tolerance 30° (angle_tolerance_degrees); exclusions: left 0.25...0.75 while \"sketch\" or \"org.kde.*\" is focused (\(path):11:1); bottom 0...1 always (\(path):15:1)"))
        #expect(lines.contains("  /dev/input/event7 \"ELAN Touchscreen\" (0000:0000, no [[device]] section): edge zones left 5 mm (edge_swipe.left.zone_mm), right 5 mm (edge_swipe.right.zone_mm), top 5 mm (edge_swipe.top.zone_mm), bottom 5 mm (edge_swipe.bottom.zone_mm), corner swipes on; slop 3 mm (slop_mm); angle tolerance 30° (angle_tolerance_degrees); exclusions: left 0.25...0.75 while \"sketch\" or \"org.kde.*\" is focused (\(path):11:1)"))
    }

    @Test func aBrokenFileListsItsErrors() throws {
        let path = try temporaryFile(bytes: Array("[recognizer]\nslop_mm = 0\nslop = 1\n".utf8))
        defer { removeFile(path) }
        let result = Configuration.checkConfig(path: path)
        #expect(!result.ok)
        #expect(
            result.message == """
                \(path):2:1: recognizer.slop_mm: must be between 0.5 and 20 (mm), got 0
                \(path):3:1: recognizer.slop: unknown key in [recognizer]; did you mean slop_mm?
                \(path): 2 errors; the file is not usable
                """)
    }
}
