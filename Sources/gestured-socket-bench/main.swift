// gestured-socket-bench: gesture events per second the running daemon delivers through its socket to 1
// and to 50 clients, and the memory of an idle daemon. It starts the real gestured (release build, next to
// this binary, or the ones --gestured names) on a private socket with a looping --replay, subscribes N
// clients read by one poll(2) loop, and raises the replay speed until the daemon no longer keeps up.
// Reports figures; asserts nothing. Run with `make bench-socket`; the last line, `bench-socket: key=value …`,
// is the summary for scripts (docs/testing.md, "Benchmarks").
//
//   gestured-socket-bench [--memory-only] [--gestured PATH]... [FIXTURES]
//
// --memory-only skips the throughput runs; each --gestured adds a daemon binary whose idle memory is
// measured in the same run, the first one being the baseline the others are compared with (and the one
// the throughput runs and the summary line use).
import CommandLineArguments
import DaemonUnderTest
import GestureCore
import GestureProtocol
import Glibc
import RecordingFormats

func now() -> Double { monotonicSeconds() }

func fail(_ message: String) -> Never {
    var bytes = Array((message + "\n").utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    exit(1)
}

var fixtures = "Tests/Fixtures"
var binaries: [String] = []
var memoryOnly = false
do {
    var arguments = Arguments(
        Array(CommandLine.arguments.dropFirst()), program: "gestured-socket-bench",
        usage: "usage: gestured-socket-bench [--memory-only] [--gestured PATH]... [FIXTURES]\n")
    do {
        if try arguments.parse({ (arguments, argument) throws(UsageError) in
            switch argument {
            case "--memory-only": memoryOnly = true
            case "--gestured":
                binaries.append(try arguments.value(of: argument, missing: "--gestured needs the path of a gestured binary"))
            case _ where argument.hasPrefix("-"): throw arguments.unknown(argument)
            default: fixtures = argument
            }
        }) {
            print(arguments.usage, terminator: "")
            exit(0)
        }
    } catch {
        fail(String(arguments.message(for: error).dropLast()))
    }
}
if binaries.isEmpty { binaries = [executableDirectory + "/gestured"] }
for binary in binaries where access(binary, X_OK) != 0 {
    fail("gestured-socket-bench: no executable gestured at \(binary); build it in the same configuration (make bench-socket does)")
}
let gestured = binaries[0]
let recording = fixtures + "/recordings/dell_canvas_touch.evemu"

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
// The memory runs use the defaults (a group-less socket aside): the idle figures are an installed daemon's.
let memoryConfigPath = directory.write("memory.toml", "[daemon]\nsocket_group = \"\"\nlog_level = \"warning\"\n")

/// Starts gestured (`binary`, the first --gestured by default) with `extra` arguments and the configuration
/// file `config`; its log goes to DIR/gestured.log.
func startDaemon(_ extra: [String], binary: String = gestured, config: String = configPath) -> pid_t {
    switch spawnDaemon(binary, ["--no-udev", "--socket", socketPath, "--config", config] + extra, logPath: logPath) {
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

if !memoryOnly {
    print("gestured-socket-bench: \(recording) loops, \(eventsPerPass) gesture events per \(fixed(passSeconds, 2)) s pass at speed 1")
    print("(events = gesture event lines, updates included; a client's rate is what it received per second;")
    print(" CPU is the daemon's user+system time over wall time; other load on the machine lowers the rates)")
}
/// The summary's fields, in order: `bench-socket: key=value …` is the last line, for scripts.
var summary: [(String, String)] = []
for clients in (memoryOnly ? [] : [1, 50]) {
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

// The idle daemon's memory, for each binary: started with no devices and one client connected, then
// started with a replay that is over a second later (one client again). Each state is measured on three
// starts and the one with the median PSS is kept.
struct Sample {
    var memory: ProcessMemory
    var files: [MappedFile]
}

/// The median-PSS sample of three starts of `binary` with `extra` arguments, `settle` seconds after the
/// first client connected.
func idleMemory(_ binary: String, _ extra: [String], settle: Double) -> Sample {
    var samples: [Sample] = []
    for _ in 0..<3 {
        let pid = startDaemon(extra, binary: binary, config: memoryConfigPath)
        let fd = waitForSocket()
        usleep(useconds_t(settle * 1e6))
        guard let memory = ProcessMemory(pid: pid) else {
            fail("cannot read /proc/\(pid)/smaps_rollup of \(binary) (did it exit? its log:\n\(readWholeFile(logPath)))")
        }
        samples.append(Sample(memory: memory, files: mappedFiles(pid)))
        close(fd)
        stopDaemon(pid)
    }
    return samples.sorted { $0.memory.pss < $1.memory.pss }[1]
}

/// "1.23x" (or "-" when the baseline is 0).
func ratio(_ value: Int, _ base: Int) -> String { base == 0 ? "-" : fixed(Double(value) / Double(base), 2) + "x" }

print("\nidle daemon memory, KiB (/proc/PID/smaps_rollup; the median-PSS of 3 starts; \"idle\": no devices, one")
print("client; \"after replay\": a recording replayed at 1000x and over, one client):")
print("  RSS: pages mapped; PSS: each page divided by the processes sharing it (this process's fair share);")
print("  Private_Dirty: written pages only this process has (heap, stacks, relocated data). PSS depends on")
print("  who else maps the same libraries: on a build machine other Swift programs share libswiftCore with a")
print("  dynamically linked daemon, on a phone the daemon may be their only user.")
print("  state          RSS      PSS      Private_Dirty  Anonymous  gestured")
var measured: [(binary: String, idle: Sample, afterReplay: Sample)] = []
for binary in binaries {
    // A binary just built is dirty in the page cache until written back, which smaps counts as the
    // process's own dirty pages.
    flushToDisk(binary)
    let idle = idleMemory(binary, [], settle: 0.3)
    let afterReplay = idleMemory(binary, ["--replay", recording, "--speed", "1000"], settle: 1)  // 15 s at 1000x: 15 ms
    measured.append((binary, idle, afterReplay))
    for (state, sample) in [("idle", idle), ("after replay", afterReplay)] {
        let m = sample.memory
        print(
            "  " + state.padding(15) + "\(m.rss)".padding(9) + "\(m.pss)".padding(9) + "\(m.privateDirty)".padding(15)
                + "\(m.anonymous)".padding(11) + binary)
    }
}
if measured.count > 1 {
    let base = measured[0]
    print("\nratios to the first (\(base.binary)), idle / after replay:")
    print("  RSS           PSS           Private_Dirty  gestured")
    for other in measured.dropFirst() {
        func pair(_ key: KeyPath<ProcessMemory, Int>) -> String {
            ratio(other.idle.memory[keyPath: key], base.idle.memory[keyPath: key]) + " / "
                + ratio(other.afterReplay.memory[keyPath: key], base.afterReplay.memory[keyPath: key])
        }
        print("  " + pair(\.rss).padding(14) + pair(\.pss).padding(14) + pair(\.privateDirty).padding(15) + other.binary)
    }
}
for entry in measured {
    print("\nwhere the idle daemon's memory goes (/proc/PID/smaps by file, KiB), \(entry.binary):")
    print("  RSS      PSS      Private_Dirty  mapping")
    for file in entry.idle.files where file.memory.rss > 0 {
        print("  " + "\(file.memory.rss)".padding(9) + "\(file.memory.pss)".padding(9) + "\(file.memory.privateDirty)".padding(15) + file.name)
    }
}
for (index, entry) in measured.enumerated() {
    let fields = [
        ("idle_rss_kib", entry.idle.memory.rss), ("idle_pss_kib", entry.idle.memory.pss),
        ("idle_private_dirty_kib", entry.idle.memory.privateDirty), ("after_replay_rss_kib", entry.afterReplay.memory.rss),
        ("after_replay_pss_kib", entry.afterReplay.memory.pss),
        ("after_replay_private_dirty_kib", entry.afterReplay.memory.privateDirty),
    ]
    if index == 0 {
        summary += fields.map { ($0.0, String($0.1)) }
    }
    if measured.count > 1 {
        print("bench-socket-memory: gestured=\(entry.binary) " + fields.map { "\($0.0)=\($0.1)" }.joined(separator: " "))
    }
}
print("bench-socket: " + summary.map { "\($0.0)=\($0.1)" }.joined(separator: " "))
directory.remove(["gestured.sock", "bench.toml", "memory.toml", "gestured.log"])

extension String {
    func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(1, width - count)) }
}
