// Explanations and the picture of the running daemon, through the real daemon (issues 36 and 38): an
// explanation of a touch sequence of any length is bounded and leaves the loop free for other clients;
// a live `explain` started while a finger is down says so; `gesturectl plot` without a recording draws the
// daemon's device as it has it now.
import DaemonUnderTest
import Foundation
import GestureClient
import GestureProtocol
import GestureVocabulary
import Glibc
import Testing

@Suite(.serialized) struct ExplanationLiveTests {
    /// tools/resting-taps.py's recording of a finger resting while another taps `taps` times.
    static func restingTaps(_ taps: Int, in directory: TemporaryDirectory) throws -> String {
        let path = directory.path + "/resting-taps-\(taps).evemu"
        let r = try run("/usr/bin/python3", [ReplayCommandTests.packageRoot + "/tools/resting-taps.py", String(taps), path], in: directory)
        #expect(r.status == 0, "\(r.output)")
        return path
    }

    /// Issue 36: 2 000 taps beside a resting finger are one touch sequence. Its explanation reaches the
    /// client bounded (before the bound, a 340 KB line), with the rest counted, and another client's
    /// pings are answered while the daemon replays and explains it.
    @Test func aLongSequenceIsExplainedBoundedWhileOtherClientsAreServed() throws {
        let directory = TemporaryDirectory()
        let recording = try Self.restingTaps(2_000, in: directory)
        let daemon = try Daemon(["--replay", recording, "--speed", "1000", "--wait-for-explanations"], directory: directory)
        let pinger = try daemon.connect()
        let client = try daemon.connect()
        let filter = try client.subscribe(SubscriptionFilter(kinds: [], updates: false, explanations: true))
        #expect(filter.explanations)
        // The replay runs now: pings go on being answered.
        for _ in 0..<20 { try pinger.ping(timeoutMilliseconds: Int32(patienceMilliseconds)) }
        var explanation: Explanation?
        while explanation == nil {
            if case .explanation(let x, _) = try receive(client, from: daemon) { explanation = x }
        }
        let x = try #require(explanation)
        #expect(x.fingers.count == Explanation.listLimit)
        #expect(x.unlisted.fingers == 2_001 - Explanation.listLimit)
        #expect(x.gestures.count == Explanation.listLimit)
        #expect(x.unlisted.gestures == [GestureTally(kind: .tap, outcome: .committed, count: 1 + 1_000 - Explanation.listLimit)])
        #expect(ExplanationJSON.encode(x).utf8.count < 64 * 1024)
        try pinger.ping(timeoutMilliseconds: Int32(patienceMilliseconds))
        #expect(!daemon.log.contains("stopped reading"), "\(daemon.log)")
    }

    /// An evemu recording on a 10-inch tablet (217 × 136 mm, 20 units/mm): one finger lands 2 mm from
    /// the left edge, pulls inward 3 mm in 0.3 s (an edge swipe from the left once it passed the slop),
    /// then slowly (2 mm/s) for 20 s, then flicks 60 mm in 0.2 s and lifts: a committed left edge swipe.
    static func slowLeftSwipe(in directory: TemporaryDirectory) -> String {
        var lines = [
            "# EVEMU 1.3", "N: Slow Swipe Tablet", "I: 0018 1234 567a 0100", "P: 02 00 00 00 00 00 00 00", "B: 00 0b 00 00 00 00 00 00 00",
        ]
        for i in 0..<12 { lines.append("B: 01 " + (i == 5 ? "00 04 00 00 00 00 00 00" : "00 00 00 00 00 00 00 00")) }
        lines += [
            "B: 02 00 00 00 00 00 00 00 00", "B: 03 03 00 00 00 00 80 60 02", "A: 00 0 4340 0 0 20", "A: 01 0 2720 0 0 20",
            "A: 2f 0 1 0 0 0", "A: 35 0 4340 0 0 20", "A: 36 0 2720 0 0 20", "A: 39 0 65535 0 0 0",
        ]
        var t = 1_000_000
        func e(_ type: Int, _ code: Int, _ value: Int) {
            lines.append("E: \(t / 1_000_000).\(String(format: "%06d", t % 1_000_000)) \(String(format: "%04x %04x", type, code)) \(String(format: "%04d", value))")
        }
        e(3, 0x2f, 0); e(3, 0x39, 1); e(3, 0x35, 40); e(3, 0x36, 1360); e(1, 0x14a, 1); e(0, 0, 0)
        var x = 40.0
        // 3 mm at 10 mm/s (passing half the slop inward before the hold time: no hold), then 2 mm/s.
        for _ in 0..<30 {
            t += 10_000
            x += 2  // 0.1 mm a frame
            e(3, 0x35, Int(x)); e(0, 0, 0)
        }
        for _ in 0..<2_000 {
            t += 10_000
            x += 0.4  // 0.02 mm a frame
            e(3, 0x35, Int(x)); e(0, 0, 0)
        }
        for _ in 0..<20 {
            t += 10_000
            x += 60
            e(3, 0x35, Int(x)); e(0, 0, 0)
        }
        t += 10_000
        e(3, 0x39, -1); e(1, 0x14a, 0); e(0, 0, 0)
        return directory.write("slow-left-swipe.evemu", lines.joined(separator: "\n") + "\n")
    }

    /// Issue 38, item 7: explaining started while the finger of a left edge swipe is down says the finger
    /// was down already and gives it no landing (it invented one where the finger was), lists the swipe as
    /// begun before, committed, and measures no touch (live `tune` takes none from it).
    @Test func explainStartedWhileAFingerIsDownSaysSo() throws {
        let directory = TemporaryDirectory()
        let recording = Self.slowLeftSwipe(in: directory)
        let daemon = try Daemon(["--replay", recording, "--speed", "4", "--loop"], directory: directory)
        let watcher = try daemon.connect()
        _ = try watcher.subscribe(SubscriptionFilter(kinds: [.edgeSwipe], updates: false))
        // The swipe has begun: its finger is down, and stays down for 19 s of the recording (4.9 s here).
        while true {
            let g = try nextGesture(watcher, from: daemon)
            if g.event.phase == .begin { break }
        }
        let ctl = try Paths.gesturectl()
        let json = try run(ctl, ["explain", "--socket", daemon.socketPath, "--json", "--count", "1"], in: directory)
        #expect(json.status == 0, "\(json.output)")
        let line = try #require(json.output.split(separator: "\n").first { $0.contains("\"explanation\"") })
        let value = try JSONParser.parse(Array(line.utf8))
        let x = try #require(ExplanationJSON.decode(value)).explanation
        #expect(x.fingers.isEmpty, "a landing was invented: \(x.text())")
        #expect(x.fingersAlreadyDown == 1)
        #expect(x.touches.isEmpty)
        let g = try #require(x.gestures.first)
        #expect(g.kind == .edgeSwipe && g.edge == .left && g.outcome == .committed && g.beganBeforeExplaining, "\(x.text())")
        #expect(value["fingers_already_down"]?.intValue == 1)
    }

    /// Issue 38, item 10: `gesturectl plot` without a recording draws the running daemon's device: the
    /// screen as the user sees it after the orientation set at run time, the zones in force, the parts
    /// excluded for the focused app; the heading says them.
    @Test func plotDrawsTheRunningDaemonsDevice() throws {
        let directory = TemporaryDirectory()
        let config = directory.write(
            "gestured.toml",
            """
            [daemon]
            socket_group = ""
            [recognizer.edge_swipe]
            left.zone_mm = 8
            [[exclusion]]
            app = "foot"
            edges = ["left"]
            edge_position = [0.25, 0.75]
            """)
        let daemon = try Daemon(
            ["--config", config, "--replay", Paths.recordings + "dell_canvas_touch.evemu", "--loop"], directory: directory)
        let client = try daemon.connect()
        _ = try client.request(.focus(appID: "foot"))
        _ = try client.setOrientation(.clockwise90, device: nil)
        let devices = try client.devices()
        let zones = try #require(devices.first?.edgeZones)
        // The Dell's 595.8 × 334.4 mm panel turned by 90°: the screen is taller than wide now.
        #expect(abs(zones.screenWidthMM - 334.3571) < 0.01 && abs(zones.screenHeightMM - 595.7636) < 0.01, "\(zones)")
        #expect(zones.left == 8 && zones.right == 5 && zones.cornerSwipes)
        let ctl = try Paths.gesturectl()
        let plot = try run(ctl, ["plot", "--socket", daemon.socketPath, "-o", directory.path + "/now.svg"], in: directory)
        #expect(plot.status == 0, "\(plot.output)")
        let svg = readWholeFile(directory.path + "/now.svg")
        // The heading's lines as a reader sees them: the text elements' contents, wrapped lines joined.
        let text = svg.components(separatedBy: "<text ").dropFirst().compactMap { element -> String? in
            guard let start = element.firstIndex(of: ">"), let end = element.range(of: "</text>") else { return nil }
            return String(element[element.index(after: start)..<end.lowerBound])
        }.joined(separator: " ").replacingOccurrences(of: "&quot;", with: "\"")
        #expect(text.contains("334.4 × 595.8 mm as the user sees it"), "\(text)")
        #expect(text.contains("orientation 90°, focused app \"foot\"; left 0.25…0.75 excluded by \(config):5:1"), "\(text)")
        #expect(text.contains("Edge zones in force (tinted, to scale): left 8 mm, right 5 mm, top 5 mm, bottom 5 mm; corner swipes on; excluded (hatched): left 0.25…0.75."), "\(text)")
        #expect(svg.contains("id=\"exclusions\""))
        #expect(!svg.contains("Time (seconds from the first event)"))
        // --device names the device; a name the daemon does not have is said, with the ones it has.
        let wrong = try run(ctl, ["plot", "--socket", daemon.socketPath, "--device", "event99", "-o", directory.path + "/x.svg"], in: directory)
        #expect(wrong.status == 1 && wrong.output.contains("gestured has no device event99; it has: replay1 "), "\(wrong.output)")
    }
}
