import GestureVocabulary

/// The first line the daemon sends on every connection.
public struct Hello: Equatable, Sendable {
    public var protocolVersion: Int
    public var daemonVersion: String
    public var devices: [DeviceInfo]
    /// Longest request line the daemon accepts.
    public var maximumRequestLineBytes: Int
    /// Whether this client may see app touches, and why (`app_touch_access`); nil from a daemon older
    /// than app touches.
    public var appTouchAccess: AppTouchAccess?

    public init(
        protocolVersion: Int = ProtocolConstants.version, daemonVersion: String = ProtocolConstants.daemonVersion,
        devices: [DeviceInfo], maximumRequestLineBytes: Int = ProtocolConstants.maximumRequestLineBytes,
        appTouchAccess: AppTouchAccess? = nil
    ) {
        self.protocolVersion = protocolVersion
        self.daemonVersion = daemonVersion
        self.devices = devices
        self.maximumRequestLineBytes = maximumRequestLineBytes
        self.appTouchAccess = appTouchAccess
    }
}

/// A gesture event as a client receives it: the core's event and the id of the device it came from.
public struct DeviceGestureEvent: Equatable, Sendable {
    public var event: GestureEvent
    public var device: String?

    public init(event: GestureEvent, device: String?) {
        self.event = event
        self.device = device
    }
}

/// Every message the daemon sends. Replies carry the `id` of their request (nil when it had none).
public enum ServerMessage: Equatable, Sendable {
    case hello(Hello)
    /// The reply to `subscribe`: the filter in force and whether the client may see app touches, and why
    /// (nil from a daemon older than app touches).
    case subscribed(id: JSONValue?, filter: SubscriptionFilter, appTouchAccess: AppTouchAccess? = nil)
    case unsubscribed(id: JSONValue?)
    case devices(id: JSONValue?, devices: [DeviceInfo])
    case pong(id: JSONValue?)
    /// The reply to `orientation`: the devices the request named, each with its orientation now, and how
    /// many touches the turn claimed (passthrough: touches held back when it came, which applications
    /// therefore never see; 0 without passthrough or with nothing held back).
    case oriented(id: JSONValue?, devices: [DeviceInfo], claimedTouches: Int = 0)
    /// The reply to `focus`: the focused app now (nil: none) and the devices whose exclusions it changed.
    case focused(id: JSONValue?, appID: String?)
    /// The reply to `exclude`: the exclusions taken (the client's set now) and those refused, with why.
    case excluded(id: JSONValue?, accepted: [RequestedExclusion], refused: [RefusedExclusion])
    /// The reply to `reload`, once the configuration file `path` was read again and applied.
    case reloaded(id: JSONValue?, path: String)
    case error(ProtocolError)
    case deviceAdded(DeviceInfo)
    case deviceRemoved(DeviceInfo)
    /// A device's description changed while it stays open (its orientation was set).
    case deviceChanged(DeviceInfo)
    case gesture(DeviceGestureEvent)
    /// Whether the client may see app touches changed while it is subscribed with `app_touches` (another
    /// user's session became active on the seat, or the configuration changed): the access now, and why.
    case appTouchAccessChanged(AppTouchAccess)
    /// One touch sequence explained (`explanations` in the subscription), with the device's id.
    case explanation(Explanation, device: String?)
    /// A message type this client does not know (a newer daemon); clients ignore these.
    case unknown(type: String, JSONValue)

    /// Whether this is a reply to a request (each request gets exactly one: its declared reply, or `error`),
    /// and the id it echoes (nil when the request had none).
    public var reply: (isReply: Bool, id: JSONValue?) {
        switch self {
        case .subscribed(let id, _, _), .unsubscribed(let id), .devices(let id, _), .pong(let id), .oriented(let id, _, _),
            .focused(let id, _), .excluded(let id, _, _), .reloaded(let id, _):
            return (true, id)
        case .error(let error): return (true, error.id)
        case .hello, .deviceAdded, .deviceRemoved, .deviceChanged, .gesture, .appTouchAccessChanged, .explanation, .unknown:
            return (false, nil)
        }
    }

    /// The `type` of each message on the wire.
    public enum TypeName {
        public static let hello = "hello"
        public static let subscribed = "subscribed"
        public static let unsubscribed = "unsubscribed"
        public static let devices = "devices"
        public static let pong = "pong"
        public static let oriented = "oriented"
        public static let focused = "focused"
        public static let excluded = "excluded"
        public static let reloaded = "reloaded"
        public static let error = "error"
        public static let deviceAdded = "device-added"
        public static let deviceRemoved = "device-removed"
        public static let deviceChanged = "device-changed"
        public static let appTouchAccess = "app-touch-access"
    }

    /// One line of JSON without the newline, for every message except gestures (which the daemon
    /// encodes with `GestureEventJSON`, once per event for all clients).
    public var encoded: String {
        var members: [(key: String, value: JSONValue)]
        func withID(_ type: String, _ id: JSONValue?) -> [(key: String, value: JSONValue)] {
            var m: [(key: String, value: JSONValue)] = [("type", .string(type))]
            if let id { m.append(("id", id)) }
            return m
        }
        switch self {
        case .hello(let hello):
            members = [
                ("type", .string(TypeName.hello)), ("protocol", .integer(hello.protocolVersion)),
                ("daemon", .string("gestured")), ("version", .string(hello.daemonVersion)),
                ("max_line_bytes", .integer(hello.maximumRequestLineBytes)),
                ("devices", .array(hello.devices.map(\.json))),
            ]
            if let access = hello.appTouchAccess { members.append(("app_touch_access", access.json)) }
        case .subscribed(let id, let filter, let access):
            members = withID(TypeName.subscribed, id)
            members.append(("filter", .object(filter.jsonMembers)))
            if let access { members.append(("app_touch_access", access.json)) }
        case .unsubscribed(let id):
            members = withID(TypeName.unsubscribed, id)
        case .devices(let id, let devices):
            members = withID(TypeName.devices, id)
            members.append(("devices", .array(devices.map(\.json))))
        case .pong(let id):
            members = withID(TypeName.pong, id)
        case .oriented(let id, let devices, let claimedTouches):
            members = withID(TypeName.oriented, id)
            members.append(("devices", .array(devices.map(\.json))))
            members.append(("claimed_touches", .integer(claimedTouches)))
        case .focused(let id, let app):
            members = withID(TypeName.focused, id)
            members.append(("app_id", app.map(JSONValue.string) ?? .null))
        case .excluded(let id, let accepted, let refused):
            members = withID(TypeName.excluded, id)
            members.append(("accepted", .array(accepted.map(\.json))))
            members.append(("refused", .array(refused.map(\.json))))
        case .reloaded(let id, let path):
            members = withID(TypeName.reloaded, id)
            members.append(("path", .string(path)))
        case .error(let error):
            members = withID(TypeName.error, error.id)
            members.append(("code", .string(error.code.rawValue)))
            members.append(("message", .string(error.message)))
            if let retryAfter = error.retryAfter { members.append(("retry_after", .double(retryAfter))) }
            if !error.problems.isEmpty { members.append(("problems", .array(error.problems.map(JSONValue.string)))) }
        case .deviceAdded(let device):
            members = [("type", .string(TypeName.deviceAdded)), ("device", device.json)]
        case .deviceRemoved(let device):
            members = [("type", .string(TypeName.deviceRemoved)), ("device", device.json)]
        case .deviceChanged(let device):
            members = [("type", .string(TypeName.deviceChanged)), ("device", device.json)]
        case .appTouchAccessChanged(let access):
            members = [("type", .string(TypeName.appTouchAccess)), ("app_touch_access", access.json)]
        case .gesture(let g):
            return GestureEventJSON.encode(g.event, device: g.device)
        case .explanation(let x, let device):
            return ExplanationJSON.encode(x, device: device)
        case .unknown(_, let value):
            return value.serialized
        }
        return JSONValue.object(members).serialized
    }

    /// Reads one line from the daemon. Unknown message types decode to `.unknown`, and unknown keys are
    /// ignored, so a client keeps working with a newer daemon.
    public static func decode<Bytes: Collection>(line: Bytes) throws(ProtocolDecodingError) -> ServerMessage
    where Bytes.Element == UInt8 {
        let value: JSONValue
        do {
            value = try JSONParser.parse(line)
        } catch {
            throw ProtocolDecodingError("the daemon sent a line that is not JSON: \(error)")
        }
        guard case .object = value else {
            throw ProtocolDecodingError("the daemon sent \(value.typeNameWithArticle), not an object")
        }
        guard let type = value["type"]?.stringValue else {
            throw ProtocolDecodingError("the daemon sent an object without a string \"type\"")
        }
        let id = value["id"]
        switch type {
        case TypeName.hello:
            guard let version = value["protocol"]?.intValue else {
                throw ProtocolDecodingError("hello has no number \"protocol\"")
            }
            let devices = try decodeDevices(value["devices"] ?? .array([]))
            return .hello(
                Hello(
                    protocolVersion: version, daemonVersion: value["version"]?.stringValue ?? "unknown",
                    devices: devices,
                    maximumRequestLineBytes: value["max_line_bytes"]?.intValue ?? ProtocolConstants.maximumRequestLineBytes,
                    appTouchAccess: value["app_touch_access"].flatMap(AppTouchAccess.init(json:))
                ))
        case TypeName.subscribed:
            let access = value["app_touch_access"].flatMap(AppTouchAccess.init(json:))
            var filterObject = value["filter"] ?? .object([])
            if case .object(let members) = filterObject {
                filterObject = .object([("type", .string("subscribe"))] + members.filter { $0.key != "type" && $0.key != "id" })
            }
            let line = Array(filterObject.serialized.utf8)
            switch RequestMessage.decode(line: line) {
            case .success(let message):
                guard case .subscribe(let filter) = message.request else {
                    throw ProtocolDecodingError("subscribed reply has no filter")
                }
                return .subscribed(id: id, filter: filter, appTouchAccess: access)
            case .failure:
                // A newer daemon may report filter fields this client does not know; keep the reply.
                return .subscribed(id: id, filter: SubscriptionFilter(), appTouchAccess: access)
            }
        case TypeName.unsubscribed:
            return .unsubscribed(id: id)
        case TypeName.devices:
            return .devices(id: id, devices: try decodeDevices(value["devices"] ?? .array([])))
        case TypeName.pong:
            return .pong(id: id)
        case TypeName.oriented:
            // An older daemon says nothing of claimed touches.
            return .oriented(
                id: id, devices: try decodeDevices(value["devices"] ?? .array([])),
                claimedTouches: value["claimed_touches"]?.intValue ?? 0)
        case TypeName.focused:
            return .focused(id: id, appID: value["app_id"]?.stringValue)
        case TypeName.excluded:
            func exclusion(_ v: JSONValue) -> RequestedExclusion? {
                guard let edge = v["edge"]?.stringValue.flatMap(Edge.init(rawValue:)) else { return nil }
                return RequestedExclusion(
                    edge: edge, from: v["from"]?.doubleValue ?? 0, to: v["to"]?.doubleValue ?? 1, device: v["device"]?.stringValue,
                    app: v["app"]?.stringValue)
            }
            let accepted = (value["accepted"]?.arrayValue ?? []).compactMap(exclusion)
            let refused = (value["refused"]?.arrayValue ?? []).compactMap { v -> RefusedExclusion? in
                guard let e = exclusion(v), let reason = v["reason"]?.stringValue.flatMap(ExclusionRefusal.init(rawValue:)) else { return nil }
                return RefusedExclusion(exclusion: e, reason: reason, message: v["message"]?.stringValue ?? "")
            }
            return .excluded(id: id, accepted: accepted, refused: refused)
        case TypeName.reloaded:
            return .reloaded(id: id, path: value["path"]?.stringValue ?? "")
        case TypeName.error:
            let codeText = value["code"]?.stringValue ?? ""
            let message = value["message"]?.stringValue ?? "(no message)"
            guard let code = ProtocolError.Code(rawValue: codeText) else {
                // An error code this client does not know: keep the message, classify it generally.
                return .error(ProtocolError(.invalidRequest, "\(codeText): \(message)", id: id))
            }
            let retryAfter = value["retry_after"]?.doubleValue.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
            let problems = (value["problems"]?.arrayValue ?? []).compactMap(\.stringValue)
            return .error(ProtocolError(code, message, id: id, retryAfter: retryAfter, problems: problems))
        case TypeName.deviceAdded:
            return .deviceAdded(try DeviceInfo(json: value["device"] ?? .null))
        case TypeName.deviceRemoved:
            return .deviceRemoved(try DeviceInfo(json: value["device"] ?? .null))
        case TypeName.deviceChanged:
            return .deviceChanged(try DeviceInfo(json: value["device"] ?? .null))
        case TypeName.appTouchAccess:
            guard let access = value["app_touch_access"].flatMap(AppTouchAccess.init(json:)) else {
                throw ProtocolDecodingError("app-touch-access has no \"app_touch_access\" object with \"granted\" and \"reason\"")
            }
            return .appTouchAccessChanged(access)
        case ExplanationJSON.typeName:
            guard let (x, device) = ExplanationJSON.decode(value) else {
                throw ProtocolDecodingError("the daemon sent an explanation without a number \"start\" and \"end\"")
            }
            return .explanation(x, device: device)
        default:
            if let gesture = try GestureEventDecoding.decode(value, type: type) {
                return .gesture(gesture)
            }
            return .unknown(type: type, value)
        }
    }

    private static func decodeDevices(_ value: JSONValue) throws(ProtocolDecodingError) -> [DeviceInfo] {
        guard let items = value.arrayValue else {
            throw ProtocolDecodingError("\"devices\" is \(value.typeNameWithArticle), not an array")
        }
        var devices: [DeviceInfo] = []
        for item in items { devices.append(try DeviceInfo(json: item)) }
        return devices
    }
}
