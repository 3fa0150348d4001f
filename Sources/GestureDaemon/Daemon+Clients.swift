import GestureCore
import GestureProtocol
import Glibc
import GestureVocabulary
import SystemCalls

extension Daemon {
    /// Most connections accepted per wake-up, so a connection storm cannot hold the loop.
    static let acceptsPerWake = 32

    public var deviceInfos: [DeviceInfo] { devices.map(\.info) }

    /// Accepts waiting connections: each gets `hello`, or — past `max_clients` — a `too-many-clients`
    /// error and a closed connection.
    func acceptClients() {
        guard let listener else { return }
        for _ in 0..<Daemon.acceptsPerWake {
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
            if clients.count >= configuration.daemon.maxClients {
                refuse(fd, peer: peer)
                continue
            }
            clientCount += 1
            let session = ClientSession(
                fd: fd, token: upcomingToken, label: "client \(clientCount) (\(peer))",
                outgoingLimitBytes: configuration.daemon.clientBufferBytes)
            do {
                try add(fd, .client(session), interest: .readable)
            } catch {
                Log.error("cannot watch \(session.label): \(error)")
                continue  // the session closes its descriptor when released
            }
            clients[session.token] = session
            // Routine: at debug, so that thousands of connections cost no log lines at the default level.
            Log.debug("\(session.label) connected")
            session.enqueue(line: ServerMessage.hello(Hello(devices: deviceInfos)).encoded)
        }
    }

    /// Tells a client over the limit why, without waiting for it, and closes it.
    private func refuse(_ fd: Int32, peer: String) {
        let error = ProtocolError(
            .tooManyClients,
            "the daemon already serves its maximum of \(configuration.daemon.maxClients) clients (max_clients); try again later")
        var line = ServerMessage.error(error).encoded + "\n"
        _ = line.withUTF8 { try? SystemCall.send(fd, UnsafeRawBufferPointer($0)) }
        SystemCall.close(fd)
        refusedClients += 1
        // One line per refusal would let a connection storm flood the journal: log the first, then every 100th.
        if refusedClients == 1 || refusedClients % 100 == 0 {
            Log.warning(
                "refused a client (\(peer)): \(configuration.daemon.maxClients) clients connected (max_clients); "
                    + "\(refusedClients) refused so far")
        }
    }

    private func pauseListener() {
        guard let listener, !listenerPaused else { return }
        loop.remove(listener.fd)
        listenerPaused = true
    }

    private func resumeListener() {
        guard let listener, listenerPaused else { return }
        listenerPaused = false
        do {
            try add(listener.fd, .listener, interest: .readable)
            Log.info("accepting clients again")
        } catch {
            Log.error("cannot watch the listening socket again: \(error)")
        }
    }

    func readFrom(_ session: ClientSession) {
        let outcome = session.readAndHandle(scratch: scratch, host: self)
        if case .close(let reason) = outcome { disconnect(session, reason: reason) }
    }

    /// Closes a client's connection, after a last attempt to send what is queued (a final error).
    func disconnect(_ session: ClientSession, reason: String, log: Bool = true) {
        guard clients.removeValue(forKey: session.token) != nil else { return }
        _ = session.flush()
        watches[session.token] = nil
        loop.remove(session.fd)
        if log { logDisconnection(session, reason: reason) }
        // The session closes its descriptor when the last reference goes, which is now.
        resumeListener()
    }

    /// A client that left in the ordinary way is logged at debug; one dropped for what it did (an
    /// oversized line, a run of bad requests) or for an error at info, at most 10 a minute
    /// (`problemDisconnections`), so a flood of bad clients costs a few lines.
    private func logDisconnection(_ session: ClientSession, reason: String) {
        if ClientSession.isRoutine(reason) {
            Log.debug("\(session.label) disconnected: \(reason)")
            return
        }
        let (admitted, heldBack) = problemDisconnections.admit(now: SystemCall.monotonicMicroseconds())
        guard admitted else { return }
        let note = heldBack > 0 ? " (\(heldBack) more clients dropped since the last such line were not logged)" : ""
        Log.info("\(session.label) disconnected: \(reason)\(note)")
    }

    /// Writes what each client has queued and watches for writability only where something is left.
    func flushClients() {
        // Over the dictionary as it is now (a value: disconnecting below changes `clients`, not this
        // iteration), without copying it into an array every wake-up.
        for session in clients.values {
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
                    try loop.modify(session.fd, token: session.token, interest: interest)
                    session.registeredInterest = interest
                } catch {
                    disconnect(session, reason: "cannot watch its socket: \(error)")
                }
            }
        }
    }

    /// What a device's engine produced: gestures to the clients whose subscription takes them, warnings to
    /// the log, traces to the debug log (the engine traces only while the log level is debug).
    func deliver(_ outputs: [EngineOutput], from slot: DeviceSlot) {
        for output in outputs {
            switch output {
            case .gesture(let event): publish(event, from: slot)
            case .warning(let warning): Log.warning("\(slot.info.id): \(warning.message)")
            case .trace(let line): Log.debug("\(slot.info.id): \(line)")
            }
        }
    }

    /// Sends a gesture event to the clients that want it.
    private func publish(_ event: GestureEvent, from slot: DeviceSlot) {
        // Encoded once, into the daemon's one line buffer, and only when some client takes it (or the debug
        // log shows it); each client copies the line into its queue.
        let buffer = lineBuffer
        var encoded: UnsafeRawBufferPointer?
        func line() -> UnsafeRawBufferPointer {
            if let encoded { return encoded }
            let bytes = GestureEventJSON.encode(event, device: slot.info.id, into: buffer)
            encoded = bytes
            return bytes
        }
        if Log.enabled(.debug) { Log.debug("gesture \(String(decoding: line().dropLast(), as: UTF8.self))") }
        for session in clients.values where session.wants(event, from: slot.info) {
            if !session.enqueue(bytes: line()) { slowClient(session) }
        }
    }

    /// Tells subscribed clients a device came or went.
    func notifyClients(_ message: ServerMessage, about device: DeviceInfo) {
        let line = message.encoded
        for session in Array(clients.values) where session.wantsNotification(about: device) {
            if !session.enqueue(line: line) { slowClient(session) }
        }
    }

    private func slowClient(_ session: ClientSession) {
        Log.warning(
            "\(session.label) stopped reading: its \(configuration.daemon.clientBufferBytes)-byte buffer "
                + "(client_buffer_bytes) is full; disconnecting it")
        disconnect(session, reason: "outgoing buffer full", log: false)
    }
}
