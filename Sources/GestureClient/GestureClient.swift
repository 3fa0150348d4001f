import GestureProtocol
import Glibc

/// Where clients find the daemon.
public enum GestureClientDefaults {
    public static let environmentVariable = ProtocolConstants.socketEnvironmentVariable
    /// The system's socket, the last place a client looks.
    public static let socketPath = ProtocolConstants.defaultSocketPath

    /// Where to look, in order: `explicit` if given, else $GESTURED_SOCKET if set (alone); otherwise
    /// `$XDG_RUNTIME_DIR/gestured.sock`, then /run/gestured/gestured.sock (`ProtocolConstants.socketPaths`).
    public static func socketPaths(explicit: String?) -> [String] {
        var environment: [String: String] = [:]
        for name in [environmentVariable, ProtocolConstants.runtimeDirectoryVariable] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        return ProtocolConstants.socketPaths(option: explicit, environment: environment)
    }

    /// Connects to the first of `paths` where a daemon listens: a path with nothing at it (ENOENT) or
    /// nothing listening (ECONNREFUSED, a stale socket) gives way to the next; any other failure, or the
    /// last path's, is the error, and says which paths were tried before it.
    static func connectFirst(_ paths: [String], nonBlocking: Bool) throws(GestureClientError) -> (fd: Int32, path: String) {
        var passed: [String] = []
        for (index, path) in paths.enumerated() {
            do {
                return (try ClientSocket.connect(path: path, nonBlocking: nonBlocking), path)
            } catch {
                guard case .connect(_, let code, let hint) = error else { throw error }
                if index < paths.count - 1 && (code == ENOENT || code == ECONNREFUSED) {
                    passed.append("\(path) (\(code == ENOENT ? "no such file" : "nothing listens there"))")
                    continue
                }
                guard !passed.isEmpty else { throw error }
                throw .connect(path: path, errno: code, hint: "tried first: \(passed.joined(separator: ", ")); \(hint)")
            }
        }
        throw .connect(path: "", errno: ENOENT, hint: "no socket path to try")
    }
}

/// What can go wrong talking to the daemon; each message says what to do.
public enum GestureClientError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The socket could not be reached.
    case connect(path: String, errno: Int32, hint: String)
    /// The daemon closed the connection.
    case closed
    /// The daemon sent something this client cannot read.
    case malformed(ProtocolDecodingError)
    /// The daemon answered a request with an error.
    case daemon(ProtocolError)
    /// No reply came within the time allowed.
    case timeout
    case system(operation: String, errno: Int32)

    public var description: String {
        switch self {
        case .connect(let path, let code, let hint):
            return "cannot connect to \(path): \(String(cString: strerror(code))); \(hint)"
        case .closed:
            return "the daemon closed the connection"
        case .malformed(let error):
            return "unexpected message from the daemon: \(error)"
        case .daemon(let error):
            return "the daemon refused the request: \(error.message) (\(error.code.rawValue))"
        case .timeout:
            return "the daemon did not answer in time"
        case .system(let operation, let code):
            return "\(operation): \(String(cString: strerror(code))) (errno \(code))"
        }
    }
}

/// A connection to gestured, for Swift programs: connect, subscribe with a filter, receive typed
/// events. Blocking, single-threaded; `fd` can be put in the caller's own poll loop (call `next` with a
/// zero timeout when it is readable).
///
///     let client = try GestureClient.connect()
///     try client.subscribe(SubscriptionFilter(kinds: [.edgeSwipe], updates: true))
///     while let message = try client.next() {
///         if case .gesture(let g) = message { print(g.event.kind, g.event.phase) }
///     }
public final class GestureClient {
    /// The connected socket.
    public let fd: Int32
    public let path: String
    /// What the daemon said on connecting: its protocol version and devices.
    public private(set) var hello: Hello
    /// Whether `hello` has come (always, after `connect`; after `connectWithoutWaiting`, once `next` has
    /// handed out the `.hello` message).
    public private(set) var greeted = false
    /// Whether this client may see app touches, and why, as the daemon last said (`hello`, `subscribed`,
    /// `app-touch-access`); nil from a daemon older than app touches.
    public private(set) var appTouchAccess: AppTouchAccess?

    private var framer = LineFramer(maximumLineBytes: 16 << 20)
    /// Messages read while waiting for a reply, handed out by `next` in order.
    private var pending: [ServerMessage] = []
    private var pendingStart = 0
    private var lastRequestID = 0
    private var closed = false

    /// Connects to the daemon at `path` (default: $GESTURED_SOCKET; else `$XDG_RUNTIME_DIR/gestured.sock`,
    /// then /run/gestured/gestured.sock, the first where a daemon listens) and reads its `hello`.
    public static func connect(path: String? = nil, timeoutMilliseconds: Int32 = 5000) throws(GestureClientError) -> GestureClient {
        let (fd, resolved) = try GestureClientDefaults.connectFirst(
            GestureClientDefaults.socketPaths(explicit: path), nonBlocking: false)
        return try GestureClient(fd: fd, path: resolved, timeoutMilliseconds: timeoutMilliseconds)
    }

    /// Starts connecting without waiting for anything, for a caller's own poll loop that must never block:
    /// the socket is non-blocking (a daemon that accepts nothing is EAGAIN at once, not a wait), `hello`
    /// is empty until `next` hands out the `.hello` message, and a request is sent with `send`, its reply
    /// coming through `next`.
    public static func connectWithoutWaiting(path: String? = nil) throws(GestureClientError) -> GestureClient {
        let (fd, resolved) = try GestureClientDefaults.connectFirst(
            GestureClientDefaults.socketPaths(explicit: path), nonBlocking: true)
        return GestureClient(fd: fd, path: resolved)
    }

    private init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
        self.hello = Hello(devices: [])
    }

    private convenience init(fd: Int32, path: String, timeoutMilliseconds: Int32) throws(GestureClientError) {
        self.init(fd: fd, path: path)
        var first: ServerMessage?
        do {
            first = try receive(timeoutMilliseconds: timeoutMilliseconds)
        } catch {
            ClientSocket.close(fd)
            throw error
        }
        switch first {
        case .hello?:
            break  // kept by readMessage
        case .error(let error)?:
            ClientSocket.close(fd)
            throw .daemon(error)  // too-many-clients
        case nil:
            ClientSocket.close(fd)
            throw .timeout
        case .some:
            ClientSocket.close(fd)
            throw .malformed(ProtocolDecodingError("the daemon did not start with hello"))
        }
    }

    deinit { if !closed { ClientSocket.close(fd) } }

    /// Closes the connection.
    public func close() {
        guard !closed else { return }
        closed = true
        ClientSocket.close(fd)
    }

    // MARK: Requests

    /// Starts (or changes) the subscription; returns the filter the daemon applies.
    @discardableResult
    public func subscribe(_ filter: SubscriptionFilter = .all, timeoutMilliseconds: Int32 = 5000) throws(GestureClientError) -> SubscriptionFilter {
        switch try request(.subscribe(filter), timeoutMilliseconds: timeoutMilliseconds) {
        case .subscribed(_, let applied, _):
            subscription = filter
            return applied
        default: throw .malformed(ProtocolDecodingError("subscribe was not answered with subscribed"))
        }
    }

    /// Stops the subscription.
    public func unsubscribe(timeoutMilliseconds: Int32 = 5000) throws(GestureClientError) {
        _ = try request(.unsubscribe, timeoutMilliseconds: timeoutMilliseconds)
    }

    /// The daemon's current devices.
    public func devices(timeoutMilliseconds: Int32 = 5000) throws(GestureClientError) -> [DeviceInfo] {
        switch try request(.devices, timeoutMilliseconds: timeoutMilliseconds) {
        case .devices(_, let devices): return devices
        default: throw .malformed(ProtocolDecodingError("devices was not answered with devices"))
        }
    }

    /// Sets the orientation of the devices `device` names (id, name or vvvv:pppp), or of every device;
    /// returns those devices as they are now. A name no device has is `.daemon` with `unknown-device`.
    @discardableResult
    public func setOrientation(
        _ orientation: DeviceOrientation, device: String? = nil, timeoutMilliseconds: Int32 = 5000
    ) throws(GestureClientError) -> [DeviceInfo] {
        switch try request(.orientation(orientation, device: device), timeoutMilliseconds: timeoutMilliseconds) {
        case .oriented(_, let devices, _): return devices
        default: throw .malformed(ProtocolDecodingError("orientation was not answered with oriented"))
        }
    }

    /// Checks the connection.
    public func ping(timeoutMilliseconds: Int32 = 5000) throws(GestureClientError) {
        _ = try request(.ping, timeoutMilliseconds: timeoutMilliseconds)
    }

    /// The exclusions this connection keeps (the daemon's `accepted`), which `reconnected()` asks for again.
    public private(set) var exclusions: [RequestedExclusion] = []
    /// The focus this connection said, which `reconnected()` says again.
    public private(set) var focus: String??
    /// The subscription this connection asked for, which `reconnected()` asks for again.
    public private(set) var subscription: SubscriptionFilter?

    /// Keeps parts of the edges for this client's app (docs/protocol.md, `exclude`), replacing what it kept;
    /// an empty list gives them back. Returns those taken and those refused (over the 32 mm a seat's clients
    /// may take of an edge, or naming no device). They hold while this connection does (`reconnected()`
    /// asks for them again on a new one). Only the seat's user, root and the daemon's own user may
    /// (`.daemon` with `not-permitted`).
    @discardableResult
    public func exclude(_ list: [RequestedExclusion], timeoutMilliseconds: Int32 = 5000) throws(GestureClientError)
        -> (accepted: [RequestedExclusion], refused: [RefusedExclusion])
    {
        guard case .excluded(_, let accepted, let refused) = try request(.exclude(list), timeoutMilliseconds: timeoutMilliseconds) else {
            throw .malformed(ProtocolDecodingError("exclude was not answered with excluded"))
        }
        exclusions = accepted
        return (accepted, refused)
    }

    /// Gives back every part of an edge this connection kept.
    public func clearExclusions(timeoutMilliseconds: Int32 = 5000) throws(GestureClientError) {
        try exclude([], timeoutMilliseconds: timeoutMilliseconds)
    }

    /// Tells the daemon which app is focused (nil: none), as a session companion does; it holds while this
    /// connection does. Only the seat's user, root and the daemon's own user may.
    public func setFocus(_ app: String?, timeoutMilliseconds: Int32 = 5000) throws(GestureClientError) {
        _ = try request(.focus(appID: app), timeoutMilliseconds: timeoutMilliseconds)
        focus = .some(app)
    }

    /// Asks the daemon to read its configuration again; returns the file once it is in force. A file that
    /// does not load is `.daemon` with `reload-failed` and its `problems`. Only root and the daemon's own
    /// user may.
    @discardableResult
    public func reload(timeoutMilliseconds: Int32 = 10_000) throws(GestureClientError) -> String {
        guard case .reloaded(_, let path) = try request(.reload, timeoutMilliseconds: timeoutMilliseconds) else {
            throw .malformed(ProtocolDecodingError("reload was not answered with reloaded"))
        }
        return path
    }

    /// A new connection to the same daemon (after it restarted, or this one broke) with what this one set
    /// asked for again: its subscription, its exclusions and its focus. What a client sets goes with its
    /// connection (docs/protocol.md), so a program that keeps an edge reconnects through this.
    public func reconnected(timeoutMilliseconds: Int32 = 5000) throws(GestureClientError) -> GestureClient {
        let client = try GestureClient.connect(path: path, timeoutMilliseconds: timeoutMilliseconds)
        if let subscription { try client.subscribe(subscription, timeoutMilliseconds: timeoutMilliseconds) }
        if !exclusions.isEmpty { try client.exclude(exclusions, timeoutMilliseconds: timeoutMilliseconds) }
        if case .some(let app) = focus { try client.setFocus(app, timeoutMilliseconds: timeoutMilliseconds) }
        close()
        return client
    }

    /// Sends a request with a fresh numeric id and waits for the reply with that id. Other messages that
    /// arrive meanwhile (gestures, notifications) are kept for `next`.
    public func request(_ request: Request, timeoutMilliseconds: Int32 = 5000) throws(GestureClientError) -> ServerMessage {
        lastRequestID += 1
        let id = JSONValue.integer(lastRequestID)
        try send(RequestMessage(id: id, request))
        let deadline = ClientSocket.monotonicMilliseconds() + Int64(timeoutMilliseconds)
        var held: [ServerMessage] = []
        defer { pending.append(contentsOf: held) }
        while true {
            let left = timeoutMilliseconds < 0 ? -1 : Int32(clamping: max(0, deadline - ClientSocket.monotonicMilliseconds()))
            guard let message = try readMessage(timeoutMilliseconds: left) else { throw .timeout }
            switch message {
            case .error(let error) where error.id == id:
                throw .daemon(error)
            case .error(let error) where error.id == nil && Self.closesConnection(error.code):
                throw .daemon(error)
            default:
                let reply = message.reply
                if reply.isReply && reply.id == id { return message }
                held.append(message)
            }
        }
    }

    private static func closesConnection(_ code: ProtocolError.Code) -> Bool {
        switch code {
        case .lineTooLong, .tooManyErrors, .tooManyClients: return true
        case .invalidJSON, .invalidRequest, .unknownRequest, .unknownDevice, .rateLimited, .notPermitted, .reloadFailed: return false
        }
    }

    /// Sends a request without waiting for its reply.
    public func send(_ request: RequestMessage) throws(GestureClientError) {
        try ClientSocket.writeAll(fd, Array((request.encoded + "\n").utf8))
    }

    /// Sends raw bytes (for tests of the daemon's input handling).
    public func sendRaw(_ bytes: [UInt8]) throws(GestureClientError) {
        try ClientSocket.writeAll(fd, bytes)
    }

    // MARK: Receiving

    /// The next message: first those held back while waiting for replies, then from the socket. Nil when
    /// `timeoutMilliseconds` passes first (-1 waits forever). Throws `.closed` when the daemon closed the
    /// connection.
    public func next(timeoutMilliseconds: Int32 = -1) throws(GestureClientError) -> ServerMessage? {
        if pendingStart < pending.count {
            let message = pending[pendingStart]
            pendingStart += 1
            if pendingStart == pending.count {
                pending.removeAll(keepingCapacity: true)
                pendingStart = 0
            }
            return message
        }
        return try readMessage(timeoutMilliseconds: timeoutMilliseconds)
    }

    /// The next gesture event, skipping other messages; nil on timeout.
    public func nextGesture(timeoutMilliseconds: Int32 = -1) throws(GestureClientError) -> DeviceGestureEvent? {
        let deadline = ClientSocket.monotonicMilliseconds() + Int64(timeoutMilliseconds)
        while true {
            let left = timeoutMilliseconds < 0 ? -1 : Int32(clamping: max(0, deadline - ClientSocket.monotonicMilliseconds()))
            guard let message = try next(timeoutMilliseconds: left) else { return nil }
            if case .gesture(let g) = message { return g }
        }
    }

    private func receive(timeoutMilliseconds: Int32) throws(GestureClientError) -> ServerMessage? {
        try readMessage(timeoutMilliseconds: timeoutMilliseconds)
    }

    /// Reads until one whole line is framed, then decodes it.
    private func readMessage(timeoutMilliseconds: Int32) throws(GestureClientError) -> ServerMessage? {
        let deadline = ClientSocket.monotonicMilliseconds() + Int64(timeoutMilliseconds)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            if let output = framer.next() {
                switch output {
                case .line(let line):
                    if line.isEmpty { continue }
                    do {
                        let message = try ServerMessage.decode(line: line)
                        switch message {
                        case .hello(let h) where !greeted:
                            hello = h
                            greeted = true
                            appTouchAccess = h.appTouchAccess
                        case .subscribed(_, _, let access?), .appTouchAccessChanged(let access):
                            appTouchAccess = access
                        default:
                            break
                        }
                        return message
                    } catch {
                        throw .malformed(error)
                    }
                case .lineTooLong:
                    throw .malformed(ProtocolDecodingError("the daemon sent a line longer than 16 MiB"))
                }
            }
            if closed { throw .closed }
            let left = timeoutMilliseconds < 0 ? -1 : Int32(clamping: max(0, deadline - ClientSocket.monotonicMilliseconds()))
            guard try ClientSocket.waitReadable(fd, timeoutMilliseconds: left) else { return nil }
            let n = try buffer.withUnsafeMutableBytes { raw in
                Result { () throws(GestureClientError) in try ClientSocket.read(fd, into: raw) }
            }.get()
            if n == 0 { throw .closed }
            framer.append(buffer[0..<n])
        }
    }
}
