// `gesturectl bind` against the real daemon replaying recordings the tests write (SyntheticRecording):
// each binding runs its command for its gesture and no other binding does; a command that hangs and floods
// its output does not delay the next gesture's command; skip, rate limit, reload, reconnect, --check.
import DaemonUnderTest
import GestureClient
import GestureProtocol
import GestureVocabulary
import Glibc
import Testing

/// A program running in the background with its standard output and error in a file.
final class Background {
    let pid: pid_t
    let outputPath: String
    private(set) var exitStatus: Int32?

    init(_ argv: [String], environment: [String] = [], outputPath: String) throws {
        self.outputPath = outputPath
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let cArgs = argv.map { strdup($0) } + [nil]
        let cEnv = (["PATH=/usr/bin:/bin"] + environment).map { strdup($0) } + [nil]
        defer {
            cArgs.forEach { free($0) }
            cEnv.forEach { free($0) }
        }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, argv[0], &actions, nil, cArgs, cEnv)
        guard rc == 0 else { throw TestFailure("posix_spawn \(argv[0]): \(String(cString: strerror(rc)))") }
        self.pid = pid
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
    }

    var output: String { readWholeFile(outputPath) }

    func waitForOutput(_ text: String, occurrences: Int = 1) throws {
        try waitUntil("\"\(text)\" in the output of pid \(pid)", context: { self.output }) {
            output.ranges(of: text).count >= occurrences
        }
    }

    @discardableResult
    func stop(_ signal: Int32 = SIGTERM) throws -> Int32 {
        kill(pid, signal)
        try waitUntil("pid \(pid) to exit", context: { self.output }) {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
                return true
            }
            return false
        }
        return exitStatus!
    }
}

/// The lines of a file, without the empty last one.
func lines(_ path: String) -> [String] {
    readWholeFile(path).split(separator: "\n").map(String.init)
}

/// Waits until `path` has at least `count` lines.
func waitForLines(_ path: String, _ count: Int, context: @escaping () -> String) throws {
    try waitUntil("\(count) lines in \(path) (have: \(lines(path)))", context: context) { lines(path).count >= count }
}

/// What `gesturectl replay` makes of a recording, for failure messages.
func replayed(_ recording: String, in directory: TemporaryDirectory) -> String {
    guard let ctl = try? Paths.gesturectl(), let r = try? run(ctl, ["replay", "--pretty", "--no-updates", recording], in: directory) else {
        return "(gesturectl replay failed)"
    }
    return "gesturectl replay --pretty --no-updates \(recording):\n" + r.output
}

func realtimeMilliseconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1_000_000
}

@Suite("gesturectl bind through the daemon")
struct BindCommandTests {
    /// Lead-in before the first gesture of a recording: time for the daemon to start and bind to connect.
    static let leadIn = 3.0

    @Test func eachBindingRunsItsCommandForItsGestureAndNoOther() throws {
        let directory = TemporaryDirectory()
        let out = directory.path + "/fired"
        func line(_ name: String) -> String {
            "shell = \"echo \(name) $GESTURE_KIND $GESTURE_FINGERS ${GESTURE_EDGE:-${GESTURE_DIRECTION:--}} >> \(out)\""
        }
        let bindings = directory.write(
            "bindings.toml",
            """
            [[binding]]
            name = "other-device"
            device = "Some other panel*"
            \(line("other-device"))

            [[binding]]
            name = "back"
            edge = "left"
            device = "gestured test*"
            \(line("back"))

            [[binding]]
            name = "abandoned"
            edge = "left"
            committed = false
            \(line("abandoned"))

            [[binding]]
            name = "volume-up"
            edge = "right"
            edge_position = [0, 0.5]
            \(line("volume-up"))

            [[binding]]
            name = "volume-down"
            edge = "right"
            edge_position = [0.5, 1]
            \(line("volume-down"))

            [[binding]]
            name = "corner"
            edge = "bottom-right"
            \(line("corner"))

            [[binding]]
            name = "top-begin"
            edge = "top"
            on = "begin"
            \(line("top-begin"))

            [[binding]]
            name = "top-pressed"
            edge = "top"
            progress = 0.3
            \(line("top-pressed"))

            [[binding]]
            name = "top-end"
            edge = "top"
            \(line("top-end"))

            [[binding]]
            name = "workspace"
            gesture = "pan"
            fingers = 3
            direction = "down"
            \(line("workspace"))

            [[binding]]
            name = "zoom"
            gesture = "pinch"
            scale = 1.5
            \(line("zoom"))

            [[binding]]
            name = "missing-program"
            gesture = "pinch"
            on = "begin"
            command = ["/nonexistent/gesture-program", "arg"]

            [[binding]]
            name = "dragged"
            gesture = "pan"
            fingers = 2
            distance_mm = 20
            \(line("dragged"))

            [[binding]]
            name = "never"
            gesture = "pan"
            fingers = 1
            \(line("never"))
            """)
        var r = SyntheticRecording(leadIn: Self.leadIn)
        r.swipe(from: (2, 64), by: 50, 0)  // back
        r.wait(0.4)
        r.stroke(seconds: 0.6) { t in [(2 + 12 * (t < 0.5 ? t * 2 : 2 - t * 2), 64)] }  // out and back: not committed
        r.wait(0.4)
        r.swipe(from: (70, 32), by: -50, 0)  // volume-up
        r.wait(0.4)
        r.swipe(from: (70, 96), by: -50, 0)  // volume-down
        r.wait(0.4)
        r.swipe(from: (70, 126), by: -40, -40)  // corner
        r.wait(0.4)
        r.swipe(from: (36, 2), by: 0, 90, seconds: 0.4)  // top: begin, pressed, end
        r.wait(0.4)
        r.swipe(from: [(24, 40), (36, 40), (48, 40)], by: 0, 40, seconds: 0.3)  // workspace
        r.wait(0.4)
        r.pinch(center: (36, 64), fromSpan: 16, toSpan: 48)  // zoom
        r.wait(0.4)
        r.swipe(from: [(20, 60), (20, 72)], by: 30, 0, seconds: 0.3)  // dragged: past 20 mm, once
        r.wait(0.5)
        let recording = directory.write("gestures.evemu", r.text)

        let daemon = try Daemon(["--replay", recording])
        let bind = try Background(
            [try Paths.gesturectl(), "bind", "--bindings", bindings, "--socket", daemon.socketPath],
            outputPath: directory.path + "/bind.log")
        let expected = [
            "back edge-swipe 1 left", "abandoned edge-swipe 1 left", "volume-up edge-swipe 1 right",
            "volume-down edge-swipe 1 right", "corner edge-swipe 1 bottom-right", "top-begin edge-swipe 1 top",
            "top-pressed edge-swipe 1 top", "top-end edge-swipe 1 top", "workspace pan 3 down", "zoom pinch 2 -", "dragged pan 2 -",
        ]
        let context = { "bind's log:\n\(bind.output)\n\(replayed(recording, in: directory))\ndaemon:\n\(daemon.log)" }
        try waitForLines(out, expected.count, context: context)
        try daemon.terminate()
        try bind.waitForOutput("the daemon closed the connection")
        #expect(try bind.stop() == 0)
        #expect(lines(out).sorted() == expected.sorted(), "\(context())")
        #expect(bind.output.contains("connected to gestured"), "\(bind.output)")
        #expect(
            bind.output.contains("missing-program: cannot run /nonexistent/gesture-program: No such file or directory (errno 2)"),
            "\(bind.output)")
    }

    /// The measure of issue 10: the next gesture's command starts within 50 ms of its gesture's end while
    /// the previous command still runs (it hangs after flooding its output). Measured and printed; the test
    /// asserts only a bound that a loaded 2-core machine keeps (2 s), never the 50 ms.
    @Test func aHangingFloodingCommandDoesNotDelayTheNextOne() throws {
        let directory = TemporaryDirectory()
        let slowPID = directory.path + "/slow.pid"
        let fast = directory.path + "/fast"
        let bindings = directory.write(
            "bindings.toml",
            """
            [[binding]]
            name = "slow"
            edge = "left"
            shell = "echo $$ >> \(slowPID); seq 1 200000; exec sleep 60"

            [[binding]]
            name = "fast"
            edge = "right"
            shell = "date +%s%N >> \(fast)"
            """)
        var r = SyntheticRecording(leadIn: Self.leadIn)
        r.swipe(from: (2, 64), by: 50, 0)  // slow: starts, floods, hangs
        r.wait(0.5)
        r.swipe(from: (70, 64), by: -50, 0)  // fast
        r.wait(0.5)
        r.swipe(from: (2, 64), by: 50, 0)  // slow again: skipped, its first command still runs
        r.wait(0.5)
        r.swipe(from: (70, 64), by: -50, 0)  // fast again
        r.wait(0.5)
        let recording = directory.write("gestures.evemu", r.text)

        let daemon = try Daemon(["--replay", recording])
        let observer = try daemon.connect()
        try observer.subscribe(SubscriptionFilter(kinds: [.edgeSwipe], updates: false))
        let bind = try Background(
            [try Paths.gesturectl(), "bind", "--bindings", bindings, "--socket", daemon.socketPath],
            outputPath: directory.path + "/bind.log")
        defer {
            for pid in lines(slowPID).compactMap({ pid_t($0) }) { kill(-pid, SIGKILL) }
        }
        let context = { "bind's log:\n\(bind.output.suffix(3000))\n\(replayed(recording, in: directory))" }
        // When the observer (a second client of the same daemon) received each fast gesture's end.
        var fastEnds: [Double] = []
        while fastEnds.count < 2 {
            let g = try nextGesture(observer, from: daemon)
            if g.event.phase == .end, g.event.edge == .right { fastEnds.append(realtimeMilliseconds()) }
        }
        try waitForLines(fast, 2, context: context)
        let starts = lines(fast).compactMap { Double($0) }.map { $0 / 1_000_000 }
        #expect(starts.count == 2)
        let slow = lines(slowPID).compactMap { pid_t($0) }
        #expect(slow.count == 1, "the slow binding ran \(slow.count) times; skip-if-running should have held it to 1\n\(context())")
        if let pid = slow.first { #expect(kill(pid, 0) == 0, "the slow command is not running any more") }
        try bind.waitForOutput("slow: skipped: its previous command (pid \(slow.first ?? 0)")
        let delays = zip(starts, fastEnds).map { $0 - $1 }
        print("gesturectl bind: the next command started \(delays.map { String(Int($0.rounded())) }.joined(separator: " and ")) ms after its gesture's end reached a client, while the previous command hung after writing 1.3 MB")
        for d in delays { #expect(d < 2000, "the command started \(d) ms after its gesture\n\(context())") }
        #expect(try bind.stop() == 0)
        #expect(bind.output.contains("1 command still running, left to finish"), "\(bind.output.suffix(500))")
    }

    @Test func aBindingFiringTooOftenIsRateLimitedWithALogLine() throws {
        let directory = TemporaryDirectory()
        let out = directory.path + "/fired"
        let bindings = directory.write(
            "bindings.toml",
            """
            [[binding]]
            name = "flick"
            gesture = "pan"
            fingers = 2
            max_per_second = 2
            if_running = "parallel"
            shell = "echo $GESTURE_ID >> \(out)"
            """)
        var r = SyntheticRecording(leadIn: Self.leadIn)
        for _ in 0..<4 {
            r.swipe(from: [(30, 60), (42, 60)], by: 0, 30, seconds: 0.1)
            r.wait(0.05)
        }
        r.wait(1.5)
        r.swipe(from: [(30, 60), (42, 60)], by: 0, 30, seconds: 0.1)  // a second later: allowed again
        r.wait(0.5)
        let recording = directory.write("gestures.evemu", r.text)
        let daemon = try Daemon(["--replay", recording])
        let bind = try Background(
            [try Paths.gesturectl(), "bind", "--bindings", bindings, "--socket", daemon.socketPath],
            outputPath: directory.path + "/bind.log")
        let context = { "bind's log:\n\(bind.output)\n\(replayed(recording, in: directory))" }
        try waitForLines(out, 3, context: context)
        try daemon.terminate()
        try bind.waitForOutput("the daemon closed the connection")
        #expect(lines(out).count == 3, "\(context())")
        #expect(
            bind.output.ranges(of: "flick: fired more than 2 times in one second; not running it again").count == 1,
            "\(context())")
        try bind.stop()
    }

    @Test func bindWaitsForTheDaemonReconnectsAndReloadsOnSIGHUP() throws {
        let directory = TemporaryDirectory()
        let out = directory.path + "/fired"
        let socket = directory.path + "/gestured.sock"
        let valid = "[[binding]]\nname = \"back\"\nedge = \"left\"\nshell = \"echo back >> \(out)\"\n"
        let bindings = directory.write("bindings.toml", valid)
        let bind = try Background(
            [try Paths.gesturectl(), "bind", "--bindings", bindings, "--socket", socket],
            outputPath: directory.path + "/bind.log")
        try bind.waitForOutput("cannot connect to \(socket)")
        try bind.waitForOutput("retrying in 0.5 s")

        // A broken file keeps the old bindings; a good one replaces them.
        _ = directory.write("bindings.toml", valid + "[[binding]]\nedge = \"rigth\"\nshell = \"x\"\n")
        kill(bind.pid, SIGHUP)
        try bind.waitForOutput("SIGHUP: \(bindings) is not usable; keeping the 1 binding loaded before")
        #expect(bind.output.contains("\(bindings):6:1: binding[2].edge: \"rigth\" is not an edge or corner; did you mean \"right\"?"), "\(bind.output)")
        _ = directory.write("bindings.toml", valid + "[[binding]]\nedge = \"right\"\nshell = \"echo right >> \(out)\"\n")
        kill(bind.pid, SIGHUP)
        try bind.waitForOutput("SIGHUP: reloaded \(bindings): 2 bindings (was 1)")

        var r = SyntheticRecording(leadIn: Self.leadIn)
        r.swipe(from: (70, 64), by: -50, 0)
        r.wait(0.4)
        r.swipe(from: (2, 64), by: 50, 0)
        r.wait(0.4)
        let recording = directory.write("gestures.evemu", r.text)
        let daemon = try Daemon(["--replay", recording], directory: directory)
        try bind.waitForOutput("connected to gestured")
        try waitForLines(out, 2, context: { bind.output })
        #expect(lines(out) == ["right", "back"])
        try daemon.terminate()
        try bind.waitForOutput("the daemon closed the connection; retrying in 0.25 s")

        // The daemon comes back: bind says so and fires again.
        var again = SyntheticRecording(leadIn: 1.5)
        again.swipe(from: (2, 64), by: 50, 0)
        again.wait(0.4)
        let second = directory.write("again.evemu", again.text)
        let restarted = try Daemon(["--replay", second], directory: directory)
        try bind.waitForOutput("reconnected to gestured")
        try waitForLines(out, 3, context: { bind.output })
        #expect(lines(out) == ["right", "back", "back"])
        try restarted.terminate()
        try bind.stop()
    }

    @Test func checkValidatesAndDescribes() throws {
        let directory = TemporaryDirectory()
        let ctl = try Paths.gesturectl()
        let good = directory.write("good.toml", "[[binding]]\nedge = \"left\"\ncommand = [\"notify-send\", \"back\"]\n")
        let ok = try run(ctl, ["bind", "--check", "--bindings", good], in: directory)
        #expect(ok.status == 0)
        // notify-send is not on the test's PATH: a warning, and the file is still usable.
        #expect(ok.output == "\(good): OK, 1 binding\n  binding 1 (\(good):1:1): edge-swipe, edge left, on end -> notify-send back\n"
            + "warning: binding 1 (\(good):1:1): notify-send is not on PATH (/usr/bin:/bin); this binding would fail when it fires\n")
        let found = directory.write("found.toml", "[[binding]]\nedge = \"left\"\ncommand = [\"true\"]\n")
        #expect(try run(ctl, ["bind", "--check", "--bindings", found], in: directory).output.contains("warning") == false)
        let bad = directory.write("bad.toml", "[[binding]]\nedge = \"left\"\ncommand = \"notify-send back\"\n")
        let broken = try run(ctl, ["bind", "--check", "--bindings", bad], in: directory)
        #expect(broken.status == 1)
        #expect(
            broken.output == "\(bad):3:1: binding[1].command: a string is run by a shell: write shell = \"notify-send back\", "
                + "or command = [\"notify-send\", \"back\"] to run it without one\n\(bad): 1 error; the bindings file is not usable\n")
        // The default file: $XDG_CONFIG_HOME/gestured/bindings.toml.
        let missing = try run(ctl, ["bind", "--check"], environment: ["XDG_CONFIG_HOME=\(directory.path)/cfg"], in: directory)
        #expect(missing.status == 1)
        #expect(missing.output.hasPrefix("\(directory.path)/cfg/gestured/bindings.toml: cannot open the bindings file: No such file or directory"), "\(missing.output)")
        // The hint names the example where it is installed, not a path in the source tree.
        #expect(!missing.output.contains("config/bindings.toml"), "\(missing.output)")
        #expect(missing.output.contains("copy the example bindings file"), "\(missing.output)")
    }
}
