import Foundation
import GestureClient
import GestureCore
import GestureProtocol
import Testing

/// `libinput record`'s recordings through the programs a user runs: `gesturectl replay`, `gesturectl plot`
/// and `gestured --replay`, on the real pairs of Tests/Fixtures/recordings/libinput-record (the same frames
/// recorded by libinput and by evemu-record in the QEMU guest).
@Suite struct LibinputRecordingTests {
    static let directory = "libinput-record/"

    /// Each output line as a JSON object, with `time` made relative to the first line's (each recorder
    /// counts time from its own start).
    static func relativeEvents(_ stdout: String) throws -> [NSDictionary] {
        let objects = try ReplayCommandTests.objects(stdout)
        let start = try #require(objects.first?["time"] as? Double)
        return objects.map { object in
            var copy = object
            copy["time"] = (((object["time"] as? Double ?? 0) - start) * 1e6).rounded()
            return copy as NSDictionary
        }
    }

    @Test(arguments: ["wacom-2f-top-swipe", "ep-4f-drag-down", "atmel-1f-drag-up-down"])
    func replayReadsLibinputsRecordingAsEvemus(name: String) throws {
        let path = ReplayCommandTests.recordings + Self.directory + name
        let yml = try ReplayCommandTests.run(["replay", path + ".yml"])
        let evemu = try ReplayCommandTests.run(["replay", path + ".evemu"])
        #expect(yml.status == 0, "\(yml.stderr)")
        #expect(evemu.status == 0)
        #expect(yml.stderr == evemu.stderr)
        let events = try Self.relativeEvents(yml.stdout)
        #expect(events.count > 50)
        let evemuEvents = try Self.relativeEvents(evemu.stdout)
        #expect(events == evemuEvents)
    }

    /// The plot is drawn on the recording's own clock from its first event: the same SVG, byte for byte.
    @Test func plotDrawsLibinputsRecordingAsEvemus() throws {
        let path = ReplayCommandTests.recordings + Self.directory + "wacom-2f-top-swipe"
        let yml = try ReplayCommandTests.run(["plot", "-o", "-", path + ".yml"])
        let evemu = try ReplayCommandTests.run(["plot", "-o", "-", path + ".evemu"])
        #expect(yml.status == 0, "\(yml.stderr)")
        #expect(yml.stdout.contains("<svg"))
        #expect(yml.stdout == evemu.stdout)
    }

    /// A UTF-8 byte order mark (an editor's) before a libinput recording or an evemu file is passed over:
    /// the recording reads as it does without one (it was read as evemu and refused with an evemu message).
    @Test(arguments: ["wacom-2f-top-swipe.yml", "wacom-2f-top-swipe.evemu"])
    func aByteOrderMarkIsPassedOver(_ name: String) throws {
        let directory = TemporaryDirectory()
        let text = try String(contentsOfFile: ReplayCommandTests.recordings + Self.directory + name, encoding: .utf8)
        let marked = directory.write("marked-" + name, "\u{FEFF}" + text)
        let plain = try ReplayCommandTests.run(["replay", ReplayCommandTests.recordings + Self.directory + name])
        let result = try ReplayCommandTests.run(["replay", marked])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(plain.stdout.count > 1000 && result.stdout == plain.stdout)
        // Through standard input too, where nothing is known of the file before it is read.
        let piped = try ReplayCommandTests.run(["replay", "-"], stdin: Data(("\u{FEFF}" + text).utf8))
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.stdout == plain.stdout)
    }

    /// A malformed libinput recording is refused as the evemu parser refuses one: file:line: what was
    /// expected, exit status 1.
    @Test func replayRefusesAMalformedRecordingWithItsLine() throws {
        let directory = TemporaryDirectory()
        let text = try String(contentsOfFile: ReplayCommandTests.recordings + Self.directory + "ep-4f-drag-down.yml", encoding: .utf8)
        let broken = text.replacingOccurrences(of: "- [  0,      0,   3,  53,     265]", with: "- [  0,      0,   3,  53]")
        #expect(broken != text)
        let path = directory.write("broken.yml", broken)
        let line = broken.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("- [  0,      0,   3,  53]") }! + 1
        let result = try ReplayCommandTests.run(["replay", path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("\(path):\(line): expected a kernel event \"[sec, usec, type, code, value]\", got 4 numbers"), "\(result.stderr)")
    }

    /// The daemon replays a libinput recording as a virtual device: a client receives, pass after pass,
    /// exactly what the recognizer makes of the recording offline.
    @Test func theDaemonReplaysALibinputRecording() throws {
        let recording = Self.directory + "wacom-2f-top-swipe.yml"
        let daemon = try Daemon(["--replay", Paths.recordings + recording, "--loop", "--speed", "4"])
        let expected = try expectedGestures(recording: recording, description: nil)
        #expect(expected.count > 50)
        let client = try daemon.connect()
        #expect(client.hello.devices.first?.name == "Wacom ISDv4 E6 Finger")
        try client.subscribe()
        // Gestures in flight when the client subscribed are not delivered: the first event is a begin.
        let first = try nextGesture(client, from: daemon)
        #expect(first.event.phase == .begin)
        let start = try #require(expected.firstIndex { canonical($0) == canonical(first.event) })
        for k in 1..<(expected.count + 5) {
            let next = try nextGesture(client, from: daemon)
            #expect(canonical(next.event) == canonical(expected[(start + k) % expected.count]), "event \(k)")
        }
    }
}
