import GestureConfig
import GestureCore
import GestureProtocol
import Glibc
import GestureVocabulary
import SystemCalls

/// The daemon's clients: the listening socket, every connected session, the limits on them, and the
/// delivery of gesture events and device notifications to those that subscribed. Everything runs on the
/// loop's thread and never blocks: what a socket does not take is queued (bounded per client), accepting
/// pauses when the process runs out of descriptors.
final class ClientHub {
    /// Most connections accepted per wake-up, so a connection storm cannot hold the loop.
    static let acceptsPerWake = 32

    private let watches: Watches
    /// How fast each user's clients may change the daemon's state.
    private var requestRate = RequestRate()
    /// How fast each user's clients may change the focused app (`focus`), apart from orientation changes
    /// (the companion sends both, and a burst of one must not starve the other).
    private var focusRate = RequestRate()
    /// The session whose `focus` request set the focus in force; when it disconnects the focus is forgotten.
    private var focusSetter: UInt64?
    /// The sessions that set exclusions (`exclude`): theirs go when they disconnect.
    var excluders: Set<UInt64> = []
    /// Where a focus or exclusions forgotten at a disconnect are carried out (the devices).
    weak var focusDevices: DeviceRequests?
    /// The daemon's own user: its own tools are not counted against max_clients_per_uid.
    private let ownUID = getuid()
    private(set) var listener: Listener?
    private var listenerToken: UInt64?
    /// Accepting is paused after EMFILE/ENFILE until a client leaves.
    private var listenerPaused = false
    private(set) var sessions: [UInt64: ClientSession] = [:]
    private var clientCount = 0
    private var refusedClients = 0
    /// Bounds the info lines about clients dropped for misbehaving: 10 a minute.
    private var problemDisconnections = LogRateLimit(burst: 10, windowMicroseconds: 60_000_000)
    private(set) var limits: DaemonSettings
    /// Read buffer shared by every client read.
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: ClientSession.readChunkBytes, alignment: 8)
    /// Where each gesture event is encoded, once for every client that takes it.
    private let lineBuffer = JSONLineBuffer()

    /// Who may see app touches (`AppTouchPolicy`, the one place that decides), kept with the seats the
    /// daemon's touchscreens are on (the first is the one `hello` and `subscribed` report).
    private(set) var appTouchPolicy: AppTouchPolicy
    private(set) var seats: [String] = []

    init(watches: Watches, limits: DaemonSettings, seatUsers: SeatUsers = .unavailable) {
        self.watches = watches
        self.limits = limits
        self.appTouchPolicy = AppTouchPolicy(ownUID: getuid(), viewers: AppTouchViewers.resolve(limits.appTouchesFor), seats: seatUsers)
    }

    /// Whose session is active on each seat changed (logind): every session's access is worked out again.
    func setSeatUsers(_ seatUsers: SeatUsers) {
        guard seatUsers != appTouchPolicy.seats else { return }
        appTouchPolicy.seats = seatUsers
        refreshAppTouchAccess()
    }

    /// Works every session's app-touch access out again, and tells each client subscribed with
    /// `app_touches` whose access changed (`app-touch-access`), once.
    func refreshAppTouchAccess() {
        for session in Array(sessions.values) {
            if let changed = session.updateAppTouchAccess(appTouchPolicy, seats: seats) {
                Log.debug("\(session.label): \(changed)")
                if !session.enqueue(line: ServerMessage.appTouchAccessChanged(changed).encoded) { slowClient(session) }
            }
        }
        // Explanations go only to clients that may see app touches: whether any takes them may have changed.
        refreshExplanationsWanted()
    }

    deinit { scratch.deallocate() }

    var count: Int { sessions.count }

    // MARK: The socket

    /// Listens on the socket systemd passed, or creates the configured one (by default where `runner`'s
    /// daemon listens, `DaemonSettings.socket(for:)`).
    func listen(runner: DaemonRunner) throws(DaemonStartError) {
        let listener: Listener
        let socket = limits.socket(for: runner)
        do {
            if let fd = try SystemdNotifier.activationSocket() {
                listener = Listener.inherited(fd: fd, configuredPath: socket.path)
                Log.info("listening on the socket systemd passed (socket activation)")
            } else {
                listener = try Listener.create(
                    path: socket.path, mode: limits.socketMode, group: socket.group,
                    groupIsConfigured: socket.groupIsConfigured)
                // The group the file has, which is the configured one only when it could be given.
                let group = listener.groupID.map { id in (try? SystemCall.groupName(id: id)).flatMap { $0 } ?? "\(id)" }
                Log.info("listening on \(listener.path) (mode 0\(String(limits.socketMode, radix: 8)), group \(group ?? "unknown"))")
            }
            listenerToken = watches.upcomingToken
            try watches.add(listener.fd, .listener, interest: .readable)
        } catch {
            throw DaemonStartError("cannot listen: \(error)")
        }
        self.listener = listener
    }

    /// New limits (a reload): the client buffer and max_clients apply at once; the socket's path, mode and
    /// group at the next start.
    func apply(_ new: DaemonSettings) {
        if new.appTouchesFor != limits.appTouchesFor {
            appTouchPolicy.viewers = AppTouchViewers.resolve(new.appTouchesFor)
            limits = new
            refreshAppTouchAccess()
        }
        limits = new
        for session in sessions.values { session.outgoingLimitBytes = new.clientBufferBytes }
        if sessions.count > new.maxClients {
            Log.notice(
                "\(sessions.count) clients are connected, more than the new max_clients \(new.maxClients); new ones are refused until fewer remain")
        }
    }

    // MARK: Connections

    /// Accepts waiting connections: each gets `hello` (with the `devices` read now), or — past
    /// `max_clients` — a `too-many-clients` error and a closed connection.
    func acceptClients(devices: DeviceRequests) {
        guard let listener else { return }
        for _ in 0..<ClientHub.acceptsPerWake {
            let fd: Int32
            do {
                guard let accepted = try SystemCall.accept(listener.fd) else { return }
                fd = accepted
            } catch {
                if error.errno == EMFILE || error.errno == ENFILE || error.errno == ENOBUFS || error.errno == ENOMEM {
                    Log.error(
                        "cannot accept clients: \(error); pausing until a client leaves (raise LimitNOFILE= or lower max_clients)")
                    pauseListener()
                } else {
                    Log.error("accept: \(error)")
                }
                return
            }
            let credentials = try? SystemCall.peerCredentials(fd)
            let peer = credentials.map(\.described) ?? "unknown peer"
            if let reason = ClientHub.refusal(
                uid: credentials?.uid, connected: sessions.values.lazy.map(\.uid), limits: limits, ownUID: ownUID)
            {
                refuse(fd, peer: peer, reason: reason)
                continue
            }
            clientCount += 1
            let session = ClientSession(
                fd: fd, token: watches.upcomingToken, label: "client \(clientCount) (\(peer))", uid: credentials?.uid,
                groups: credentials.map { [$0.gid] + SystemCall.peerGroups(fd) } ?? [],
                outgoingLimitBytes: limits.clientBufferBytes)
            session.updateAppTouchAccess(appTouchPolicy, seats: seats)
            do {
                try watches.add(fd, .client(session), interest: .readable)
            } catch {
                Log.error("cannot watch \(session.label): \(error)")
                continue  // the session closes its descriptor when released
            }
            sessions[session.token] = session
            // Routine: at debug, so that thousands of connections cost no log lines at the default level.
            Log.debug("\(session.label) connected")
            session.enqueue(
                line: ServerMessage.hello(Hello(devices: devices.deviceInfos, appTouchAccess: session.appTouchAccess)).encoded)
        }
    }

    /// Why a connection from `uid` is refused, with the clients `connected` (their uids): past
    /// `max_clients` in all, or past `max_clients_per_uid` for one user (root and the daemon's own user are
    /// not held to that one, so that an administrator and the daemon's own tools can always connect
    /// while fewer than `max_clients` are). Nil: accepted.
    static func refusal<Connected: Collection>(
        uid: UInt32?, connected: Connected, limits: DaemonSettings, ownUID: UInt32
    ) -> String? where Connected.Element == UInt32? {
        if connected.count >= limits.maxClients {
            return "the daemon already serves its maximum of \(limits.maxClients) clients (max_clients)"
        }
        if let uid, uid != 0, uid != ownUID, connected.count(where: { $0 == uid }) >= limits.maxClientsPerUID {
            return "uid \(uid) already has \(limits.maxClientsPerUID) connections, the most one user may have (max_clients_per_uid)"
        }
        return nil
    }

    /// Tells a client over a limit why, without waiting for it, and closes it.
    private func refuse(_ fd: Int32, peer: String, reason: String) {
        let error = ProtocolError(.tooManyClients, "\(reason); try again later")
        var line = ServerMessage.error(error).encoded + "\n"
        _ = line.withUTF8 { try? SystemCall.send(fd, UnsafeRawBufferPointer($0)) }
        SystemCall.close(fd)
        refusedClients += 1
        // One line per refusal would let a connection storm flood the journal: log the first, then every 100th.
        if refusedClients == 1 || refusedClients % 100 == 0 {
            Log.warning("refused a client (\(peer)): \(reason); \(refusedClients) refused so far")
        }
    }

    private func pauseListener() {
        guard let listener, let token = listenerToken, !listenerPaused else { return }
        watches.remove(token, fd: listener.fd)
        listenerToken = nil
        listenerPaused = true
    }

    private func resumeListener() {
        guard let listener, listenerPaused else { return }
        listenerPaused = false
        do {
            listenerToken = watches.upcomingToken
            try watches.add(listener.fd, .listener, interest: .readable)
            Log.info("accepting clients again")
        } catch {
            listenerToken = nil
            Log.error("cannot watch the listening socket again: \(error)")
        }
    }

    /// A session's socket is ready; its requests about devices go to `devices`.
    func handle(_ session: ClientSession, _ readiness: Readiness, devices: DeviceRequests) {
        if readiness.isReadable || readiness.isHangUpOrError {
            let (tookUpdates, tookExplanations) = (session.takesUpdates, session.takesExplanations)
            let outcome = session.readAndHandle(scratch: scratch, host: SessionRequests(clients: self, devices: devices))
            if case .close(let reason) = outcome { disconnect(session, reason: reason) }
            if session.takesUpdates != tookUpdates { refreshUpdatesWanted() }
            if session.takesExplanations != tookExplanations { refreshExplanationsWanted() }
        }
        if readiness.isWritable, sessions[session.token] != nil {
            if case .close(let reason) = session.flush() { disconnect(session, reason: reason) }
        }
    }

    /// Closes a client's connection, after a last attempt to send what is queued (a final error).
    func disconnect(_ session: ClientSession, reason: DisconnectReason, log: Bool = true) {
        guard sessions.removeValue(forKey: session.token) != nil else { return }
        _ = session.flush()
        watches.remove(session.token, fd: session.fd)
        if session.takesUpdates { refreshUpdatesWanted() }
        if session.takesExplanations { refreshExplanationsWanted() }
        if excluders.remove(session.token) != nil {
            focusDevices?.setClientExclusions([], token: session.token, label: session.label, uid: session.uid)
        }
        if focusSetter == session.token {
            focusSetter = nil
            focusDevices?.setFocus(nil, by: "\(session.label) (disconnected)")
        }
        if log { logDisconnection(session, reason: reason) }
        // The session closes its descriptor when the last reference goes, which is now.
        resumeListener()
    }

    /// A client that left in the ordinary way is logged at debug; one dropped for what it did (an
    /// oversized line, a run of bad requests) or for an error at info, at most 10 a minute
    /// (`problemDisconnections`), so a flood of bad clients costs a few lines.
    private func logDisconnection(_ session: ClientSession, reason: DisconnectReason) {
        if reason.isRoutine {
            Log.debug("\(session.label) disconnected: \(reason)")
            return
        }
        let (admitted, heldBack) = problemDisconnections.admit(now: SystemCall.monotonicMicroseconds())
        guard admitted else { return }
        let note = heldBack > 0 ? " (\(heldBack) more clients dropped since the last such line were not logged)" : ""
        Log.info("\(session.label) disconnected: \(reason)\(note)")
    }

    /// Writes what each client has queued and watches for writability only where something is left.
    func flush() {
        // Over the dictionary as it is now (a value: disconnecting below changes `sessions`, not this
        // iteration), without copying it into an array every wake-up.
        for session in sessions.values {
            if session.wantsWrite {
                if case .close(let reason) = session.flush() {
                    disconnect(session, reason: reason)
                    continue
                }
            }
            var interest: Interest = []
            if session.wantsRead { interest.insert(.readable) }
            if session.wantsWrite { interest.insert(.writable) }
            if interest != session.registeredInterest {
                do {
                    try watches.loop.modify(session.fd, token: session.token, interest: interest)
                    session.registeredInterest = interest
                } catch {
                    disconnect(session, reason: .cannotWatch(error))
                }
            }
        }
    }

    /// Disconnects every client (the daemon stops) and removes the socket file it created.
    func closeAll() {
        for session in Array(sessions.values) { disconnect(session, reason: .daemonStopping, log: false) }
        if let listener {
            if let token = listenerToken { watches.remove(token, fd: listener.fd) }
            listener.removeSocketFile()
        }
        listener = nil
    }

    /// Removes the socket file the daemon created (start-up failed after it listened).
    func removeSocketFile() { listener?.removeSocketFile() }

    // MARK: Delivery

    /// Whether running gestures' updates are wanted: while some client takes them or the log shows gestures
    /// (debug). The daemon turns the engines' updates off otherwise (`DeviceHub.reportsUpdates`): a frame of
    /// a running gesture then costs no update no one reads (its end is the same).
    private(set) var updatesWanted = true

    /// Works `updatesWanted` out again: called whenever a subscription or the log level may have changed it.
    func refreshUpdatesWanted() {
        updatesWanted = Log.enabled(.debug) || sessions.values.contains { $0.takesUpdates }
    }

    /// Whether the engines explain touch sequences: while some client takes explanations (and may).
    private(set) var explanationsWanted = false
    /// Told when `explanationsWanted` changes (the daemon turns the engines' explaining on and off).
    var explanationsWantedChanged: ((Bool) -> Void)?

    func refreshExplanationsWanted() {
        let wanted = sessions.values.contains { $0.takesExplanations }
        guard wanted != explanationsWanted else { return }
        explanationsWanted = wanted
        explanationsWantedChanged?(wanted)
    }

    /// Sends one touch sequence explained to the clients that take explanations from `device`.
    func explain(_ explanation: Explanation, from device: DeviceInfo) {
        var line: String?
        for session in sessions.values where session.wantsExplanation(from: device) {
            if line == nil { line = ExplanationJSON.encode(explanation, device: device.id) }
            if !session.enqueue(line: line!) { slowClient(session) }
        }
    }

    /// Sends a gesture event to the clients that want it.
    func publish(_ event: GestureEvent, appTouch: Bool, from device: @autoclosure () -> DeviceInfo) {
        // Encoded once, into the daemon's one line buffer, and only when some client takes it (or the debug
        // log shows it); each client copies the line into its queue.
        let buffer = lineBuffer
        var encoded: UnsafeRawBufferPointer?
        func line() -> UnsafeRawBufferPointer {
            if let encoded { return encoded }
            let bytes = GestureEventJSON.encode(event, device: device().id, into: buffer)
            encoded = bytes
            return bytes
        }
        if Log.enabled(.debug) { Log.debug("gesture \(String(decoding: line().dropLast(), as: UTF8.self))") }
        for session in sessions.values where session.wants(event, appTouch: appTouch, from: device()) {
            if !session.enqueue(bytes: line()) { slowClient(session) }
        }
    }

    /// Tells subscribed clients a device came, went or changed.
    func notify(_ message: ServerMessage, about device: DeviceInfo) {
        if case .deviceAdded = message, !seats.contains(device.seat) {
            seats.append(device.seat)
            refreshAppTouchAccess()
        }
        let line = message.encoded
        for session in Array(sessions.values) where session.wantsNotification(about: device) {
            if !session.enqueue(line: line) { slowClient(session) }
        }
    }

    private func slowClient(_ session: ClientSession) {
        Log.warning(
            "\(session.label) stopped reading: its \(limits.clientBufferBytes)-byte buffer "
                + "(client_buffer_bytes) is full; disconnecting it")
        disconnect(session, reason: .outgoingBufferFull, log: false)
    }
}

extension ClientHub: DeviceDelivery {
    var connectedClients: Int { sessions.count }
}

/// What sessions ask of the devices (`DeviceHub`).
protocol DeviceRequests: AnyObject {
    var deviceInfos: [DeviceInfo] { get }
    func setOrientation(_ orientation: DeviceOrientation, device: String?, by label: String) -> Result<OrientationChange, ProtocolError>
    /// The focused app is `app` (nil: none known) from now on.
    func setFocus(_ app: String?, by label: String)
    /// The exclusions of the client `token` become those of `list` its user's cap allows.
    @discardableResult
    func setClientExclusions(_ list: [RequestedExclusion], token: UInt64, label: String, uid: UInt32?)
        -> (accepted: [RequestedExclusion], refused: [RefusedExclusion])
}

/// The requests of a session that reach beyond it: about the devices, and an `orientation` request within
/// its user's rate, which the clients keep.
struct SessionRequests: SessionHost {
    let clients: ClientHub
    let devices: DeviceRequests

    var deviceInfos: [DeviceInfo] { devices.deviceInfos }

    /// The `orientation` request, within its user's rate (`RequestRate`): a request over it is refused
    /// with `rate-limited` and changes nothing.
    func setOrientation(
        _ orientation: DeviceOrientation, device: String?, requestedBy session: ClientSession
    ) -> Result<OrientationChange, ProtocolError> {
        if let refusal = clients.admitOrientation(from: session) { return .failure(refusal) }
        return devices.setOrientation(orientation, device: device, by: session.label)
    }

    /// The `focus` request, within its user's rate: the focus is that session's until it disconnects or
    /// another focus request comes.
    func setFocus(_ app: String?, requestedBy session: ClientSession) -> ProtocolError? {
        clients.focusDevices = devices
        if let refusal = clients.admitFocus(from: session) { return refusal }
        clients.focusSet(by: session)
        devices.setFocus(app, by: session.label)
        return nil
    }

    /// The `exclude` request: that session's exclusions, within its user's cap, until it disconnects.
    func setExclusions(_ list: [RequestedExclusion], requestedBy session: ClientSession) -> (accepted: [RequestedExclusion], refused: [RefusedExclusion]) {
        clients.focusDevices = devices
        let result = devices.setClientExclusions(list, token: session.token, label: session.label, uid: session.uid)
        if result.accepted.isEmpty { clients.excluders.remove(session.token) } else { clients.excluders.insert(session.token) }
        return result
    }
}

extension ClientHub {
    func focusSet(by session: ClientSession) { focusSetter = session.token }

    /// Whether `session`'s user may change the focus now; nil: yes, else the `rate-limited` error.
    func admitFocus(from session: ClientSession) -> ProtocolError? {
        Self.admit(session, by: &focusRate, changes: "focus changes")
    }

    /// Whether `session`'s user may change the orientation now (`RequestRate`); nil: yes. Otherwise the
    /// `rate-limited` error to reply with.
    func admitOrientation(from session: ClientSession) -> ProtocolError? {
        Self.admit(session, by: &requestRate, changes: "orientation changes")
    }

    /// Whether `rate` lets `session`'s user make one more of its `changes` (plural, as the error names
    /// them: "focus changes") now; nil: yes, else the `rate-limited` error saying when to send it again.
    private static func admit(
        _ session: ClientSession, by rate: inout RequestRate, changes: String
    ) -> ProtocolError? {
        let admission = rate.admit(uid: session.uid ?? UInt32.max, now: SystemCall.monotonicMicroseconds())
        guard admission.admitted else {
            let seconds = (Double(admission.retryAfterMicroseconds) / 1_000_000 * 100).rounded(.up) / 100
            return ProtocolError(
                .rateLimited,
                "at most \(Int(RequestRate.perSecond)) \(changes) a second for each user (after a burst of "
                    + "\(Int(RequestRate.burst))); this one was not applied: send it again in \(seconds) s",
                retryAfter: seconds)
        }
        return nil
    }
}
