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
                warning: \(path):3:1: daemon.socket_mode: 0666 lets every local user connect and watch gestures (touches on an on-screen keyboard among them); 0660 with socket_group limits it to that group
                """)
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
