import Foundation
import Testing

/// `gesturectl bind --check --replay`: the bindings over a recording, offline, in its own time.
@Suite struct BindRehearsalTests {
    @Test func theBindingsRunOverARecordingAndSayWhatWouldFireAndWhy() throws {
        var recording = SyntheticRecording(leadIn: 0.2)
        recording.swipe(from: (1, 64), by: 30, 0)  // an edge swipe from the left
        recording.wait(0.5)
        recording.swipe(from: (36, 64), by: 0, 0, seconds: 3)  // a hold of 3 s
        recording.wait(0.5)
        recording.swipe(from: (36, 100), by: 0, -40)  // a pan up
        recording.wait(0.5)
        let directory = try PlotCommandTests.directory("rehearsal")
        let input = directory.appendingPathComponent("r.evemu")
        try recording.text.write(to: input, atomically: true, encoding: .utf8)
        let bindings = directory.appendingPathComponent("bindings.toml")
        try """
            [[binding]]
            edge = "left"
            command = ["back"]

            [[binding]]
            held_seconds = 2
            command = ["menu"]

            [[binding]]
            direction = "down"
            command = ["close"]
            """.write(to: bindings, atomically: true, encoding: .utf8)
        let r = try ReplayCommandTests.run(["bind", "--check", "--bindings", bindings.path, "--replay", input.path])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains("(edge-swipe end, 1 finger): binding 1 (") && $0.hasSuffix("fires -> back") }, "\(r.stdout)")
        // The hold's binding fires 2 s after the landing (recording time), not 2 s after the begin.
        let hold = try #require(lines.first { $0.contains("(hold begin, 1 finger): binding 2 (") }, "\(r.stdout)")
        let holdBegin = try #require(
            ReplayCommandTests.objects(try ReplayCommandTests.run(["replay", "--no-updates", input.path]).stdout)
                .first { $0["gesture"] as? String == "hold" && $0["phase"] as? String == "begin" })
        let began = try #require(holdBegin["time"] as? Double)
        let down = try #require(holdBegin["down_seconds"] as? Double)
        let firedAt = try #require(Double(hold.trimmingCharacters(in: .whitespaces).split(separator: " ")[0]))
        let origin = try #require(Double(String(recording.text.split(separator: "\n").first { $0.hasPrefix("E: ") }!.split(separator: " ")[1])))
        #expect(abs(firedAt - (began - origin - down + 2)) < 0.001, "\(hold); begin \(began), down \(down)")
        #expect(lines.contains { $0.contains("(pan end, 1 finger): fires nothing; closest was binding 3 (") && $0.hasSuffix("direction is up") }, "\(r.stdout)")
        #expect(lines.last == "2 firings")

        let without = try ReplayCommandTests.run(["bind", "--bindings", bindings.path, "--replay", input.path])
        #expect(without.status == 2 && without.stderr.contains("give --check too"))
    }
}
