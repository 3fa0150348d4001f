import GestureConfig
import GestureCore
import GestureProtocol
import Glibc
import GestureVocabulary
import PlainText
import SystemCalls

/// The daemon's clients: the listening socket, every connected session, the limits on connections, and the
/// delivery of gesture events and device notifications to those that subscribed. What clients set or want
/// and may see is the `ClientPolicy` it holds: every connection, request, departure, seat change and device
/// change goes through the policy's one transition function, and the hub carries out the actions that
/// concern its sessions; those that concern the devices go to the `DeviceRequests` it is handed with each
/// call (or, from inside a delivery, wait for the daemon to hand them over: `applyDeferred`). Everything runs
/// on the loop's thread and never blocks: what a socket does not take is queued (bounded per client),
/// accepting pauses when the process runs out of descriptors.
final class ClientHub {
    /// Most connections accepted per wake-up, so a connection storm cannot hold the loop.
    static let acceptsPerWake = 32

    private let watches: Watches
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
    /// Bounds the lines about focus changes clients make: 10 a minute, with a count of those not logged.
    private var changeLog = LogRateLimit(burst: 10, windowMicroseconds: 60_000_000)
    private(set) var limits: DaemonSettings
    /// Read buffer shared by every client read.
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: ClientSession.readChunkBytes, alignment: 8)
    /// Where each gesture event is encoded, once for every client that takes it.
    private let lineBuffer = JSONLineBuffer()

    /// Who may set and see what: the one home of that decision.
    private(set) var policy: ClientPolicy
    /// Actions for the devices produced where the hub was not handed them (a client dropped while a
    /// device's gestures were being delivered); the daemon hands them over after each dispatch.
    private var deferred: [ClientPolicy.Action] = []
    /// `reload` requests waiting for the daemon, which owns the configuration (`takeReloadRequests`).
    private var reloadRequests: [(client: ClientID, id: JSONValue?, by: String)] = []
    /// The device being announced (`device-added`): what the policy gives it meanwhile is in that line.
    private var announcing: String?

    init(watches: Watches, limits: DaemonSettings, seatUsers: SeatUsers = .unavailable) {
        self.watches = watches
        self.limits = limits
        self.policy = ClientPolicy(
            access: AppTouchPolicy(ownUID: getuid(), viewers: AppTouchViewers.resolve(limits.appTouchesFor), seats: seatUsers))
    }

    deinit { scratch.deallocate() }

    var count: Int { sessions.count }

    /// Whether some client takes explanations, or updates (the policy's, kept as it changes).
    var explanationsWanted: Bool { policy.explanationsWanted }
    var updatesWanted: Bool { policy.updatesWanted }

    // MARK: The policy

    /// Runs one input through the policy and carries out what it says; device actions go to `devices`, or
    /// wait (`deferred`) when the hub was not handed them.
    func run(_ input: ClientPolicy.Input, devices: DeviceRequests?) {
        perform(policy.handle(input), devices: devices)
    }

    /// The actions that waited for the devices (a client dropped during a delivery left its focus or its
    /// exclusions): the daemon calls this after each dispatch.
    func applyDeferred(devices: DeviceRequests) {
        while !deferred.isEmpty {
            let actions = deferred
            deferred.removeAll()
            perform(actions, devices: devices)
        }
    }

    var hasDeferred: Bool { !deferred.isEmpty }

    private func perform(_ actions: [ClientPolicy.Action], devices: DeviceRequests?) {
        for action in actions {
            guard let devices else {
                if action.concernsDevices { deferred.append(action) } else { performOnSessions(action) }
                continue
            }
            if action.concernsDevices { perform(action, devices: devices) } else { performOnSessions(action) }
        }
    }

    /// An action on the sessions alone.
    private func performOnSessions(_ action: ClientPolicy.Action) {
        switch action {
        case .send(let id, let message):
            if let session = sessions[id], !session.reply(message) { slowReader(session) }
        case .view(let id, let view):
            sessions[id]?.setView(view)
        case .focusChanged(let seat, let app, let was, let by):
            let name = { (a: String?) in a.map { "\"\(escapingControlCharacters($0))\"" } ?? "none" }
            logChange("focused app on \(seat): \(name(app)) (was \(name(was))), set by \(by)")
        case .reload(let id, let requestID, let by):
            reloadRequests.append((id, requestID, by))
        case .hello, .listDevices, .turn, .deviceState, .endTouches, .explaining, .updates:
            Log.error("internal error: \(action) needs the devices")
        }
    }

    /// An action that needs the devices.
    private func perform(_ action: ClientPolicy.Action, devices: DeviceRequests) {
        switch action {
        case .hello(let id, let access):
            reply(to: id) { session in .hello(Hello(devices: devices.deviceInfos.map { self.visible($0, to: session) }, appTouchAccess: access)) }
        case .listDevices(let id, let requestID):
            reply(to: id) { session in .devices(id: requestID, devices: devices.deviceInfos.map { self.visible($0, to: session) }) }
        case .turn(let id, let requestID, let named, let orientation, let by):
            // The daemon cancels gestures in flight and tells subscribed clients (this one too) first, so
            // the reply comes after the cancels and the `device-changed` notifications.
            let change = devices.turn(named, to: orientation, by: by)
            reply(to: id) { session in
                .oriented(id: requestID, devices: change.devices.map { self.visible($0, to: session) }, claimedTouches: change.claimedTouches)
            }
        case .deviceState(let device, let focusedApp, let exclusions, let holdClaims):
            if let (before, after) = devices.setState(device: device, focusedApp: focusedApp, clientExclusions: exclusions, holdClaims: holdClaims),
                device != announcing
            {
                notifyChange(from: before, to: after)
            }
        case .endTouches(let seat):
            devices.endTouches(onSeat: seat)
        case .explaining(let on):
            devices.setExplaining(on)
        case .updates(let on):
            devices.setUpdatesWanted(on)
        case .send, .view, .focusChanged, .reload:
            performOnSessions(action)
        }
    }

    /// Sends the session `id` the reply `make` makes for it (as it may see the devices).
    private func reply(to id: ClientID, _ make: (ClientSession) -> ServerMessage) {
        guard let session = sessions[id] else { return }
        if !session.reply(make(session)) { slowReader(session) }
    }

    /// Whose session is active on each seat changed (logind).
    func setSeatUsers(_ seatUsers: SeatUsers, devices: DeviceRequests) {
        run(.seatUsers(seatUsers), devices: devices)
    }

    /// Whether a `reload` request waits (asked at every turn of the loop: a read, no copy).
    var hasReloadRequests: Bool { !reloadRequests.isEmpty }

    /// The `reload` requests since the last call, for the daemon to carry out once and answer
    /// (`answerReload`).
    func takeReloadRequests() -> [(client: ClientID, id: JSONValue?, by: String)] {
        defer { reloadRequests.removeAll() }
        return reloadRequests
    }

    /// Answers a `reload` request: `reloaded`, or `reload-failed` with the file's problems.
    func answerReload(_ request: (client: ClientID, id: JSONValue?, by: String), path: String, _ result: Result<Void, ConfigurationLoadError>) {
        guard let session = sessions[request.client] else { return }
        let reply: ServerMessage
        switch result {
        case .success: reply = .reloaded(id: request.id, path: path)
        case .failure(let error):
            let problems = error.description.split(separator: "\n").map(String.init)
            reply = .error(
                ProtocolError(
                    .reloadFailed, "\(path) does not load; the running configuration stays: \(problems.first ?? "")", id: request.id,
                    problems: problems))
        }
        if !session.reply(reply) { slowReader(session) }
    }

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

    /// New limits (a reload): the client buffer and max_clients apply at once, and who `app_touches_for`
    /// names; the socket's path, mode and group at the next start.
    func apply(_ new: DaemonSettings, devices: DeviceRequests) {
        let viewersChanged = new.appTouchesFor != limits.appTouchesFor
        limits = new
        if viewersChanged { run(.viewers(AppTouchViewers.resolve(new.appTouchesFor)), devices: devices) }
        for session in sessions.values { session.outgoingLimitBytes = new.clientBufferBytes }
        if sessions.count > new.maxClients {
            Log.notice(
                "\(sessions.count) clients are connected, more than the new max_clients \(new.maxClients); new ones are refused until fewer remain")
        }
    }

    // MARK: Connections

    /// Accepts waiting connections: each gets `hello` (with the devices as it may see them), or — past
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
            admit(
                fd, uid: credentials?.uid, groups: credentials.map { [$0.gid] + SystemCall.peerGroups(fd) } ?? [],
                peer: credentials.map(\.described) ?? "unknown peer", devices: devices)
        }
    }

    /// Takes a connection from `uid` (nil: unknown) in `groups`: a session and its `hello`, or the refusal
    /// past a limit. Returns the session, nil when refused or when it could not be watched.
    @discardableResult
    func admit(_ fd: Int32, uid: UInt32?, groups: [UInt32], peer: String, devices: DeviceRequests) -> ClientSession? {
        if let reason = ClientHub.refusal(uid: uid, connected: sessions.values.lazy.map(\.uid), limits: limits, ownUID: ownUID) {
            refuse(fd, peer: peer, reason: reason)
            return nil
        }
        clientCount += 1
        let session = ClientSession(
            fd: fd, token: watches.upcomingToken, label: "client \(clientCount) (\(peer))", uid: uid, groups: groups,
            outgoingLimitBytes: limits.clientBufferBytes)
        do {
            try watches.add(fd, .client(session), interest: .readable)
        } catch {
            Log.error("cannot watch \(session.label): \(error)")
            return nil  // the session closes its descriptor when released
        }
        sessions[session.token] = session
        // Routine: at debug, so that thousands of connections cost no log lines at the default level.
        Log.debug("\(session.label) connected")
        run(.connected(session.token, peer: session.peer, label: session.label), devices: devices)
        return session
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

    /// A session's socket is ready: its request lines go through the policy, in order.
    func handle(_ session: ClientSession, _ readiness: Readiness, devices: DeviceRequests) {
        if readiness.isReadable || readiness.isHangUpOrError {
            var read = ClientSession.Read()
            let outcome = session.read(scratch: scratch, into: &read)
            let now = SystemCall.monotonicMicroseconds()
            for line in read.lines {
                guard sessions[session.token] != nil else { return }  // dropped while answering
                switch session.decode(line) {
                case .request(let message):
                    run(.request(session.token, message, now: now), devices: devices)
                case .blank, .refused:
                    break
                case .close(let reason):
                    disconnect(session, reason: reason, devices: devices)
                    return
                }
            }
            guard sessions[session.token] != nil else { return }
            if case .close(let reason) = outcome {
                disconnect(session, reason: reason, devices: devices)
                return
            }
            if read.endOfFile {
                run(.stoppedSending(session.token), devices: devices)
                if !session.wantsWrite {
                    disconnect(session, reason: .closedByClient, devices: devices)
                    return
                }
            }
        }
        if readiness.isWritable, sessions[session.token] != nil {
            if case .close(let reason) = session.flush() { disconnect(session, reason: reason, devices: devices) }
        }
    }

    /// Closes a client's connection, after a last attempt to send what is queued (a final error); what it
    /// set (its focus, its exclusions) goes with it.
    func disconnect(_ session: ClientSession, reason: DisconnectReason, devices: DeviceRequests?, log: Bool = true) {
        guard sessions.removeValue(forKey: session.token) != nil else { return }
        _ = session.flush()
        watches.remove(session.token, fd: session.fd)
        run(.disconnected(session.token), devices: devices)
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

    /// A change made at a client's request, logged at most 10 a minute (with a count of those that were not).
    private func logChange(_ line: String) {
        let (admitted, heldBack) = changeLog.admit(now: SystemCall.monotonicMicroseconds())
        guard admitted else { return }
        Log.info(line + (heldBack > 0 ? " (\(heldBack) more changes since the last such line were not logged)" : ""))
    }

    /// Writes what each client has queued and watches for writability only where something is left. A
    /// client found gone leaves what it set to the devices (`applyDeferred`, which the daemon calls next).
    func flush() {
        // Over the dictionary as it is now (a value: disconnecting below changes `sessions`, not this
        // iteration), without copying it into an array every wake-up.
        for session in sessions.values {
            if session.wantsWrite {
                if case .close(let reason) = session.flush() {
                    disconnect(session, reason: reason, devices: nil)
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
                    disconnect(session, reason: .cannotWatch(error), devices: nil)
                }
            }
        }
    }

    /// Disconnects every client (the daemon stops) and removes the socket file it created.
    func closeAll(devices: DeviceRequests) {
        for session in Array(sessions.values) { disconnect(session, reason: .daemonStopping, devices: devices, log: false) }
        if let listener {
            if let token = listenerToken { watches.remove(token, fd: listener.fd) }
            listener.removeSocketFile()
        }
        listener = nil
    }

    /// Removes the socket file the daemon created (start-up failed after it listened).
    func removeSocketFile() { listener?.removeSocketFile() }

    // MARK: Delivery

    /// A device as `session` may see it: the focused app and the exclusions (with who keeps them) only for
    /// those who may see its seat's app touches.
    private func visible(_ info: DeviceInfo, to session: ClientSession) -> DeviceInfo {
        session.view.seesPrivate(onSeat: info.seat) ? info : info.publicView
    }

    /// Sends one touch sequence explained to the clients that take explanations from `device`, each with
    /// the gesture ids it knows.
    func explain(_ explanation: Explanation, from device: DeviceInfo) {
        for session in sessions.values where session.wantsExplanation(from: device) {
            let line = ExplanationJSON.encode(explanation.renumberingGestures(session.clientGestureID(forEngineID:)), device: device.id)
            if !session.enqueue(line: line) { slowClient(session) }
        }
    }

    /// Sends a gesture event to the clients that receive it, each with its own id for the gesture.
    func publish(_ event: GestureEvent, audience: GestureAudience, from device: @autoclosure () -> DeviceInfo) {
        // Encoded once, into the daemon's one line buffer, and only when some client takes it (or the debug
        // log shows it); each client copies the line into its queue with its id in place.
        let buffer = lineBuffer
        var encoded: UnsafeRawBufferPointer?
        var idRange = 0..<0
        func line() -> UnsafeRawBufferPointer {
            if let encoded { return encoded }
            let bytes = GestureEventJSON.encode(event, device: device().id, into: buffer, idRange: &idRange)
            encoded = bytes
            return bytes
        }
        if Log.enabled(.debug) { Log.debug("gesture \(String(decoding: line().dropLast(), as: UTF8.self))") }
        for session in sessions.values {
            guard let id = session.accept(event, audience: audience, from: device()) else { continue }
            let bytes = line()
            // A client that has received every gesture since the daemon started knows them by the engine's
            // ids: its line is the one encoded.
            let queued = id == event.id ? session.enqueue(bytes: bytes) : session.enqueue(gestureLine: bytes, idRange: idRange, clientID: id)
            if !queued { slowClient(session) }
        }
    }

    /// Tells subscribed clients a device came or went, as each may see it.
    func notify(_ message: (DeviceInfo) -> ServerMessage, about device: DeviceInfo) {
        var lines: (shown: String?, hidden: String?) = (nil, nil)
        for session in Array(sessions.values) where session.wantsNotification(about: device) {
            let line: String
            if session.view.seesPrivate(onSeat: device.seat) {
                if lines.shown == nil { lines.shown = message(device).encoded }
                line = lines.shown!
            } else {
                if lines.hidden == nil { lines.hidden = message(device.publicView).encoded }
                line = lines.hidden!
            }
            if !session.enqueue(line: line) { slowClient(session) }
        }
    }

    /// Tells each subscribed client whose view of a device changed (`device-changed`): a change only those
    /// who may see the seat's details see (a focus, an exclusion) goes to them alone.
    func notifyChange(from before: DeviceInfo, to after: DeviceInfo) {
        guard before != after else { return }
        let changedForAll = before.publicView != after.publicView
        var lines: (shown: String?, hidden: String?) = (nil, nil)
        for session in Array(sessions.values) where session.wantsNotification(about: after) {
            let line: String
            if session.view.seesPrivate(onSeat: after.seat) {
                if lines.shown == nil { lines.shown = ServerMessage.deviceChanged(after).encoded }
                line = lines.shown!
            } else {
                guard changedForAll else { continue }
                if lines.hidden == nil { lines.hidden = ServerMessage.deviceChanged(after.publicView).encoded }
                line = lines.hidden!
            }
            if !session.enqueue(line: line) { slowClient(session) }
        }
    }

    /// A client whose queue is full during a delivery: dropped, its policy's leftovers wait for the devices.
    private func slowClient(_ session: ClientSession) {
        Log.warning(
            "\(session.label) stopped reading: its \(limits.clientBufferBytes)-byte buffer "
                + "(client_buffer_bytes) is full; disconnecting it")
        disconnect(session, reason: .outgoingBufferFull, devices: nil, log: false)
    }

    /// A client that does not read its replies.
    private func slowReader(_ session: ClientSession) {
        disconnect(session, reason: .stoppedReadingReplies(queuedBytes: session.queuedByteCount), devices: nil)
    }
}

extension ClientHub: DeviceDelivery {
    var connectedClients: Int { sessions.count }

    func deviceAdded(_ device: PolicyDevice, devices: DeviceRequests) {
        announcing = device.id
        run(.deviceAdded(device), devices: devices)
        announcing = nil
        // As the policy left it (its seat's focus, the clients' exclusions).
        let info = devices.deviceInfos.first { $0.id == device.id } ?? device.info
        notify({ .deviceAdded($0) }, about: info)
    }

    func deviceChanged(_ device: PolicyDevice, before: DeviceInfo, devices: DeviceRequests?) {
        notifyChange(from: before, to: device.info)
        run(.deviceChanged(device), devices: devices)
    }

    func deviceRemoved(_ info: DeviceInfo, devices: DeviceRequests) {
        notify({ .deviceRemoved($0) }, about: info)
        run(.deviceRemoved(id: info.id), devices: devices)
    }
}

/// What the policy's actions ask of the devices (`DeviceHub`).
protocol DeviceRequests: AnyObject {
    /// The devices, in the order they were added.
    var deviceInfos: [DeviceInfo] { get }
    /// Turns the devices with these ids (`orientation`); returns them as they are now and the touches
    /// held back that the turn claimed.
    func turn(_ ids: [String], to orientation: DeviceOrientation, by label: String) -> OrientationChange
    /// What clients set that the device's engine follows: its seat's focused app and the clients'
    /// exclusions in force. Returns the device before and after, nil when there is no such device.
    func setState(device id: String, focusedApp: String?, clientExclusions: [EdgeExclusion], holdClaims: [ScreenRegion]) -> (DeviceInfo, DeviceInfo)?
    /// Ends the gestures in flight on the seat's devices; the fingers down rest until they lift.
    func endTouches(onSeat seat: String)
    func setExplaining(_ on: Bool)
    func setUpdatesWanted(_ on: Bool)
}
