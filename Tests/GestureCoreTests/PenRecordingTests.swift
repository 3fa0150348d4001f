import GestureVocabulary
import Testing

@testable import GestureCore
import RecordingFormats

/// Replays of a touchscreen with its pen recorded beside it: `libinput record` of both devices in one file
/// (the panel is the device that is no pen, the pen's events come with it), `PenChange.changes` over
/// several pens, and `RecordingReplay` feeding the changes between the panel's events.
@Suite struct PenRecordingTests {
    /// A `libinput record` of a pen (listed first) and the test phone, on one clock: the pen comes into
    /// proximity at `penIn` and leaves at `penOut` (seconds), while one finger swipes in from the left edge
    /// from 0.2 s on.
    static func recording(penIn: Double, penOut: Double) -> String {
        func t(_ seconds: Double) -> String {
            let us = Int64((seconds * 1_000_000).rounded())
            return "\(us / 1_000_000), \(us % 1_000_000)"
        }
        var text = """
            version: 1
            ndevices: 2
            libinput:
              version: "1.22.1"
            devices:
            - node: /dev/input/event6
              evdev:
                name: "Test Pen"
                id: [24, 1386, 20806, 256]
                codes:
                  0: [0, 1, 3] # EV_SYN
                  1: [320, 321, 330, 331] # EV_KEY
                  3: [0, 1, 24] # EV_ABS
                absinfo:
                  0: [0, 1000, 0, 0, 10]
                  1: [0, 1600, 0, 0, 10]
                  24: [0, 4095, 0, 0, 0]
                properties: [1]
              events:
              - evdev:
                - [\(t(penIn)), 1, 320, 1]
                - [\(t(penIn)), 3, 0, 300]
                - [\(t(penIn)), 0, 0, 0]
              - evdev:
                - [\(t((penIn + penOut) / 2)), 3, 0, 320]
                - [\(t((penIn + penOut) / 2)), 0, 0, 0]
              - evdev:
                - [\(t(penOut)), 1, 320, 0]
                - [\(t(penOut)), 0, 0, 0]
            - node: /dev/input/event5
              evdev:
                name: "Test Phone"
                id: [24, 1, 2, 1]
                codes:
                  0: [0, 1, 3] # EV_SYN
                  1: [330] # EV_KEY
                  3: [0, 1, 47, 53, 54, 57] # EV_ABS
                absinfo:
                  0: [0, 1000, 0, 0, 10]
                  1: [0, 1600, 0, 0, 10]
                  47: [0, 9, 0, 0, 0]
                  53: [0, 1000, 0, 0, 10]
                  54: [0, 1600, 0, 0, 10]
                  57: [0, 65535, 0, 0, 0]
                properties: [1]
              events:
              - evdev:
                - [\(t(0.2)), 3, 47, 0]
                - [\(t(0.2)), 3, 57, 10]
                - [\(t(0.2)), 3, 53, 5]
                - [\(t(0.2)), 3, 54, 800]
                - [\(t(0.2)), 1, 330, 1]
                - [\(t(0.2)), 0, 0, 0]

            """
        for step in 1...20 {
            let time = 0.2 + Double(step) * 0.01
            text += "  - evdev:\n    - [\(t(time)), 3, 53, \(5 + step * 30)]\n    - [\(t(time)), 0, 0, 0]\n"
        }
        text += "  - evdev:\n    - [\(t(0.42)), 3, 57, -1]\n    - [\(t(0.42)), 1, 330, 0]\n    - [\(t(0.42)), 0, 0, 0]\n"
        return text
    }

    static func gestures(_ text: String) throws -> [GestureEvent] {
        let recording = try LibinputRecordParser.parse(text: text, fileName: "pen.yml")
        let device = try #require(recording.device)
        var replay = RecordingReplay(engine: try GestureEngine(device: device))
        var gestures: [GestureEvent] = []
        replay.run(recording.events, pen: PenChange.changes(of: recording.pens)) { gestures += $0.gestures }
        return gestures
    }

    @Test func thePanelIsTheDeviceThatIsNoPenAndThePenComesWithIt() throws {
        let recording = try LibinputRecordParser.parse(text: Self.recording(penIn: 0.1, penOut: 0.3), fileName: "pen.yml")
        #expect(recording.device?.name == "Test Phone")
        #expect(recording.pens.count == 1)
        #expect(PenChange.changes(of: recording.pens) == [
            PenChange(inProximity: true, timeMicroseconds: 100_000), PenChange(inProximity: false, timeMicroseconds: 300_000),
        ])
    }

    @Test func theSwipeWithThePenNearIsNone() throws {
        // The pen near from before the swipe: none; the pen left long before: an edge swipe.
        #expect(try Self.gestures(Self.recording(penIn: 0.1, penOut: 0.3)).isEmpty)
        let far = try Self.gestures(Self.recording(penIn: 0.01, penOut: 0.02))  // 0.18 s before: still none
        #expect(far.isEmpty)
        // Without the pen's changes the same touches are an edge swipe.
        let recording = try LibinputRecordParser.parse(text: Self.recording(penIn: 0.1, penOut: 0.3), fileName: "pen.yml")
        let free = try RecordingReplay.gestures(of: recording.events, device: try #require(recording.device)).gestures
        #expect(free.phases == ["edge-swipe:begin", "edge-swipe:update", "edge-swipe:end"])
    }

    @Test func changesOfSeveralPensTakenTogether() {
        func frame(_ t: Int64, _ code: UInt16, _ v: Int32) -> [InputEvent] {
            [InputEvent(timeMicroseconds: t, type: EV.key, code: code, value: v), InputEvent(timeMicroseconds: t, type: EV.syn, code: SYN.report, value: 0)]
        }
        // A pen near from 1 to 4, another (an eraser) from 2 to 3 and from 5 to 6: near from 1 to 4, 5 to 6.
        let pen = frame(1, BTN.toolPen, 1) + frame(4, BTN.toolPen, 0)
        let rubber = frame(2, BTN.toolRubber, 1) + frame(3, BTN.toolRubber, 0) + frame(5, BTN.toolRubber, 1) + frame(6, BTN.toolRubber, 0)
        #expect(PenChange.changes(of: [pen, rubber]).map { "\($0.inProximity ? "in" : "out")@\($0.timeMicroseconds)" } == ["in@1", "out@4", "in@5", "out@6"])
        #expect(PenChange.changes(of: []).isEmpty)
    }
}
