import GestureCore
#if canImport(Glibc)
import Glibc
#endif
import Testing

@testable import GestureConfig

/// Every message the loader can give, exactly as a user reads it.
@Suite("Error messages")
struct ErrorMessageTests {
    @Test func syntaxErrorsComeThroughWithLineAndColumn() {
        #expect(
            errors("[daemon]\nlog_level = \n")
                == ["gestured.toml:2:13: TOML syntax error: expected a value after '=', found the end of the line"])
        #expect(
            errors("[daemon]\nmax_clients = 1\nmax_clients = 2\n")
                == [
                    "gestured.toml:3:15: TOML syntax error: max_clients is already defined (line 2, as an integer); each key is set once"
                ])
    }

    @Test func outOfRangeNamesTheRangeAndUnit() {
        #expect(
            errors("[recognizer.pan]\ncommit_distance_mm = 0\n")
                == ["gestured.toml:2:1: recognizer.pan.commit_distance_mm: must be between 1 and 500 (mm), got 0"])
        #expect(
            errors("[recognizer]\n  velocity_window_seconds = 2.5\n")
                == ["gestured.toml:2:3: recognizer.velocity_window_seconds: must be between 0.01 and 0.5 (s), got 2.5"])
        #expect(
            errors("[recognizer.pan]\nmax_fingers = 12\n")
                == ["gestured.toml:2:1: recognizer.pan.max_fingers: must be between 1 and 10 (fingers), got 12"])
        #expect(
            errors("[recognizer]\npinch_differential_ratio = nan\n")
                == ["gestured.toml:2:1: recognizer.pinch_differential_ratio: must be between 0.05 and 10, got nan"])
        #expect(
            errors("[recognizer]\nslop_mm = inf\n")
                == ["gestured.toml:2:1: recognizer.slop_mm: must be between 0.5 and 20 (mm), got inf"])
    }

    @Test func wrongTypesSayWhatWasExpected() {
        #expect(
            errors(
                "[recognizer.pan]\nenabled = 1\nmin_fingers = 2.0\ncommit_distance_mm = \"15mm\"\n"
                    + "fling_velocity_mm_per_s = 1979-05-27\n")
                == [
                    "gestured.toml:2:1: recognizer.pan.enabled: expected true or false, got the integer 1",
                    "gestured.toml:3:1: recognizer.pan.min_fingers: expected a whole number (fingers), got the number 2.0",
                    "gestured.toml:4:1: recognizer.pan.commit_distance_mm: expected a number (mm), got the string \"15mm\"",
                    "gestured.toml:5:1: recognizer.pan.fling_velocity_mm_per_s: expected a number (mm/s), got the date 1979-05-27",
                ])
        #expect(
            errors("recognizer = 3\n")
                == ["gestured.toml:1:1: recognizer: expected a table ([recognizer]), got the integer 3"])
        #expect(
            errors("[recognizer]\npan = [1, 2]\n")
                == ["gestured.toml:2:1: recognizer.pan: expected a table ([recognizer.pan]), got an array of 2"])
        #expect(
            errors("[daemon]\nsocket_path = 5\nsocket_group = true\nlog_level = 3\n")
                == [
                    "gestured.toml:2:1: daemon.socket_path: expected a path string, got the integer 5",
                    "gestured.toml:3:1: daemon.socket_group: expected a group name, got the boolean true",
                    "gestured.toml:4:1: daemon.log_level: expected one of error, warning, notice, info, debug, got the integer 3",
                ])
    }

    @Test func unknownKeysSuggestTheClosestOne() {
        #expect(
            errors("[recognizer.pan]\ncomit_distance_mm = 10\n")
                == [
                    "gestured.toml:2:1: recognizer.pan.comit_distance_mm: unknown key in [recognizer.pan]; did you mean commit_distance_mm?"
                ])
        #expect(
            errors("[recognizer]\nedge_swipe.left.zone_mn = 3\n")
                == [
                    "gestured.toml:2:17: recognizer.edge_swipe.left.zone_mn: unknown key in [recognizer.edge_swipe.left]; did you mean zone_mm?"
                ])
        #expect(
            errors("[devices]\n")
                == ["gestured.toml:1:2: devices: unknown table in the top level; did you mean device?"])
        #expect(
            errors("[daemon]\nsocket-path = \"/run/x.sock\"\n")
                == ["gestured.toml:2:1: daemon.socket-path: unknown key in [daemon]; did you mean socket_path?"])
    }

    @Test func unknownKeysOfAnotherSectionSayWhereTheyBelong() {
        #expect(
            errors("[recognizer]\nrotation = 90\n")
                == ["gestured.toml:2:1: recognizer.rotation: unknown key in [recognizer]; rotation belongs in a [[device]] section"])
        #expect(
            errors("[daemon]\nslop_mm = 3\n[recognizer]\nsocket_mode = \"0660\"\n")
                == [
                    "gestured.toml:2:1: daemon.slop_mm: unknown key in [daemon]; slop_mm belongs in [recognizer]",
                    "gestured.toml:4:1: recognizer.socket_mode: unknown key in [recognizer]; socket_mode belongs in [daemon]",
                ])
        #expect(
            errors("[[device]]\nmatch_name = \"*\"\ndirections = 8\n[device.pan]\nslop_mm = 3\n")
                == [
                    "gestured.toml:3:1: device[1].directions: unknown key in a [[device]] section; directions belongs in [device.pan]",
                    "gestured.toml:5:1: device[1].pan.slop_mm: unknown key in [device.pan]; slop_mm belongs in the [[device]] section itself",
                ])
    }

    @Test func unknownKeysWithNothingCloseListTheAllowedKeys() {
        #expect(
            errors("[recognizer]\nzzzzzzzzzz = 1\n")
                == [
                    "gestured.toml:2:1: recognizer.zzzzzzzzzz: unknown key in [recognizer]; allowed here: slop_mm, angle_tolerance_degrees, velocity_window_seconds, pinch_differential_ratio, finger_landing_window_seconds, palm_size_mm, edge_swipe, pan, pinch, tap, hold"
                ])
        #expect(
            errors("[recognizer.edge_swipe.middle]\nenabled = true\n")
                == [
                    "gestured.toml:1:24: recognizer.edge_swipe.middle: unknown table in [recognizer.edge_swipe]; allowed here: enabled, min_fingers, max_fingers, commit_progress, commit_distance_mm, fling_velocity_mm_per_s, corners, withhold_max_seconds, left, right, top, bottom, zone_mm"
                ])
        #expect(
            errors("[[device]]\nmatch_name = \"*\"\n[device.pan]\nzone_mm = 3\n")
                == [
                    "gestured.toml:4:1: device[1].pan.zone_mm: unknown key in [device.pan]; allowed here: enabled, min_fingers, max_fingers, commit_distance_mm, fling_velocity_mm_per_s, directions, claim, claim_min_fingers, claim_max_fingers"
                ])
    }

    @Test func daemonValuesAreChecked() {
        #expect(
            errors(
                "[daemon]\nsocket_path = \"run/x.sock\"\nsocket_mode = 660\nsocket_group = \"a b\"\n"
                    + "log_level = \"warn\"\nmax_clients = 0\nclient_buffer_bytes = 10\n")
                == [
                    "gestured.toml:2:1: daemon.socket_path: must be an absolute path (starting with /), got \"run/x.sock\"",
                    "gestured.toml:3:1: daemon.socket_mode: expected an octal mode in a string such as \"0660\", got the integer 660; write it in quotes: socket_mode = \"0660\"",
                    "gestured.toml:4:1: daemon.socket_group: must be a group name (letters, digits, _, - and .), or empty to keep the daemon's group, got \"a b\"",
                    "gestured.toml:5:1: daemon.log_level: must be one of error, warning, notice, info, debug, got \"warn\" (did you mean warning?)",
                    "gestured.toml:6:1: daemon.max_clients: must be between 1 and 4096 (clients), got 0",
                    "gestured.toml:7:1: daemon.client_buffer_bytes: must be between 65536 and 268435456 (bytes), got 10",
                ])
        let long = "/run/" + String(repeating: "x", count: 103)
        #expect(
            errors("[daemon]\nsocket_path = \"\(long)\"\n")
                == ["gestured.toml:2:1: daemon.socket_path: is 108 bytes long; a Unix socket path can be at most 107"])
        #expect(
            errors("[daemon]\nsocket_path = \"/run/gestured/\"\n")
                == ["gestured.toml:2:1: daemon.socket_path: must name a file, not a directory, got \"/run/gestured/\""])
        #expect(
            errors("[daemon]\nsocket_path = \"/run/a\\u0000b\"\n")
                == ["gestured.toml:2:1: daemon.socket_path: must not contain a NUL character"])
        #expect(
            errors("[daemon]\nsocket_group = \"-wheel\"\n")
                == [
                    "gestured.toml:2:1: daemon.socket_group: must be a group name (letters, digits, _, - and .), or empty to keep the daemon's group, got \"-wheel\""
                ])
        #expect(
            errors("[daemon]\nsocket_mode = \"rw\"\n")
                == ["gestured.toml:2:1: daemon.socket_mode: must be an octal mode from \"0000\" to \"0777\" such as \"0660\", got \"rw\""])
        #expect(
            errors("[daemon]\nsocket_mode = \"1777\"\n")
                == ["gestured.toml:2:1: daemon.socket_mode: must be an octal mode from \"0000\" to \"0777\" such as \"0660\", got \"1777\""])
    }

    /// Issue 28, item 10 (issue 25, item 6): `socket_mode = 0660` takes one round trip. TOML itself refuses
    /// the leading zero, and its own advice (0o17) would only be refused next; the first message gives the
    /// line to write, and so does every other number a mode may be written as.
    @Test func aModeWrittenAsANumberIsToldTheLineToWriteTheFirstTime() {
        #expect(
            errors("[daemon]\nsocket_mode = 0660\n")
                == [
                    "gestured.toml:2:15: daemon.socket_mode: 0660 is not a number TOML reads (no leading zeros), and the key takes a mode string; write it in quotes: socket_mode = \"0660\""
                ])
        #expect(
            errors("[daemon]\nsocket_mode = 0o660\n")
                == [
                    "gestured.toml:2:1: daemon.socket_mode: expected an octal mode in a string such as \"0660\", got the integer 432; write it in quotes: socket_mode = \"0660\""
                ])
        #expect(
            errors("[daemon]\nsocket_mode = 0600 # owner only\n")
                == [
                    "gestured.toml:2:15: daemon.socket_mode: 0600 is not a number TOML reads (no leading zeros), and the key takes a mode string; write it in quotes: socket_mode = \"0600\""
                ])
        #expect(
            errors("daemon.socket_mode = 0640\n")
                == [
                    "gestured.toml:1:22: daemon.socket_mode: 0640 is not a number TOML reads (no leading zeros), and the key takes a mode string; write it in quotes: socket_mode = \"0640\""
                ])
        // The message's advice is taken at its word.
        #expect(errors("[daemon]\nsocket_mode = \"0660\"\n") == [])
        // Digits that are no mode, and a leading zero where no mode string is expected, keep TOML's own words.
        #expect(
            errors("[daemon]\nsocket_mode = 0999\n")
                == ["gestured.toml:2:15: TOML syntax error: '0999': a decimal number cannot start with a leading zero (write 0o17 for octal)"])
        #expect(
            errors("[daemon]\nmax_clients = 064\n")
                == ["gestured.toml:2:15: TOML syntax error: '064': a decimal number cannot start with a leading zero (write 0o17 for octal)"])
        #expect(
            errors("[daemon]\nsocket_mode = [0660]\n")
                == ["gestured.toml:2:16: TOML syntax error: '0660': a decimal number cannot start with a leading zero (write 0o17 for octal)"])
        #expect(
            errors("[daemon]\nsocket_mode = 0x1b0\n")
                == [
                    "gestured.toml:2:1: daemon.socket_mode: expected an octal mode in a string such as \"0660\", got the integer 432; write the mode in quotes, such as socket_mode = \"0660\""
                ])
    }

    @Test func otherWrongTypesAndValues() {
        #expect(
            errors(
                "[daemon]\nsocket_mode = true\nlog_level = \"loud\"\n[[device]]\nmatch_name = 1\nmatch_path = false\n"
                    + "match_id = \"*\"\n")
                == [
                    "gestured.toml:2:1: daemon.socket_mode: expected an octal mode in a string such as \"0660\", got the boolean true",
                    "gestured.toml:3:1: daemon.log_level: must be one of error, warning, notice, info, debug, got \"loud\"",
                    "gestured.toml:5:1: device[1].match_name: expected a glob string, got the integer 1",
                    "gestured.toml:6:1: device[1].match_path: expected a path glob string, got the boolean false",
                    "gestured.toml:7:1: device[1].match_id: must be \"vvvv:pppp\": vendor and product as 4 hex digits each (see `gesturectl devices` or /proc/bus/input/devices), got \"*\"",
                ])
        #expect(
            errors("[[device]]\nmatch_name = \"x\\\\\"\nmatch_path = \"/dev/[z-a]\"\n")
                == [
                    "gestured.toml:2:1: device[1].match_name: is not a valid glob: the pattern ends with a lone \\ (write \\\\ for a backslash)",
                    "gestured.toml:3:1: device[1].match_path: is not a valid glob: the range z-a is backwards",
                ])
    }

    @Test func daemonValuesThatLoad() throws {
        let daemon = try load(
            "[daemon]\nsocket_path = \"/tmp/g.sock\"\nsocket_mode = \"600\"\nsocket_group = \"\"\n"
                + "log_level = \"debug\"\nmax_clients = 2\nclient_buffer_bytes = 65536\n"
        ).daemon
        #expect(daemon.socketPath == "/tmp/g.sock")
        #expect(daemon.socketMode == 0o600)
        #expect(daemon.socketGroup == "")
        #expect(daemon.logLevel == .debug)
        #expect(daemon.maxClients == 2)
        #expect(daemon.clientBufferBytes == 65536)
        #expect(try load("[daemon]\nsocket_mode = \"0o640\"\nsocket_group = \"input\"\n").daemon.socketMode == 0o640)
        #expect(try load("[daemon]\nsocket_group = \"video-users_1.x\"\n").daemon.socketGroup == "video-users_1.x")
    }

    @Test func worldWritableSocketIsAWarning() throws {
        let configuration = try load("[daemon]\nsocket_mode = \"0666\"\n")
        #expect(configuration.daemon.socketMode == 0o666)
        #expect(
            configuration.warnings.map(\.description) == [
                "gestured.toml:2:1: daemon.socket_mode: 0666 lets every local user connect and watch gestures (touches on an on-screen keyboard among them); 0660 with socket_group limits it to that group"
            ])
    }

    @Test func deviceSectionsAreChecked() {
        #expect(
            errors("[device]\nmatch_name = \"x\"\n")
                == ["gestured.toml:1:2: device: device sections are an array of tables: write [[device]], not [device]"])
        #expect(
            errors("device = 3\n")
                == ["gestured.toml:1:1: device: expected [[device]] sections, got the integer 3"])
        #expect(
            errors("device = [1]\n")
                == ["gestured.toml:1:11: device[1]: expected a [[device]] table, got the integer 1"])
        #expect(
            errors("[[device]]\nrotation = 45\n")
                == [
                    "gestured.toml:1:1: device[1]: a [[device]] section needs match_name, match_id or match_path (match_name = \"*\" matches every device)",
                    "gestured.toml:2:1: device[1].rotation: must be 0, 90, 180 or 270 (degrees clockwise), got 45",
                ])
        #expect(
            errors("[[device]]\nmatch_name = \"*\"\nrotation = \"90\"\nflip_x = \"yes\"\n")
                == [
                    "gestured.toml:3:1: device[1].rotation: expected 0, 90, 180 or 270 (degrees clockwise), got the string \"90\"",
                    "gestured.toml:4:1: device[1].flip_x: expected true or false, got the string \"yes\"",
                ])
        #expect(
            errors("[[device]]\nmatch_id = \"04f3\"\nmatch_name = \"[abc\"\nmatch_path = \"event*\"\n")
                == [
                    "gestured.toml:2:1: device[1].match_id: must be \"vvvv:pppp\": vendor and product as 4 hex digits each (see `gesturectl devices` or /proc/bus/input/devices), got \"04f3\"",
                    "gestured.toml:3:1: device[1].match_name: is not a valid glob: a [ is not closed by ] (write \\[ for a bracket)",
                    "gestured.toml:4:1: device[1].match_path: must be an absolute path or glob such as \"/dev/input/by-path/*-event\", got \"event*\"",
                ])
        #expect(
            errors("[[device]]\nmatch_name = \"\"\nmatch_path = \"/dev/input/[[:digit:]]\"\nmatch_id = 5\n")
                == [
                    "gestured.toml:2:1: device[1].match_name: must not be empty (\"*\" matches every name)",
                    "gestured.toml:3:1: device[1].match_path: is not a valid glob: character classes such as [:digit:] are not supported; write [0-9]",
                    "gestured.toml:4:1: device[1].match_id: expected a \"vvvv:pppp\" string, got the integer 5",
                ])
    }

    @Test func calibrationNeedsSixFiniteNumbers() {
        #expect(
            errors(
                "[[device]]\nmatch_name = \"*\"\ncalibration = [1, 0, 0]\n[[device]]\nmatch_name = \"*\"\n"
                    + "calibration = [1, 0, nan, 0, \"x\", 0]\n[[device]]\nmatch_name = \"*\"\ncalibration = 1\n")
                == [
                    "gestured.toml:3:1: device[1].calibration: expected 6 numbers [a, b, c, d, e, f], got 3",
                    "gestured.toml:6:22: device[2].calibration[3]: must be a finite number, got nan",
                    "gestured.toml:6:30: device[2].calibration[5]: expected a number, got the string \"x\"",
                    "gestured.toml:9:1: device[3].calibration: expected an array of 6 numbers [a, b, c, d, e, f], got the integer 1",
                ])
    }

    @Test func panelSizeIsBothOrNeither() {
        #expect(
            errors("[[device]]\nmatch_name = \"*\"\npanel_width_mm = 100\n[[device]]\nmatch_name = \"*\"\npanel_height_mm = 100\n")
                == [
                    "gestured.toml:3:1: device[1].panel_width_mm: panel_height_mm must be given too (both panel sizes, or neither)",
                    "gestured.toml:6:1: device[2].panel_height_mm: panel_width_mm must be given too (both panel sizes, or neither)",
                ])
        #expect(
            errors("[[device]]\nmatch_name = \"*\"\npanel_width_mm = 5\npanel_height_mm = 100\n")
                == ["gestured.toml:3:1: device[1].panel_width_mm: must be between 10 and 2000 (mm), got 5"])
    }

    @Test func minFingersMustNotExceedMaxFingers() {
        #expect(
            errors("[recognizer.pan]\nmin_fingers = 6\n")
                == [
                    "gestured.toml:2:1: recognizer.pan: min_fingers (6) must not be more than max_fingers (5) (min_fingers set here, max_fingers from the built-in defaults)"
                ])
        #expect(
            errors("[recognizer.pinch]\nmax_fingers = 1\n")
                == ["gestured.toml:2:1: recognizer.pinch.max_fingers: must be between 2 and 10 (fingers), got 1"])
        #expect(
            errors("[recognizer.pan]\nmin_fingers = 3\n[[device]]\nmatch_name = \"*\"\npan.max_fingers = 2\n")
                == [
                    "gestured.toml:5:5: device[1].pan: min_fingers (3) must not be more than max_fingers (2) (max_fingers set here, min_fingers from [recognizer])"
                ])
        #expect(
            errors("[recognizer.pinch]\nmin_fingers = 4\nmax_fingers = 3\n")
                == ["gestured.toml:3:1: recognizer.pinch: min_fingers (4) must not be more than max_fingers (3)"])
        #expect(
            errors("[recognizer.edge_swipe]\nmin_fingers = 2\n")
                == [
                    "gestured.toml:2:1: recognizer.edge_swipe: min_fingers (2) must not be more than max_fingers (1) (min_fingers set here, max_fingers from the built-in defaults)"
                ])
        #expect(
            errors("[recognizer.pan]\nmax_fingers = 3\n[[device]]\nmatch_name = \"*\"\npan.min_fingers = 4\n")
                == [
                    "gestured.toml:5:5: device[1].pan: min_fingers (4) must not be more than max_fingers (3) (min_fingers set here, max_fingers from [recognizer])"
                ])
        #expect(
            errors("[[device]]\nmatch_name = \"*\"\n[device.pan]\nmax_fingers = 3\nmin_fingers = 4\n")
                == ["gestured.toml:5:1: device[1].pan: min_fingers (4) must not be more than max_fingers (3)"])
    }

    /// Claimed finger counts are a range too: a claim_min_fingers above claim_max_fingers would claim no
    /// gesture at all, silently.
    @Test func claimMinFingersMustNotExceedClaimMaxFingers() {
        #expect(
            errors("[recognizer.pan]\nclaim = true\nclaim_min_fingers = 4\nclaim_max_fingers = 3\n")
                == ["gestured.toml:4:1: recognizer.pan: claim_min_fingers (4) must not be more than claim_max_fingers (3)"])
        #expect(
            errors("[recognizer.pinch]\nclaim_min_fingers = 6\n")
                == [
                    "gestured.toml:2:1: recognizer.pinch: claim_min_fingers (6) must not be more than claim_max_fingers (5) (claim_min_fingers set here, claim_max_fingers from the built-in defaults)"
                ])
        #expect(errors("[recognizer.pan]\nclaim_min_fingers = 4\nclaim_max_fingers = 4\n").isEmpty)
    }

    /// A file with more problems than a person reads lists the first 100 and counts the rest, without
    /// building a message (a did-you-mean) for each.
    @Test func atMostAHundredProblemsAreListed() throws {
        let text = "[recognizer]\n" + (0..<250).map { "slop_mmx\($0) = 3\n" }.joined()
        do {
            _ = try Configuration.parse(text: text, fileName: "gestured.toml")
            Issue.record("250 unknown keys were accepted")
        } catch {
            #expect(error.diagnostics.count == 100)
            #expect(error.unlistedCount == 150 && error.problemCount == 250)
            #expect(error.diagnostics.first?.description == "gestured.toml:2:1: recognizer.slop_mmx0: unknown key in [recognizer]; did you mean slop_mm?")
            #expect(error.description.hasSuffix("\n... and 150 more problems (only the first 100 are listed)"))
        }
        #expect(errors("[recognizer]\n" + (0..<100).map { "slop_mmx\($0) = 3\n" }.joined()).count == 100)
    }

    @Test func everyProblemIsReportedOnePerLineInFileOrder() {
        let text = """
            [recognizer]
            slop_mm = 0
            [daemon]
            max_clients = -1
            [[device]]
            match_name = "*"
            rotation = 45
            """
        do {
            _ = try Configuration.parse(text: text, fileName: "/etc/gestured/gestured.toml")
            Issue.record("a broken file loaded")
        } catch {
            #expect(error.diagnostics.count == 3)
            #expect(
                error.description == """
                    /etc/gestured/gestured.toml:2:1: recognizer.slop_mm: must be between 0.5 and 20 (mm), got 0
                    /etc/gestured/gestured.toml:4:1: daemon.max_clients: must be between 1 and 4096 (clients), got -1
                    /etc/gestured/gestured.toml:7:1: device[1].rotation: must be 0, 90, 180 or 270 (degrees clockwise), got 45
                    """)
            #expect(error.diagnostics[0].keyPath == "recognizer.slop_mm")
            #expect(error.diagnostics[0].location == ConfigLocation(file: "/etc/gestured/gestured.toml", line: 2, column: 1))
        }
    }

    @Test func unreadableFilesNameThePathAndWhatToDo() {
        do {
            _ = try Configuration.load(path: "/nonexistent/gestured.toml")
            Issue.record("a missing file loaded")
        } catch {
            #expect(
                error.description
                    == "/nonexistent/gestured.toml: cannot open the configuration: No such file or directory (errno 2); check the path, or install the default config/gestured.toml there")
        }
        do {
            _ = try Configuration.load(path: "/")
            Issue.record("a directory loaded")
        } catch {
            #expect(
                error.description
                    == "/: cannot read the configuration: Is a directory (errno 21); give the path of the file itself")
        }
    }

    @Test func hugeFilesAreRefused() throws {
        // 1 MiB of comment lines and one byte more: the size limit is what stops the read.
        let line = Array("# padding\n".utf8)
        let path = try temporaryFile(bytes: Array(repeatElement(line, count: (1 << 20) / line.count + 1).joined()))
        defer { removeFile(path) }
        do {
            _ = try Configuration.load(path: path)
            Issue.record("a file over 1 MiB loaded")
        } catch {
            #expect(error.description == "\(path): is larger than 1048576 bytes; is this the configuration file?")
        }
    }

    @Test func onlyRegularFilesAreRead() throws {
        // /dev/zero never ends, and a FIFO's open waits for a writer (on SIGHUP that froze the daemon):
        // both are refused before they are opened.
        var template = Array("/tmp/gestured-config-fifo-XXXXXX".utf8CString)
        let directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        let fifo = directory + "/gestured.toml"
        #expect(mkfifo(fifo, 0o600) == 0)
        defer {
            unlink(fifo)
            rmdir(directory)
        }
        for (path, kind) in [("/dev/zero", "a character device"), (fifo, "a FIFO (named pipe)")] {
            do {
                _ = try Configuration.load(path: path)
                Issue.record("\(path) loaded")
            } catch {
                #expect(
                    error.description
                        == "\(path): cannot read the configuration: it is \(kind); the configuration must be a regular file")
            }
        }
    }

    @Test func invalidUTF8IsASyntaxError() throws {
        let path = try temporaryFile(bytes: Array("[daemon]\nsocket_group = \"".utf8) + [0xff, 0xfe] + Array("\"\n".utf8))
        defer { removeFile(path) }
        do {
            _ = try Configuration.load(path: path)
            Issue.record("invalid UTF-8 loaded")
        } catch {
            #expect(error.diagnostics.count == 1)
            #expect(error.description.hasPrefix("\(path):2:"))
            #expect(error.description.contains("TOML syntax error"))
        }
    }
}
