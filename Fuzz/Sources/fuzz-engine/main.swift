// The engine fed event streams built from the fuzzer's bytes (EngineStream), every stream's gestures
// checked against the invariants (checkGestureStream); then the same stream with passthrough on
// (runPassthrough: the engine's touch decisions and the TouchForwarder, the copy read back as a compositor
// reads it, nothing left down).
//
//   fuzz-engine [libFuzzer options] [corpus directories]
//   fuzz-engine --seed OUT_DIR RECORDING...   writes one corpus input per evemu recording (header and
//                                             events in one file, or DEVICE.desc:EVENTS.events)
//   fuzz-engine --print INPUT                  shows the device, operations and gestures an input makes
import FuzzSupport
import GestureCore
import GestureVocabulary

#if canImport(Glibc)
import Glibc
#endif

if CommandLine.arguments.count >= 2, CommandLine.arguments[1] == "--seed" {
    exit(seedEngineCorpus(Array(CommandLine.arguments.dropFirst(2))))
}
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "--print" {
    exit(printEngineStream(CommandLine.arguments[2]))
}

runFuzzer(name: "fuzz-engine") { bytes in
    let stream = EngineStream(bytes: bytes)
    fuzzCount("streams")
    guard let gestures = runEngine(stream) else { return }
    fuzzCount("input-operations", stream.operations.count)
    fuzzCount("gesture-events", gestures.count)
    checkGestureStream(gestures)
    // The same stream with passthrough on: the engine withholding and claiming, the forwarder writing the
    // copy's events.
    guard let passthroughGestures = runPassthrough(stream) else { return }
    fuzzCount("passthrough-streams")
    checkGestureStream(passthroughGestures, context: "(with passthrough)")
}
