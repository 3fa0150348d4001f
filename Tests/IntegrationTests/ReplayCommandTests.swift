import Foundation
import Testing

/// `gesturectl replay` as a user runs it: the real binary, real files, exit status and output.
@Suite struct ReplayCommandTests {
    static let packageRoot: String = {
        var path = #filePath  // …/Tests/IntegrationTests/ReplayCommandTests.swift
        for _ in 0..<3 { path = String(path[..<path.lastIndex(of: "/")!]) }
        return path
    }()
    static let recordings = packageRoot + "/Tests/Fixtures/recordings/"

    /// The gesturectl built next to this test bundle.
    static let gesturectl: String = {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for dir in [beside, beside.deletingLastPathComponent()] {
            let candidate = dir.appendingPathComponent("gesturectl").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return packageRoot + "/.build/debug/gesturectl"
    }()

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func run(_ args: [String], stdin: Data? = nil) throws -> Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: gesturectl)
        p.arguments = args
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = input
        try p.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Result(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }

    static func objects(_ stdout: String) throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    /// `--forward`: a centre scroll reaches the virtual device event for event (no touch of it is a system
    /// gesture's), under the virtual device's header; the gestures print as without it.
    @Test func forwardWritesWhatTheVirtualDeviceReceives() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("gestured-forward-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("forward.evemu").path
        let desc = Self.recordings + "Wacom_ISDv4_E6_Finger.desc"
        let events = Self.recordings + "Wacom_ISDv4_E6_Finger.single-center-scroll.events"
        let plain = try Self.run(["replay", "--device", desc, events])
        let forwarded = try Self.run(["replay", "--forward", out, "--device", desc, events])
        #expect(forwarded.status == 0, "\(forwarded.stderr)")
        #expect(forwarded.stdout == plain.stdout)
        let written = try String(contentsOfFile: out, encoding: .utf8)
        #expect(written.contains("N: Wacom ISDv4 E6 Finger\n"))
        // The panel's ABS_MT_TOOL_TYPE stops at MT_TOOL_PEN; the copy's reaches MT_TOOL_PALM.
        #expect(written.contains("A: 37 0 2 0 0 0\n"))
        func fields(_ text: String) -> [String] {
            text.split(separator: "\n").filter { $0.hasPrefix("E:") }.map { $0.split(separator: " ").dropFirst(2).joined(separator: " ") }
        }
        let original = try String(contentsOfFile: events, encoding: .utf8)
        #expect(!fields(written).isEmpty && fields(written) == fields(original))
        // The file replays like the recording.
        let again = try Self.run(["replay", out])
        #expect(again.status == 0 && again.stdout == plain.stdout)
    }

    /// `--pen`: the panel's pen recorded on the same clock; its proximity stops the pan it comes during,
    /// and the trace says so. A recording that is no pen is refused.
    @Test func penRecordingBesideThePanelStopsItsGestures() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("gestured-pen-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // The swipe's first event is at 1330495962.164908; its pan begins 0.2 s later and ends at 1.24 s.
        func pen(_ times: [(String, Int)]) throws -> String {
            let path = dir.appendingPathComponent("pen-\(times.count)-\(times.first?.0 ?? "").evemu").path
            var lines = [
                "# EVEMU 1.3", "N: Test Pen", "I: 0018 056a 5146 0100", "P: 02 00 00 00 00 00 00 00",
                "B: 00 0b 00 00 00 00 00 00 00",
            ]
            // The key bitmask, 96 bytes in rows of 8: BTN_TOOL_PEN is bit 0x140, in byte 40 (row 5).
            for row in 0..<12 { lines.append("B: 01 " + (0..<8).map { row * 8 + $0 == 40 ? "01" : "00" }.joined(separator: " ")) }
            lines.append("B: 03 03 00 00 00 00 00 00 00")
            lines.append("A: 00 0 1000 0 0 10")
            lines.append("A: 01 0 1600 0 0 10")
            for (time, value) in times {
                lines.append("E: \(time) 0001 0140 \(value)")
                lines.append("E: \(time) 0000 0000 0")
            }
            try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        let args = ["--no-updates", "--device", Self.recordings + "Wacom_ISDv4_E6_Finger.desc", Self.recordings + "Wacom_ISDv4_E6_Finger.single-top-swipe.events"]
        let free = try Self.run(["replay"] + args)
        #expect(try Self.objects(free.stdout).map { "\($0["gesture"]!):\($0["phase"]!)" } == ["pan:begin", "pan:end"])
        let during = try pen([("1330495962.664908", 1), ("1330495963.000000", 0)])
        let r = try Self.run(["replay", "--trace", "--pen", during] + args)
        #expect(r.status == 0)
        #expect(try Self.objects(r.stdout).map { "\($0["gesture"]!):\($0["phase"]!)" } == ["pan:begin", "pan:cancel"])
        #expect(r.stderr.contains("pen: 1 pen, 2 proximity changes"))
        #expect(r.stderr.contains("trace: the pen in proximity stopped pan #1"))
        // Near from before the first touch to after the last: nothing at all.
        let whole = try pen([("1330495962.000000", 1), ("1330495964.000000", 0)])
        #expect(try Self.run(["replay", "--pen", whole] + args).stdout.isEmpty)
        // A touchscreen's recording given as the pen.
        let notAPen = try Self.run(["replay", "--pen", Self.recordings + "dell_canvas_touch.evemu"] + args)
        #expect(notAPen.status == 1)
        #expect(notAPen.stderr.contains("has neither BTN_TOOL_PEN nor BTN_TOOL_RUBBER"))
    }

    @Test func replayPrintsOneJSONObjectPerLine() throws {
        let r = try Self.run(["replay", "--device", Self.recordings + "EP0430M09.desc", Self.recordings + "EP0430M09.2-finger-scroll-down.events"])
        #expect(r.status == 0)
        let objects = try Self.objects(r.stdout)
        #expect(objects.count > 10)
        #expect(objects.allSatisfy { $0["type"] as? String == "gesture" && $0["gesture"] as? String == "pan" })
        #expect(objects.first?["phase"] as? String == "begin")
        let end = try #require(objects.last)
        #expect(end["phase"] as? String == "end")
        #expect(end["committed"] as? Bool == true)
        #expect(end["direction"] as? String == "up")
        #expect(end["fingers"] as? Int == 2)
        #expect(r.stderr.contains("warning: EP0430M09 reports no axis resolution"))
    }

    @Test func noUpdatesAndPretty() throws {
        let r = try Self.run(["replay", "--no-updates", Self.recordings + "dell_canvas_touch.evemu"])
        #expect(r.status == 0)
        #expect(try Self.objects(r.stdout).allSatisfy { ($0["phase"] as? String) != "update" })
        let pretty = try Self.run(["replay", "--pretty", "--no-updates", Self.recordings + "dell_canvas_touch.evemu"])
        #expect(pretty.stdout.contains("pinch      begin  5 fingers"))
        #expect(pretty.stdout.contains("COMMITTED"))
    }

    @Test func standardInput() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.recordings + "dell_canvas_touch.evemu"))
        let r = try Self.run(["replay", "--no-updates", "-"], stdin: data)
        let file = try Self.run(["replay", "--no-updates", Self.recordings + "dell_canvas_touch.evemu"])
        #expect(r.status == 0)
        #expect(r.stdout == file.stdout)
    }

    @Test func traceShowsTransitions() throws {
        let r = try Self.run(["replay", "--trace", "--no-updates", Self.recordings + "dell_canvas_touch.evemu"])
        #expect(r.stderr.contains("trace: possible -> fingers lifted within the tap time without moving -> tap #1 waiting for a further touch"))
        #expect(r.stderr.contains("trace: possible -> the hand may still be landing -> possible (pan held back)"))
        #expect(r.stderr.contains("trace: possible (pan held back) -> fingers moved together -> pan #2"))
    }

    @Test func malformedRecordingNamesFileAndLine() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("replay-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let bad = dir.appendingPathComponent("bad.events")
        try "E: 0.1 0003 0035 5\nE: 0.1 0003 0036\n".write(to: bad, atomically: true, encoding: .utf8)
        let r = try Self.run(["replay", "--device", Self.recordings + "EP0430M09.desc", bad.path])
        #expect(r.status == 1)
        #expect(r.stderr == "gesturectl replay: \(bad.path):2: expected \"E: <sec.usec> <type hex> <code hex> <value>\", got 3 fields\n")
        #expect(r.stdout.isEmpty)
    }

    @Test func eventsWithoutDeviceAskForDevice() throws {
        let r = try Self.run(["replay", Self.recordings + "Wacom_ISDv4_E6_Finger.single-top-swipe.events"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("has no device description; pass the device's .desc file with --device"))
    }

    @Test func protocolADeviceIsRefused() throws {
        let r = try Self.run(["replay", "--device", Self.recordings + "N-Trig_MultiTouch.desc", Self.recordings + "N-Trig_MultiTouch.1-finger-drag-NW-SE.events"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("N-Trig MultiTouch: uses the multitouch protocol A"))
    }

    @Test func missingFileAndBadArguments() throws {
        let r = try Self.run(["replay", "/nonexistent/x.evemu"])
        #expect(r.status == 1)
        #expect(r.stderr == "gesturectl replay: cannot read the recording /nonexistent/x.evemu: No such file or directory (errno 2)\n")
        #expect(try Self.run(["replay"]).status == 2)
        #expect(try Self.run(["replay", "--bogus", "x"]).status == 2)
        #expect(try Self.run(["replay", "--device"]).status == 2)
    }

    @Test func configChangesThresholdsAndBadConfigIsReported() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("replay-config-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let wide = dir.appendingPathComponent("wide.toml")
        try "[recognizer.edge_swipe.left]\nzone_mm = 20\n".write(to: wide, atomically: true, encoding: .utf8)
        let args = ["--no-updates", "--device", Self.recordings + "Wacom_ISDv4_E6_Finger.desc", Self.recordings + "Wacom_ISDv4_E6_Finger.single-top-swipe.events"]
        let plain = try Self.objects(try Self.run(["replay"] + args).stdout)
        #expect(plain.first?["gesture"] as? String == "pan")
        let edge = try Self.objects(try Self.run(["replay", "--config", wide.path] + args).stdout)
        #expect(edge.first?["gesture"] as? String == "edge-swipe")
        #expect(edge.last?["edge"] as? String == "left")
        let broken = dir.appendingPathComponent("broken.toml")
        try "[recognizer]\nslop_mm = -1\n".write(to: broken, atomically: true, encoding: .utf8)
        let r = try Self.run(["replay", "--config", broken.path] + args)
        #expect(r.status == 1)
        #expect(r.stderr.hasPrefix("gesturectl replay: \(broken.path):2:"))
        #expect(r.stderr.contains("recognizer.slop_mm"))
    }

    /// A recording has no device node: sections that match by path cannot apply, and replay says so
    /// rather than claiming to run exactly as the daemon would.
    @Test func sectionsMatchingByPathAreNamedAsNotApplied() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("replay-path-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let config = dir.appendingPathComponent("path.toml")
        try """
            [[device]]
            match_name = "Wacom*"
            rotation = 180

            [[device]]
            match_path = "/dev/input/by-path/*"
            ignore = true
            """.write(to: config, atomically: true, encoding: .utf8)
        let args = ["--no-updates", "--device", Self.recordings + "Wacom_ISDv4_E6_Finger.desc", Self.recordings + "Wacom_ISDv4_E6_Finger.single-top-swipe.events"]
        let r = try Self.run(["replay", "--config", config.path] + args)
        #expect(r.status == 0)
        #expect(r.stderr.contains("[[device]] section 2 matches by match_path, which a recording cannot match"))
        // The section matched by name applies: rotated 180°, the swipe to the right is one to the left.
        #expect(try Self.objects(r.stdout).last?["direction"] as? String == "left")
        let plain = try Self.run(["replay"] + args)
        #expect(!plain.stderr.contains("match_path"))
    }
}
