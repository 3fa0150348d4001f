// The loop `gesturectl bind` and `gesturectl lisgd` share: one connection to the daemon (reconnected with
// backoff), commands started with posix_spawn in their own process groups and reaped on SIGCHLD through a
// signalfd, keys typed through the compositor's virtual keyboard (bind's `keys`), all in one poll loop that
// never waits for a command.
#if canImport(Glibc)
import Glibc
#endif
import CLinux
import GestureClient
import GestureBindings
import GestureConfig
import GestureProtocol
import GestureVocabulary
import SystemCalls
import WaylandSession

/// A command to start because a gesture matched.
struct Action {
    /// Which binding fired: firings of one key share the overlap policy and the rate limit.
    var key: Int
    /// How log lines name the binding.
    var label: String
    var arguments: [String]
    /// GESTURE_* variables, added to gesturectl's own environment.
    var environment: [String]
    var ifRunning: OverlapPolicy
    var maxPerSecond: Int
    /// Keys to type instead of a command to run (`arguments` is then empty).
    var chords: [KeyChord]? = nil
}

/// What turns the daemon's events into actions: the bindings file or lisgd's -g options.
protocol ActionSource {
    var subscriptionFilter: SubscriptionFilter { get }
    mutating func actions(for event: GestureEvent, deviceID: String?, deviceName: String?) -> [Action]
    /// SIGHUP: reread the source; nil when it cannot be reloaded. Returns log lines.
    mutating func reload() -> [String]?
    /// The compositor connection the source uses (focused app, keys), polled with the daemon's socket.
    var compositor: CompositorLink? { get }
}

extension ActionSource {
    var compositor: CompositorLink? { nil }
}

/// Log lines on standard error, which systemd sends to the journal.
struct Logger {
    var prefix: String
    var verbose: Bool

    func info(_ message: String) {
        printError("\(prefix): \(message)\n")
    }

    func debug(_ message: @autoclosure () -> String) {
        if verbose { info(message()) }
    }
}

final class CommandRunner<Source: ActionSource> {
    private var source: Source
    private let socketPath: String?
    private let log: Logger

    private var client: GestureClient?
    private var devices: [String: String] = [:]
    private var connectedOnce = false
    private var reconnectAt: Int64 = 0
    private var backoff = ReconnectBackoff()

    private struct Child {
        var key: Int
        var label: String
        var started: Int64
    }
    private var children: [pid_t: Child] = [:]
    private var queued: [Int: [Action]] = [:]
    /// Start times (ms) of each binding's firings within the last second, and whether the log said so.
    private var recentFirings: [Int: [Int64]] = [:]
    private var rateLimited: Set<Int> = []

    static var maximumQueued: Int { 16 }

    init(source: Source, socketPath: String?, log: Logger) {
        self.source = source
        self.socketPath = socketPath
        self.log = log
    }

    /// Runs until SIGTERM or SIGINT; returns the exit status.
    func run() -> Int32 {
        let signals = [SIGCHLD, SIGHUP, SIGTERM, SIGINT]
        let signalFD: Int32
        do {
            signalFD = try SystemCall.signalDescriptor(blocking: signals)
        } catch {
            log.info("cannot set up signal handling: \(error)")
            return 1
        }
        SystemCall.ignoreSignal(SIGPIPE)
        connect()
        while true {
            var fds = [pollfd(fd: signalFD, events: Int16(POLLIN), revents: 0)]
            if let client { fds.append(pollfd(fd: client.fd, events: Int16(POLLIN), revents: 0)) }
            let compositor = source.compositor
            if let compositor {
                do {
                    try compositor.compositor.beforePoll()
                } catch {
                    return compositorLost(error)
                }
                fds.append(pollfd(fd: compositor.compositor.fd, events: Int16(POLLIN), revents: 0))
            }
            var timeout: Int32 = -1
            if client == nil {
                timeout = Int32(clamping: max(0, reconnectAt - now()))
            }
            let n = poll(&fds, nfds_t(fds.count), timeout)
            if n < 0 && errno != EINTR {
                log.info("poll: \(String(cString: strerror(errno))) (errno \(errno))")
                return 1
            }
            if let compositor {
                do {
                    try compositor.compositor.afterPoll(readable: n > 0 && fds.last!.revents != 0)
                } catch {
                    return compositorLost(error)
                }
                for event in compositor.compositor.takeEvents() {
                    if case .focusedAppChanged(let app) = event { log.debug("focused app: " + (app.map { "'\($0)'" } ?? "none")) }
                }
            }
            if fds[0].revents != 0 {
                while let signal = try? SystemCall.signalRead(signalFD) {
                    switch signal {
                    case SIGCHLD: reap()
                    case SIGHUP: reload()
                    default:
                        let running = children.count
                        log.info(
                            "stopping on \(signal == SIGTERM ? "SIGTERM" : "SIGINT")"
                                + (running > 0 ? "; \(running) command\(running == 1 ? "" : "s") still running, left to finish" : ""))
                        return 0
                    }
                }
            }
            if client != nil {
                drain()
            } else if now() >= reconnectAt {
                connect()
            }
        }
    }

    private func now() -> Int64 { SystemCall.monotonicMicroseconds() / 1000 }

    /// The compositor went away (the session ended, or it crashed): bindings with `app` and `keys` cannot
    /// work any more, and a compositor started again is another display; exit, and let the user unit
    /// restart gesturectl in the new session.
    private func compositorLost(_ error: CompositorError) -> Int32 {
        log.info("\(error); bindings with app or keys cannot work without it: stopping (status 1)")
        return 1
    }

    // MARK: The daemon

    private func connect() {
        do {
            let c = try GestureClient.connect(path: socketPath, timeoutMilliseconds: 2000)
            let applied = try c.subscribe(source.subscriptionFilter, timeoutMilliseconds: 2000)
            devices = Dictionary(c.hello.devices.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
            let names = c.hello.devices.map { "\($0.id) \"\($0.name)\"" }
            if connectedOnce {
                log.info("reconnected to gestured \(c.hello.daemonVersion) at \(c.path) after \(backoff.failedAttempts) failed attempt\(backoff.failedAttempts == 1 ? "" : "s")")
            } else {
                log.info(
                    "connected to gestured \(c.hello.daemonVersion) at \(c.path); devices: "
                        + (names.isEmpty ? "none yet" : names.joined(separator: ", ")))
            }
            log.debug("subscribed: \(describe(applied))")
            client = c
            connectedOnce = true
            backoff.succeeded()
            drain()
        } catch {
            scheduleReconnect(reason: "\(error)")
        }
    }

    private func scheduleReconnect(reason: String) {
        client?.close()
        client = nil
        let (delay, line) = backoff.failed(reason: reason)
        reconnectAt = now() + delay
        if let line { log.info(line) }
    }

    private func seconds(_ ms: Int64) -> String { BindingMatcher.decimal(Double(ms) / 1000) }

    /// Handles every message already received or readable now, without waiting.
    private func drain() {
        guard let client else { return }
        do {
            while let message = try client.next(timeoutMilliseconds: 0) {
                switch message {
                case .gesture(let g):
                    let name = g.device.flatMap { devices[$0] }
                    for action in source.actions(for: g.event, deviceID: g.device, deviceName: name) {
                        fire(action)
                    }
                case .deviceAdded(let d):
                    devices[d.id] = d.name
                    log.debug("device added: \(d.id) \"\(d.name)\"")
                case .deviceChanged(let d):
                    devices[d.id] = d.name
                    log.debug("device changed: \(d.id) \"\(d.name)\"")
                case .deviceRemoved(let d):
                    devices[d.id] = nil
                    log.debug("device removed: \(d.id) \"\(d.name)\"")
                case .error(let e):
                    log.info("the daemon says: \(e.message)")
                case .hello, .subscribed, .unsubscribed, .devices, .pong, .oriented, .unknown:
                    break
                }
            }
        } catch GestureClientError.closed {
            scheduleReconnect(reason: "the daemon closed the connection")
        } catch {
            scheduleReconnect(reason: "lost the daemon: \(error)")
        }
    }

    private func reload() {
        guard let lines = source.reload() else {
            log.info("SIGHUP: nothing to reload")
            return
        }
        for line in lines { log.info(line) }
        if let client {
            do {
                try client.subscribe(source.subscriptionFilter, timeoutMilliseconds: 2000)
            } catch {
                scheduleReconnect(reason: "resubscribing after the reload failed: \(error)")
            }
        }
    }

    private func describe(_ f: SubscriptionFilter) -> String {
        var parts: [String] = []
        parts.append("kinds " + (f.kinds.map { $0.map(\.rawValue).sorted().joined(separator: ",") } ?? "all"))
        if let e = f.edges { parts.append("edges " + e.map(\.rawValue).sorted().joined(separator: ",")) }
        if let n = f.fingers { parts.append("fingers " + n.sorted().map(String.init).joined(separator: ",")) }
        parts.append(f.updates ? "with updates" : "no updates")
        return parts.joined(separator: ", ")
    }

    // MARK: Commands

    private func fire(_ action: Action) {
        let t = now()
        var recent = recentFirings[action.key, default: []].filter { t - $0 < 1000 }
        if recent.count >= action.maxPerSecond {
            if !rateLimited.contains(action.key) {
                rateLimited.insert(action.key)
                log.info(
                    "\(action.label): fired more than \(action.maxPerSecond) times in one second; not running it again "
                        + "until a second has passed since the earliest of them (max_per_second)")
            }
            recentFirings[action.key] = recent
            return
        }
        rateLimited.remove(action.key)
        recent.append(t)
        recentFirings[action.key] = recent
        let running = children.first { $0.value.key == action.key }
        if let (pid, child) = running {
            switch action.ifRunning {
            case .skip:
                log.info("\(action.label): skipped: its previous command (pid \(pid), started \(seconds(t - child.started)) s ago) still runs")
                return
            case .queue:
                var q = queued[action.key, default: []]
                if q.count >= Self.maximumQueued {
                    log.info("\(action.label): dropped: \(q.count) commands already wait for pid \(pid) to exit")
                    return
                }
                q.append(action)
                queued[action.key] = q
                log.debug("\(action.label): queued behind pid \(pid)")
                return
            case .parallel:
                break
            }
        }
        start(action)
    }

    private func start(_ action: Action) {
        if let chords = action.chords {
            let typed = chords.map(\.described).joined(separator: ", ")
            let problem = source.compositor.map { $0.type(chords) } ?? "no compositor connection"
            if let problem {
                log.info("\(action.label): cannot type \(typed): \(problem)")
            } else {
                log.debug("\(action.label): typed \(typed)")
            }
            return
        }
        switch spawn(action.arguments, environment: action.environment) {
        case .success(let pid):
            children[pid] = Child(key: action.key, label: action.label, started: now())
            log.debug("\(action.label): started pid \(pid): \(action.arguments.joined(separator: " "))")
        case .failure(let error):
            log.info("\(action.label): cannot run \(action.arguments[0]): \(error)")
            startQueued(key: action.key)
        }
    }

    private func startQueued(key: Int) {
        guard var q = queued[key], !q.isEmpty else { return }
        let next = q.removeFirst()
        queued[key] = q.isEmpty ? nil : q
        start(next)
    }

    /// Collects every child that has exited.
    private func reap() {
        while true {
            var status: Int32 = 0
            let pid = waitpid(-1, &status, WNOHANG)
            if pid <= 0 { return }
            guard let child = children.removeValue(forKey: pid) else { continue }
            let signal = status & 0x7f
            let code = (status >> 8) & 0xff
            let took = seconds(now() - child.started)
            if signal != 0 {
                log.info("\(child.label): pid \(pid) was killed by signal \(signal) after \(took) s")
            } else if code != 0 {
                log.info("\(child.label): pid \(pid) exited with status \(code) after \(took) s")
            } else {
                log.debug("\(child.label): pid \(pid) exited after \(took) s")
            }
            if !children.values.contains(where: { $0.key == child.key }) { startQueued(key: child.key) }
        }
    }
}

struct SpawnError: Error, CustomStringConvertible {
    var errno: Int32
    var description: String { "\(String(cString: strerror(errno))) (errno \(errno))" }
}

/// Starts `arguments` (PATH searched) in a process group of its own, with standard input from /dev/null,
/// standard output and error on ours (the journal under systemd), the default signal dispositions and an
/// empty signal mask (ours blocks the signals the signalfd reads), and `environment` added to ours.
func spawn(_ arguments: [String], environment: [String]) -> Result<pid_t, SpawnError> {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    posix_spawnattr_setpgroup(&attributes, 0)
    var empty = sigset_t()
    sigemptyset(&empty)
    posix_spawnattr_setsigmask(&attributes, &empty)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for s in [SIGPIPE, SIGCHLD, SIGHUP, SIGTERM, SIGINT] { sigaddset(&defaults, s) }
    posix_spawnattr_setsigdefault(&attributes, &defaults)

    let added = Set(environment.map { String($0.prefix(while: { $0 != "=" })) })
    var env: [String] = []
    var p = environ
    while let entry = p.pointee {
        let s = String(cString: entry)
        // Our own GESTURE_* (if gesturectl itself was started by a binding) never leak into a command.
        let name = String(s.prefix(while: { $0 != "=" }))
        if !added.contains(name) && !name.hasPrefix("GESTURE_") { env.append(s) }
        p += 1
    }
    env += environment
    let cArgs = arguments.map { strdup($0) } + [nil]
    let cEnv = env.map { strdup($0) } + [nil]
    defer {
        cArgs.forEach { free($0) }
        cEnv.forEach { free($0) }
    }
    var pid: pid_t = 0
    let rc = posix_spawnp(&pid, arguments[0], &actions, &attributes, cArgs, cEnv)
    return rc == 0 ? .success(pid) : .failure(SpawnError(errno: rc))
}
