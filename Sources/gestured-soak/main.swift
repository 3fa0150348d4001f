// gestured-soak: the daemon under a long, busy load. It starts the real gestured (the build next to this
// binary) replaying recordings in a loop, connects 64 clients and sends SIGHUP every 10 s, for SOAK
// seconds (first argument, default 600):
//   - 42 readers subscribed to everything (2 of them with updates off) that must receive every gesture
//     event, in order (half of them stop reading for 10 s every 2 minutes, then catch up): each device's events are passes of what `gesturectl replay` makes of its
//     recording, ids grow, every begin is followed by updates and exactly one end or cancel;
//   - 20 clients that subscribe, unsubscribe, ping and ask for the devices at random, whose replies must
//     come in order and whose gestures must never start without their begin;
//   - one client that subscribes and never reads: the daemon must drop it, and log why;
//   - one client that connects, subscribes, reads a little and hangs up, again and again.
// Checks: the daemon's resident memory stays flat (the series is printed), every check above holds, and
// the log holds no warning or error but the stalled client's. Exits 1 when a check fails. `make soak`.
import CommandLineArguments
import DaemonUnderTest
import GestureCore
import GestureProtocol
import GestureVocabulary
import Glibc
import RecordingFormats

func now() -> Double { monotonicSeconds() }

func say(_ message: String) {
    var bytes = Array((message + "\n").utf8)
    _ = bytes.withUnsafeMutableBytes { write(1, $0.baseAddress, $0.count) }
}

func fail(_ message: String) -> Never {
    var bytes = Array(("gestured-soak: " + message + "\n").utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    exit(1)
}

// MARK: Set-up

var duration = 600.0
var fixtures = "Tests/Fixtures"
do {
    var arguments = Arguments(
        Array(CommandLine.arguments.dropFirst()), program: "gestured-soak",
        usage: "usage: gestured-soak [SECONDS [FIXTURES]]   (default 600 seconds, Tests/Fixtures)\n")
    do throws(UsageError) {
        guard let operands = try arguments.operands(atMost: 2) else {
            print(arguments.usage, terminator: "")
            exit(0)
        }
        if let text = operands.first {
            guard let seconds = Double(text), seconds > 0, seconds.isFinite else {
                throw UsageError("SECONDS \(text): give a number of seconds over 0")
            }
            duration = seconds
        }
        if operands.count == 2 { fixtures = operands[1] }
    } catch {
        var bytes = Array(arguments.message(for: error).utf8)
        _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
        exit(2)
    }
}
let speed = 2.0
/// The recordings replayed, each a looping virtual device: (recording, description or nil, the panel size
/// the configuration gives it when it reports no resolution).
let recordings: [(String, String?, (width: Double, height: Double)?)] = [
    (fixtures + "/recordings/dell_canvas_touch.evemu", nil, nil),
    (fixtures + "/recordings/Wacom_ISDv4_E6_Finger.double-top-swipe.events",
     fixtures + "/recordings/Wacom_ISDv4_E6_Finger.desc", (305, 172)),
]
let gestured = executableDirectory + "/gestured"
guard access(gestured, X_OK) == 0 else { fail("no gestured next to this program (\(gestured)); build it in the same configuration") }

/// What a client must see of one gesture event to call two streams the same (ids and times differ).
struct Signature: Equatable, CustomStringConvertible {
    var kind: GestureKind
    var phase: GesturePhase
    var fingers: Int
    var edge: Edge?
    var committed: Bool?
    var direction: SwipeDirection?
    var startEdge: Edge?
    var taps: Int?
    init(_ e: GestureEvent) {
        kind = e.kind
        phase = e.phase
        fingers = e.fingers
        edge = e.edge
        committed = e.committed
        direction = e.direction
        startEdge = e.startEdge
        taps = e.taps
    }
    var description: String {
        "\(kind.rawValue) \(phase.rawValue) \(fingers)" + (edge.map { " \($0.rawValue)" } ?? "")
            + (committed.map { " committed=\($0)" } ?? "") + (direction.map { " \($0.rawValue)" } ?? "")
            + (startEdge.map { " from \($0.rawValue)" } ?? "") + (taps.map { " taps=\($0)" } ?? "")
    }
}

/// One pass of each recording as `gesturectl replay` makes it, by device id ("replay1", "replay2", …, the
/// ids the daemon gives its replays in order).
let passes: [String: [Signature]] = {
    var result: [String: [Signature]] = [:]
    for (i, (events, desc, panel)) in recordings.enumerated() {
        do {
            let recording = try RecordingFile.load(events, description: desc)
            let device = recording.device
            var geometry = GeometrySettings()
            geometry.panelSizeMM = panel
            let gestures = try RecordingReplay.gestures(of: recording.events, device: device, geometry: geometry).gestures
            guard gestures.contains(where: { $0.phase == .begin }) else { fail("\(events) makes no gestures") }
            result["replay\(i + 1)"] = gestures.map(Signature.init)
        } catch {
            fail("\(events): \(error)")
        }
    }
    return result
}()

guard let directory = PrivateDirectory(prefix: "gestured-soak") else { fail("mkdtemp: \(Errno(errno))") }
let socketPath = directory.path + "/gestured.sock"
let logPath = directory.path + "/gestured.log"
let configPath: String = {
    // Room for all 64 clients and the reconnecting one's next connection. 2 MiB per client: a reader this
    // process starves for up to about 50 s (a busy machine) keeps up; the stalled client, which never
    // reads, is dropped after about as long.
    var text = "[daemon]\nsocket_group = \"\"\nmax_clients = 80\nclient_buffer_bytes = 2097152\nlog_level = \"info\"\n"
    for (events, desc, panel) in recordings {
        guard let panel else { continue }
        let name: String
        do {
            name = try RecordingFile.load(events, description: desc).device.name
        } catch {
            fail("\(error)")
        }
        text += "\n[[device]]\nmatch_name = \"\(name)\"\npanel_width_mm = \(panel.width)\npanel_height_mm = \(panel.height)\n"
    }
    return directory.write("soak.toml", text)
}()

func startDaemon() -> pid_t {
    var arguments = ["--no-udev", "--socket", socketPath, "--config", configPath]
    for (events, desc, _) in recordings {
        arguments += ["--replay", events] + (desc.map { ["--device", $0] } ?? []) + ["--loop", "--speed", String(speed)]
    }
    switch spawnDaemon(gestured, arguments, logPath: logPath) {
    case .success(let pid): return pid
    case .failure(let error): fail("cannot start gestured: \(error)")
    }
}

// MARK: Clients

enum Role: Equatable {
    /// Subscribed to everything from the start; must receive every event (or, updates off, every
    /// begin, end and cancel).
    case reader(updates: Bool)
    /// Subscribes, unsubscribes, pings and lists devices at random.
    case toggler
    /// Subscribes and never reads.
    case stalled
    /// Connects, subscribes, reads a little, hangs up; again and again.
    case reconnecting
}

final class Client {
    let role: Role
    let index: Int
    var fd: Int32 = -1
    var framer = LineFramer(maximumLineBytes: 1 << 20)
    var problems: [String] = []
    var lines = 0
    var gestureEvents = 0
    var closedByDaemon = false
    /// Per device: the running gesture's id.
    var running: [String: UInt64] = [:]
    var lastBeginID: UInt64 = 0
    /// Replies owed, in order: the request type and its id.
    var pending: [(type: String, id: Int)] = []
    var nextRequestID = 1
    var subscribed = false
    var nextAction = 0.0
    var connections = 0
    var readUntil = 0.0
    var passesCompleted: [String: Int] = [:]

    init(role: Role, index: Int) {
        self.role = role
        self.index = index
    }

    func problem(_ text: String) {
        if problems.count < 20 { problems.append(text) }
    }

    func send(_ text: String) {
        let bytes = Array((text + "\n").utf8)
        let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if n != bytes.count { problem("could not send \(text): \(n < 0 ? String(cString: strerror(errno)) : "short write")") }
    }

    func request(_ type: String, _ extra: String = "") {
        let id = nextRequestID
        nextRequestID += 1
        pending.append((type, id))
        send("{\"type\":\"\(type)\",\"id\":\(id)\(extra)}")
    }

    /// One line from the daemon.
    func handle(_ line: [UInt8]) {
        lines += 1
        let message: ServerMessage
        do {
            message = try ServerMessage.decode(line: line)
        } catch {
            problem("undecodable line \(String(decoding: line.prefix(200), as: UTF8.self)): \(error)")
            return
        }
        func reply(_ type: String, _ id: JSONValue?) {
            guard let first = pending.first else { return problem("a \(type) reply nobody asked for") }
            pending.removeFirst()
            if first.type != type || id != .integer(first.id) {
                problem("reply \(type) id \(id?.serialized ?? "none") where \(first.type) id \(first.id) was owed")
            }
        }
        switch message {
        case .hello: break
        case .subscribed(let id, _, _): reply("subscribe", id)
        case .unsubscribed(let id):
            reply("unsubscribe", id)
            // Gestures the daemon had accepted for this client end silently: nothing runs any more.
            running.removeAll()
        case .pong(let id): reply("ping", id)
        case .devices(let id, _): reply("devices", id)
        case .oriented(let id, _, _): reply("orientation", id)
        case .focused(let id, _): reply("focus", id)
        case .excluded(let id, _, _): reply("exclude", id)
        case .reloaded(let id, _): reply("reload", id)
        case .error(let error): problem("error from the daemon: \(error)")
        case .deviceAdded, .deviceRemoved, .deviceChanged, .appTouchAccessChanged, .unknown, .explanation: break
        case .gesture(let g): gesture(g)
        }
    }

    func gesture(_ g: DeviceGestureEvent) {
        gestureEvents += 1
        let e = g.event
        guard let device = g.device else { return problem("a gesture without a device: \(e)") }
        // Ids and phases, whatever the role: never half a gesture at its start, one gesture at a time.
        switch e.phase {
        case .begin:
            if let open = running[device] { problem("\(device): gesture \(e.id) begins while \(open) is running") }
            if e.id <= lastBeginID { problem("gesture id \(e.id) after \(lastBeginID)") }
            lastBeginID = e.id
            running[device] = e.id
        case .update, .end, .cancel:
            if running[device] != e.id {
                problem("\(device): \(e.phase.rawValue) of gesture \(e.id) while \(running[device].map(String.init) ?? "none") runs")
            }
            if e.phase != .update { running[device] = nil }
        }
        guard case .reader(let updates) = role, let pass = passes[device] else { return }
        let expected = updates ? pass : pass.filter { $0.phase != .update }
        let signature = Signature(e)
        // Where in the pass the next event may be: every place the events so far fit (one, soon). The
        // first event a reader sees is a begin anywhere in a pass.
        var places = candidates[device] ?? (e.phase == .begin ? Set(expected.indices) : [])
        places = Set(places.filter { expected[$0] == signature }.map { ($0 + 1) % expected.count })
        if places.isEmpty {
            problem("\(device): after \(matched[device, default: 0]) events that fit the recording's gestures, "
                + "\(signature) (gesture \(e.id)) does not; expected \(Set((candidates[device] ?? []).map { expected[$0].description }))")
            candidates[device] = nil
            return
        }
        candidates[device] = places
        matched[device, default: 0] += 1
        passesCompleted[device] = matched[device]! / expected.count
    }
    var candidates: [String: Set<Int>] = [:]
    var matched: [String: Int] = [:]
}

// MARK: Run

let daemon = startDaemon()
var clients: [Client] = []
for i in 0..<40 { clients.append(Client(role: .reader(updates: true), index: i)) }
for i in 40..<42 { clients.append(Client(role: .reader(updates: false), index: i)) }
for i in 42..<62 { clients.append(Client(role: .toggler, index: i)) }
clients.append(Client(role: .stalled, index: 62))
clients.append(Client(role: .reconnecting, index: 63))

let startedAt = now()
while true {
    if let fd = connectUnixSocket(socketPath) {
        close(fd)
        break
    }
    if now() > startedAt + 20 { fail("gestured did not start listening; its log:\n" + readWholeFile(logPath)) }
    usleep(10_000)
}
var random = SystemRandomNumberGenerator()
for c in clients {
    // The stalled client's small receive buffer fills sooner, so the daemon's own buffer fills soon after.
    guard let fd = connectUnixSocket(socketPath, receiveBuffer: c.role == .stalled ? 4096 : nil) else { fail("client \(c.index) cannot connect") }
    c.fd = fd
    c.connections = 1
    switch c.role {
    case .reader(let updates):
        // Every gesture, app touches too (one-finger taps, holds and pans away from the edges): the soak
        // runs as root or the daemon's user, who may see them, and its readers check every pass whole.
        c.request("subscribe", ",\"app_touches\":true" + (updates ? "" : ",\"updates\":false"))
        c.subscribed = true
    case .stalled, .reconnecting:
        c.request("subscribe")
    case .toggler:
        c.nextAction = now() + Double.random(in: 0...1, using: &random)
    }
    c.readUntil = now() + Double.random(in: 0.2...2, using: &random)
}

var rss: [(seconds: Int, kib: Int)] = [(0, statusKiB(daemon, "VmRSS"))]
var nextHangup = startedAt + 10
var hangups = 0
var buffer = [UInt8](repeating: 0, count: 1 << 16)
let endAt = startedAt + duration
say("gestured-soak: \(Int(duration)) s, \(clients.count) clients, \(recordings.count) looping replays at speed \(Int(speed)), SIGHUP every 10 s")
while now() < endAt {
    let t = now()
    if t >= nextHangup {
        kill(daemon, SIGHUP)
        hangups += 1
        nextHangup += 10
        rss.append((Int(t - startedAt), statusKiB(daemon, "VmRSS")))
        if hangups % 6 == 0 { say("  \(Int(t - startedAt)) s: VmRSS \(rss.last!.kib) KiB") }
    }
    var waitpidStatus: Int32 = 0
    if waitpid(daemon, &waitpidStatus, WNOHANG) == daemon { fail("gestured exited (status \(waitpidStatus)); its log:\n" + readWholeFile(logPath)) }
    // Togglers act; the reconnecting client hangs up and connects again.
    for c in clients where c.fd >= 0 {
        switch c.role {
        case .toggler where t >= c.nextAction:
            switch Int.random(in: 0..<4, using: &random) {
            case 0: c.request("subscribe", Bool.random(using: &random) ? "" : ",\"kinds\":[\"pan\",\"edge-swipe\"]")
                c.subscribed = true
            case 1: c.request("unsubscribe")
                c.subscribed = false
            case 2: c.request("ping")
            default: c.request("devices")
            }
            c.nextAction = t + Double.random(in: 0.1...1.5, using: &random)
        case .reconnecting where t >= c.readUntil:
            close(c.fd)
            c.fd = -1
            if let fd = connectUnixSocket(socketPath) {
                c.fd = fd
                c.connections += 1
                c.framer = LineFramer(maximumLineBytes: 1 << 20)
                c.pending.removeAll()
                c.running.removeAll()
                c.lastBeginID = 0
                c.request("subscribe")
            } else {
                c.problem("cannot connect again: \(String(cString: strerror(errno)))")
            }
            c.readUntil = t + Double.random(in: 0.05...1, using: &random)
        default: break
        }
    }
    // Every 120 s from 60 s on, half the readers stop reading for 10 s (a busy client machine), then catch
    // up: the daemon queues about 400 KiB for each, well inside client_buffer_bytes, and must give the
    // memory back once they have caught up (the RSS floor below).
    let elapsed = t - startedAt
    let pausing = elapsed >= 60 && (elapsed - 60).truncatingRemainder(dividingBy: 120) < 10
    let active = clients.filter {
        $0.fd >= 0 && $0.role != .stalled && !(pausing && $0.index % 2 == 0 && $0.role == .reader(updates: true))
    }
    var pollfds = active.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
    _ = poll(&pollfds, nfds_t(pollfds.count), 20)
    for (i, c) in active.enumerated() where pollfds[i].revents != 0 {
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(c.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n > 0 {
                c.framer.append(buffer[0..<n])
                while let output = c.framer.next() {
                    guard case .line(let line) = output else { c.problem("a line over 1 MiB"); break }
                    c.handle(line)
                }
                if n < buffer.count { break }
                continue
            }
            if n < 0 && (errno == EAGAIN || errno == EINTR) { break }
            c.problem("the daemon closed the connection (\(n < 0 ? String(cString: strerror(errno)) : "end of file"))")
            c.closedByDaemon = true
            close(c.fd)
            c.fd = -1
            break
        }
    }
}
rss.append((Int(now() - startedAt), statusKiB(daemon, "VmRSS")))

// The stalled client: the daemon must have hung up on it (what it buffered, then end of file).
let stalled = clients.first { $0.role == .stalled }!
var stalledDropped = false
while true {
    let n = buffer.withUnsafeMutableBytes { recv(stalled.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
    if n > 0 { continue }
    stalledDropped = n == 0 || (n < 0 && errno == ECONNRESET)
    break
}
close(stalled.fd)
for c in clients where c.fd >= 0 && c.role != .stalled { close(c.fd) }
kill(daemon, SIGTERM)
var status: Int32 = 0
waitpid(daemon, &status, 0)

// MARK: Report

var failures: [String] = []
let log = readWholeFile(logPath).split(separator: "\n")
let warnings = log.filter { $0.hasPrefix("<0>") || $0.hasPrefix("<1>") || $0.hasPrefix("<2>") || $0.hasPrefix("<3>") || $0.hasPrefix("<4>") }
let stalledLines = warnings.filter { $0.contains("stopped reading") }
let unexpected = warnings.filter { !$0.contains("stopped reading") }
if !stalledDropped { failures.append("the stalled client was not dropped") }
if stalledLines.count != 1 { failures.append("\(stalledLines.count) 'stopped reading' warnings in the log, expected 1 (the stalled client)") }
for line in unexpected.prefix(10) { failures.append("log: \(line)") }
if unexpected.count > 10 { failures.append("… and \(unexpected.count - 10) more warnings or errors in the log") }
if (status & 0x7f) != 0 || (status >> 8) & 0xff != 0 { failures.append("gestured exited with status \(status) on SIGTERM") }

let readers = clients.filter { if case .reader = $0.role { return true } else { return false } }
for c in clients {
    for p in c.problems { failures.append("client \(c.index) (\(c.role)): \(p)") }
    if case .reader = c.role {
        if c.closedByDaemon { failures.append("reader \(c.index) was disconnected") }
        for device in passes.keys where (c.passesCompleted[device] ?? 0) < 1 && duration >= 60 {
            failures.append("reader \(c.index) received no complete pass of \(device)")
        }
    }
}
let reconnecting = clients.first { $0.role == .reconnecting }!
let togglers = clients.filter { $0.role == .toggler }

// Memory: flat once warmed up (after the first fifth of the run, at least 30 s). RSS rises while clients
// that fell behind have replies queued (up to client_buffer_bytes each) and falls when they catch up, so a
// leak is a rising floor: the lowest sample of the last quarter of the run against the lowest of the
// first warm quarter. Allocator and page granularity move it by a few hundred KiB; 1 MiB is a leak.
let warm = rss.filter { $0.seconds >= max(30, Int(duration / 5)) }
let rssSeries = rss.map { "\($0.seconds)s:\($0.kib)" }.joined(separator: " ")
var growth = 0
if warm.count >= 4 {
    let quarter = max(1, warm.count / 4)
    let early = warm.prefix(quarter).map(\.kib).min()!
    let late = warm.suffix(quarter).map(\.kib).min()!
    growth = late - early
    if growth > 1024 {
        failures.append("resident memory grew: its floor rose from \(early) KiB to \(late) KiB (series: \(rssSeries))")
    }
}
say("RSS series (seconds:KiB): \(rssSeries)")
let passesSeen = readers.map { $0.passesCompleted.values.reduce(0, +) }
say("readers: \(readers.count), gesture events received per reader \(readers.map(\.gestureEvents).min() ?? 0)...\(readers.map(\.gestureEvents).max() ?? 0), complete passes per reader \(passesSeen.min() ?? 0)...\(passesSeen.max() ?? 0)")
say("togglers: \(togglers.count), requests answered in order: \(togglers.map { $0.nextRequestID - 1 - $0.pending.count }.reduce(0, +))")
say("reconnecting client: \(reconnecting.connections) connections; stalled client dropped: \(stalledDropped)")
say("SIGHUPs: \(hangups); log: \(log.count) lines, \(warnings.count) warnings or errors (\(stalledLines.count) for the stalled client)")
let summary = "soak: seconds=\(Int(duration)) clients=\(clients.count) sighups=\(hangups) reader_events_min=\(readers.map(\.gestureEvents).min() ?? 0) "
    + "passes_min=\(passesSeen.min() ?? 0) reconnections=\(reconnecting.connections) stalled_dropped=\(stalledDropped) "
    + "rss_start_kib=\(warm.first?.kib ?? rss.first!.kib) rss_end_kib=\(rss.last!.kib) rss_max_kib=\(rss.map(\.kib).max()!) rss_floor_growth_kib=\(growth) "
    + "log_errors=\(unexpected.count) failures=\(failures.count)"
say(summary)
if failures.isEmpty {
    directory.remove(["gestured.sock", "soak.toml", "gestured.log"])
    say("gestured-soak: PASS")
} else {
    for f in failures.prefix(40) { say("FAIL: \(f)") }
    say("gestured-soak: FAIL (the daemon's log is \(logPath))")
    exit(1)
}
