// gesturectl bind and lisgd under the second outside attack (bounded work, unforgeable output, a loop that
// never waits) and the first hour on a phone (a -d that is a symlink, lisgd -v, kiosk holds): each test
// fails without its fix.
import DaemonUnderTest
import GestureProtocol
import GestureVocabulary
import Glibc
import Testing

/// A program whose standard output and standard error go to files of their own, or standard error to a
/// pipe that the test reads only when it chooses (a slow reader).
final class SplitOutput {
    let pid: pid_t
    let stdoutPath: String
    let stderrPipe: Int32?
    let stderrPath: String?
    private(set) var exitStatus: Int32?

    init(_ argv: [String], directory: TemporaryDirectory, stderrToPipe: Bool) throws {
        stdoutPath = directory.path + "/stdout-\(UInt32.random(in: 0...UInt32.max))"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var fds: [Int32] = [-1, -1]
        if stderrToPipe {
            precondition(pipe(&fds) == 0)
            _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
            posix_spawn_file_actions_adddup2(&actions, fds[1], 2)
            stderrPipe = fds[0]
            stderrPath = nil
        } else {
            let path = directory.path + "/stderr-\(UInt32.random(in: 0...UInt32.max))"
            posix_spawn_file_actions_addopen(&actions, 2, path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            stderrPipe = nil
            stderrPath = path
        }
        let cArgs = argv.map { strdup($0) } + [nil]
        let cEnv: [UnsafeMutablePointer<CChar>?] = [strdup("PATH=/usr/bin:/bin"), nil]
        defer {
            cArgs.forEach { free($0) }
            cEnv.forEach { free($0) }
        }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, argv[0], &actions, nil, cArgs, cEnv)
        if stderrToPipe { close(fds[1]) }
        guard rc == 0 else { throw TestFailure("posix_spawn \(argv[0]): \(String(cString: strerror(rc)))") }
        self.pid = pid
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        if let stderrPipe { close(stderrPipe) }
    }

    var stdout: String { readWholeFile(stdoutPath) }
    var stderr: String { stderrPath.map { readWholeFile($0) } ?? "" }

    /// Everything in the pipe now (it is non-blocking once read).
    func readPipe() -> String {
        guard let fd = stderrPipe else { return "" }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @discardableResult
    func stop(_ signal: Int32 = SIGTERM) throws -> Int32 {
        kill(pid, signal)
        var collected = ""
        try waitUntil("pid \(pid) to exit", context: { collected }) {
            collected += readPipe()
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

/// `text` (an evemu recording SyntheticRecording wrote) with every coordinate and axis range multiplied by
/// `factor` and the axes' resolution 1: a panel that declares huge coordinates, as a USB HID descriptor can.
func hugeCoordinates(_ text: String, factor: Int) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
        let f = line.split(separator: " ").map(String.init)
        if f.first == "A:", f.count == 7, ["00", "01", "35", "36"].contains(f[1]) {
            return "A: \(f[1]) 0 \(Int(f[3])! * factor + factor - 1) 0 0 1"
        }
        if f.first == "E:", f.count == 5, f[2] == "0003", f[3] == "0035" || f[3] == "0036" {
            return "E: \(f[1]) \(f[2]) \(f[3]) \(Int(f[4])! * factor)"
        }
        return String(line)
    }.joined(separator: "\n")
}

@Suite("gesturectl: bounded work, output nobody can forge, a loop that never waits", .serialized)
struct GesturectlBoundsTests {
    /// Issue 22 item 11: a command floods the same standard error as gesturectl's log and nobody reads it;
    /// the next binding's command still runs (gesturectl drops its own lines and says how many), and a
    /// command's standard output goes to standard error, not to gesturectl's standard output.
    @Test func aSlowLogReaderNeverHoldsTheLoopAndCommandsWriteToStandardError() throws {
        let directory = TemporaryDirectory()
        let fast = directory.path + "/fast"
        let floodPID = directory.path + "/flood.pid"
        let bindings = directory.write(
            "bindings.toml",
            """
            [[binding]]
            name = "flood"
            edge = "left"
            shell = "echo $$ >> \(floodPID); echo flooding-stdout; head -c 3000000 /dev/zero | tr '\\\\0' x"

            [[binding]]
            name = "fast"
            edge = "right"
            shell = "echo fast >> \(fast)"
            """)
        var r = SyntheticRecording(leadIn: BindCommandTests.leadIn)
        r.swipe(from: (2, 64), by: 50, 0)
        r.wait(0.5)
        for _ in 0..<3 {
            r.swipe(from: (70, 64), by: -50, 0)
            r.wait(0.4)
        }
        let recording = directory.write("gestures.evemu", r.text)
        let daemon = try Daemon(["--replay", recording])
        let bind = try SplitOutput(
            [try Paths.gesturectl(), "bind", "--verbose", "--bindings", bindings, "--socket", daemon.socketPath],
            directory: directory, stderrToPipe: true)
        defer { for pid in lines(floodPID).compactMap({ pid_t($0) }) { kill(-pid, SIGKILL) } }
        // Nobody reads bind's standard error until the fast binding has run three times.
        try waitForLines(fast, 3, context: { "stdout: \(bind.stdout)" })
        // Then it is read until the flood has ended and bind's next line says what it dropped.
        var log = ""
        try waitUntil("bind to say it dropped log lines", context: { String(log.suffix(2000)) }) {
            log += bind.readPipe()
            return log.contains(" dropped: standard error was not being read")
        }
        try bind.stop()
        #expect(log.contains("flooding-stdout"), "the command's standard output did not reach standard error")
        #expect(!bind.stdout.contains("flooding-stdout"), "\(bind.stdout)")
    }

    /// Issue 22 item 12: `if_running = "parallel"` runs at most 16 commands of a binding at once; the rest
    /// are dropped with a log line (one a second at most, with the count).
    @Test func parallelCommandsAreCapped() throws {
        let directory = TemporaryDirectory()
        let started = directory.path + "/started"
        let bindings = directory.write(
            "bindings.toml",
            """
            [[binding]]
            name = "many"
            gesture = "pan"
            fingers = 2
            if_running = "parallel"
            max_per_second = 1000
            shell = "echo $$ >> \(started); exec sleep 60"
            """)
        var r = SyntheticRecording(leadIn: BindCommandTests.leadIn)
        for _ in 0..<24 {
            r.swipe(from: [(30, 60), (42, 60)], by: 0, 30, seconds: 0.1)
            r.wait(0.05)
        }
        r.wait(0.5)
        let recording = directory.write("gestures.evemu", r.text)
        let daemon = try Daemon(["--replay", recording])
        let bind = try Background(
            [try Paths.gesturectl(), "bind", "--bindings", bindings, "--socket", daemon.socketPath],
            outputPath: directory.path + "/bind.log")
        defer { for pid in lines(started).compactMap({ pid_t($0) }) { kill(-pid, SIGKILL) } }
        try bind.waitForOutput("many: dropped: 16 of its commands already run (at most 16 at once)")
        try daemon.terminate()
        try bind.waitForOutput("the daemon closed the connection")
        try waitForLines(started, 16, context: { bind.output })
        #expect(lines(started).count == 16, "\(bind.output)")
        #expect(try bind.stop() == 0)
    }

    /// Issue 22 item 7: a panel with huge coordinates and resolution 1 fires a pressed binding at most once
    /// per motion event (as lisgd does), not once per -T pixels of a single event.
    @Test func lisgdPressedModeFiresAtMostOncePerEvent() throws {
        let directory = TemporaryDirectory()
        let out = directory.path + "/fired"
        var r = SyntheticRecording(leadIn: BindCommandTests.leadIn)
        r.swipe(from: (60, 64), by: -33, 0, seconds: 0.3)
        r.wait(0.5)
        let recording = directory.write("huge.evemu", hugeCoordinates(r.text, factor: 100))
        let daemon = try Daemon(["--replay", recording])
        let observer = try daemon.connect()
        try observer.subscribe(SubscriptionFilter(kinds: [.pan], updates: true, appTouches: true))
        let lisgd = try Background(
            [try Paths.gesturectl(), "lisgd", "-g", "1,RL,N,*,P,echo pressed >> \(out)", "--socket", daemon.socketPath],
            outputPath: directory.path + "/lisgd.log")
        var moving = 0
        while true {
            let g = try nextGesture(observer, from: daemon)
            if g.event.phase == .end { break }
            moving += 1
        }
        try daemon.terminate()
        try lisgd.waitForOutput("the daemon closed the connection")
        #expect(lines(out).count >= 1 && lines(out).count <= moving, "fired \(lines(out).count) times for \(moving) events\n\(lisgd.output)")
        #expect(try lisgd.stop() == 0)
    }

    /// Issue 22 item 13 and issue 25 item 1: lisgd refuses a -d that is empty, missing or not an input
    /// device, as lisgd does; a -d that is a symlink to the recording the daemon replays (its device's path)
    /// selects that device; one that names no device says which there are.
    @Test func lisgdResolvesItsDeviceAndRefusesNonDevices() throws {
        let directory = TemporaryDirectory()
        let ctl = try Paths.gesturectl()
        for (device, message) in [
            ("", "-d needs a device: its node (/dev/input/event5), a symlink to it (/dev/input/by-path/…), or gestured's id or name for it"),
            ("/missing/event3", "-d /missing/event3: /missing/event3 does not exist (a device node such as /dev/input/event5, or a symlink to one such as /dev/input/by-path/…-event)"),
            ("/dev/null", "-d /dev/null: /dev/null is not an input device (its major number is 1, an input device's is 13)"),
        ] {
            let r = try run(ctl, ["lisgd", "-d", device, "-g", "1,LR,L,*,true"], in: directory)
            #expect(r.status == 2)
            #expect(r.output == "gesturectl lisgd: \(message)\nRun 'gesturectl lisgd --help' for the options.\n", "\(r.output)")
        }
        let out = directory.path + "/fired"
        var r = SyntheticRecording(leadIn: BindCommandTests.leadIn)
        r.swipe(from: (2, 64), by: 50, 0)
        r.wait(0.4)
        let recording = directory.write("panel.evemu", r.text)
        let other = directory.write("other.evemu", r.text)
        #expect(symlink(recording, directory.path + "/first-touchscreen") == 0)
        let daemon = try Daemon(["--replay", recording])
        let chosen = try Background(
            [ctl, "lisgd", "-v", "-d", directory.path + "/first-touchscreen", "-g", "1,LR,L,*,echo chosen >> \(out)", "--socket", daemon.socketPath],
            outputPath: directory.path + "/chosen.log")
        let elsewhere = try Background(
            [ctl, "lisgd", "-d", other, "-g", "1,LR,L,*,echo elsewhere >> \(out)", "--socket", daemon.socketPath],
            outputPath: directory.path + "/elsewhere.log")
        try waitForLines(out, 1, context: { chosen.output + elsewhere.output })
        try daemon.terminate()
        try chosen.waitForOutput("the daemon closed the connection")
        try elsewhere.waitForOutput("the daemon closed the connection")
        #expect(lines(out) == ["chosen"])
        #expect(chosen.output.contains("-d \(directory.path)/first-touchscreen: replay1"), "\(chosen.output)")
        #expect(
            elsewhere.output.contains(
                "-d \(other): no device the daemon reads is \(other) (resolved: \(other)); it reads replay1 \"gestured test phone panel\" (\(recording)); waiting for it"),
            "\(elsewhere.output)")
        try chosen.stop()
        try elsewhere.stop()
    }

    /// Issue 25 item 2: with -v, a gesture no -g matches in pressed mode is said once, not once per update.
    @Test func lisgdVerboseSaysNoMatchOncePerGesture() throws {
        let directory = TemporaryDirectory()
        var r = SyntheticRecording(leadIn: BindCommandTests.leadIn)
        r.swipe(from: (60, 64), by: -33, 0, seconds: 0.5)
        r.wait(0.5)
        let recording = directory.write("pressed.evemu", r.text)
        let daemon = try Daemon(["--replay", recording])
        let lisgd = try Background(
            [try Paths.gesturectl(), "lisgd", "-v", "-g", "1,DU,N,*,P,true", "--socket", daemon.socketPath],
            outputPath: directory.path + "/lisgd.log")
        let observer = try daemon.connect()
        try observer.subscribe(SubscriptionFilter(kinds: [.pan], updates: false, appTouches: true))
        while try nextGesture(observer, from: daemon).event.phase != .end {}
        try lisgd.waitForOutput("pressed 1,RL,N,*: no -g matches")
        try daemon.terminate()
        try lisgd.waitForOutput("the daemon closed the connection")
        #expect(lisgd.output.ranges(of: "no -g matches").count == 1, "\(lisgd.output)")
        try lisgd.stop()
    }

    /// Issue 22 item 17: connecting to a daemon that does not answer (stopped) leaves the loop free: a
    /// SIGHUP is handled while the hello is awaited, before bind gives up on that attempt.
    @Test func aDaemonThatDoesNotAnswerDoesNotHoldTheLoop() throws {
        let directory = TemporaryDirectory()
        let file = "[[binding]]\nedge = \"left\"\nshell = \"true\"\n"
        let bindings = directory.write("bindings.toml", file)
        let daemon = try Daemon([])
        daemon.signal(SIGSTOP)
        defer { daemon.signal(SIGCONT) }
        let bind = try Background(
            [try Paths.gesturectl(), "bind", "--verbose", "--bindings", bindings, "--socket", daemon.socketPath],
            outputPath: directory.path + "/bind.log")
        try bind.waitForOutput("connecting to gestured at \(daemon.socketPath)")
        _ = directory.write("bindings.toml", file + file)
        kill(bind.pid, SIGHUP)
        try bind.waitForOutput("SIGHUP: reloaded \(bindings): 2 bindings (was 1)")
        try bind.waitForOutput("did not answer")
        let log = bind.output
        #expect(log.range(of: "SIGHUP: reloaded")!.lowerBound < log.range(of: "did not answer")!.lowerBound, "\(log)")
        daemon.signal(SIGCONT)
        try bind.waitForOutput("connected to gestured")
        #expect(try bind.stop() == 0)
    }

    /// Issue 22 item 13: --check and bind agree on a file without bindings (neither runs it).
    @Test func anEmptyFileIsRefusedByCheckAndBindAlike() throws {
        let directory = TemporaryDirectory()
        let empty = directory.write("empty.toml", "# nothing yet\n")
        for arguments in [["bind", "--check", "--bindings", empty], ["bind", "--bindings", empty, "--socket", directory.path + "/none"]] {
            let r = try run(try Paths.gesturectl(), arguments, in: directory)
            #expect(r.status == 1)
            #expect(r.output == "gesturectl bind: \(empty) has no [[binding]] sections; nothing to do\n")
        }
        let large = directory.write("large.toml", String(repeating: "#", count: 1_100_000))
        let r = try run(try Paths.gesturectl(), ["bind", "--check", "--bindings", large], in: directory)
        #expect(!r.output.contains("file file"), "\(r.output)")
    }

    /// Issue 25 items 7: a hold in the top-right corner held 1 s past its begin runs the kiosk's admin
    /// command; one that lifts before does not.
    @Test func aHeldSecondsBindingInARegionFiresOnlyAfterItsTime() throws {
        let directory = TemporaryDirectory()
        let out = directory.path + "/fired"
        let bindings = directory.write(
            "bindings.toml",
            """
            [[binding]]
            name = "admin"
            region = [0.8, 0, 1, 0.2]
            held_seconds = 1
            shell = "echo admin $GESTURE_KIND >> \(out)"
            """)
        var r = SyntheticRecording(leadIn: BindCommandTests.leadIn)
        r.stroke(seconds: 0.9) { _ in [(66, 6)] }  // a hold that lifts 0.4 s after it began: nothing
        r.wait(0.5)
        r.stroke(seconds: 2.5) { _ in [(66, 6)] }  // held 2 s past its begin: fires once
        r.wait(0.5)
        r.stroke(seconds: 2.5) { _ in [(20, 60)] }  // elsewhere: nothing
        r.wait(0.5)
        let recording = directory.write("holds.evemu", r.text)
        let daemon = try Daemon(["--replay", recording])
        let observer = try daemon.connect()
        try observer.subscribe(SubscriptionFilter(kinds: [.hold], updates: false, appTouches: true))
        let bind = try Background(
            [try Paths.gesturectl(), "bind", "--bindings", bindings, "--socket", daemon.socketPath],
            outputPath: directory.path + "/bind.log")
        var ends = 0
        while ends < 3 {
            if try nextGesture(observer, from: daemon).event.phase == .end { ends += 1 }
        }
        try waitForLines(out, 1, context: { bind.output + replayed(recording, in: directory) })
        try daemon.terminate()
        try bind.waitForOutput("the daemon closed the connection")
        #expect(lines(out) == ["admin hold"], "\(bind.output)")
        try bind.stop()
    }
}

/// Issue 22 item 8: a device name with a newline (a USB descriptor can say anything) cannot forge a line of
/// `gesturectl devices` nor a column. The daemon here is socat handing out what a daemon reading such a
/// device sends (no uinput on a build machine to make one): its hello, then the reply to `devices`.
@Test func aDeviceNameCannotForgeALineOfDevices() throws {
    let directory = TemporaryDirectory()
    let device = DeviceInfo(
        id: "event7", name: "panel\nevent8\tforged\u{1b}]0;title\u{7}", vendorProduct: "0eef:0001", path: "/dev/input/event7",
        source: .evdev, slots: 10)
    let replies = directory.write(
        "replies",
        ServerMessage.hello(Hello(devices: [device])).encoded + "\n" + ServerMessage.devices(id: .integer(1), devices: [device]).encoded + "\n")
    let socket = directory.path + "/fake.sock"
    let server = try Background(
        ["/usr/bin/socat", "UNIX-LISTEN:\(socket)", "SYSTEM:cat \(replies); sleep 5"], outputPath: directory.path + "/socat.log")
    try waitUntil("socat to listen", context: { server.output }) { access(socket, F_OK) == 0 }
    let r = try run(try Paths.gesturectl(), ["devices", "--socket", socket], in: directory)
    #expect(r.status == 0, "\(r.output)")
    #expect(r.output == "event7\tpanel\\u{a}event8\\u{9}forged\\u{1b}]0;title\\u{7}\t0eef:0001\t10 slots\tevdev\t/dev/input/event7\torientation 0\n", "\(r.output)")
    _ = try? server.stop()
}
