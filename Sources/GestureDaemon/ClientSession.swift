import GestureCore
import GestureProtocol
import Glibc
import GestureVocabulary
import SystemCalls

/// What an `orientation` request did: the devices it named, each with its orientation now, and how many
/// touches held back (passthrough) the turn claimed, so that they never reach an application.
public struct OrientationChange: Equatable, Sendable {
    public var devices: [DeviceInfo]
    public var claimedTouches: Int

    public init(devices: [DeviceInfo], claimedTouches: Int = 0) {
        self.devices = devices
        self.claimedTouches = claimedTouches
    }
}

/// Why a client's connection ends.
public enum DisconnectReason: Equatable, Sendable, CustomStringConvertible {
    /// The client closed its end (after its replies were sent).
    case closedByClient
    /// The connection broke while reading or writing (a client that quit): `while` says which.
    case connectionLost(while: String, message: String)
    /// It sent a line longer than the protocol allows.
    case lineTooLong(limit: Int)
    /// It sent this many bad requests in a row.
    case tooManyBadRequests(Int)
    /// It stopped reading its replies.
    case stoppedReadingReplies(queuedBytes: Int)
    /// Its queue of events reached `client_buffer_bytes`.
    case outgoingBufferFull
    /// The loop could not watch its socket.
    case cannotWatch(SystemError)
    /// The daemon is stopping.
    case daemonStopping

    /// The ordinary end of a client, logged at debug only (as opposed to a client the daemon dropped for
    /// what it did, or an error of the daemon's own).
    public var isRoutine: Bool {
        switch self {
        case .closedByClient, .connectionLost, .daemonStopping: return true
        case .lineTooLong, .tooManyBadRequests, .stoppedReadingReplies, .outgoingBufferFull, .cannotWatch: return false
        }
    }

    public var description: String {
        switch self {
        case .closedByClient: return "client closed the connection"
        case .connectionLost(let during, let message): return "connection lost while \(during) (\(message))"
        case .lineTooLong(let limit): return "sent a line over \(limit) bytes"
        case .tooManyBadRequests(let n): return "sent \(n) bad requests in a row"
        case .stoppedReadingReplies(let queued): return "stopped reading its replies (\(queued) bytes queued)"
        case .outgoingBufferFull: return "outgoing buffer full"
        case .cannotWatch(let error): return "cannot watch its socket: \(error)"
        case .daemonStopping: return "the daemon is shutting down"
        }
    }
}

/// One connected client's connection: its request lines coming in, decoded; its bounded queue of lines going
/// out; and what it receives, by the view the policy gave it (`ClientView`), with the gesture ids it sees.
/// What the client set or wants is the policy's (`ClientPolicy`), not the session's. Owned by the daemon's
/// loop; all methods run on the loop's thread and never block.
final class ClientSession {

    /// Bad requests in a row after which the connection is closed (a client that only sends garbage).
    static let maximumConsecutiveErrors = 16
    /// Bytes read from the socket per wake-up, so one chatty client cannot hold the loop.
    static let readChunkBytes = 64 * 1024
    /// Gestures a client has running at once at most (a misbehaving filter cannot make the list grow).
    static let maximumGesturesInFlight = 256
    /// Ended gestures whose ids are kept, for the explanations that name them after they end.
    static let keptEndedGestures = 64

    /// The connection's lifecycle.
    enum State: Equatable, Sendable {
        /// Reading requests and sending replies (and events once subscribed).
        case open
        /// The client closed its sending side: the replies already owed are sent, then the connection
        /// closes. No more events.
        case draining
    }

    /// What handling input asks the owner to do.
    enum Outcome: Equatable, Sendable {
        /// Keep going (watch for writability when `wantsWrite`).
        case keep
        /// Close the connection now; the reason is logged.
        case close(reason: DisconnectReason)
    }

    /// What one read gave: the request lines complete now, in order, and whether the client closed its
    /// sending side (its last line, without a newline, is among them).
    struct Read {
        var lines: [[UInt8]] = []
        var endOfFile = false
    }

    let fd: Int32
    /// The loop token the descriptor is registered with; unique for the daemon's lifetime: its `ClientID`.
    let token: UInt64
    /// "client 3 (uid 1000, pid 4242 gesturectl)", for the log.
    let label: String
    /// The user on the other end (SO_PEERCRED), nil when it could not be asked.
    let uid: UInt32?
    /// Who is on the other end (its user and groups), nil when it could not be asked.
    let peer: PeerIdentity?
    private(set) var state: State = .open
    /// What the loop currently watches the descriptor for (kept by the daemon to skip needless epoll_ctl).
    var registeredInterest: Interest = .readable
    /// What it receives, as the policy decided (`ClientPolicy.Action.view`).
    private(set) var view = ClientView() {
        didSet { wantsUpdates = view.takesUpdates }
    }
    /// `view.takesUpdates`, kept beside it: asked at every frame of a running gesture.
    private var wantsUpdates = false

    /// A gesture the client receives: the engine's id, the id the client knows it by, and whether it is an
    /// app touch (it stops the moment the client may no longer see them).
    private struct Delivered {
        var engineID: UInt64
        var clientID: UInt64
        var isPrivate: Bool
    }
    /// Gestures whose `begin` it received and whose `end`/`cancel` has not been sent yet: rarely more than
    /// one, so a short array searched in order, which costs less per event than hashing into a set.
    private var inFlight: [Delivered] = []
    /// The last gestures it received that ended, for explanations naming them (a ring, oldest first).
    private var ended: [Delivered] = []
    /// The id the next gesture it receives gets: ids count only what this client sees (docs/protocol.md).
    private var nextGestureID: UInt64 = 1
    private var consecutiveErrors = 0

    private var framer = LineFramer(maximumLineBytes: ProtocolConstants.maximumRequestLineBytes)
    /// Outgoing bytes; `outgoing[outgoingStart...]` is not yet written.
    private var outgoing: [UInt8] = []
    private var outgoingStart = 0
    /// Most bytes `outgoing` may hold; a client that lets more pile up is disconnected.
    var outgoingLimitBytes: Int

    init(fd: Int32, token: UInt64, label: String, uid: UInt32? = nil, groups: [UInt32] = [], outgoingLimitBytes: Int) {
        self.fd = fd
        self.token = token
        self.label = label
        self.uid = uid
        self.peer = uid.map { PeerIdentity(uid: $0, groups: groups) }
        self.outgoingLimitBytes = outgoingLimitBytes
    }

    deinit { SystemCall.close(fd) }

    /// Bytes queued and not yet written.
    var queuedByteCount: Int { outgoing.count - outgoingStart }

    /// Whether the loop should watch the socket for writability (something is queued).
    var wantsWrite: Bool { queuedByteCount > 0 }

    /// Whether the loop should watch the socket for readability.
    var wantsRead: Bool { state == .open }

    /// Whether the session takes updates now: its view takes them, and it is open.
    var takesUpdates: Bool { wantsUpdates && state == .open }

    /// The policy's decision for this client from now on. A client that may no longer see some seat's app
    /// touches stops receiving those in flight at once (never their end: it was told `app-touch-access`).
    func setView(_ new: ClientView) {
        if !view.privateSeats.allSatisfy(new.privateSeats.contains) {
            inFlight.removeAll { $0.isPrivate }
        }
        if new.subscription == nil { inFlight.removeAll() }
        view = new
    }

    // MARK: Outgoing

    /// Queues one message line (a newline is added). Returns false when that would pass the bound: the
    /// client has stopped reading and must be disconnected.
    @discardableResult
    func enqueue(line: String) -> Bool {
        var line = line
        return line.withUTF8 { enqueue(bytes: UnsafeRawBufferPointer($0), newline: true) }
    }

    /// Queues bytes that already end with a newline (a gesture line encoded once for every client).
    @discardableResult
    func enqueue(bytes: UnsafeRawBufferPointer, newline: Bool = false) -> Bool {
        let extra = bytes.count + (newline ? 1 : 0)
        guard makeRoom(extra) else { return false }
        outgoing.append(contentsOf: bytes)
        if newline { outgoing.append(0x0a) }
        return true
    }

    /// Queues a gesture line encoded once for every client, with this client's id for the gesture in place
    /// of the bytes `idRange` holds (the engine's id).
    @discardableResult
    func enqueue(gestureLine line: UnsafeRawBufferPointer, idRange: Range<Int>, clientID: UInt64) -> Bool {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for the 20 digits of UInt64.max
        return withUnsafeMutableBytes(of: &digits) { scratch in
            var n = clientID
            var end = scratch.count
            repeat {
                end -= 1
                scratch[end] = UInt8(ascii: "0") + UInt8(n % 10)
                n /= 10
            } while n > 0
            let id = UnsafeRawBufferPointer(rebasing: scratch[end...])
            let extra = line.count - idRange.count + id.count
            guard makeRoom(extra) else { return false }
            outgoing.append(contentsOf: UnsafeRawBufferPointer(rebasing: line[..<idRange.lowerBound]))
            outgoing.append(contentsOf: id)
            outgoing.append(contentsOf: UnsafeRawBufferPointer(rebasing: line[idRange.upperBound...]))
            return true
        }
    }

    /// Whether `extra` more bytes fit the bound, compacting the queue when half of it is written.
    private func makeRoom(_ extra: Int) -> Bool {
        guard queuedByteCount + extra <= outgoingLimitBytes else { return false }
        if outgoingStart > 0 && outgoingStart >= outgoing.count / 2 {
            outgoing.removeSubrange(0..<outgoingStart)
            outgoingStart = 0
        }
        return true
    }

    /// The most queue capacity a drained session keeps: a frame's lines fit many times over, so a client
    /// that keeps up allocates nothing per frame; the buffer of a burst (a client that paused, then read
    /// again) is freed once drained. Keeping up to 64 KiB instead let the daemon's resident memory ratchet
    /// up by megabytes over a soak's pauses, as one reader after another reached a larger capacity.
    static let retainedQueueBytes = 4096

    /// The queue's allocated capacity, in bytes (for tests of what a drained session keeps).
    var queueCapacityBytes: Int { outgoing.capacity }

    /// Writes as much of the queue as the socket takes now. Returns `.close` when the peer is gone.
    func flush() -> Outcome {
        while outgoingStart < outgoing.count {
            let start = outgoingStart
            let result = outgoing.withUnsafeBytes { raw in
                Result { () throws(SystemError) in
                    try SystemCall.send(fd, UnsafeRawBufferPointer(rebasing: raw[start...]))
                }
            }
            switch result {
            case .success(.wrote(let n)):
                outgoingStart += n
            case .success(.wouldBlock):
                return .keep
            case .failure(let error):
                // EPIPE / ECONNRESET: the client went away without reading everything.
                return .close(reason: .connectionLost(while: "writing", message: error.message))
            }
        }
        outgoing.removeAll(keepingCapacity: outgoing.capacity <= ClientSession.retainedQueueBytes)
        outgoingStart = 0
        if state == .draining { return .close(reason: .closedByClient) }
        return .keep
    }

    // MARK: Incoming

    /// Reads what the socket has (one chunk, into `scratch`): the complete request lines, in order, and
    /// whether the client closed its sending side (then its unterminated last line too, and the session
    /// drains: no more reads, no more events). A line too long closes the connection after its error.
    func read(scratch: UnsafeMutableRawBufferPointer, into read: inout Read) -> Outcome {
        guard state == .open else { return .keep }
        let result = Result { () throws(SystemError) in try SystemCall.read(fd, into: scratch) }
        switch result {
        case .failure(let error):
            return .close(reason: .connectionLost(while: "reading", message: error.message))
        case .success(.wouldBlock):
            return .keep
        case .success(.bytes(let n)):
            framer.append(UnsafeRawBufferPointer(rebasing: scratch[0..<n]))
            return takeLines(into: &read)
        case .success(.endOfFile):
            let outcome = takeLines(into: &read)
            if case .close = outcome { return outcome }
            if let last = framer.takeRemainder(), !last.isEmpty { read.lines.append(last) }
            read.endOfFile = true
            state = .draining
            inFlight.removeAll()
            return .keep
        }
    }

    /// The complete lines the framer holds.
    private func takeLines(into read: inout Read) -> Outcome {
        while let output = framer.next() {
            switch output {
            case .line(let line):
                read.lines.append(line)
            case .lineTooLong:
                let error = ProtocolError(
                    .lineTooLong,
                    "a request line is longer than \(ProtocolConstants.maximumRequestLineBytes) bytes; closing the connection")
                enqueue(line: ServerMessage.error(error).encoded)
                return .close(reason: .lineTooLong(limit: ProtocolConstants.maximumRequestLineBytes))
            }
        }
        return .keep
    }

    /// What one request line is: a request for the policy, nothing (a blank line), or a bad line, whose
    /// error is queued here; the 16th bad line in a row closes the connection.
    enum Line: Equatable {
        case request(RequestMessage)
        case blank
        case refused
        case close(DisconnectReason)
    }

    func decode(_ line: [UInt8]) -> Line {
        // Blank lines (a client's keep-alive, or "\r\n") are not requests.
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return .blank }
        switch RequestMessage.decode(line: line) {
        case .success(let message):
            consecutiveErrors = 0
            return .request(message)
        case .failure(let error):
            consecutiveErrors += 1
            if consecutiveErrors >= ClientSession.maximumConsecutiveErrors {
                let final = ProtocolError(
                    .tooManyErrors,
                    "\(consecutiveErrors) bad requests in a row; closing the connection (last one: \(error.message))",
                    id: error.id)
                enqueue(line: ServerMessage.error(final).encoded)
                return .close(.tooManyBadRequests(consecutiveErrors))
            }
            return reply(.error(error)) ? .refused : .close(.stoppedReadingReplies(queuedBytes: queuedByteCount))
        }
    }

    /// Queues a reply; false when the client stopped reading its replies (it is disconnected).
    func reply(_ message: ServerMessage) -> Bool {
        enqueue(line: message.encoded)
    }

    // MARK: Events

    /// The id under which the client receives `event` from a device on `seat`, or nil when it does not
    /// receive it. The view decides at a gesture's `begin` (its filter, and for an app touch, `audience`
    /// `.seat`, whether it asked for app touches and may see the seat's); the gesture's other events follow
    /// that decision (updates only when the view takes them), so a client sees whole gestures, none that
    /// began before it subscribed, and numbers them by what it received: its first gesture is 1.
    /// `device` is read only for a `begin`; updates and ends, most of the events, read neither it nor the
    /// filter (copying it would retain its sets).
    func accept(_ event: GestureEvent, audience: GestureAudience, from device: @autoclosure () -> DeviceInfo) -> UInt64? {
        guard state == .open else { return nil }
        switch event.phase {
        case .begin:
            guard let subscription = view.subscription else { return nil }
            let info = device()
            guard subscription.acceptsGesture(beginning: event, on: info) else { return nil }
            let isPrivate: Bool
            switch audience {
            case .everyone: isPrivate = false
            case .seat:
                guard subscription.appTouches, view.seesPrivate(onSeat: info.seat) else { return nil }
                isPrivate = true
            }
            if inFlight.count >= ClientSession.maximumGesturesInFlight { inFlight.removeAll() }  // never grows without bound
            let delivered = Delivered(engineID: event.id, clientID: nextGestureID, isPrivate: isPrivate)
            nextGestureID &+= 1
            inFlight.append(delivered)
            return delivered.clientID
        case .update:
            guard wantsUpdates else { return nil }
            for d in inFlight where d.engineID == event.id { return d.clientID }
            return nil
        case .end, .cancel:
            guard let index = inFlight.firstIndex(where: { $0.engineID == event.id }) else { return nil }
            let delivered = inFlight[index]
            inFlight.swapAt(index, inFlight.count - 1)
            inFlight.removeLast()
            if ended.count >= ClientSession.keptEndedGestures { ended.removeFirst() }
            ended.append(delivered)
            return delivered.clientID
        }
    }

    /// Whether the client receives the explanations of `device`'s touches.
    func wantsExplanation(from device: DeviceInfo) -> Bool {
        guard state == .open, view.takesExplanations, let subscription = view.subscription, subscription.accepts(device: device) else {
            return false
        }
        return view.seesPrivate(onSeat: device.seat)
    }

    /// The id the client knows a gesture by, for an explanation naming it: the one it received it under,
    /// else a new one (it sees the gesture now, in the explanation).
    func clientGestureID(forEngineID engineID: UInt64) -> UInt64 {
        for d in inFlight where d.engineID == engineID { return d.clientID }
        for d in ended.reversed() where d.engineID == engineID { return d.clientID }
        let id = nextGestureID
        nextGestureID &+= 1
        if ended.count >= ClientSession.keptEndedGestures { ended.removeFirst() }
        ended.append(Delivered(engineID: engineID, clientID: id, isPrivate: true))
        return id
    }

    /// Whether the subscribed client is told about `device` being added, removed or changed.
    func wantsNotification(about device: DeviceInfo) -> Bool {
        guard let subscription = view.subscription, state == .open else { return false }
        return subscription.accepts(device: device)
    }
}
