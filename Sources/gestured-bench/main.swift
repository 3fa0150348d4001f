// gestured-bench: frames per second through the frame assembler and recognizers, over the bundled
// recordings, on one core. Run with `make bench` (release build). Reports figures; asserts nothing. The
// last line, `bench: key=value …`, is the summary for scripts (docs/testing.md, "Benchmarks").
#if canImport(Glibc)
import Glibc
#endif
import CommandLineArguments
import Foundation
import GestureCore
import RecordingFormats

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}


struct Workload {
    var name: String
    var device: DeviceDescription
    var events: [InputEvent]
    var frames: Int
}

var directory = "Tests/Fixtures"
do {
    var arguments = Arguments(
        Array(CommandLine.arguments.dropFirst()), program: "gestured-bench",
        usage: "usage: gestured-bench [FIXTURES]   (the directory of recordings/, default Tests/Fixtures)\n")
    do {
        guard let operands = try arguments.operands(atMost: 1) else {
            print(arguments.usage, terminator: "")
            exit(0)
        }
        if let given = operands.first { directory = given }
    } catch {
        fail(arguments.message(for: error), status: 2)
    }
}
let recordings = directory.hasSuffix("recordings") ? directory : directory + "/recordings"
// The recordings with gestures, replayed with their device descriptions.
let pairs: [(String, String?)] = [
    ("n4.events", "n4.desc"),
    ("dell_canvas_touch.evemu", nil),
    ("Wacom_ISDv4_E6_Finger.double-center-circle.events", "Wacom_ISDv4_E6_Finger.desc"),
    ("Wacom_ISDv4_E6_Finger.double-top-swipe.events", "Wacom_ISDv4_E6_Finger.desc"),
    ("EP0430M09.4-finger-drag-down.events", "EP0430M09.desc"),
    ("QUANTA_OpticalTouchScreen.events", "QUANTA_OpticalTouchScreen.desc"),
]
var workloads: [Workload] = []
for (events, desc) in pairs {
    do {
        let recording = try RecordingFile.load("\(recordings)/\(events)", description: desc.map { "\(recordings)/\($0)" })
        let frames = recording.events.filter { $0.type == EV.syn && $0.code == SYN.report }.count
        workloads.append(Workload(name: events, device: recording.device, events: recording.events, frames: frames))
    } catch {
        fail("gestured-bench: \(error)\n")
    }
}

/// Runs the workload `repeats` times; returns seconds and a checksum of the output so nothing is
/// optimised away.
func run(_ w: Workload, repeats: Int) -> (Double, Int) {
    var checksum = 0
    var out = EngineOutput()
    out.events.reserveCapacity(64)
    let start = now()
    for _ in 0..<repeats {
        var engine = try! GestureEngine(device: w.device)
        for e in w.events {
            engine.process(e, into: &out)
            checksum &+= out.events.count
            out.removeAll()
        }
    }
    return (now() - start, checksum)
}

print("gestured-bench: frame assembler + recognizers, release build, one core")
print("recording".padding(48) + "frames".leftPad(8) + "frames/s".leftPad(14) + "ns/frame".leftPad(10))
var totalFrames = 0
var totalSeconds = 0.0
var checksum = 0
for w in workloads {
    _ = run(w, repeats: 5)  // warm up
    // Repeat until about half a second has passed, for a stable figure.
    var repeats = 50
    var (seconds, sum) = run(w, repeats: repeats)
    while seconds < 0.5 {
        repeats *= 2
        (seconds, sum) = run(w, repeats: repeats)
    }
    checksum &+= sum
    let frames = w.frames * repeats
    totalFrames += frames
    totalSeconds += seconds
    let fps = Double(frames) / seconds
    print(w.name.padding(48) + String(w.frames).leftPad(8) + String(Int(fps)).leftPad(14)
        + String(Int((seconds / Double(frames) * 1e9).rounded())).leftPad(10))
}
// Parsing: every recording of the fixtures, evemu's and `libinput record`'s, read from its file and parsed
// as `gesturectl replay` and the daemon's --replay do (RecordingFile.parse), repeated for a stable figure.
/// The recordings in `directory` whose names end in `suffix`, as paths.
func recordingFiles(in directory: String, endingIn suffixes: [String]) -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    return names.filter { name in suffixes.contains { name.hasSuffix($0) } }.sorted().map { directory + "/" + $0 }
}
let parseFiles: [String] =
    recordingFiles(in: recordings, endingIn: [".events", ".evemu"]) + recordingFiles(in: recordings + "/libinput-record", endingIn: [".yml"])
let parseBytes = parseFiles.reduce(0) { $0 + ((try? FileManager.default.attributesOfItem(atPath: $1)[.size] as? Int) ?? 0) }
func parseAll(repeats: Int) -> (seconds: Double, bytes: Int, events: Int) {
    var events = 0
    let start = now()
    for _ in 0..<repeats {
        for path in parseFiles {
            guard let recording = try? RecordingFile.parse(path) else { fail("gestured-bench: cannot parse \(path)\n") }
            events += recording.events.count
        }
    }
    return (now() - start, parseBytes * repeats, events)
}
_ = parseAll(repeats: 2)  // warm up
var parseRepeats = 4
var parsed = parseAll(repeats: parseRepeats)
while parsed.seconds < 1 {
    parseRepeats *= 2
    parsed = parseAll(repeats: parseRepeats)
}
print("parse: files=\(parseFiles.count) bytes=\(parsed.bytes / parseRepeats) repeats=\(parseRepeats) "
    + "mb_per_s=\(String(format: "%.1f", Double(parsed.bytes) / parsed.seconds / 1e6)) "
    + "ns_per_event=\(Int((parsed.seconds / Double(parsed.events) * 1e9).rounded()))")
let fps = Double(totalFrames) / totalSeconds
print("all".padding(48) + String(totalFrames).leftPad(8) + String(Int(fps)).leftPad(14)
    + String(Int((totalSeconds / Double(totalFrames) * 1e9).rounded())).leftPad(10))
print("target: over 1,000,000 frames/s (a touchscreen sends 60-240 frames/s); checksum \(checksum % 1000)")
// One line for scripts: key=value fields, always in this order.
print(
    "bench: recordings=\(workloads.count) frames=\(totalFrames) seconds=\(String(format: "%.3f", totalSeconds)) "
        + "frames_per_s=\(Int(fps)) ns_per_frame=\(Int((totalSeconds / Double(totalFrames) * 1e9).rounded()))")

extension String {
    func padding(_ n: Int) -> String { self.count >= n ? self + " " : self + String(repeating: " ", count: n - self.count) }
    func leftPad(_ n: Int) -> String { String(repeating: " ", count: max(0, n - self.count)) + self }
}

func fail(_ message: String, status: Int32 = 1) -> Never {
    print(message, terminator: "")
    exit(status)
}
