import GestureCore
import GestureProtocol
import Glibc
import GestureVocabulary
import SystemCalls

/// What a session needs from the daemon to answer requests that reach beyond the session itself.
public protocol SessionHost {
    /// The devices the daemon reads now (`devices` replies).
    var deviceInfos: [DeviceInfo] { get }
    /// Carries out an `orientation` request of `session`: the devices `device` names (id, name or
    /// vvvv:pppp), or every device when nil, get `orientation`. Returns those devices as they are now, or
    /// the error to reply with (no device has that name).
    func setOrientation(
        _ orientation: DeviceOrientation, device: String?, requestedBy session: ClientSession
    ) -> Result<OrientationChange, ProtocolError>
    /// Carries out a `focus` request of `session`: `app` (an app_id, nil for none) is the focused app until
    /// another focus request or until `session` disconnects. Returns the error to reply with (rate-limited).
    func setFocus(_ app: String?, requestedBy session: ClientSession) -> ProtocolError?
    /// Carries out an `exclude` request of `session`: its exclusions become those of `list` the cap allows
    /// (replacing its earlier ones, until it disconnects). Returns those taken and those refused.
    func setExclusions(_ list: [RequestedExclusion], requestedBy session: ClientSession) -> (accepted: [RequestedExclusion], refused: [RefusedExclusion])
}

extension SessionHost {
    public func setFocus(_ app: String?, requestedBy session: ClientSession) -> ProtocolError? {
        ProtocolError(.invalidRequest, "this daemon takes no focus requests")
    }
    public func setExclusions(_ list: [RequestedExclusion], requestedBy session: ClientSession) -> (accepted: [RequestedExclusion], refused: [RefusedExclusion]) {
        ([], list.map { RefusedExclusion(exclusion: $0, reason: .unknownDevice, message: "this daemon reads no devices") })
    }
}

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

/// One connected client: its requests coming in, its bounded queue of lines going out, and what it
/// subscribed to. Owned by the daemon's loop; all methods run on the loop's thread and never block.
public final class ClientSession {

    /// Bad requests in a row after which the connection is closed (a client that only sends garbage).
    public static let maximumConsecutiveErrors = 16
    /// Bytes read from the socket per wake-up, so one chatty client cannot hold the loop.
    public static let readChunkBytes = 64 * 1024

    /// The connection's lifecycle.
    public enum State: Equatable, Sendable {
        /// Reading requests and sending replies (and events once subscribed).
        case open
        /// The client closed its sending side: the replies already owed are sent, then the connection
        /// closes. No more events.
        case draining
    }

    /// What handling input asks the owner to do.
    public enum Outcome: Equatable, Sendable {
        /// Keep going (watch for writability when `wantsWrite`).
        case keep
        /// Close the connection now; the reason is logged.
        case close(reason: DisconnectReason)
    }

    public let fd: Int32
    /// The loop token the descriptor is registered with; unique for the daemon's lifetime.
    public let token: UInt64
    /// "client 3 (uid 1000, pid 4242 gesturectl)", for the log.
    public let label: String
    /// The user on the other end (SO_PEERCRED), nil when it could not be asked.
    public let uid: UInt32?
    /// Who is on the other end (its user and groups), nil when it could not be asked.
    public let peer: PeerIdentity?
    /// Whether the client may see app touches, and why, on each seat the daemon's touchscreens are on
    /// (the first: the seat `hello` and `subscribed` speak of). Set from `AppTouchPolicy` by the hub, the
    /// one place that works it out, whenever the policy or the seats change; until then, none.
    public private(set) var appTouchAccessBySeat: [(seat: String, access: AppTouchAccess)] = []
    /// The access `hello` and `subscribed` report: on the first touchscreen's seat (seat0 without one).
    public var appTouchAccess: AppTouchAccess { appTouchAccessBySeat.first?.access ?? .denied(.unknownPeer) }
    /// The access last told to the client (`subscribed`, `app-touch-access`), so a change is told once.
    private var toldAppTouchAccess: AppTouchAccess?
    public private(set) var state: State = .open
    /// What the loop currently watches the descriptor for (kept by the daemon to skip needless epoll_ctl).
    var registeredInterest: Interest = .readable
    public private(set) var subscription: SubscriptionFilter? {
        didSet {
            wantsUpdates = subscription?.updates == true
            wantsExplanations = subscription?.explanations == true
        }
    }
    /// `subscription.explanations`, kept beside it.
    private var wantsExplanations = false

    /// Whether the session takes explanations now: subscribed to them, open, and allowed to see app
    /// touches on some seat (an explanation says where every finger landed, the apps' touches included).
    var takesExplanations: Bool { wantsExplanations && state == .open && appTouchAccessBySeat.contains { $0.access.isGranted } }
    /// `subscription.updates`, kept beside it: asked at every frame of a running gesture.
    private var wantsUpdates = false

    /// Whether the session takes updates now: subscribed, with updates, and open.
    var takesUpdates: Bool { wantsUpdates && state == .open }
    /// Gestures whose `begin` passed the filter and whose `end`/`cancel` has not been sent yet: rarely more
    /// than one, so a short array searched in order, which costs less per event than hashing into a set.
    private var acceptedGestures: [UInt64] = []
    private var consecutiveErrors = 0

    private var framer = LineFramer(maximumLineBytes: ProtocolConstants.maximumRequestLineBytes)
    /// Outgoing bytes; `outgoing[outgoingStart...]` is not yet written.
    private var outgoing: [UInt8] = []
    private var outgoingStart = 0
    /// Most bytes `outgoing` may hold; a client that lets more pile up is disconnected.
    public var outgoingLimitBytes: Int

    public init(fd: Int32, token: UInt64, label: String, uid: UInt32? = nil, groups: [UInt32] = [], outgoingLimitBytes: Int) {
        self.fd = fd
        self.token = token
        self.label = label
        self.uid = uid
        self.peer = uid.map { PeerIdentity(uid: $0, groups: groups) }
        self.outgoingLimitBytes = outgoingLimitBytes
    }

    /// Works out again whether the client may see app touches on each of `seats` (the daemon's
    /// touchscreens' seats, the first the one reported) under `policy`. Returns the access to tell the
    /// client when the reported one changed while it is subscribed with `app_touches` (nil otherwise).
    @discardableResult
    public func updateAppTouchAccess(_ policy: AppTouchPolicy, seats: [String]) -> AppTouchAccess? {
        let seats = seats.isEmpty ? [DeviceInfo.defaultSeat] : seats
        appTouchAccessBySeat = seats.map { (seat: $0, access: policy.access(for: peer, seat: $0)) }
        guard let told = toldAppTouchAccess, told != appTouchAccess, subscription?.appTouches == true || subscription?.explanations == true
        else { return nil }
        toldAppTouchAccess = appTouchAccess
        return appTouchAccess
    }

    /// Whether the client may see the app touches of a touchscreen on `seat`.
    public func appTouchAccess(onSeat seat: String) -> AppTouchAccess {
        for entry in appTouchAccessBySeat where entry.seat == seat { return entry.access }
        return .denied(.unknownPeer)
    }

    deinit { SystemCall.close(fd) }

    /// Bytes queued and not yet written.
    public var queuedByteCount: Int { outgoing.count - outgoingStart }

    /// Whether the loop should watch the socket for writability (something is queued).
    public var wantsWrite: Bool { queuedByteCount > 0 }

    /// Whether the loop should watch the socket for readability.
    public var wantsRead: Bool { state == .open }

    public var isSubscribed: Bool { subscription != nil && state == .open }

    // MARK: Outgoing

    /// Queues one message line (a newline is added). Returns false when that would pass the bound: the
    /// client has stopped reading and must be disconnected.
    @discardableResult
    public func enqueue(line: String) -> Bool {
        var line = line
        return line.withUTF8 { enqueue(bytes: UnsafeRawBufferPointer($0), newline: true) }
    }

    /// Queues bytes that already end with a newline (a gesture line encoded once for every client).
    @discardableResult
    public func enqueue(bytes: UnsafeRawBufferPointer, newline: Bool = false) -> Bool {
        let extra = bytes.count + (newline ? 1 : 0)
        guard queuedByteCount + extra <= outgoingLimitBytes else { return false }
        if outgoingStart > 0 && outgoingStart >= outgoing.count / 2 {
            outgoing.removeSubrange(0..<outgoingStart)
            outgoingStart = 0
        }
        outgoing.append(contentsOf: bytes)
        if newline { outgoing.append(0x0a) }
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
    public func flush() -> Outcome {
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

    /// Reads what the socket has (one chunk, into `scratch`) and answers every complete request line in
    /// it; `host` answers what concerns the daemon (its devices, their orientation).
    public func readAndHandle(scratch: UnsafeMutableRawBufferPointer, host: SessionHost) -> Outcome {
        guard state == .open else { return .keep }
        let result = Result { () throws(SystemError) in try SystemCall.read(fd, into: scratch) }
        switch result {
        case .failure(let error):
            return .close(reason: .connectionLost(while: "reading", message: error.message))
        case .success(.wouldBlock):
            return .keep
        case .success(.bytes(let n)):
            framer.append(UnsafeRawBufferPointer(rebasing: scratch[0..<n]))
            return handleLines(host: host)
        case .success(.endOfFile):
            let outcome = handleLines(host: host)
            if case .close = outcome { return outcome }
            if let last = framer.takeRemainder(), !last.isEmpty {
                let outcome = handle(line: last, host: host)
                if case .close = outcome { return outcome }
            }
            state = .draining
            subscription = nil
            acceptedGestures.removeAll()
            return wantsWrite ? .keep : .close(reason: .closedByClient)
        }
    }

    /// Answers the complete lines the framer holds.
    func handleLines(host: SessionHost) -> Outcome {
        while let output = framer.next() {
            switch output {
            case .line(let line):
                let outcome = handle(line: line, host: host)
                if case .close = outcome { return outcome }
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

    /// Answers one request line (exposed for tests).
    func handle(line: [UInt8], host: SessionHost) -> Outcome {
        // Blank lines (a client's keep-alive, or "\r\n") are not requests.
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return .keep }
        let reply: ServerMessage
        switch RequestMessage.decode(line: line) {
        case .success(let message):
            consecutiveErrors = 0
            reply = respond(to: message, host: host)
        case .failure(let error):
            consecutiveErrors += 1
            if consecutiveErrors >= ClientSession.maximumConsecutiveErrors {
                let final = ProtocolError(
                    .tooManyErrors,
                    "\(consecutiveErrors) bad requests in a row; closing the connection (last one: \(error.message))",
                    id: error.id)
                enqueue(line: ServerMessage.error(final).encoded)
                return .close(reason: .tooManyBadRequests(consecutiveErrors))
            }
            reply = .error(error)
        }
        guard enqueue(line: reply.encoded) else {
            return .close(reason: .stoppedReadingReplies(queuedBytes: queuedByteCount))
        }
        return .keep
    }

    /// The reply to a valid request, applying it to the session (or, through `host`, to the daemon).
    func respond(to message: RequestMessage, host: SessionHost) -> ServerMessage {
        switch message.request {
        case .subscribe(let filter):
            // Gestures already accepted carry on to their end, so the client never sees half a gesture.
            subscription = filter
            toldAppTouchAccess = appTouchAccess
            // Explanations come only while the client may see app touches (checked at each one, on the
            // device's seat); the reply's filter says whether they come now.
            var inForce = filter
            if filter.explanations && !appTouchAccess.isGranted { inForce.explanations = false }
            return .subscribed(id: message.id, filter: inForce, appTouchAccess: appTouchAccess)
        case .unsubscribe:
            subscription = nil
            acceptedGestures.removeAll()
            return .unsubscribed(id: message.id)
        case .devices:
            return .devices(id: message.id, devices: host.deviceInfos)
        case .ping:
            return .pong(id: message.id)
        case .orientation(let orientation, let device):
            // The daemon cancels gestures in flight and tells subscribed clients (this one too) first, so
            // the reply comes after the cancels and the `device-changed` notifications.
            switch host.setOrientation(orientation, device: device, requestedBy: self) {
            case .success(let change):
                return .oriented(id: message.id, devices: change.devices, claimedTouches: change.claimedTouches)
            case .failure(var error):
                error.id = message.id
                return .error(error)
            }
        case .focus(let app):
            if var error = host.setFocus(app, requestedBy: self) {
                error.id = message.id
                return .error(error)
            }
            return .focused(id: message.id, appID: app)
        case .exclude(let list):
            let (accepted, refused) = host.setExclusions(list, requestedBy: self)
            return .excluded(id: message.id, accepted: accepted, refused: refused)
        }
    }

    // MARK: Events

    /// Whether the subscribed client receives `event` from `device`. The filter decides at a gesture's
    /// `begin`; its other events follow that decision (updates only when the filter asks for them), so a
    /// client sees whole gestures, and none that began before it subscribed.
    /// `device` is read only for a `begin`. Updates and ends, most of the events, read neither the device
    /// nor the whole filter (copying it would retain its sets). An app touch (`appTouch`, said of a
    /// `begin`) is taken only when the subscription asks for app touches and the client may see them on
    /// the device's seat; its updates and end follow that decision like any other gesture's.
    public func wants(_ event: GestureEvent, appTouch: Bool = false, from device: @autoclosure () -> DeviceInfo) -> Bool {
        guard state == .open else { return false }
        switch event.phase {
        case .begin:
            guard let subscription else { return false }
            let info = device()
            guard subscription.acceptsGesture(beginning: event, on: info) else { return false }
            if appTouch {
                guard subscription.appTouches, appTouchAccess(onSeat: info.seat).isGranted else { return false }
            }
            if acceptedGestures.count >= 256 { acceptedGestures.removeAll() }  // never grows without bound
            if !acceptedGestures.contains(event.id) { acceptedGestures.append(event.id) }
            return true
        case .update:
            return wantsUpdates && acceptedGestures.contains(event.id)
        case .end, .cancel:
            guard let index = acceptedGestures.firstIndex(of: event.id) else { return false }
            acceptedGestures.swapAt(index, acceptedGestures.count - 1)
            acceptedGestures.removeLast()
            return true
        }
    }

    /// Whether the client receives the explanations of `device`'s touches.
    public func wantsExplanation(from device: DeviceInfo) -> Bool {
        guard wantsExplanations, state == .open, let subscription, subscription.accepts(device: device) else { return false }
        return appTouchAccess(onSeat: device.seat).isGranted
    }

    /// Whether the subscribed client is told about `device` being added or removed.
    public func wantsNotification(about device: DeviceInfo) -> Bool {
        guard let subscription, state == .open else { return false }
        return subscription.accepts(device: device)
    }
}
