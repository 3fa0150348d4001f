import Testing
@testable import GestureCore
import RecordingFormats

@Suite struct EvemuParserTests {
    static let header = """
        # EVEMU 1.3
        # Input device name: "Panel"
        N: Test Panel
        I: 0018 04f3 2a1c 0100
        P: 02 00 00 00 00 00 00 00
        B: 00 0b 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 04 00 00 00 00 00 00
        B: 03 03 00 00 00 00 80 e0 02
        A: 00 0 3312 0 0 10
        A: 01 0 1872 0 0 10
        A: 2f 0 9 0 0 0
        A: 35 0 3312 0 0 10
        A: 36 0 1872 0 0 10
        A: 39 0 65535 0 0 0

        """

    /// EV_KEY bitmask bytes past 8 KiB name key codes above UInt16.max: converting them trapped, so a
    /// recording with too many B: 01 lines killed `gestured --replay` and `gesturectl replay`. Codes no
    /// input_event can carry are dropped.
    @Test func keyBitsBeyondSixteenBitCodesAreDroppedNotATrap() throws {
        let manyKeyLines = String(repeating: "B: 01 ff ff ff ff ff ff ff ff\n", count: 1100)  // 70,400 key bits
        let recording = try EvemuParser.parse(
            text: EvemuParserTests.header + manyKeyLines + "E: 1.000000 0000 0000 0\n", fileName: "keys.evemu")
        let device = try #require(recording.device)
        #expect(device.keys.contains(BTN.touch))
        #expect(device.keys.contains(UInt16.max))
    }

    @Test func headerAndEvents() throws {
        let text = EvemuParserTests.header + """
            E: 1330495962.164908 0003 0039 3
            E: 1330495962.164911 0003 0035 120
            E: 0.000001 0000 0000 0000\t# evemu 2 writes comments after the fields
            """
        // The third event goes back in time: reported with its line.
        #expect(throws: RecordingError(fileName: "x.evemu", line: 22,
            message: "event time goes backwards (0.000001 after 1330495962.164911)")) {
            try EvemuParser.parse(text: text, fileName: "x.evemu")
        }
        let ok = try EvemuParser.parse(
            text: EvemuParserTests.header + "E: 1.5 0003 0039 -001\t# EV_ABS / ABS_MT_TRACKING_ID -1\r\nE: 1.500001 0000 0000 0000\n",
            fileName: "x.evemu")
        let d = try #require(ok.device)
        #expect(d.name == "Test Panel")
        #expect(d.vendor == 0x04f3 && d.product == 0x2a1c && d.busType == 0x18)
        #expect(d.vendorProduct == "04f3:2a1c")
        #expect(d.isDirect)
        #expect(d.keys == [BTN.touch])
        #expect(d.axes[ABS.mtPositionX]?.resolution == 10)
        #expect(d.touchProtocol == .multitouchSlots(slotCount: 10))
        #expect(ok.events == [
            InputEvent(timeMicroseconds: 1_500_000, type: 3, code: 0x39, value: -1),
            InputEvent(timeMicroseconds: 1_500_001, type: 0, code: 0, value: 0),
        ])
    }

    @Test func eventsOnlyFileHasNoDevice() throws {
        let r = try EvemuParser.parse(text: "E: 0.1 0003 0035 5\nE: 0.1 0000 0000 0\n", fileName: "e")
        #expect(r.device == nil)
        #expect(r.events.count == 2)
        #expect(r.events[0].timeMicroseconds == 100_000)
    }

    @Test func evemu10AxisLinesWithoutResolution() throws {
        let r = try EvemuParser.parse(text: "N: Old\nA: 35 0 32760 31 0\nA: 36 0 32760 31 0\nA: 2f 0 1 0 0\n", fileName: "p")
        #expect(r.device?.axes[ABS.mtPositionX] == AxisInfo(minimum: 0, maximum: 32760, fuzz: 31, flat: 0, resolution: 0))
    }

    @Test(arguments: [
        ("E: 1.0 0003 0035\n", 1, "expected \"E: <sec.usec> <type hex> <code hex> <value>\", got 3 fields"),
        ("E: abc 0003 0035 1\n", 1, "expected a timestamp <seconds>.<microseconds>, got \"abc\""),
        ("E: 1.1234567 0003 0035 1\n", 1, "expected a timestamp <seconds>.<microseconds>, got \"1.1234567\""),
        ("E: 1.0 00zz 0035 1\n", 1, "event type \"00zz\" is not hex"),
        ("E: 1.0 0003 0035 99999999999\n", 1, "event value \"99999999999\" is not a 32-bit decimal integer"),
        ("\n\nhello\n", 3, "expected a line starting with N:, I:, P:, B:, A: or E: (or a # comment), got \"hello\""),
        ("X: 1 2\n", 1, "unknown line type \"X:\"; expected N:, I:, P:, B:, A: or E:"),
        ("A: 35 0\n", 1, "expected \"A: <code hex> <min> <max> <fuzz> <flat> [<resolution>]\", got \"A: 35 0\""),
        ("A: 35 10 5 0 0\n", 1, "axis 0x35 has minimum 10 above maximum 5"),
        ("I: 0003 zz 0001 0001\n", 1, "expected \"I: <bus> <vendor> <product> <version>\" in hex, got \"I: 0003 zz 0001 0001\""),
        ("B: 01 00 0g\n", 1, "expected B: <event type> <bitmask bytes in hex>, \"0g\" is not a hex byte"),
    ])
    func malformedLinesNameFileLineAndExpectation(text: String, line: Int, message: String) {
        #expect(throws: RecordingError(fileName: "bad.events", line: line, message: message)) {
            try EvemuParser.parse(text: text, fileName: "bad.events")
        }
    }

    @Test func errorDescriptionIsFileLineMessage() {
        #expect(RecordingError(fileName: "a.events", line: 7, message: "m").description == "a.events:7: m")
    }

    @Test func binaryGarbageIsAnErrorNotACrash() {
        let garbage = String(decoding: (0..<2000).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }, as: UTF8.self)
        #expect(throws: RecordingError.self) { try EvemuParser.parse(text: garbage, fileName: "g") }
    }
}
