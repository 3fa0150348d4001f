import Foundation
import Testing

/// `gesturectl plot`'s command line as a user meets it: what it refuses, with which message and exit status
/// (2 for a wrong command line, 1 for a file it cannot read or write, as `gesturectl replay`). The drawing
/// itself is checked on rendered pixels by tests/plot/test_plot.py.
@Suite struct PlotCommandTests {
    static let recordings = ReplayCommandTests.recordings

    static func directory(_ name: String) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("plot-\(name)-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func writesAnSVGOfTheRecordingAndItsGestures() throws {
        let out = try Self.directory("ok").appendingPathComponent("dell.svg")
        let r = try ReplayCommandTests.run(["plot", Self.recordings + "dell_canvas_touch.evemu", "-o", out.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.isEmpty)
        let svg = try String(contentsOf: out, encoding: .utf8)
        #expect(svg.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.hasSuffix("</svg>\n"))
        // The gestures are replay's: the same ids, kinds and outcomes.
        let replay = try ReplayCommandTests.objects(
            try ReplayCommandTests.run(["replay", "--no-updates", Self.recordings + "dell_canvas_touch.evemu"]).stdout)
        let begins = replay.filter { $0["phase"] as? String == "begin" }
        #expect(begins.count == 4)
        for begin in begins {
            let id = try #require(begin["id"] as? Int)
            let kind = try #require(begin["gesture"] as? String)
            #expect(svg.contains(">#\(id) \(kind), \(begin["fingers"] as? Int ?? 0) finger"), "gesture #\(id) not labelled")
        }
        #expect(svg.contains("#3 end: not committed"))  // the five-finger pinch
        #expect(svg.contains(">#1 tap, 2 fingers"))
    }

    /// Under the drawing: each gesture's reason (why it ended as it did) and each near miss, as `gesturectl
    /// explain` gives them. The Wacom top swipe lands 13.17 mm from the left and moves right along the top:
    /// with a 7 mm left zone (twice: 14 mm) it is a near miss of the left edge.
    @Test func listsTheGesturesReasonsAndTheNearMisses() throws {
        let dir = try Self.directory("reasons")
        let dell = dir.appendingPathComponent("dell.svg")
        #expect(try ReplayCommandTests.run(["plot", Self.recordings + "dell_canvas_touch.evemu", "-o", dell.path]).status == 0)
        let svg = try String(contentsOf: dell, encoding: .utf8)
        #expect(svg.contains("why: not committed: scale changed by 0.39 (pinch.commit_scale_change 0.4), rotated"), "the pinch's reason")
        #expect(svg.contains("why: no direction: moved 41° off the nearest axis (angle_tolerance_degrees 30)"), "the pan's reason")
        #expect(!svg.contains("Near misses"))

        let config = dir.appendingPathComponent("left7.toml")
        try "[recognizer.edge_swipe.left]\nzone_mm = 7\n".write(to: config, atomically: true, encoding: .utf8)
        let wacom = dir.appendingPathComponent("wacom.svg")
        let r = try ReplayCommandTests.run([
            "plot", "--config", config.path, "--device", Self.recordings + "Wacom_ISDv4_E6_Finger.desc",
            Self.recordings + "Wacom_ISDv4_E6_Finger.single-top-swipe.events", "-o", wacom.path,
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let near = try String(contentsOf: wacom, encoding: .utf8)
        #expect(near.contains("Near misses"))
        #expect(near.contains("edge-swipe: near miss, did not start: landed 13.2 mm from the left edge (edge_swipe.left.zone_mm 7)"))
    }

    @Test func missingOutputIsACommandLineError() throws {
        let r = try ReplayCommandTests.run(["plot", Self.recordings + "dell_canvas_touch.evemu"])
        #expect(r.status == 2)
        #expect(r.stderr == "gesturectl plot: no output file given; name the SVG to write with -o OUT.svg (- for standard output)\n")
        let dangling = try ReplayCommandTests.run(["plot", Self.recordings + "dell_canvas_touch.evemu", "-o"])
        #expect(dangling.status == 2)
        #expect(dangling.stderr == "gesturectl plot: -o needs a file name\n")
    }

    @Test func otherCommandLineErrors() throws {
        // Without a recording, the running daemon's device: none answers here.
        let none = try ReplayCommandTests.run(["plot", "--socket", "/nonexistent/gestured.sock", "-o", "x.svg"])
        #expect(none.status == 1)
        #expect(none.stderr.hasPrefix("gesturectl plot: cannot connect to /nonexistent/gestured.sock"), "\(none.stderr)")
        let focus = try ReplayCommandTests.run(["plot", "--focus", "foot", "-o", "x.svg"])
        #expect(focus.status == 2)
        #expect(focus.stderr.hasPrefix("gesturectl plot: --config and --focus go with a recording"), "\(focus.stderr)")
        let unknown = try ReplayCommandTests.run(["plot", "--bogus", "a.evemu", "-o", "x.svg"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.hasPrefix("gesturectl plot: unknown option '--bogus'"))
        let two = try ReplayCommandTests.run(["plot", "a.evemu", "b.evemu", "-o", "x.svg"])
        #expect(two.status == 2)
        #expect(two.stderr == "gesturectl plot: one recording at a time ('a.evemu' and 'b.evemu')\n")
        let help = try ReplayCommandTests.run(["plot", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.hasPrefix("usage: gesturectl plot [--device DESC] [--config FILE [--focus APP]] -o OUT.svg RECORDING\n"))
    }

    @Test func unreadableRecordingAndUnwritableOutput() throws {
        let dir = try Self.directory("files")
        let out = dir.appendingPathComponent("out.svg")
        let missing = try ReplayCommandTests.run(["plot", "/nonexistent/x.evemu", "-o", out.path])
        #expect(missing.status == 1)
        #expect(missing.stderr == "gesturectl plot: cannot read the recording /nonexistent/x.evemu: No such file or directory (errno 2)\n")
        #expect(!FileManager.default.fileExists(atPath: out.path), "an SVG was written for a recording that could not be read")

        let bad = dir.appendingPathComponent("bad.events")
        try "E: 0.1 0003 0035 5\nE: 0.1 0003 0036\n".write(to: bad, atomically: true, encoding: .utf8)
        let malformed = try ReplayCommandTests.run(["plot", "--device", Self.recordings + "EP0430M09.desc", bad.path, "-o", out.path])
        #expect(malformed.status == 1)
        #expect(malformed.stderr == "gesturectl plot: \(bad.path):2: expected \"E: <sec.usec> <type hex> <code hex> <value>\", got 3 fields\n")

        let eventsOnly = try ReplayCommandTests.run(["plot", Self.recordings + "Wacom_ISDv4_E6_Finger.single-top-swipe.events", "-o", out.path])
        #expect(eventsOnly.status == 1)
        #expect(eventsOnly.stderr.contains("has no device description; pass the device's .desc file with --device"))

        let unwritable = try ReplayCommandTests.run(["plot", Self.recordings + "dell_canvas_touch.evemu", "-o", "/nonexistent/dir/out.svg"])
        #expect(unwritable.status == 1)
        #expect(unwritable.stderr == "gesturectl plot: cannot write /nonexistent/dir/out.svg: No such file or directory (errno 2)\n")

        let broken = dir.appendingPathComponent("broken.toml")
        try "[recognizer]\nslop_mm = -1\n".write(to: broken, atomically: true, encoding: .utf8)
        let config = try ReplayCommandTests.run(["plot", "--config", broken.path, Self.recordings + "dell_canvas_touch.evemu", "-o", out.path])
        #expect(config.status == 1)
        #expect(config.stderr.hasPrefix("gesturectl plot: \(broken.path):2:"))
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }
}
