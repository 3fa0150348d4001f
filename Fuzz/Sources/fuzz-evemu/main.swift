// The evemu recording parser (what `gesturectl replay` and `gestured --replay` read), and every recording
// it accepts run through the engine as a replay, its gestures checked like fuzz-engine's.
import FuzzSupport
import GestureCore
import GestureVocabulary
import RecordingFormats

runFuzzer(name: "fuzz-evemu") { bytes in
    let text = String(decoding: bytes, as: UTF8.self)
    fuzzCount("recordings")
    guard let recording = try? EvemuParser.parse(text: text, fileName: "fuzz.evemu") else { return }
    fuzzCount("parsed")
    fuzzCount("events", recording.events.count)
    for pair in zip(recording.events, recording.events.dropFirst()) {
        fuzzCheck(pair.0.timeMicroseconds <= pair.1.timeMicroseconds, "the parser accepted time going backwards")
    }
    guard let device = recording.device else { return }
    var stream = EngineStream(
        device: device, geometry: GeometrySettings(), settings: RecognizerSettings(),
        operations: replayOperations(recording.events))
    stream.startMicroseconds = recording.events.first?.timeMicroseconds ?? 0
    guard let gestures = runEngine(stream) else { return }
    fuzzCount("gesture-events", gestures.count)
    checkGestureStream(gestures)
}

/// The recording's events at their own times, as a replay feeds them.
func replayOperations(_ events: [InputEvent]) -> [EngineStream.Operation] {
    var ops: [EngineStream.Operation] = []
    var time = events.first?.timeMicroseconds ?? 0
    for e in events {
        if e.timeMicroseconds != time {
            let (delta, overflow) = e.timeMicroseconds.subtractingReportingOverflow(time)
            ops.append(.wait(microseconds: overflow ? .max : delta))
        }
        time = e.timeMicroseconds
        ops.append(.event(type: e.type, code: e.code, value: e.value))
    }
    return ops
}
