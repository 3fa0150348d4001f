// `gesturectl orientation`: sets how the screen is turned, on top of the devices' configured geometry;
// with --follow, follows the compositor's output transforms and its focused app (issue 29: `focus`).
#if canImport(Glibc)
import Glibc
#endif
import GestureClient
import GestureBindings
import GestureConfig
import GestureProtocol
import SystemCalls
import WaylandSession
import CommandLineArguments

private let orientationUsage = """
    usage: gesturectl orientation [--socket PATH] [--device ID] [--json] ANGLE
           gesturectl orientation --follow [--socket PATH] [--device ID] [--output NAME] [--verbose]

    Tells the running gestured how the screen is turned now: ANGLE is 0, 90, 180 or 270, the degrees the
    device is turned clockwise from its natural position with the display following (iio-sensor-proxy's
    normal, left-up, bottom-up, right-up). Gestures in flight are cancelled; edges and directions follow
    at once. It lasts until set again, across reloads; a device plugged in (again) starts at 0.

      --socket PATH    the daemon's socket (default: $GESTURED_SOCKET, else $XDG_RUNTIME_DIR/gestured.sock,
                       else \(ProtocolConstants.defaultSocketPath))
      --device ID      only this device: its id, its name or vvvv:pppp (default: every device)
      --json           print the daemon's reply as one JSON line

    With --follow, it connects to the Wayland compositor ($WAYLAND_DISPLAY) and to gestured and keeps each
    touchscreen's orientation equal to its output's transform (wl_output: normal 0, 90, 180, 270; a
    flipped transform is reported, not followed), until stopped. A touchscreen's output is its WL_OUTPUT
    udev property, else --output, else the only output; with several outputs and neither, none is
    followed. It sets the orientation again when a device is added, the daemon restarts (reconnecting
    with backoff) or an output comes back; an orientation the daemon's rate limit refuses is sent again
    (the latest wanted) when the daemon says it may. It exits (status 1) when the compositor goes away.

    It also tells gestured which app is focused (wlr-foreign-toplevel's activated toplevel's app_id, none
    when no app is), for the [[exclusion]] sections that name apps: the latest focus, sent again after a
    refusal by the rate limit and after a reconnection. A compositor without wlr-foreign-toplevel-management
    is said once in the log, and no focus is sent (exclusions by app do not apply). --follow is the session
    companion, `gesturectl session`.

    gestured takes an orientation only from the user of the active session on the touchscreen's seat, root
    and its own user.

      --output NAME    the output of the touchscreens without WL_OUTPUT ("DSI-1"; `swaymsg -t get_outputs`)
      --verbose        also log each orientation and focus set and how long after the compositor's change

    """

/// `--device ID`: a device's id, name or vvvv:pppp, never empty (orientation and session).
private func deviceOption(_ a: inout Arguments, _ option: String) throws(UsageError) -> String {
    let v = try a.value(of: option)
    guard !v.isEmpty else { throw UsageError("--device needs a device's id, name or vvvv:pppp (see gesturectl devices)") }
    return v
}

/// `--output NAME`: a compositor's output name, never empty (orientation and session).
private func outputOption(_ a: inout Arguments, _ option: String) throws(UsageError) -> String {
    let v = try a.value(of: option)
    guard !v.isEmpty else { throw UsageError("--output needs an output's name, such as DSI-1 (swaymsg -t get_outputs, wlr-randr)") }
    return v
}

func runOrientation(_ args: [String]) -> Int32 {
    var socket: String?
    var device: String?
    var output: String?
    var follow = false
    var verbose = false
    var json = false
    var angle: DeviceOrientation?
    var arguments = Arguments(args, command: "orientation", usage: orientationUsage)
    if let status = arguments.read({ (a, option) throws(UsageError) in
        switch option {
        case "--socket": socket = try a.value(of: option)
        case "--device": device = try deviceOption(&a, option)
        case "--output": output = try outputOption(&a, option)
        case "--follow": follow = true
        case "--verbose", "-v": verbose = true
        case "--json": json = true
        default:
            if option.hasPrefix("-") && Int(option) == nil { throw a.unknown(option) }
            if let angle { throw UsageError("one ANGLE only, got '\(option)' after \(angle.rawValue)") }
            guard let degrees = Int(option), let parsed = DeviceOrientation(rawValue: degrees) else {
                throw UsageError("ANGLE is one of \(DeviceOrientation.allowedText), not '\(option)'")
            }
            angle = parsed
        }
    }) {
        return status
    }
    if follow {
        if let angle {
            printError("gesturectl orientation: --follow takes the angle from the compositor; drop \(angle.rawValue)\n")
            return 2
        }
        if json {
            printError("gesturectl orientation: --json is for setting an ANGLE once, not for --follow\n")
            return 2
        }
        return followSession(socket: socket, device: device, output: output, log: Logger(prefix: "gesturectl orientation", verbose: verbose))
    }
    if output != nil || verbose {
        printError("gesturectl orientation: --output and --verbose go with --follow\n")
        return 2
    }
    guard let angle else {
        printError("gesturectl orientation: which ANGLE? \(DeviceOrientation.allowedText)\n\n" + orientationUsage)
        return 2
    }
    do {
        let client = try GestureClient.connect(path: socket)
        guard case .oriented(_, let devices, let claimedTouches) = try client.request(.orientation(angle, device: device)) else {
            printError("gesturectl orientation: the daemon did not answer with oriented\n")
            return 1
        }
        if json {
            print(ServerMessage.oriented(id: nil, devices: devices, claimedTouches: claimedTouches).encoded)
        } else if devices.isEmpty {
            print("no devices: the daemon reads none now (a device added later starts at 0)")
        } else {
            for d in devices { print("\(shown(d.id))\t\(shown(d.name))\torientation \(d.orientation.rawValue)") }
            if claimedTouches > 0 {
                print("\(claimedTouches) touch(es) held back when the screen turned were claimed: the application never sees them")
            }
        }
        return 0
    } catch {
        printError("gesturectl orientation: \(shown("\(error)"))\n")
        return 1
    }
}

/// The session companion (`gesturectl session`, `gesturectl orientation --follow`): connects to the
/// compositor and follows it until it goes (status 1 when it cannot start).
func followSession(socket: String?, device: String?, output: String?, log: Logger) -> Int32 {
    let compositor: Compositor
    do {
        compositor = try Compositor()
    } catch {
        log.info("\(error)")
        return 1
    }
    guard compositor.offersOutputNames else {
        log.info("the compositor at '\(compositor.displayName)' names no outputs (neither wl_output 4 nor xdg-output 2): cannot tell which output is which")
        return 1
    }
    return OrientationFollower(compositor: compositor, socketPath: socket, device: device, output: output, log: log).run()
}

private let sessionUsage = """
    usage: gesturectl session [--socket PATH] [--device ID] [--output NAME] [--verbose]

    The session companion: runs in the user's Wayland session and keeps the running gestured following it,
    until the compositor goes away (status 1). It keeps each touchscreen's orientation equal to its
    output's transform (wl_output: normal 0, 90, 180, 270), so edges and directions follow the picture,
    and tells gestured which app is focused (wlr-foreign-toplevel's activated toplevel), so the
    [[exclusion]] sections and the exclusions clients keep for an app apply while it is. It sets both again
    when a device is added, an output comes back or the daemon restarts (reconnecting with backoff), and
    sends the latest again when the daemon's rate limit refuses one. gestured takes both only from the user
    of the active session on the touchscreen's seat (and root): run it as yourself, in your session (the
    user unit gesturectl-orientation.service does). `gesturectl orientation --follow` is the same.

      --socket PATH    the daemon's socket (default: $GESTURED_SOCKET, else $XDG_RUNTIME_DIR/gestured.sock,
                       else \(ProtocolConstants.defaultSocketPath))
      --device ID      only this device: its id, its name or vvvv:pppp (default: every device)
      --output NAME    the output of the touchscreens without WL_OUTPUT ("DSI-1"; `swaymsg -t get_outputs`)
      --verbose        also log each orientation and focus set and how long after the compositor's change

    A touchscreen's output is its WL_OUTPUT udev property, else --output, else the only output; with several
    outputs and neither, none is followed. A compositor without wlr-foreign-toplevel-management is said once
    in the log, and no focus is sent (exclusions by app do not apply).

    """

func runSession(_ args: [String]) -> Int32 {
    var socket: String?
    var device: String?
    var output: String?
    var verbose = false
    var arguments = Arguments(args, command: "session", usage: sessionUsage)
    if let status = arguments.read({ (a, option) throws(UsageError) in
        switch option {
        case "--socket": socket = try a.value(of: option)
        case "--device": device = try deviceOption(&a, option)
        case "--output": output = try outputOption(&a, option)
        case "--verbose", "-v": verbose = true
        default: throw a.unknown(option)
        }
    }) {
        return status
    }
    return followSession(socket: socket, device: device, output: output, log: Logger(prefix: "gesturectl session", verbose: verbose))
}

/// `gesturectl orientation --follow`: the compositor's outputs and the daemon's devices in one poll loop.
final class OrientationFollower {
    private let compositor: Compositor
    private let socketPath: String?
    private let deviceSelector: String?
    private let outputOption: String?
    private let log: Logger

    private var client: GestureClient?
    private var connectedOnce = false
    private var backoff = ReconnectBackoff()
    private var reconnectAt: Int64 = 0
    /// The daemon's devices this follower turns, by id, as last reported.
    private var devices: [String: DeviceInfo] = [:]
    /// What was last logged about each device, so each state is said once.
    private var said: [String: OrientationDecision] = [:]
    private var nextRequest = 1
    /// The orientation each device should have and what is in flight for it: one request per device at a
    /// time, the latest wanted one sent again when the daemon's rate limit refused it (`retry_after`).
    private var pacer = RequestPacer<String, DeviceOrientation>()
    /// When the compositor's change that asked for each device's wanted orientation was read (ms), for
    /// the latency --verbose logs.
    private var changedAt: [String: Int64] = [:]
    /// Whether the compositor says which app is focused (wlr-foreign-toplevel-management); without it no
    /// focus is sent, so the daemon's exclusions by app never hold.
    private var followsFocus: Bool
    /// The focused app the daemon should hold, paced as the orientations are: the latest one, one request
    /// in flight, a refused one sent again after `retry_after` (issue 29).
    private var focusPacer = RequestPacer<FocusSlot, AppFocus>()
    /// When the compositor's latest focus change was read (ms), for --verbose.
    private var focusChangedAt: Int64?
    /// An app_id the daemon cannot take (over 512 bytes) was said already.
    private var saidLongAppID = false

    init(compositor: Compositor, socketPath: String?, device: String?, output: String?, log: Logger) {
        self.compositor = compositor
        self.socketPath = socketPath
        self.deviceSelector = device
        self.outputOption = output
        self.log = log
        self.followsFocus = compositor.offersToplevelManagement
    }

    private func now() -> Int64 { SystemCall.monotonicMicroseconds() / 1000 }

    /// Runs until SIGTERM or SIGINT (0) or until the compositor goes away (1).
    func run() -> Int32 {
        let signalFD: Int32
        do {
            signalFD = try SystemCall.signalDescriptor(blocking: [SIGTERM, SIGINT, SIGHUP])
        } catch {
            log.info("cannot set up signal handling: \(error)")
            return 1
        }
        SystemCall.ignoreSignal(SIGPIPE)
        if let problem = LogOutput.neverWait() { log.info(problem) }
        let outputs = compositor.currentOutputs.map { "\($0.name ?? "?") (transform \($0.transform.name))" }
        log.info(
            "following the outputs of the compositor at '\(compositor.displayName)': "
                + (outputs.isEmpty ? "none yet" : outputs.joined(separator: ", ")))
        if !followsFocus {
            log.info(
                "the compositor at '\(compositor.displayName)' does not say which app is focused (no wlr-foreign-toplevel-management): "
                    + "no focus is sent to gestured, so its [[exclusion]] sections by app will not apply")
        }
        _ = compositor.takeEvents()
        connect()
        while true {
            do {
                try compositor.beforePoll()
            } catch {
                return compositorGone(error)
            }
            var fds = [
                pollfd(fd: signalFD, events: Int16(POLLIN), revents: 0),
                pollfd(fd: compositor.fd, events: compositor.pollEvents, revents: 0),
            ]
            if let client { fds.append(pollfd(fd: client.fd, events: Int16(POLLIN), revents: 0)) }
            // Until the reconnection, or the time a refused orientation or focus may be sent again.
            let deadline = client == nil ? reconnectAt : [pacer.nextDeadline, focusPacer.nextDeadline].compactMap { $0 }.min()
            let timeout: Int32 = deadline.map { Int32(clamping: max(0, $0 - now())) } ?? -1
            let n: Int
            do {
                n = try SystemCall.poll(&fds, timeoutMilliseconds: timeout)
            } catch {
                log.info("\(error)")
                return 1
            }
            do {
                try compositor.afterPoll(revents: n > 0 ? fds[1].revents : 0)
            } catch {
                return compositorGone(error)
            }
            let events = compositor.takeEvents()
            if !events.isEmpty {
                let changedAt = now()
                for event in events {
                    switch event {
                    case .outputChanged(let o): log.debug("output \(o.name ?? "?"): transform \(o.transform.name)")
                    case .outputRemoved(let o): log.info("output \(o.name ?? "?") went away")
                    case .focusedAppChanged(let app):
                        log.debug("focused app: " + (app.map { "'\(shown($0))'" } ?? "none"))
                        focusChangedAt = changedAt
                    }
                }
                applyAll(since: changedAt)
                applyFocus()
            }
            if fds[0].revents != 0 {
                while let signal = try? SystemCall.signalRead(signalFD) {
                    if signal == SIGHUP {
                        log.info("SIGHUP: setting every device's orientation again")
                        applyAll(force: true)
                        continue
                    }
                    log.info("stopping on \(signal == SIGTERM ? "SIGTERM" : "SIGINT")")
                    return 0
                }
            }
            if client != nil {
                drain()
                sendDue()
            } else if now() >= reconnectAt {
                connect()
            }
        }
    }

    private func compositorGone(_ error: CompositorError) -> Int32 {
        log.info("\(error); the compositor went away, so there is nothing to follow: stopping (status 1)")
        return 1
    }

    private func wanted(_ d: DeviceInfo) -> Bool { deviceSelector.map(d.isNamed(by:)) ?? true }

    // MARK: The daemon

    private func connect() {
        do {
            let c = try GestureClient.connect(path: socketPath, timeoutMilliseconds: 2000)
            // No gestures, only the devices' notifications.
            try c.subscribe(SubscriptionFilter(kinds: [], updates: false), timeoutMilliseconds: 2000)
            devices = Dictionary(c.hello.devices.filter(wanted).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            said = [:]
            pacer.reset()
            changedAt = [:]
            focusPacer.reset()
            for d in devices.values { pacer.daemonHolds(d.orientation, for: d.id) }
            log.info(
                (connectedOnce ? "reconnected to" : "connected to") + " gestured \(c.hello.daemonVersion) at \(c.path); devices: "
                    + (devices.isEmpty ? "none yet" : devices.keys.sorted().joined(separator: ", ")))
            if devices.isEmpty, let deviceSelector, !c.hello.devices.isEmpty {
                log.info("no device is named \(deviceSelector) (id, name or vvvv:pppp); waiting for one")
            }
            client = c
            connectedOnce = true
            backoff.succeeded()
            applyAll()
            // The daemon forgot the focus this follower set on its last connection (or restarted).
            applyFocus(force: true)
            drain()
            sendDue()
        } catch GestureClientError.daemon(let e) where e.code == .rateLimited {
            // The daemon says when it takes the request again: then, not after a backoff.
            client = nil
            let wait = Int64(((e.retryAfter ?? RequestPacer<String, DeviceOrientation>.defaultRetryAfterSeconds) * 1000).rounded(.up))
            reconnectAt = now() + wait
            log.info("the daemon refused the subscription for now (\(e.message)); connecting again in \(BindingMatcher.decimal(Double(wait) / 1000)) s")
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

    private func drain() {
        guard let client else { return }
        do {
            while let message = try client.next(timeoutMilliseconds: 0) {
                switch message {
                case .deviceAdded(let d) where wanted(d):
                    devices[d.id] = d
                    said[d.id] = nil
                    pacer.forget(d.id)
                    pacer.daemonHolds(d.orientation, for: d.id)
                    log.debug("device added: \(d.id) (\(d.name))")
                    apply(d, force: false)
                case .deviceRemoved(let d):
                    devices[d.id] = nil
                    said[d.id] = nil
                    pacer.forget(d.id)
                    changedAt[d.id] = nil
                case .deviceChanged(let d) where devices[d.id] != nil:
                    devices[d.id] = d
                    pacer.daemonHolds(d.orientation, for: d.id)
                case .oriented(let id, _, _):
                    guard let n = id?.intValue, let (device, orientation) = pacer.answered(id: n, .accepted, now: now(), unitsPerSecond: 1000)
                    else { break }
                    let latency = changedAt[device].map { " \(BindingMatcher.decimal(Double(now() - $0))) ms after the compositor's change" } ?? ""
                    log.debug("\(device): orientation \(orientation.rawValue) set\(latency)")
                case .focused(let id, _):
                    guard let n = id?.intValue, let (_, focus) = focusPacer.answered(id: n, .accepted, now: now(), unitsPerSecond: 1000)
                    else { break }
                    let latency = focusChangedAt.map { " \(BindingMatcher.decimal(Double(now() - $0))) ms after the compositor's change" } ?? ""
                    log.debug("focus \(focus.described) set\(latency)")
                case .error(let e) where isFocusRequest(e.id):
                    guard let n = e.id?.intValue, let (_, focus) = focusPacer.answered(id: n, .refused(e), now: now(), unitsPerSecond: 1000)
                    else { break }
                    if e.code == .rateLimited {
                        // An app switcher flicking through windows: expected, so only with --verbose.
                        log.debug("the daemon's rate limit refused focus \(focus.described) (\(e.message)); the latest focus goes when it may")
                    } else {
                        log.info("the daemon refused focus \(focus.described): \(e.message)")
                    }
                case .error(let e):
                    guard let n = e.id?.intValue, let (device, orientation) = pacer.answered(id: n, .refused(e), now: now(), unitsPerSecond: 1000)
                    else {
                        log.info("the daemon says: \(e.message)")
                        break
                    }
                    if e.code == .rateLimited {
                        let wanted = pacer.states[device].flatMap { state -> DeviceOrientation? in
                            if case .pending(let w, _, _) = state { return w } else { return nil }
                        }
                        log.info(
                            "\(device): the daemon's rate limit refused orientation \(orientation.rawValue) (\(e.message)); "
                                + "orientation \(wanted.map { String($0.rawValue) } ?? "?") goes when it may")
                    } else {
                        log.info("\(device): the daemon refused orientation \(orientation.rawValue): \(e.message)")
                    }
                default:
                    break
                }
            }
        } catch GestureClientError.closed {
            scheduleReconnect(reason: "the daemon closed the connection")
        } catch {
            scheduleReconnect(reason: "lost the daemon: \(error)")
        }
    }

    // MARK: Following

    /// `since`: when the compositor's change that asks for this was read (ms), for the latency logged.
    private func applyAll(force: Bool = false, since: Int64? = nil) {
        for id in devices.keys.sorted() { if let d = devices[id] { apply(d, force: force, since: since) } }
    }

    /// Decides the device's orientation, says what changed once, and wants it of the daemon (sent by
    /// `sendDue`, when the daemon does not hold it already, or always with `force`).
    private func apply(_ device: DeviceInfo, force: Bool, since: Int64? = nil) {
        let decision = OrientationPlan.decide(device: device, outputs: compositor.currentOutputs, outputOption: outputOption)
        if said[device.id] != decision {
            said[device.id] = decision
            log.info(decision.described(device: device))
        }
        guard case .follow(let orientation, _, _) = decision, client != nil else { return }
        pacer.want(orientation, for: device.id, force: force)
        if let since { changedAt[device.id] = since }
    }

    /// Whether request `id` is the focus request in flight.
    private func isFocusRequest(_ id: JSONValue?) -> Bool {
        guard let n = id?.intValue, case .inFlight(n, _, _, _)? = focusPacer.states[.seat] else { return false }
        return true
    }

    /// Wants the compositor's focused app of the daemon (sent by `sendDue`), when the compositor says it.
    /// An app_id the daemon cannot take (empty, or over its 512 bytes) is sent as none: no section can
    /// name it, and the previous app's exclusions must not stay.
    private func applyFocus(force: Bool = false) {
        guard followsFocus, client != nil else { return }
        var app = compositor.focusedApp
        if let a = app, a.isEmpty || a.utf8.count > AppFocus.maximumAppIDBytes {
            if !a.isEmpty && !saidLongAppID {
                saidLongAppID = true
                log.info("the focused app's app_id is over \(AppFocus.maximumAppIDBytes) bytes, more than gestured takes: sent as none")
            }
            app = nil
        }
        focusPacer.want(AppFocus(appID: app), for: .seat, force: force)
        if !compositor.offersToplevelManagement {
            followsFocus = false
            log.info("the compositor stopped saying which app is focused (wlr-foreign-toplevel-management finished): focus none sent, no more")
        }
    }

    /// Sends each device's latest wanted orientation that may go now: none is in flight for it, and the
    /// wait the daemon's rate limit asked for is over; and the same for the focus. Never waits.
    private func sendDue() {
        guard let client else { return }
        for (slot, focus) in focusPacer.due(now: now()) {
            let id = nextRequest
            nextRequest += 1
            do {
                try client.send(RequestMessage(id: .integer(id), .focus(appID: focus.appID)))
                focusPacer.sent(focus, for: slot, id: id)
            } catch {
                scheduleReconnect(reason: "lost the daemon: \(error)")
                return
            }
        }
        for (device, orientation) in pacer.due(now: now()).sorted(by: { $0.key < $1.key }) {
            let id = nextRequest
            nextRequest += 1
            do {
                try client.send(RequestMessage(id: .integer(id), .orientation(orientation, device: device)))
                pacer.sent(orientation, for: device, id: id)
            } catch {
                scheduleReconnect(reason: "lost the daemon: \(error)")
                return
            }
        }
    }
}

/// The one focus a follower sends (the daemon holds one for the seat).
enum FocusSlot: Hashable, Sendable { case seat }

/// The focused app a `focus` request says: an app_id, or none.
struct AppFocus: Equatable, Sendable {
    var appID: String?
    /// The longest app_id the daemon's `focus` takes.
    static let maximumAppIDBytes = 512
    var described: String { appID.map { "'\(shown($0))'" } ?? "none" }
}
