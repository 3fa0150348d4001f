import GestureProtocol
import RecordingFormats
import Testing

#if canImport(Glibc)
import Glibc
#endif

@testable import GestureCore

/// `libinput record`'s YAML (LibinputRecordParser): its layout as libinput 1.22 writes it, every real
/// recording of the fixtures rewritten in it reading back to the same device and events, the format told
/// from evemu's by content, and every malformed file refused with file:line and what was expected.
@Suite struct LibinputRecordTests {
    static let fixtures = RecordingGoldenTests.fixtures

    /// `device` and `events` as `libinput record` writes them (tools/libinput-record.c's layout: the
    /// header, the description comments, `- node:` at the margin, `- evdev:` frames of `- [sec, usec, type,
    /// code, value] # …` lines, the neutral-state comment), with `extras` (the hid, udev, quirks and
    /// libinput sections; `--with-libinput` events between the frames) when asked.
    static func libinputText(_ device: DeviceDescription, _ events: [InputEvent], extras: Bool = true) -> String {
        var out = "# libinput record\nversion: 1\nndevices: 1\nlibinput:\n  version: \"1.22.1\"\n  git: \"unknown\"\n"
        out += "system:\n  os: \"debian:12\"\n  kernel: \"6.1.0-28-amd64\"\n  dmi: \"dmi:bvnSeaBIOS:bvr1.16.2:svnQEMU:pnStandardPC(i440FX+PIIX,1996):\"\n"
        out += "devices:\n- node: /dev/input/event5\n  evdev:\n    # Name: \(device.name)\n    # Supported Events:\n    # Event type 0 (EV_SYN)\n"
        out += "    name: \"\(device.name)\"\n    id: [\(device.busType), \(device.vendor), \(device.product), \(device.version)]\n"
        out += "    codes:\n      0: [0, 1, 3] # EV_SYN\n"
        if !device.keys.isEmpty { out += "      1: [\(device.keys.sorted().map(String.init).joined(separator: ", "))] # EV_KEY\n" }
        out += "      3: [\(device.axes.keys.sorted().map(String.init).joined(separator: ", "))] # EV_ABS\n    absinfo:\n"
        for (code, a) in device.axes.sorted(by: { $0.key < $1.key }) {
            out += "      \(code): [\(a.minimum), \(a.maximum), \(a.fuzz), \(a.flat), \(a.resolution)]\n"
        }
        out += "    properties: [\(device.properties.sorted().map(String.init).joined(separator: ", "))]\n"
        if extras {
            out += "  hid: [5, 13, 9, 4, 161, 1, 133, 2 ]\n  udev:\n    properties:\n    - ID_INPUT=1\n    - ID_INPUT_TOUCHSCREEN=1\n"
            out += "  quirks:\n  - AttrSizeHint=262x164\n  libinput:\n    size: [262, 164]\n    capabilities: [touch]\n"
        }
        out += "  events:\n  # Current time is 10:11:12\n"
        var frameOpen = false
        for (i, e) in events.enumerated() {
            if !frameOpen {
                out += "  - evdev:\n"
                frameOpen = true
            }
            func padded(_ n: Int64, _ width: Int) -> String {
                let s = String(n)
                return String(repeating: " ", count: max(0, width - s.count)) + s
            }
            out += "    - [\(padded(e.timeMicroseconds / 1_000_000, 3)), \(padded(e.timeMicroseconds % 1_000_000, 6)), "
            out += "\(padded(Int64(e.type), 3)), \(padded(Int64(e.code), 3)), \(padded(Int64(e.value), 7))] # a comment, with: colons [and brackets]\n"
            if e.type == EV.syn && e.code == SYN.report {
                frameOpen = false
                if extras && i % 3 == 0 {
                    // What --with-libinput adds: libinput's own events, flow mappings, then perhaps the next
                    // kernel frame in the same list item.
                    out += "  - libinput:\n    - {time: 0.016000, type: TOUCH_MOTION, slot: 0, seat_slot: 0, point: [ 1.00, 2.00]}\n"
                    out += "    - {time: 0.016000, type: TOUCH_FRAME}\n"
                    if i + 1 < events.count {
                        out += "    evdev:\n"
                        frameOpen = true
                    }
                }
                if extras && i % 7 == 0 { out += "                                 # Touch device in neutral state\n" }
            }
        }
        return out
    }

    /// Every real recording of the fixtures, rewritten as libinput writes it, reads back to the same device
    /// (as far as libinput's format carries one: no LED or switch states) and the same events, so it replays
    /// to the same gestures.
    @Test(arguments: [
        ("dell_canvas_touch.evemu", nil), ("n4.events", "n4.desc"), ("QUANTA_OpticalTouchScreen.events", "QUANTA_OpticalTouchScreen.desc"),
        ("Wacom_ISDv4_E6_Finger.double-top-swipe.events", "Wacom_ISDv4_E6_Finger.desc"),
        ("Atmel_maXTouch_Touchscreen.4-finger-drag-down.events", "Atmel_maXTouch_Touchscreen.desc"),
        ("EP0430M09.2-finger-scroll-down.events", "EP0430M09.desc"), ("N-Trig_MultiTouch.1-finger-drag-NW-SE.events", "N-Trig_MultiTouch.desc"),
    ] as [(String, String?)])
    func aRealRecordingRewrittenReadsBackTheSame(events: String, desc: String?) throws {
        let evemu = try RecordingFile.load(Self.fixtures + events, description: desc.map { Self.fixtures + $0 })
        for extras in [true, false] {
            let text = Self.libinputText(evemu.device, evemu.events, extras: extras)
            #expect(RecordingFormat.of(text) == .libinputRecord)
            let read = try RecordingParser.parse(text: text, fileName: "rewritten.yml")
            #expect(read.device == evemu.device)
            #expect(read.events == evemu.events)
            #expect(read.events.count > 100)
        }
    }

    /// Real pairs (Tests/Fixtures/recordings/libinput-record): the same frames of a uinput panel recorded
    /// in the QEMU guest by `libinput record` 1.22.1 and by evemu-record at once. The libinput recording
    /// gives the device evemu's header describes and the same events (each recorder counts time from its
    /// own start, so times are compared from the first event), and so the same gestures.
    @Test(arguments: ["wacom-2f-top-swipe", "ep-4f-drag-down", "atmel-1f-drag-up-down"])
    func libinputsRecordingOfAPanelIsEvemusRecordingOfIt(name: String) throws {
        let directory = Self.fixtures + "libinput-record/"
        let yml = try RecordingFile.load(directory + name + ".yml")
        let evemu = try RecordingFile.load(directory + name + ".evemu")
        #expect(yml.device == evemu.device)
        func relative(_ events: [InputEvent]) -> [InputEvent] {
            let start = events.first?.timeMicroseconds ?? 0
            return events.map { InputEvent(timeMicroseconds: $0.timeMicroseconds - start, type: $0.type, code: $0.code, value: $0.value) }
        }
        #expect(yml.events.count > 500)
        #expect(yml.events.first?.timeMicroseconds == 0)
        #expect(relative(yml.events) == relative(evemu.events))
        let fromYML = try RecordingReplay.gestures(of: yml.events, device: yml.device).gestures
        let fromEvemu = try RecordingReplay.gestures(of: relative(evemu.events), device: evemu.device).gestures
        #expect(!fromYML.isEmpty)
        #expect(fromYML.map { GestureEventJSON.encode($0) } == fromEvemu.map { GestureEventJSON.encode($0) })
    }

    /// The layout of libinput's own man page example (an older libinput: the name unquoted, `hid` and a
    /// second device elided) and the values it holds.
    @Test func theManPageExampleReads() throws {
        let text = """
            version: 1
            ndevices: 2
            libinput:
              version: 1.10.0
            system:
              os: "fedora:26"
              kernel: "4.13.9-200.fc26.x86_64"
              dmi: "dmi:bvnLENOVO:bvrGJET72WW(2.22):bd02/21/2014:svnLENOVO:..."
            devices:
              - node: /dev/input/event9
                evdev:
                  # Name: Synaptics TM2668-002
                  #
                  name: Synaptics TM2668-002
                  id: [29, 1739, 0, 0]
                  codes:
                    0: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] # EV_SYN
                    1: [272, 325, 328, 330, 333, 334, 335] # EV_KEY
                    3: [0, 1, 24, 47, 48, 49, 52, 53, 54, 55, 57, 58] # EV_ABS
                  absinfo:
                    0: [0, 4089, 0, 0, 42]
                    1: [0, 2811, 0, 0, 41]
                    47: [0, 4, 0, 0, 0]
                    53: [0, 4089, 0, 0, 42]
                    54: [0, 2811, 0, 0, 41]
                    57: [0, 65535, 0, 0, 0]
                  properties: [0, 2, 4]
                udev:
                  properties:
                  - ID_INPUT_MOUSE=1
                  - ID_INPUT=1
                quirks:
                  - ModelAppleTouchpad=1
                  - AttrSizeHint=32x32
                events:
                  - evdev:
                    - [  0,      0,   3,  57,  1420] # EV_ABS / ABS_MT_TRACKING_ID   1420
                    - [  0,      0,   3,  53,  1218] # EV_ABS / ABS_MT_POSITION_X    1218
                    - [  0,      0,   1, 330,     1] # EV_KEY / BTN_TOUCH               1
                    - [  0,      0,   0,   0,     0] # ------------ SYN_REPORT (0) ------- +0ms
                  - evdev:
                    - [  0,  11879,   3,  53,  1330] # EV_ABS / ABS_MT_POSITION_X    1330
                    - [  0,  11879,   0,   0,     0] # ------------ SYN_REPORT (0) ------- +0ms

            """
        let recording = try LibinputRecordParser.parse(text: text, fileName: "man.yml")
        let device = try #require(recording.device)
        #expect(device.name == "Synaptics TM2668-002")
        #expect((device.busType, device.vendor, device.product, device.version) == (29, 1739, 0, 0))
        #expect(device.keys == [272, 325, 328, 330, 333, 334, 335])
        #expect(device.properties == [0, 2, 4])
        #expect(device.axes[ABS.mtPositionX] == AxisInfo(minimum: 0, maximum: 4089, resolution: 42))
        #expect(device.touchProtocol == .multitouchSlots(slotCount: 5))
        #expect(
            recording.events == [
                InputEvent(timeMicroseconds: 0, type: 3, code: 57, value: 1420), InputEvent(timeMicroseconds: 0, type: 3, code: 53, value: 1218),
                InputEvent(timeMicroseconds: 0, type: 1, code: 330, value: 1), InputEvent(timeMicroseconds: 0, type: 0, code: 0, value: 0),
                InputEvent(timeMicroseconds: 11879, type: 3, code: 53, value: 1330), InputEvent(timeMicroseconds: 11879, type: 0, code: 0, value: 0),
            ])
    }

    /// A recording of several devices (a keyboard and a touchscreen, say) replays its first device with
    /// touch axes, with that device's events; a name with quotes inside is taken as libinput wrote it.
    @Test func ofSeveralDevicesTheTouchscreenIsReplayed() throws {
        let text = """
            version: 1
            ndevices: 2
            devices:
            - node: /dev/input/event3
              evdev:
                name: "AT Translated Set 2 keyboard"
                id: [17, 1, 1, 43841]
                codes:
                  1: [1, 2, 3] # EV_KEY
                properties: []
              events:
              - evdev:
                - [  0,      0,   1,  30,       1] # EV_KEY / KEY_A 1 (obfuscated)
                - [  0,      0,   0,   0,       0] # ------------ SYN_REPORT (0) ---------- +0ms
            - node: /dev/input/event9
              evdev:
                name: "Panel "Pro" 2"
                id: [3, 1, 2, 3]
                codes:
                  1: [330] # EV_KEY
                  3: [0, 1] # EV_ABS
                absinfo:
                  0: [0, 1000, 0, 0, 10]
                  1: [0, 500, 0, 0, 10]
                properties: [1]
              events:
              - evdev:
                - [  0,   5000,   3,   0,     10]
                - [  0,   5000,   0,   0,      0]

            """
        let recording = try LibinputRecordParser.parse(text: text, fileName: "two.yml")
        #expect(recording.device?.name == "Panel \"Pro\" 2")
        #expect(recording.device?.touchProtocol == .singleTouch)
        #expect(recording.events.count == 2)
        #expect(recording.events.first == InputEvent(timeMicroseconds: 5000, type: 3, code: 0, value: 10))
    }

    /// By content, not by name: evemu's files (with or without their comment header, events alone or a
    /// description alone) are evemu's; libinput's start with a lower-case YAML key or `---`.
    @Test func theFormatIsToldByContent() throws {
        #expect(RecordingFormat.of("# EVEMU 1.3\n# Kernel: 6.1\nN: Panel\nI: 0018 04f3 2a1c 0100\n") == .evemu)
        #expect(RecordingFormat.of("E: 0.000001 0003 0039 0000\n") == .evemu)
        #expect(RecordingFormat.of("\n\n  # comment\nversion: 1\n") == .libinputRecord)
        #expect(RecordingFormat.of("# libinput record\r\nversion: 1\r\n") == .libinputRecord)
        #expect(RecordingFormat.of("---\nversion: 1\n") == .libinputRecord)
        #expect(RecordingFormat.of("devices:\n") == .libinputRecord)
        #expect(RecordingFormat.of("") == .evemu)
        #expect(RecordingFormat.of("garbage here\n") == .evemu)
        // A .yml name with evemu inside is read as evemu (the loader never looks at the name).
        let path = "/tmp/gestured-evemu-named-\(getpid()).yml"
        try RecordingFile.write("N: Panel\nI: 0018 04f3 2a1c 0100\nA: 00 0 100 0 0 0\nA: 01 0 100 0 0 0\nE: 1.000000 0000 0000 0\n", to: path)
        defer { unlink(path) }
        #expect(try RecordingFile.load(path).device.name == "Panel")
    }

    /// Every way a file can be wrong, each refused with the line and what was expected.
    @Test(arguments: [
        ("", "bad.yml: empty file; expected a libinput recording (version: 1, devices: …)"),
        ("version: 2\ndevices:\n- node: x\n", "bad.yml:1: file format version 2; gestured reads version 1 of libinput's recording format"),
        ("version: one\n", "bad.yml:1: \"version\" is a scalar, not a number"),
        ("ndevices: 1\n", "bad.yml:1: no \"version\"; a libinput recording starts with version: 1"),
        ("version: 1\nndevices: 1\n", "bad.yml:1: no \"devices\": the recording holds no device"),
        ("version: 1\ndevices: 3\n", "bad.yml:2: \"devices\" is a scalar; expected a list of devices (- node: …)"),
        ("version: 1\ndevices:\n- node: x\n", "bad.yml:3: the device has no \"evdev\" description (name, id, codes, absinfo)"),
        ("version: 1\ndevices:\n- evdev:\n    id: [1, 2, 3, 4]\n", "bad.yml:4: the device has no \"name\""),
        ("version: 1\ndevices:\n- evdev:\n    name: a\n    id: [1, 2, 3]\n", "bad.yml:5: \"id\" holds 3 numbers; expected 4"),
        ("version: 1\ndevices:\n- evdev:\n    name: a\n    id: [1, 2, 3, 70000]\n", "bad.yml:5: \"id\" holds 70000, not 0...65535"),
        ("version: 1\ndevices:\n- evdev:\n    name: a\n    id: [1, 2, 3, 4]\n    absinfo:\n      0: [9, 1, 0, 0, 0]\n",
         "bad.yml:7: axis 0 has minimum 9 above maximum 1"),
        ("version: 1\ndevices:\n- evdev:\n    name: a\n    id: [1, 2, 3, 4]\n    absinfo:\n      x: [0, 1, 0, 0, 0]\n",
         "bad.yml:7: \"absinfo\" has the key \"x\", not an axis code"),
        ("version: 1\ndevices:\n- evdev:\n    name: a\n    id: [1, 2, x, 4]\n", "bad.yml:5: \"id\" holds \"x\", not a number"),
        ("version: 1\ndevices:\n- events:\n  - evdev:\n    - [0, 0, 3, 0]\n", "bad.yml:5: expected a kernel event \"[sec, usec, type, code, value]\", got 4 numbers"),
        ("version: 1\ndevices:\n- events:\n  - evdev:\n    - [0, 1000000, 3, 0, 1]\n", "bad.yml:5: event microseconds 1000000 are not 0...999999"),
        ("version: 1\ndevices:\n- events:\n  - evdev:\n    - [0, 0, 70000, 0, 1]\n", "bad.yml:5: event type 70000 is not 0...65535"),
        ("version: 1\ndevices:\n- events:\n  - evdev:\n    - [0, 0, 3, 0, 4294967296]\n", "bad.yml:5: event value 4294967296 is not a 32-bit integer"),
        ("version: 1\ndevices:\n- events:\n  - evdev:\n    - [1, 0, 3, 0, 1]\n    - [0, 5, 3, 0, 1]\n",
         "bad.yml:6: event time goes backwards (0.000005 after 1.000000)"),
        ("version: 1\ndevices:\n- events:\n  - evdev:\n    - [0, 0, 3, 0, 1\n", "bad.yml:5: expected a kernel event \"[sec, usec, type, code, value]\": the list is not closed with ']'"),
        ("version: 1\ndevices:\n- events:\n  - evdev:\n    - EV_ABS 0 1\n", "bad.yml:5: expected a kernel event \"[sec, usec, type, code, value]\", got \"EV_ABS 0 1\""),
        ("version: 1\ndevices:\n- events:\n  - evdev:\n    - [0, 0, 3, 0, 1] x\n", "bad.yml:5: expected a comment or the end of the line after ']', got \"x\""),
        ("version: 1\n\tdevices:\n", "bad.yml:2: a tab in the indentation; YAML indents with spaces"),
        ("version: 1\n  devices:\n", "bad.yml:2: unexpected indentation: \"devices:\" belongs to no key above it"),
        ("version: 1\ndevices:\n- evdev:\n    name: a\n    id: [1, 2\n", "bad.yml:5: a list opened with '[' and not closed on its line"),
        ("version: 1\ndevices:\n- evdev:\n    name: \"a\n", "bad.yml:4: a string opened with \" and not closed on its line"),
        ("version: 1\nversion: 1\n", "bad.yml:2: the key \"version\" again in the same mapping"),
        ("version: 1\njust words\n", "bad.yml:2: expected \"key: value\", got \"just words\""),
        ("version: 1\ndevices:\n- evdev:\n    name: a\n      b\n", "bad.yml:5: unexpected indentation: \"b\" belongs to no key above it"),
        ("version: 1\ndevices:\n- evdev:\n    name:\n      a\n       b\n", "bad.yml:6: a value that goes on over more lines; a libinput recording writes each on one line"),
        ("version: 1\ndevices:\n- evdev:\n    name: a\n    id: [1,, 2, 3]\n", "bad.yml:5: an empty item between two commas in \"[1,, 2, 3]\""),
        ("version: 1\ndevices:\n- evdev:\n    name: \"a\u{1b}\"\n    id: [1, 2, 3, 4]\n    codes: [1]\n", "bad.yml:6: \"codes\" is a list in brackets; expected type: [codes]"),
    ])
    func malformedFilesAreRefusedWithTheLine(text: String, message: String) {
        do {
            _ = try LibinputRecordParser.parse(text: text, fileName: "bad.yml")
            Issue.record("parsed: \(text)")
        } catch {
            #expect(error.description == message)
        }
    }

    /// Nesting past the bound is refused before the recursion goes deeper (a hostile file cannot exhaust
    /// the stack).
    @Test func deepNestingIsRefused() {
        var text = "version: 1\n"
        for depth in 0..<200 { text += String(repeating: " ", count: depth) + "a:\n" }
        #expect(throws: RecordingError.self) { try LibinputRecordParser.parse(text: text, fileName: "deep.yml") }
        var dashes = "version: 1\ndevices:\n"
        for depth in 0..<200 { dashes += String(repeating: " ", count: depth * 2) + "-\n" }
        #expect(throws: RecordingError.self) { try LibinputRecordParser.parse(text: dashes, fileName: "deep.yml") }
    }

    /// Bytes deleted, inserted and replaced all over a real recording: each file is read or refused with a
    /// RecordingError, never a crash (a trap ends the test process).
    @Test func mutatedRecordingsNeverCrash() throws {
        let evemu = try RecordingFile.load(Self.fixtures + "Wacom_ISDv4_E6_Finger.single-top-swipe.events", description: Self.fixtures + "Wacom_ISDv4_E6_Finger.desc")
        let original = Array(Self.libinputText(evemu.device, Array(evemu.events.prefix(60))).utf8)
        let interesting: [UInt8] = Array("-[]{}:#,\"' \t\n\r0123456789x".utf8) + [0x00, 0xC3, 0xFF]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var refused = 0
        for _ in 0..<3000 {
            var bytes = original
            for _ in 0...next(3) {
                let at = next(bytes.count)
                switch next(3) {
                case 0: bytes.remove(at: at)
                case 1: bytes.insert(interesting[next(interesting.count)], at: at)
                default: bytes[at] = interesting[next(interesting.count)]
                }
            }
            do {
                _ = try LibinputRecordParser.parse(text: String(decoding: bytes, as: UTF8.self), fileName: "m.yml")
            } catch {
                refused += 1
                #expect(error.description.hasPrefix("m.yml"))
            }
        }
        #expect(refused > 100)
    }
}
