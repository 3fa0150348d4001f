import Foundation
import DaemonUnderTest
import GestureProtocol
import Testing

/// `gesturectl tune` driven end to end in a real terminal: a tmux server of the test's own (its socket in
/// the test's directory) runs the tuner in a pane; the answers go in with `send-keys`, and what the user
/// sees is read with `capture-pane`. The recordings are the tuner's own (Tests/Fixtures/tune, written by
/// tools/tune-recordings.py): a narrow-bezel kiosk and a curved-edge phone whose swipes land 6–9 mm in,
/// beside taps and scrolling, and one where scrolling starts at the edge as the swipes do.
@Suite(.serialized) struct TuneCommandTests {
    static let fixtures = Paths.packageRoot + "/Tests/Fixtures/tune/"

    /// A tmux server and one pane running `command`, whose exit status is printed as "[exit N]" and the
    /// pane kept. Every test ends it with `close()` in a `defer` (also when it fails): the pane's processes
    /// and the server go, whatever state they are in.
    final class Terminal {
        let directory: TemporaryDirectory
        let socket: String
        /// The tmux server's process and the pane's (the leader of the pane's process group: its shell and
        /// what that runs).
        private(set) var serverPID: pid_t = 0
        private(set) var panePID: pid_t = 0
        private var closed = false

        init(_ command: [String], in directory: TemporaryDirectory) throws {
            self.directory = directory
            socket = directory.path + "/tmux.sock"
            let quoted = command.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
            let r = try tmux([
                "new-session", "-d", "-x", "200", "-y", "50", "-s", "tune",
                "cd '\(directory.path)' && \(quoted); echo \"[exit $?]\"; exec sleep 3600",
            ])
            guard r.status == 0 else { throw TestFailure("tmux new-session: \(r.output)") }
            let pids = try tmux(["display-message", "-p", "-t", "tune", "#{pid} #{pane_pid}"]).output.split(whereSeparator: { $0 == " " || $0 == "\n" })
            serverPID = pids.count > 0 ? pid_t(pids[0]) ?? 0 : 0
            panePID = pids.count > 1 ? pid_t(pids[1]) ?? 0 : 0
            guard serverPID > 0, panePID > 0 else {
                close()
                throw TestFailure("tmux did not say its server's and pane's processes: \(pids)")
            }
            do {
                _ = try tmux(["set-option", "-g", "history-limit", "5000"])
            } catch {
                close()
                throw error
            }
        }

        /// Kills the pane's processes (its process group) and the server, and waits until the server is
        /// gone (SIGKILL when `kill-server` did not end it).
        func close() {
            guard !closed else { return }
            closed = true
            if panePID > 0 { kill(-panePID, SIGKILL) }
            _ = try? tmux(["kill-server"])
            guard serverPID > 0 else { return }
            if (try? waitUntil("the tmux server \(serverPID) to exit", { kill(serverPID, 0) != 0 })) == nil {
                kill(serverPID, SIGKILL)
            }
        }

        deinit { close() }

        @discardableResult
        func tmux(_ arguments: [String]) throws -> (status: Int32, output: String) {
            try run("/usr/bin/tmux", ["-S", socket] + arguments, environment: ["TERM=xterm-256color", "HOME=\(directory.path)"], in: directory)
        }

        /// The whole pane, its history included, as the user has seen it.
        func screen() throws -> String {
            let r = try tmux(["capture-pane", "-p", "-J", "-S", "-", "-E", "-", "-t", "tune"])
            return r.output
        }

        /// Waits until the screen shows `text` (`occurrences` times).
        @discardableResult
        func waitFor(_ text: String, occurrences: Int = 1) throws -> String {
            var last = ""
            try waitUntil("\"\(text)\" on the tuner's screen", context: { last }) {
                last = try screen()
                return last.ranges(of: text).count >= occurrences
            }
            return last
        }

        func send(_ keys: String...) throws { try tmux(["send-keys", "-t", "tune"] + keys) }
    }

    static let configuration = """
        # The kiosk's settings, kept by hand.
        [recognizer]
        slop_mm = 3  # the default

        [[device]]
        match_name = "Some Other Panel"
        rotation = 90

        [daemon]
        socket_group = ""

        """

    @Test func narrowBezelSessionProposesWritesAndReloads() throws {
        let directory = TemporaryDirectory()
        let config = directory.write("gestured.toml", Self.configuration)
        // The daemon reads the file the tuner writes: the tuner tells it to reload.
        let daemon = try Daemon(["--config", config], directory: directory)
        let terminal = try Terminal(
            [try Paths.gesturectl(), "tune", "--replay", Self.fixtures + "narrow-bezel.evemu", "--edges", "left,right", "--write", config,
             "--socket", daemon.socketPath], in: directory)
        defer { terminal.close() }

        // Step 1: each swipe as it came, with why it was not one: the recognizer's own reason (explain's).
        var screen = try terminal.waitFor("Enter: next step")
        #expect(screen.contains("Step 1 of 4: swipe in from the left edge, 5 times"))
        #expect(screen.contains("  1 of 5: not recognized: near miss, did not start: landed 6.0 mm from the left edge (edge_swipe.left.zone_mm 5) and moved inward, 0° from inward (angle_tolerance_degrees 30); it became a pan ✗"))
        #expect(screen.contains("  5 of 5: not recognized: near miss, did not start: landed 8.8 mm from the left edge (edge_swipe.left.zone_mm 5) and moved inward, 3° from inward (angle_tolerance_degrees 30); it became a pan ✗"))
        #expect(screen.contains("progress: [#######.............] left 5/5  right 0/5  taps 0/3  scrolling -"))
        #expect(!screen.contains("Step 2 of 4"), "the tuner went on without Enter")
        // A key that is no answer changes nothing.
        try terminal.send("x")
        try terminal.send("Enter")
        screen = try terminal.waitFor("Enter: next step", occurrences: 2)
        #expect(screen.contains("Step 2 of 4: swipe in from the right edge, 5 times"))
        #expect(screen.contains("  3 of 5: not recognized: near miss, did not start: landed 8.5 mm from the right edge (edge_swipe.right.zone_mm 5) and moved inward, 10° from inward (angle_tolerance_degrees 30); it became a pan ✗"))
        try terminal.send("Enter")
        screen = try terminal.waitFor("Enter: next step", occurrences: 3)
        #expect(screen.contains("Step 3 of 4: tap in the middle, 3 times"))
        #expect(screen.contains("  2 of 3: tap ✓"))
        try terminal.send("Enter")
        screen = try terminal.waitFor("y: write, q: quit without writing")
        #expect(screen.contains("  6 of 6: scrolling, no edge swipe ✓"))
        #expect(screen.contains("progress: [####################] left 5/5  right 5/5  taps 3/3  scrolling 6"))
        #expect(
            screen.contains(
                "Today's settings: 9 of 19 attempts as meant (0 of 10 edge swipes recognized and committed, 3 of 3 taps, 6 of 6 scrolls no edge swipe)"
            ))
        #expect(
            screen.contains(
                "Proposed settings: 19 of 19 attempts as meant (10 of 10 edge swipes recognized and committed, 3 of 3 taps, 6 of 6 scrolls no edge swipe), checked by replaying the recording"
            ))
        #expect(screen.contains("  edge_swipe.left.zone_mm: 5 -> 10  (your left edge swipes landed up to 8.8 mm from the edge)"))
        #expect(
            screen.contains(
                "[[device]]\nmatch_name = \"Tune Narrow Bezel Kiosk\"\nedge_swipe.left.zone_mm = 10\nedge_swipe.right.zone_mm = 9.5\n"))
        // Nothing written before the answer.
        #expect(readWholeFile(config) == Self.configuration)
        try terminal.send("y")
        screen = try terminal.waitFor("[exit 0]")
        #expect(screen.contains("Wrote \(config) (a new [[device]] section at line 13)."))
        #expect(screen.contains("gestured reloaded \(config): the new settings are in force."), "\(screen)")
        // The file: every byte of it kept, the section added after it.
        #expect(
            readWholeFile(config)
                == Self.configuration
                + "\n# Added by gesturectl tune for \"Tune Narrow Bezel Kiosk\".\n[[device]]\nmatch_name = \"Tune Narrow Bezel Kiosk\"\n"
                + "edge_swipe.left.zone_mm = 10\nedge_swipe.right.zone_mm = 9.5\n")
        try daemon.waitForLog("asked: reloading the configuration from \(config)")
        #expect(!daemon.log.contains("not reloaded"), "\(daemon.log)")
        // The tuner again, on the file it wrote: today's settings are the proposed ones, nothing to change.
        let again = try run(
            try Paths.gesturectl(), ["tune", "--replay", Self.fixtures + "narrow-bezel.evemu", "--edges", "left,right", "--config", config, "--yes"],
            in: directory)
        #expect(again.status == 0)
        #expect(again.output.contains("Today's settings: 19 of 19 attempts as meant"))
        #expect(again.output.contains("Today's settings suit your attempts: nothing to change."))
    }

    @Test func curvedEdgeSessionQuitsWithoutWriting() throws {
        let directory = TemporaryDirectory()
        let config = directory.write("gestured.toml", Self.configuration)
        let terminal = try Terminal(
            [try Paths.gesturectl(), "tune", "--replay", Self.fixtures + "curved-edge.evemu", "--edges", "left,right", "--write", config,
             "--socket", directory.path + "/none.sock"], in: directory)
        defer { terminal.close() }
        for i in 1...3 {
            try terminal.waitFor("Enter: next step", occurrences: i)
            try terminal.send("Enter")
        }
        let screen = try terminal.waitFor("y: write, q: quit without writing")
        // The tap that rolled 3.2 mm in 0.1 s is a tap: no slop to propose.
        #expect(screen.contains("  2 of 3: tap ✓"))
        #expect(!screen.contains("slop_mm: 3 ->"))
        #expect(screen.contains("  edge_swipe.commit_distance_mm: 25 -> 18.5  (your shortest swipe released while moving travelled 21.5 mm)"))
        #expect(screen.contains("Proposed settings: 19 of 19 attempts as meant"))
        try terminal.send("q")
        let end = try terminal.waitFor("[exit 0]")
        #expect(end.contains("Nothing written."))
        #expect(readWholeFile(config) == Self.configuration)
    }

    @Test func scrollingThatStartsAtTheEdgeIsSaidToBeInseparable() throws {
        let directory = TemporaryDirectory()
        let terminal = try Terminal(
            [try Paths.gesturectl(), "tune", "--replay", Self.fixtures + "inseparable.evemu", "--edges", "left,right"], in: directory)
        defer { terminal.close() }
        for i in 1...3 {
            try terminal.waitFor("Enter: next step", occurrences: i)
            try terminal.send("Enter")
        }
        let screen = try terminal.waitFor("[exit 0]")
        #expect(
            screen.contains(
                "Not settled: no setting separates your left edge swipes from scrolling 2: it landed 7.0 mm from the left edge and moved 3° from inward, "
                    + "where your swipes landed up to 8.8 mm from it and moved up to 8°; edge_swipe.left.zone_mm is left as it is"))
        // The right edge still gets its zone; the left one is not guessed.
        #expect(screen.contains("edge_swipe.right.zone_mm = 9.5"))
        #expect(!screen.contains("edge_swipe.left.zone_mm ="))
    }

    @Test func ctrlCStopsTheSessionAndGivesTheTerminalBack() throws {
        let directory = TemporaryDirectory()
        let terminal = try Terminal(
            [try Paths.gesturectl(), "tune", "--replay", Self.fixtures + "narrow-bezel.evemu", "--edges", "left"], in: directory)
        defer { terminal.close() }
        try terminal.waitFor("Enter: next step")
        try terminal.send("C-c")
        let screen = try terminal.waitFor("[exit 130]")
        #expect(screen.contains("gesturectl tune: stopped; nothing written"))
        // The terminal is given back as it was: line editing and echo on (stty reads the pane's modes).
        let tty = try terminal.tmux(["display-message", "-p", "-t", "tune", "#{pane_tty}"]).output.split(separator: "\n").first.map(String.init) ?? ""
        let stty = try run("/bin/stty", ["-a", "-F", tty], in: directory)
        #expect(stty.status == 0, "\(stty.output)")
        let modes = Set(stty.output.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == ";" }).map(String.init))
        #expect(modes.isSuperset(of: ["echo", "icanon", "isig"]), "\(stty.output)")
        // The server takes SIGHUP and SIGTERM (not blocked as on the test's worker thread), and closing the
        // terminal ends it and the pane's processes.
        let status = readWholeFile("/proc/\(terminal.serverPID)/status")
        let blockedLine = status.split(separator: "\n").first { $0.hasPrefix("SigBlk:") } ?? ""
        let blocked = UInt64(blockedLine.dropFirst("SigBlk:".count).trimmingCharacters(in: .whitespaces), radix: 16) ?? ~0
        #expect(blocked & (1 << UInt64(SIGHUP - 1) | 1 << UInt64(SIGTERM - 1)) == 0, "\(blockedLine)")
        terminal.close()
        try waitUntil("the tmux server and the pane's shell to be gone") {
            kill(terminal.serverPID, 0) != 0 && kill(terminal.panePID, 0) != 0
        }
    }

    /// Live: the tuner against a daemon replaying the narrow-bezel recording, held until the tuner
    /// subscribes to its explanations (`--wait-for-explanations`), so every touch comes, in order, to the
    /// steps: the same screens, numbers and proposal as on the recording, and the file written.
    @Test func liveSessionAgainstTheDaemonProposesWritesAndReloads() throws {
        let directory = TemporaryDirectory()
        let config = directory.write("gestured.toml", Self.configuration)
        let daemon = try Daemon(
            ["--config", config, "--replay", Self.fixtures + "narrow-bezel.evemu", "--wait-for-explanations"], directory: directory)
        let terminal = try Terminal(
            [try Paths.gesturectl(), "tune", "--socket", daemon.socketPath, "--edges", "left,right", "--write", config], in: directory)
        defer { terminal.close() }
        var screen = try terminal.waitFor("Enter: next step")
        #expect(screen.contains("gesturectl tune: \"Tune Narrow Bezel Kiosk\" (replay1), live from gestured at \(daemon.socketPath)"))
        #expect(screen.contains("Step 1 of 4: swipe in from the left edge, 5 times"))
        // The first touch of the recording is the first attempt: nothing was played before the tuner asked.
        #expect(screen.contains("  1 of 5: not recognized: near miss, did not start: landed 6.0 mm from the left edge (edge_swipe.left.zone_mm 5) and moved inward, 0° from inward (angle_tolerance_degrees 30); it became a pan ✗"))
        #expect(screen.contains("  5 of 5: not recognized: near miss, did not start: landed 8.8 mm from the left edge (edge_swipe.left.zone_mm 5) and moved inward, 3° from inward (angle_tolerance_degrees 30); it became a pan ✗"))
        #expect(screen.contains("progress: [#######.............] left 5/5  right 0/5  taps 0/3  scrolling -"))
        #expect(!screen.contains("Step 2 of 4"), "the tuner went on without Enter")
        try terminal.send("Enter")
        screen = try terminal.waitFor("Enter: next step", occurrences: 2)
        #expect(screen.contains("Step 2 of 4: swipe in from the right edge, 5 times"))
        #expect(screen.contains("  3 of 5: not recognized: near miss, did not start: landed 8.5 mm from the right edge (edge_swipe.right.zone_mm 5) and moved inward, 10° from inward (angle_tolerance_degrees 30); it became a pan ✗"))
        try terminal.send("Enter")
        screen = try terminal.waitFor("Enter: next step", occurrences: 3)
        #expect(screen.contains("Step 3 of 4: tap in the middle, 3 times"))
        #expect(screen.contains("  3 of 3: tap ✓"))
        try terminal.send("Enter")
        // Scrolling takes touches until Enter: the recording's six.
        screen = try terminal.waitFor("  6: scrolling, no edge swipe ✓")
        #expect(screen.contains("Step 4 of 4: scroll in the middle as you usually do\nEnter: done   q: quit\n  1: scrolling, no edge swipe ✓"))
        try terminal.send("Enter")
        screen = try terminal.waitFor("y: write, q: quit without writing")
        #expect(!screen.contains("  7: "))
        #expect(screen.contains("progress: [####################] left 5/5  right 5/5  taps 3/3  scrolling 6"))
        #expect(
            screen.contains(
                "Today's settings: 9 of 19 attempts as meant (0 of 10 edge swipes recognized and committed, 3 of 3 taps, 6 of 6 scrolls no edge swipe)"
            ))
        #expect(
            screen.contains(
                "Proposed settings: 19 of 19 attempts as meant (10 of 10 edge swipes recognized and committed, 3 of 3 taps, 6 of 6 scrolls no edge swipe), as the measurements of your touches predict"
            ))
        #expect(screen.contains("  edge_swipe.left.zone_mm: 5 -> 10  (your left edge swipes landed up to 8.8 mm from the edge)"))
        #expect(readWholeFile(config) == Self.configuration)
        try terminal.send("y")
        screen = try terminal.waitFor("[exit 0]")
        #expect(screen.contains("gestured reloaded \(config): the new settings are in force."), "\(screen)")
        #expect(
            readWholeFile(config)
                == Self.configuration
                + "\n# Added by gesturectl tune for \"Tune Narrow Bezel Kiosk\".\n[[device]]\nmatch_name = \"Tune Narrow Bezel Kiosk\"\n"
                + "edge_swipe.left.zone_mm = 10\nedge_swipe.right.zone_mm = 9.5\n")
        try daemon.waitForLog("asked: reloading the configuration from \(config)")
    }

    /// Issue 38, item 9: live, against a replay with no top edge swipe, every touch is left out of the
    /// top edge's step, each with why (a left edge swipe landed far from the top, a tap did not move), and
    /// the step asks for more instead of counting them.
    @Test func liveTuningLeavesOutTouchesThatCannotBeTheGesture() throws {
        let directory = TemporaryDirectory()
        let config = directory.write("gestured.toml", Self.configuration)
        let daemon = try Daemon(
            ["--config", config, "--replay", Self.fixtures + "narrow-bezel.evemu", "--wait-for-explanations"], directory: directory)
        let terminal = try Terminal(
            [try Paths.gesturectl(), "tune", "--socket", daemon.socketPath, "--edges", "top", "--bindings", "/dev/null"], in: directory)
        defer { terminal.close() }
        // The recording's 19 touches: 10 swipes from the sides, 3 taps, 6 strokes in the middle.
        var screen = try terminal.waitFor("not counted as a top edge swipe", occurrences: 19)
        #expect(screen.contains("Step 1 of 3: swipe in from the top edge, 5 times"))
        // The first left swipe landed 40 mm below the top, the first tap 60 mm.
        for landed in ["40.0", "60.0"] {
            #expect(
                screen.contains(
                    "  left out: it landed \(landed) mm from the top edge, more than twice its zone (edge_swipe.top.zone_mm 5); not counted as a top edge swipe (0 of 5 so far: 5 more, please)"),
                "\(screen)")
        }
        #expect(!screen.contains("  1 of 5:"), "a touch was counted: \(screen)")
        #expect(!screen.contains("Step 2 of 3"))
        try terminal.send("q")
        screen = try terminal.waitFor("[exit 130]")
        #expect(screen.contains("gesturectl tune: stopped; nothing written"))
    }

    /// A recording whose first step's touches cannot be what it asks for: each is left out, the edge has
    /// too few swipes to be tuned, and no zone is proposed from the taps and strokes.
    @Test func aRecordingWithTooFewSwipesLeavesTheEdgeAlone() throws {
        let directory = TemporaryDirectory()
        let r = try run(
            try Paths.gesturectl(), ["tune", "--replay", Self.fixtures + "narrow-bezel.evemu", "--edges", "top,left", "--yes"], in: directory)
        #expect(r.status == 0, "\(r.output)")
        // The first five touches (the left swipes) are asked for as top swipes: none can be one.
        #expect(r.output.contains("  left out: it landed 40.0 mm from the top edge, more than twice its zone (edge_swipe.top.zone_mm 5); not counted as a top edge swipe\n"), "\(r.output)")
        #expect(r.output.contains("Not settled: no attempts for top edge swipe"), "\(r.output)")
        #expect(!r.output.contains("edge_swipe.top.zone_mm:"), "\(r.output)")
    }

    /// Live tuning as a user who may not see app touches: the daemon refuses the explanations; the tuner
    /// says why and exits 1.
    @Test func liveTuningRefusedSaysWhy() throws {
        try #require(getuid() == 0, "this test runs the tuner as another user through runuser, which needs root")
        let directory = TemporaryDirectory()
        chmod(directory.path, 0o755)
        let config = directory.write("gestured.toml", "[daemon]\nsocket_group = \"\"\nsocket_mode = \"0666\"\n")
        let daemon = try Daemon(
            ["--config", config, "--replay", Self.fixtures + "narrow-bezel.evemu", "--wait-for-explanations"], directory: directory)
        let terminal = try Terminal(
            ["/usr/sbin/runuser", "-u", "nobody", "--", try AppTouchTests.gesturectlFor(others: directory), "tune", "--socket", daemon.socketPath,
             "--edges", "left",
             "--bindings", "/dev/null"], in: directory)
        defer { terminal.close() }
        let screen = try terminal.waitFor("[exit ")
        #expect(screen.contains("[exit 1]"), "\(screen)")
        #expect(
            screen.contains(
                "gesturectl tune: live tuning needs the daemon's explanations of your touches, which it sends only to clients that may see app touches"
            ), "\(screen)")
        #expect(!screen.contains("Step 1"))
    }

    @Test func commandLineMistakesAndLiveMode() throws {
        let directory = TemporaryDirectory()
        let ctl = try Paths.gesturectl()
        // Live needs a terminal for its steps; --yes is for recordings.
        let live = try run(ctl, ["tune", "--edges", "left"], in: directory)
        #expect(live.status == 2)
        #expect(live.output.contains("gesturectl tune: live, the steps wait for your touches and Enter: run it in a terminal"))
        let yes = try run(ctl, ["tune", "--edges", "left", "--yes"], in: directory)
        #expect(yes.status == 2)
        #expect(yes.output.contains("gesturectl tune: --yes goes with --replay"))
        let edges = try run(ctl, ["tune", "--replay", Self.fixtures + "narrow-bezel.evemu", "--edges", "left,top-left"], in: directory)
        #expect(edges.status == 2)
        #expect(edges.output == "gesturectl tune: --edges 'top-left' is not one of: left, right, top, bottom\n")
        let help = try run(ctl, ["tune", "--help"], in: directory)
        #expect(help.status == 0 && help.output.hasPrefix("usage: gesturectl tune [--socket PATH] [--device ID]"))
    }
}
