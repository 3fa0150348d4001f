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
    /// When it came due (ms, CLOCK_MONOTONIC): an action is not run, nor its keys typed, more than
    /// `CommandRunner.maximumActionAgeMilliseconds` after.
    var due: Int64 = SystemCall.monotonicMicroseconds() / 1000
    /// "gesture 12 on replay1", for --verbose lines.
    var gesture: String? = nil
}

/// What turns the daemon's events into actions: the bindings file or lisgd's -g options.
protocol ActionSource {
    var subscriptionFilter: SubscriptionFilter { get }
    /// The actions `event` fires; it happened at `happenedAt` (ms, CLOCK_MONOTONIC: EventAges), which the
    /// runner also gives the actions as their `due`.
    mutating func actions(for event: GestureEvent, deviceID: String?, deviceName: String?, happenedAt: Int64) -> [Action]
    /// For --verbose: why `event`, which fired nothing, matched no binding (the one that came closest and
    /// its key that did not match); nil when there is nothing to say.
    func unmatched(_ event: GestureEvent, deviceID: String?, deviceName: String?) -> String?
    /// SIGHUP: reread the source; nil when it cannot be reloaded. Returns log lines.
    mutating func reload() -> [String]?
    /// The compositor connection the source uses (focused app, keys), polled with the daemon's socket.
    var compositor: CompositorLink? { get }
    /// The compositor went away: what stops working, as log lines. The source keeps running without it.
    mutating func compositorLost(_ error: CompositorError) -> [String]
    /// Tries the compositor again: nil when there is nothing to reconnect (no binding needs it, or it is
    /// connected), else whether it connected and the lines to log.
    mutating func reconnectCompositor() -> (connected: Bool, lines: [String])?
    /// Actions whose time has come (`held_seconds`) at `now` (ms, monotonic), and when the next is due.
    mutating func dueActions(now: Int64) -> [Action]
    var nextDeadline: Int64? { get }
    /// The daemon's connection was lost: gestures in flight will not end.
    mutating func forgetGesturesInFlight()
    /// The daemon's devices now (after its hello, and each change): lines to log (a device named that
    /// is not there).
    mutating func devicesChanged(_ devices: [DeviceInfo]) -> [String]
    /// What the daemon said of app touches (`hello`, `subscribed`, `app-touch-access`): lines to log when
    /// that changes what can match (a `region` binding cannot when none come).
    mutating func appTouchAccessChanged(_ access: AppTouchAccess) -> [String]
    /// The one-finger holds the source's bindings take (`claim`), so the daemon's pointer does not also
    /// turn them into a secondary click.
    var holdClaims: [HoldClaim] { get }
    /// Whether some binding needs the compositor and there is a display to reach it at.
    var wantsCompositor: Bool { get }
    /// Why the compositor is not connected, when it is wanted.
    var compositorProblem: String? { get }
}

extension ActionSource {
    var compositor: CompositorLink? { nil }
    mutating func compositorLost(_ error: CompositorError) -> [String] { [] }
    mutating func reconnectCompositor() -> (connected: Bool, lines: [String])? { nil }
    mutating func dueActions(now: Int64) -> [Action] { [] }
    var nextDeadline: Int64? { nil }
    mutating func forgetGesturesInFlight() {}
    var wantsCompositor: Bool { false }
    var compositorProblem: String? { nil }
    var holdClaims: [HoldClaim] { [] }
    mutating func devicesChanged(_ devices: [DeviceInfo]) -> [String] { [] }
    mutating func appTouchAccessChanged(_ access: AppTouchAccess) -> [String] { [] }
}

/// Log lines on standard error, which systemd sends to the journal, one line each: the whole message is
/// escaped as a value (`shown`: control, format and separator characters, newlines included, and
/// backslashes), so no value in it (a device's name, an app_id) can forge a line or read as another;
/// written without waiting (LogOutput).
struct Logger {
    var prefix: String
    var verbose: Bool

    func info(_ message: String) {
        LogOutput.write("\(prefix): " + shown(message))
    }

    func debug(_ message: @autoclosure () -> String) {
        if verbose { info(message()) }
    }
}

/// Firings dropped by one binding, logged at most once a second with how many there were.
private struct DropCount {
    var count = 0
    var loggedAt: Int64?
}

/// Firings dropped because their gestures were older than `CommandRunner.maximumActionAgeMilliseconds`
/// when gesturectl read them: said in one line once the backlog is read.
private struct LateFirings {
    var count = 0
    /// The least and greatest age (ms).
    var ages: (least: Int64, most: Int64) = (.max, 0)
    /// How many of each binding, in the order they came.
    var labels: [(label: String, count: Int)] = []

    mutating func add(_ label: String, age: Int64) {
        count += 1
        ages = (min(ages.least, age), max(ages.most, age))
        if let i = labels.firstIndex(where: { $0.label == label }) { labels[i].count += 1 } else { labels.append((label, 1)) }
    }
}

/// Which binding dropped firings, and why: each has its own line a second.
private struct DropReason: Hashable {
    var key: Int
    var why: Kind
    enum Kind: Hashable {
        /// Over a limit of commands running or waiting, or of chords waiting for the compositor.
        case limit
        /// Keys that waited too long for the compositor.
        case lateKeys
    }
}

final class CommandRunner<Source: ActionSource> {
    private var source: Source
    private let socketPath: String?
    private let log: Logger

    /// The daemon's connection, from connecting to subscribed; nil while waiting to reconnect.
    private enum Connection {
        /// Connected, waiting for the daemon's hello.
        case greeting(GestureClient)
        /// The subscription is sent and not answered yet (its request id).
        case subscribing(GestureClient, id: Int)
        /// The daemon refused the subscription as rate-limited: the source's subscription (the latest, a
        /// reload meanwhile included) is sent again at `at` (ms), when its `retry_after` says it may.
        case subscribeAgain(GestureClient, at: Int64)
        case subscribed(GestureClient)

        var client: GestureClient {
            switch self {
            case .greeting(let c), .subscribing(let c, _), .subscribeAgain(let c, _), .subscribed(let c): return c
            }
        }
    }
    private var connection: Connection?
    private var devices: [String: DeviceInfo] = [:]
    private var connectedOnce = false
    private var reconnectAt: Int64 = 0
    private var backoff = ReconnectBackoff()
    /// When the daemon connection was started (ms): a daemon that does not greet and answer within
    /// `greetingMilliseconds` is given up on, as a failed attempt.
    private var connectingSince: Int64 = 0
    static var greetingMilliseconds: Int64 { 2000 }
    private var nextRequestID = 0
    /// A reload changed the subscription while one was in flight: send it again once that one is answered.
    private var subscriptionChanged = false
    /// The hold claims the daemon was last sent on this connection (nil: none yet), and the id of that
    /// `claim` request.
    private var claimsSent: [HoldClaim]?
    private var claimID: Int?
    /// More messages may wait in the client's buffer than one turn handled: poll without waiting.
    private var moreToRead = false
    /// Messages handled in one turn of the loop at most, so signals and the compositor get their turn.
    static var messagesPerTurn: Int { 256 }

    private var compositorBackoff = ReconnectBackoff()
    private var compositorReconnectAt: Int64?

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
    /// By binding and why (a binding's firings refused for one reason do not hide another's line).
    private var drops: [DropReason: DropCount] = [:]

    static var maximumQueued: Int { 16 }
    /// How late an action may run or type its keys at most (ms after it came due); later ones are dropped
    /// with a log line (docs/bindings.md, "Late gestures").
    static var maximumActionAgeMilliseconds: Int64 { 1000 }
    /// How long gesturectl waits at most, when it stops, for the compositor to confirm the keys in flight.
    static var closingMilliseconds: Int64 { 1000 }
    /// Firings of `keys` bindings so far, to tell their chords apart in the log.
    private var typingFirings = 0
    /// Each device's clock, to age its events.
    private var ages = EventAges()
    private var late = LateFirings()
    /// Commands of one `parallel` binding running at once at most; more firings are dropped (logged).
    static var maximumRunningPerBinding: Int { 16 }
    /// Commands running at once at most, every binding together.
    static var maximumRunning: Int { 64 }

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
        if let problem = LogOutput.neverWait() { log.info(problem) }
        scheduleCompositorReconnect(reason: source.compositorProblem ?? "no compositor")
        connect()
        while true {
            var fds = [pollfd(fd: signalFD, events: Int16(POLLIN), revents: 0)]
            if let connection { fds.append(pollfd(fd: connection.client.fd, events: Int16(POLLIN), revents: 0)) }
            let compositor = source.compositor
            if let compositor {
                do {
                    try compositor.beforePoll(staleBefore: now() - Self.maximumActionAgeMilliseconds)
                    fds.append(pollfd(fd: compositor.compositor.fd, events: compositor.compositor.pollEvents, revents: 0))
                } catch {
                    lose(compositor: error)
                }
                logTyping(compositor)
            }
            let n: Int
            do {
                n = try SystemCall.poll(&fds, timeoutMilliseconds: pollTimeout())
            } catch {
                log.info("\(error)")
                return 1
            }
            if let compositor, source.compositor === compositor {
                do {
                    try compositor.afterPoll(revents: n > 0 ? fds.last!.revents : 0)
                    for event in compositor.compositor.takeEvents() {
                        if case .focusedAppChanged(let app) = event { log.debug("focused app: " + (app.map { "'\($0)'" } ?? "none")) }
                    }
                } catch {
                    lose(compositor: error)
                }
                logTyping(compositor)
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
                        if let link = source.compositor {
                            link.close(deadline: now() + Self.closingMilliseconds)
                            logTyping(link)
                        }
                        return 0
                    }
                }
            }
            let t = now()
            for action in source.dueActions(now: t) { fire(action) }
            if let at = compositorReconnectAt, t >= at { reconnectCompositor() }
            if connection != nil {
                drain()
                if case .subscribeAgain(let client, let at)? = connection, now() >= at {
                    do {
                        try subscribe(client)
                    } catch {
                        scheduleReconnect(reason: "subscribing again failed: \(error)")
                    }
                }
            } else if t >= reconnectAt {
                connect()
            }
            if !moreToRead { sayLate() }
        }
    }

    private func now() -> Int64 { SystemCall.monotonicMicroseconds() / 1000 }

    /// How long poll may wait: until the next reconnection, the end of the daemon's greeting time, the
    /// compositor's next attempt or a held binding's time; 0 while messages wait in the client's buffer.
    private func pollTimeout() -> Int32 {
        if moreToRead { return 0 }
        var deadlines: [Int64] = []
        switch connection {
        case nil: deadlines.append(reconnectAt)
        case .greeting, .subscribing: deadlines.append(connectingSince + Self.greetingMilliseconds)
        case .subscribeAgain(_, let at): deadlines.append(at)
        case .subscribed: break
        }
        if let at = compositorReconnectAt { deadlines.append(at) }
        if let at = source.nextDeadline { deadlines.append(at) }
        guard let first = deadlines.min() else { return -1 }
        return Int32(clamping: max(0, first - now()))
    }

    // MARK: The compositor

    /// The compositor went away (the session ended, or it crashed): bindings with `app` stop matching and
    /// those with `keys` are refused, the rest keep working, and it is tried again with backoff.
    private func lose(compositor error: CompositorError) {
        if let link = source.compositor {
            link.abandon("the compositor went away")
            logTyping(link)
        }
        for line in source.compositorLost(error) { log.info(line) }
        compositorBackoff.succeeded()
        scheduleCompositorReconnect(reason: "\(error)")
    }

    /// When the source wants a compositor it has not got (gone, or not reached at start): the next try.
    private func scheduleCompositorReconnect(reason: String) {
        guard compositorReconnectAt == nil, source.compositor == nil, source.wantsCompositor else { return }
        let (delay, line) = compositorBackoff.failed(reason: reason)
        if let line { log.info("compositor: " + line) }
        compositorReconnectAt = now() + delay
    }

    private func reconnectCompositor() {
        compositorReconnectAt = nil
        guard let (connected, lines) = source.reconnectCompositor() else { return }
        for line in lines { log.info(line) }
        if connected {
            compositorBackoff.succeeded()
        } else {
            scheduleCompositorReconnect(reason: "still no compositor")
        }
    }

    // MARK: The daemon

    /// Starts connecting; the hello and the subscription's reply come through `drain`, never waited for.
    private func connect() {
        do {
            let c = try GestureClient.connectWithoutWaiting(path: socketPath)
            log.debug("connecting to gestured at \(c.path)")
            connection = .greeting(c)
            connectingSince = now()
            drain()
        } catch {
            scheduleReconnect(reason: "\(error)")
        }
    }

    private func scheduleReconnect(reason: String) {
        connection?.client.close()
        connection = nil
        moreToRead = false
        subscriptionChanged = false
        claimsSent = nil
        claimID = nil
        source.forgetGesturesInFlight()
        ages.reset()
        let (delay, line) = backoff.failed(reason: reason)
        reconnectAt = now() + delay
        if let line { log.info(line) }
    }

    /// Sends the source's subscription; its reply comes through `drain`.
    private func subscribe(_ client: GestureClient) throws(GestureClientError) {
        nextRequestID += 1
        try client.send(RequestMessage(id: .integer(nextRequestID), .subscribe(source.subscriptionFilter)))
        connection = .subscribing(client, id: nextRequestID)
    }

    /// Sends the source's hold claims when they differ from what this connection last sent (a new
    /// connection sends them when there are any): the daemon forgets a client's claims when it goes.
    private func sendClaims(_ client: GestureClient) throws(GestureClientError) {
        let claims = source.holdClaims
        guard claims != (claimsSent ?? []) || (claimsSent == nil && !claims.isEmpty) else { return }
        nextRequestID += 1
        try client.send(RequestMessage(id: .integer(nextRequestID), .claim(claims)))
        claimsSent = claims
        claimID = nextRequestID
    }

    private func greeted(_ c: GestureClient) throws(GestureClientError) {
        devices = Dictionary(c.hello.devices.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let names = c.hello.devices.map { "\($0.id) \"\($0.name)\"" }
        if connectedOnce {
            log.info("reconnected to gestured \(c.hello.daemonVersion) at \(c.path) after \(backoff.failedAttempts) failed attempt\(backoff.failedAttempts == 1 ? "" : "s")")
        } else {
            log.info(
                "connected to gestured \(c.hello.daemonVersion) at \(c.path); devices: "
                    + (names.isEmpty ? "none yet" : names.joined(separator: ", ")))
        }
        connectedOnce = true
        backoff.succeeded()
        devicesChanged()
        try subscribe(c)
        try sendClaims(c)
    }

    private func seconds(_ ms: Int64) -> String { BindingMatcher.decimal(Double(ms) / 1000) }
    private func tenths(_ ms: Int64) -> String { BindingMatcher.decimal((Double(ms) / 100).rounded() / 10) }

    /// Handles the messages received or readable now, at most `messagesPerTurn`, without waiting.
    private func drain() {
        guard let connection else { return }
        let client = connection.client
        moreToRead = false
        do {
            var handled = 0
            while let message = try client.next(timeoutMilliseconds: 0) {
                try handle(message, from: client)
                if self.connection == nil { return }
                handled += 1
                if handled >= Self.messagesPerTurn {
                    moreToRead = true
                    break
                }
            }
            switch self.connection {
            case .greeting?, .subscribing?:
                if now() - connectingSince >= Self.greetingMilliseconds {
                    scheduleReconnect(reason: "the daemon did not answer within \(seconds(Self.greetingMilliseconds)) s")
                }
            case .subscribeAgain?, .subscribed?, nil:
                break
            }
        } catch GestureClientError.closed {
            scheduleReconnect(reason: "the daemon closed the connection")
        } catch {
            scheduleReconnect(reason: "lost the daemon: \(error)")
        }
    }

    private func handle(_ message: ServerMessage, from client: GestureClient) throws(GestureClientError) {
        switch message {
        case .hello:
            if case .greeting? = connection { try greeted(client) }
        case .subscribed(let id, let applied, let access):
            guard case .subscribing(_, let expected)? = connection, id == .integer(expected) else { return }
            connection = .subscribed(client)
            log.debug("subscribed: \(describe(applied))")
            try sendClaims(client)
            if let access { for line in source.appTouchAccessChanged(access) { log.info(line) } }
            if subscriptionChanged {
                subscriptionChanged = false
                try subscribe(client)
            }
        case .gesture(let g):
            let name = g.device.flatMap { devices[$0]?.name }
            let t = SystemCall.monotonicMicroseconds()
            let age = ages.age(
                eventTime: g.event.timeMicroseconds, device: g.device, source: g.device.flatMap { devices[$0]?.source },
                replayClock: g.device.flatMap { devices[$0]?.replayClock }, now: t,
                bound: Self.maximumActionAgeMilliseconds * 1000)
            let happened = (t - age) / 1000
            let actions = source.actions(for: g.event, deviceID: g.device, deviceName: name, happenedAt: happened)
            for var action in actions {
                action.due = happened
                action.gesture = "gesture \(g.event.id)" + (g.device.map { " on \($0)" } ?? "") + " at \(GestureEventJSON.seconds(g.event.timeMicroseconds))"
                fire(action)
            }
            if actions.isEmpty, log.verbose, let why = source.unmatched(g.event, deviceID: g.device, deviceName: name) {
                log.info("gesture \(g.event.id)" + (g.device.map { " on \($0)" } ?? "") + " (\(g.event.kind.rawValue), \(g.event.fingers) finger\(g.event.fingers == 1 ? "" : "s")) fired nothing: closest was \(why)")
            }
        case .appTouchAccessChanged(let access):
            for line in source.appTouchAccessChanged(access) { log.info(line) }
        case .deviceAdded(let d):
            devices[d.id] = d
            log.debug("device added: \(d.id) \"\(d.name)\"")
            devicesChanged()
        case .deviceChanged(let d):
            devices[d.id] = d
            log.debug("device changed: \(d.id) \"\(d.name)\"")
        case .deviceRemoved(let d):
            devices[d.id] = nil
            ages.forget(device: d.id)
            log.debug("device removed: \(d.id) \"\(d.name)\"")
            devicesChanged()
        case .error(let e):
            if case .subscribing(_, let expected)? = connection, e.id == .integer(expected) {
                guard e.code == .rateLimited else { throw .daemon(e) }
                // Not a failure: the daemon takes it again after `retry_after` (the same filter, or a newer).
                let wait = Int64(((e.retryAfter ?? RequestPacer<Int, Int>.defaultRetryAfterSeconds) * 1000).rounded(.up))
                connection = .subscribeAgain(client, at: now() + wait)
                subscriptionChanged = false
                log.info("the daemon refused the subscription for now (\(e.message)); sending it again in \(seconds(wait)) s")
                return
            }
            if e.id == nil, e.code == .tooManyClients { throw .daemon(e) }
            if let claimID, e.id == .integer(claimID) {
                // Not this client's to keep (another user's seat): the pointer may click on those holds too.
                log.info("the daemon did not take the hold bindings' claims (its pointer may turn those holds into a secondary click too): \(e.message)")
                return
            }
            log.info("the daemon says: \(e.message)")
        case .claimed(let id, let holds):
            if let claimID, id == .integer(claimID) { log.debug("the daemon keeps \(holds.count) hold claim\(holds.count == 1 ? "" : "s") for the hold bindings") }
        case .unsubscribed, .devices, .pong, .oriented, .focused, .excluded, .reloaded, .unknown, .explanation:
            break
        }
    }

    private func devicesChanged() {
        for line in source.devicesChanged(devices.values.sorted { $0.id < $1.id }) { log.info(line) }
    }

    private func reload() {
        guard let lines = source.reload() else {
            log.info("SIGHUP: nothing to reload")
            return
        }
        for line in lines { log.info(line) }
        if connection != nil { devicesChanged() }
        scheduleCompositorReconnect(reason: source.compositorProblem ?? "no compositor")
        switch connection {
        case .subscribed(let client)?:
            do {
                try subscribe(client)
                try sendClaims(client)
            } catch {
                scheduleReconnect(reason: "resubscribing after the reload failed: \(error)")
            }
        case .subscribing?:
            subscriptionChanged = true
        case .greeting?, .subscribeAgain?, nil:
            break  // the subscription sent after the hello, or again after the refusal, is the new one
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

    /// A firing not run: logged at once the first time, then at most once a second per binding with the
    /// count since the last line.
    private func drop(_ action: Action, _ why: String) { drop(key: action.key, label: action.label, .limit, why) }

    private func drop(key: Int, label: String, _ kind: DropReason.Kind, _ why: String) {
        let t = now()
        let reason = DropReason(key: key, why: kind)
        var d = drops[reason, default: DropCount()]
        d.count += 1
        if d.loggedAt.map({ t - $0 >= 1000 }) ?? true {
            log.info("\(label): \(why)" + (d.count > 1 ? " (\(d.count) firings not run since the last line)" : ""))
            d.count = 0
            d.loggedAt = t
        }
        drops[reason] = d
    }

    /// Logs what became of the chords handed to the compositor: "typed" only for those it confirmed.
    private func logTyping(_ link: CompositorLink) {
        var given: [String: (chords: Int, labels: [String])] = [:]
        for report in link.takeReports() {
            switch report {
            case .typed(let tag, let chords):
                log.debug("\(tag.label): typed \(chords.map(\.described).joined(separator: ", "))" + (tag.gesture.map { " (\($0))" } ?? ""))
            case .late(let tag, let chords):
                drop(
                    key: tag.key, label: tag.label, .lateKeys,
                    "not typed: \(chords.map(\.described).joined(separator: ", ")) waited more than "
                        + "\(seconds(Self.maximumActionAgeMilliseconds)) s for the compositor, which did not read them")
            case .unconfirmed(let tag, let chords, let reason):
                let why = "may not have been typed (written, not confirmed): \(reason)"
                given[why, default: (0, [])].chords += chords.count
                if !given[why]!.labels.contains(tag.label) { given[why]!.labels.append(tag.label) }
            case .notTyped(let tag, let chords, let reason):
                let why = "not typed: \(reason)"
                given[why, default: (0, [])].chords += chords.count
                if !given[why]!.labels.contains(tag.label) { given[why]!.labels.append(tag.label) }
            }
        }
        for (why, g) in given.sorted(by: { $0.key < $1.key }) {
            log.info("\(g.chords) chord\(g.chords == 1 ? "" : "s") of \(g.labels.joined(separator: ", ")) \(why)")
        }
    }

    /// Says the late firings dropped since the last line, in one line.
    private func sayLate() {
        guard late.count > 0 else { return }
        let (least, most) = late.ages
        log.info(
            "dropped \(late.count) late firing\(late.count == 1 ? "" : "s") (gesture\(late.count == 1 ? "" : "s") "
                + (least == most ? tenths(least) : "\(tenths(least)) to \(tenths(most))")
                + " s old when read, more than \(seconds(Self.maximumActionAgeMilliseconds)) s: gesturectl was stopped, or starved of CPU): "
                + late.labels.map { "\($0.label) \($0.count)" }.joined(separator: ", "))
        late = LateFirings()
    }

    private func fire(_ action: Action) {
        let t = now()
        // A gesture read late (gesturectl stopped, starved) runs nothing: its moment has passed.
        if t - action.due > Self.maximumActionAgeMilliseconds {
            late.add(action.label, age: t - action.due)
            return
        }
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
        let mine = children.filter { $0.value.key == action.key }
        if let (pid, child) = mine.min(by: { $0.value.started < $1.value.started }) {
            switch action.ifRunning {
            case .skip:
                drop(action, "skipped: its previous command (pid \(pid), started \(seconds(t - child.started)) s ago) still runs")
                return
            case .queue:
                var q = queued[action.key, default: []]
                if q.count >= Self.maximumQueued {
                    drop(action, "dropped: \(q.count) commands already wait for pid \(pid) to exit")
                    return
                }
                q.append(action)
                queued[action.key] = q
                log.debug("\(action.label): queued behind pid \(pid)")
                return
            case .parallel:
                if mine.count >= Self.maximumRunningPerBinding {
                    drop(action, "dropped: \(mine.count) of its commands already run (at most \(Self.maximumRunningPerBinding) at once)")
                    return
                }
            }
        }
        start(action)
    }

    private func start(_ action: Action) {
        if let chords = action.chords {
            let typed = chords.map(\.described).joined(separator: ", ")
            guard let link = source.compositor else {
                log.info("\(action.label): cannot type \(typed): no compositor connection")
                return
            }
            typingFirings += 1
            let tag = TypingTag(firing: typingFirings, key: action.key, label: action.label, gesture: action.gesture)
            switch link.type(chords, tag: tag, due: action.due, staleBefore: now() - Self.maximumActionAgeMilliseconds) {
            case nil:
                break
            case .cannotType(let problem)?:
                log.info("\(action.label): cannot type \(typed): \(problem)")
            case .queueFull(let waiting)?:
                drop(
                    action,
                    "dropped: \(waiting) chords already wait for the compositor (at most "
                        + "\(TypingQueue<TypingTag>.maximumWaiting)), which does not read them")
            }
            logTyping(link)
            return
        }
        if children.count >= Self.maximumRunning {
            drop(action, "dropped: \(children.count) commands already run (at most \(Self.maximumRunning) at once, every binding together)")
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
/// standard output and error both on our standard error (the journal under systemd; our standard output
/// is for what gesturectl itself prints), the default signal dispositions and an
/// empty signal mask (ours blocks the signals the signalfd reads), and `environment` added to ours.
func spawn(_ arguments: [String], environment: [String]) -> Result<pid_t, SpawnError> {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, 2, 1)
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
