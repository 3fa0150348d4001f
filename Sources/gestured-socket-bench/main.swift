// gestured-socket-bench: gesture events per second the running daemon delivers through its socket to 1
// and to 50 clients, and the resident memory of an idle daemon. It starts the real gestured (release
// build, next to this binary) on a private socket with a looping --replay, subscribes N clients read by
// one poll(2) loop, and raises the replay speed until the daemon no longer keeps up. Reports figures;
// asserts nothing. Run with `make bench-socket`; the last line, `bench-socket: key=value …`, is the
// summary for scripts (docs/testing.md, "Benchmarks").
import DaemonUnderTest
import GestureCore
import GestureProtocol
import Glibc
import RecordingFiles

func now() -> Double { monotonicSeconds() }

func fail(_ message: String) -> Never {
    var bytes = Array((message + "\n").utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    exit(1)
}

let arguments = CommandLine.arguments
let fixtures = arguments.count > 1 ? arguments[1] : "Tests/Fixtures"
let recording = fixtures + "/recordings/dell_canvas_touch.evemu"
let gestured = executableDirectory + "/gestured"
guard access(gestured, X_OK) == 0 else { fail("no gestured next to this benchmark (\(gestured)); build it in the same configuration") }

// What one pass of the replay produces, and how long a pass lasts in recording time (plus the daemon's
// one-second gap between passes).
let parsed: DeviceRecording
do {
    parsed = try RecordingFile.load(recording)
} catch {
    fail("gestured-socket-bench: \(error)")
}
let device = parsed.device
guard let firstTime = parsed.events.first?.timeMicroseconds, let lastTime = parsed.events.last?.timeMicroseconds
else { fail("\(recording): no events") }
let eventsPerPass: Int
do {
    eventsPerPass = try RecordingReplay.gestures(of: parsed.events, device: device).gestures.count
} catch {
    fail("\(error)")
}
let passSeconds = Double(lastTime - firstTime + 1_000_000) / 1e6

guard let directory = PrivateDirectory(prefix: "gestured-bench") else { fail("mkdtemp: \(Errno(errno))") }
let socketPath = directory.path + "/gestured.sock"
let logPath = directory.path + "/gestured.log"
// Large client buffers so a momentary lag is absorbed; a client that truly falls behind still fills them
// and is dropped, which ends that run.
let configPath = directory.write(
    "bench.toml",
    "[daemon]\nsocket_group = \"\"\nclient_buffer_bytes = 16777216\nmax_clients = 64\nlog_level = \"warning\"\n")

/// Starts gestured with `extra` arguments; its log goes to DIR/gestured.log.
func startDaemon(_ extra: [String]) -> pid_t {
    switch spawnDaemon(gestured, ["--no-udev", "--socket", socketPath, "--config", configPath] + extra, logPath: logPath) {
    case .success(let pid): return pid
    case .failure(let error): fail("cannot start gestured: \(error)")
    }
}

func stopDaemon(_ pid: pid_t) {
    kill(pid, SIGTERM)
    var status: Int32 = 0
    waitpid(pid, &status, 0)
}

/// A connected client socket, or nil while the daemon is not listening yet.
func connectClient() -> Int32? { connectUnixSocket(socketPath) }

func waitForSocket() -> Int32 {
    let deadline = now() + 20
    while now() < deadline {
        if let fd = connectClient() { return fd }
        usleep(5000)
    }
    fail("gestured did not start listening; its log:\n" + readWholeFile(logPath))
}

/// "11912 KiB resident (1000 KiB anonymous: heap and stacks; the rest mapped from the binary and libraries), 1 thread"
func memory(_ pid: pid_t) -> String {
    "\(statusKiB(pid, "VmRSS")) KiB resident (\(statusKiB(pid, "RssAnon")) KiB anonymous, \(statusKiB(pid, "RssFile")) KiB "
        + "file-backed: the binary and shared libraries), \(statusKiB(pid, "Threads")) thread(s)"
}

struct Run {
    var speed: Double
    var offeredPerSecond: Double
    var deliveredPerClientPerSecond: Double
    var daemonCPU: Double
    var disconnected: Int
}

/// One measurement: `clients` subscribers, replay at `speed`, counted over `seconds` after a warm-up.
func measure(clients count: Int, speed: Double, seconds: Double = 2.5) -> Run {
    let pid = startDaemon(["--replay", recording, "--loop", "--speed", String(speed)])
    defer { stopDaemon(pid) }
    var fds: [Int32] = [waitForSocket()]
    while fds.count < count { if let fd = connectClient() { fds.append(fd) } }
    let subscribe = Array("{\"type\":\"subscribe\"}\n".utf8)
    for fd in fds {
        _ = subscribe.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
    var pollfds = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
    var lines = [Int](repeating: 0, count: count)
    var open = [Bool](repeating: true, count: count)
    var buffer = [UInt8](repeating: 0, count: 1 << 18)
    let warmUp = now() + 0.5
    var start = 0.0
    var cpuStart = 0.0
    var counting = false
    while true {
        let t = now()
        if !counting && t >= warmUp {
            counting = true
            start = t
            cpuStart = cpuSeconds(pid)
            lines = [Int](repeating: 0, count: count)
        }
        if counting && t >= start + seconds { break }
        guard poll(&pollfds, nfds_t(pollfds.count), 50) >= 0 || errno == EINTR else { fail("poll: \(errno)") }
        for i in pollfds.indices where open[i] && pollfds[i].revents != 0 {
            let n = buffer.withUnsafeMutableBytes { recv(pollfds[i].fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR) {
                open[i] = false
                pollfds[i].events = 0
                continue
            }
            if n > 0 {
                var newlines = 0
                for b in buffer[0..<n] where b == 0x0a { newlines += 1 }
                lines[i] += newlines
            }
        }
    }
    let elapsed = now() - start
    let cpu = (cpuSeconds(pid) - cpuStart) / elapsed
    for fd in fds { close(fd) }
    let openCount = open.filter { $0 }.count
    let delivered = openCount == 0 ? 0 : Double(zip(lines, open).filter { $0.1 }.map(\.0).reduce(0, +)) / Double(openCount) / elapsed
    return Run(
        speed: speed, offeredPerSecond: Double(eventsPerPass) / passSeconds * speed, deliveredPerClientPerSecond: delivered,
        daemonCPU: cpu, disconnected: count - openCount)
}

func fixed(_ v: Double, _ decimals: Int) -> String {
    var s = ""
    JSONObjectWriter.appendFixed(v, decimals: decimals, to: &s)
    return s
}

print("gestured-socket-bench: \(recording) loops, \(eventsPerPass) gesture events per \(fixed(passSeconds, 2)) s pass at speed 1")
print("(events = gesture event lines, updates included; a client's rate is what it received per second;")
print(" CPU is the daemon's user+system time over wall time; other load on the machine lowers the rates)")
/// The summary's fields, in order: `bench-socket: key=value …` is the last line, for scripts.
var summary: [(String, String)] = []
for clients in [1, 50] {
    print("\n\(clients) client\(clients == 1 ? "" : "s"):")
    print("  speed   offered ev/s   delivered ev/s per client   lines/s written   daemon CPU   CPU µs/line   dropped clients")
    var best: Run?
    var speed = 100.0
    while speed <= 1_000_000 {
        let run = measure(clients: clients, speed: speed)
        print(
            "  \(fixed(speed, 0))".padding(9) + fixed(run.offeredPerSecond, 0).padding(15)
                + fixed(run.deliveredPerClientPerSecond, 0).padding(28)
                + fixed(run.deliveredPerClientPerSecond * Double(clients), 0).padding(18)
                + (fixed(run.daemonCPU * 100, 0) + "%").padding(13)
                + fixed(run.daemonCPU * 1e6 / max(1, run.deliveredPerClientPerSecond * Double(clients)), 2).padding(14)
                + "\(run.disconnected)")
        let keptUp = run.disconnected == 0 && run.deliveredPerClientPerSecond >= 0.9 * run.offeredPerSecond
        if keptUp { best = run }
        if !keptUp || run.daemonCPU > 0.95 { break }
        speed *= 4
    }
    summary.append(("clients\(clients)_events_per_s", best.map { fixed($0.deliveredPerClientPerSecond, 0) } ?? "0"))
    summary.append(("clients\(clients)_lines_per_s", best.map { fixed($0.deliveredPerClientPerSecond * Double(clients), 0) } ?? "0"))
    summary.append(("clients\(clients)_daemon_cpu_pct", best.map { fixed($0.daemonCPU * 100, 0) } ?? "0"))
    if let best {
        print(
            "  => sustained: \(fixed(best.deliveredPerClientPerSecond, 0)) events/s to each of \(clients) client\(clients == 1 ? "" : "s") "
                + "(\(fixed(best.deliveredPerClientPerSecond * Double(clients), 0)) lines/s written), daemon CPU \(fixed(best.daemonCPU * 100, 0))%")
    }
}

// The idle daemon: no devices, then after a replay has finished, with one client connected.
do {
    let idle = startDaemon([])
    let fd = waitForSocket()
    usleep(300_000)
    let rss = memory(idle)
    summary.append(("idle_rss_kib", String(statusKiB(idle, "VmRSS"))))
    close(fd)
    stopDaemon(idle)
    let played = startDaemon(["--replay", recording, "--speed", "1000"])
    let fd2 = waitForSocket()
    usleep(1_000_000)  // the 15 s recording at 1000x is over in 15 ms
    let rss2 = memory(played)
    summary.append(("after_replay_rss_kib", String(statusKiB(played, "VmRSS"))))
    close(fd2)
    stopDaemon(played)
    print("\nidle daemon, no devices, one client: \(rss)")
    print("idle daemon after replaying a recording, one client: \(rss2)")
}
print("bench-socket: " + summary.map { "\($0.0)=\($0.1)" }.joined(separator: " "))
directory.remove(["gestured.sock", "bench.toml", "gestured.log"])

extension String {
    func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(1, width - count)) }
}
