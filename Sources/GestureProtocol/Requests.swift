import GestureVocabulary

/// What a client can ask the daemon.
public enum Request: Equatable, Sendable {
    /// Start (or change) the client's subscription; gestures and device notifications follow.
    case subscribe(SubscriptionFilter)
    /// Stop receiving gestures and notifications; replies still come.
    case unsubscribe
    /// List the current devices.
    case devices
    /// Ask for a `pong`, to check the connection.
    case ping
    /// Set the orientation of the devices `device` names (an id, a name or "vvvv:pppp"), or of every
    /// device when it is nil.
    case orientation(DeviceOrientation, device: String?)
    /// Tell the daemon which app is focused (its app_id), nil when none is: the [[exclusion]] sections
    /// naming it apply while it is.
    case focus(appID: String?)
    /// Set this client's exclusions (parts of edges that are no edge zone while it is connected),
    /// replacing the ones it set before; an empty list clears them.
    case exclude([RequestedExclusion])

    /// The request's `type` on the wire.
    public var typeName: String {
        switch self {
        case .subscribe: return "subscribe"
        case .unsubscribe: return "unsubscribe"
        case .devices: return "devices"
        case .ping: return "ping"
        case .orientation: return "orientation"
        case .focus: return "focus"
        case .exclude: return "exclude"
        }
    }

    /// Every request type, for messages naming them.
    public static let typeNames = ["subscribe", "unsubscribe", "devices", "ping", "orientation", "focus", "exclude"]
}

/// One exclusion an `exclude` request asks for: a side's part (`from`...`to`, 0...1 as a binding's
/// `edge_position`), or a whole corner, on the devices `device` names (an id, a name or "vvvv:pppp"; every
/// device when nil).
public struct RequestedExclusion: Equatable, Sendable {
    public var edge: Edge
    public var from: Double
    public var to: Double
    public var device: String?

    public init(edge: Edge, from: Double = 0, to: Double = 1, device: String? = nil) {
        self.edge = edge
        self.from = from
        self.to = to
        self.device = device
    }

    /// Most exclusions one request may hold.
    public static let maximumPerRequest = 16

    public var json: JSONValue {
        // A corner is excluded whole: it has no part to say.
        var members: [(key: String, value: JSONValue)] = [("edge", .string(edge.rawValue))]
        if !edge.isCorner { members += [("from", .double(from)), ("to", .double(to))] }
        if let device { members.append(("device", .string(device))) }
        return .object(members)
    }

    static func decodeList(_ value: JSONValue?) throws(ProtocolDecodingError) -> [RequestedExclusion] {
        guard let value else { throw ProtocolDecodingError("an exclude request needs \"exclusions\": an array of {\"edge\", \"from\", \"to\", \"device\"} (empty to clear)") }
        guard let items = value.arrayValue else { throw ProtocolDecodingError("\"exclusions\" must be an array, not \(value.typeNameWithArticle)") }
        guard items.count <= maximumPerRequest else {
            throw ProtocolDecodingError("\"exclusions\" holds \(items.count) exclusions; at most \(maximumPerRequest) in one request")
        }
        var list: [RequestedExclusion] = []
        for item in items {
            guard case .object(let members) = item else { throw ProtocolDecodingError("an exclusion is an object, not \(item.typeNameWithArticle)") }
            if let unknown = members.first(where: { !["edge", "from", "to", "device"].contains($0.key) }) {
                throw ProtocolDecodingError("unknown field \"\(unknown.key)\" in an exclusion (allowed: device, edge, from, to)")
            }
            guard let name = item["edge"]?.stringValue, let edge = Edge(rawValue: name) else {
                throw ProtocolDecodingError(
                    "an exclusion's \"edge\" is one of \(Edge.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")), not \(item["edge"]?.serialized ?? "missing")")
            }
            let from = item["from"]?.doubleValue ?? 0
            let to = item["to"]?.doubleValue ?? 1
            if (item["from"] != nil && item["from"]?.doubleValue == nil) || (item["to"] != nil && item["to"]?.doubleValue == nil)
                || !(0 <= from && from < to && to <= 1)
            {
                throw ProtocolDecodingError("an exclusion's \"from\" and \"to\" are numbers with 0 <= from < to <= 1 (the part along the edge, as edge_position)")
            }
            if edge.isCorner, item["from"] != nil || item["to"] != nil {
                throw ProtocolDecodingError("a corner is excluded whole: leave \"from\" and \"to\" out for \(edge.rawValue)")
            }
            var device: String?
            if let d = item["device"] {
                guard let s = d.stringValue, !s.isEmpty else { throw ProtocolDecodingError("an exclusion's \"device\" is a device's id, name or vvvv:pppp") }
                device = s
            }
            list.append(RequestedExclusion(edge: edge, from: from, to: to, device: device))
        }
        return list
    }
}

/// Why the daemon did not take one exclusion of an `exclude` request.
public enum ExclusionRefusal: String, Equatable, Sendable, CaseIterable {
    /// Taking it would pass the length of an edge one user's clients may exclude together.
    case overCap = "over-cap"
    /// It names a device the daemon does not read.
    case unknownDevice = "unknown-device"
}

/// An exclusion refused, with why.
public struct RefusedExclusion: Equatable, Sendable {
    public var exclusion: RequestedExclusion
    public var reason: ExclusionRefusal
    public var message: String

    public init(exclusion: RequestedExclusion, reason: ExclusionRefusal, message: String) {
        self.exclusion = exclusion
        self.reason = reason
        self.message = message
    }

    public var json: JSONValue {
        guard case .object(var members) = exclusion.json else { return .null }
        members.append(("reason", .string(reason.rawValue)))
        members.append(("message", .string(message)))
        return .object(members)
    }
}

/// A request with the `id` the client chose (any JSON value, echoed in the reply), or none.
public struct RequestMessage: Equatable, Sendable {
    public var id: JSONValue?
    public var request: Request

    public init(id: JSONValue? = nil, _ request: Request) {
        self.id = id
        self.request = request
    }

    /// One line of JSON, without the newline.
    public var encoded: String {
        var members: [(key: String, value: JSONValue)] = [("type", .string(request.typeName))]
        if let id { members.append(("id", id)) }
        switch request {
        case .subscribe(let filter): members += filter.jsonMembers
        case .orientation(let orientation, let device):
            members.append(("orientation", .integer(orientation.rawValue)))
            if let device { members.append(("device", .string(device))) }
        case .focus(let app):
            members.append(("app_id", app.map(JSONValue.string) ?? .null))
        case .exclude(let list):
            members.append(("exclusions", .array(list.map(\.json))))
        case .unsubscribe, .devices, .ping: break
        }
        return JSONValue.object(members).serialized
    }

    /// Reads one request line. Every way a line can be wrong gives a `ProtocolError` whose message names
    /// the problem, with the request's `id` when one could be read.
    public static func decode<Bytes: Collection>(line: Bytes) -> Result<RequestMessage, ProtocolError>
    where Bytes.Element == UInt8 {
        let value: JSONValue
        do {
            value = try JSONParser.parse(line)
        } catch {
            return .failure(ProtocolError(.invalidJSON, "not valid JSON: \(error)"))
        }
        guard case .object(let members) = value else {
            return .failure(ProtocolError(.invalidRequest, "a request is a JSON object, not \(value.typeNameWithArticle)"))
        }
        let id = value["id"]
        if let id {
            switch id {
            case .string, .number, .null: break
            case .bool, .array, .object:
                return .failure(
                    ProtocolError(.invalidRequest, "\"id\" must be a string or a number, not \(id.typeNameWithArticle)"))
            }
        }
        guard let typeValue = value["type"] else {
            return .failure(ProtocolError(.invalidRequest, "the request has no \"type\"", id: id))
        }
        guard let type = typeValue.stringValue else {
            return .failure(
                ProtocolError(.invalidRequest, "\"type\" must be a string, not \(typeValue.typeNameWithArticle)", id: id))
        }
        let allowed: Set<String>
        switch type {
        case "subscribe": allowed = ["type", "id", "kinds", "edges", "fingers", "devices", "updates", "app_touches", "explanations"]
        case "unsubscribe", "devices", "ping": allowed = ["type", "id"]
        case "orientation": allowed = ["type", "id", "orientation", "device"]
        case "focus": allowed = ["type", "id", "app_id"]
        case "exclude": allowed = ["type", "id", "exclusions"]
        default:
            return .failure(
                ProtocolError(
                    .unknownRequest,
                    "unknown request type \"\(type)\" (known: \(Request.typeNames.joined(separator: ", ")))", id: id))
        }
        if let unknown = members.first(where: { !allowed.contains($0.key) }) {
            return .failure(
                ProtocolError(
                    .invalidRequest,
                    "unknown field \"\(unknown.key)\" in a \(type) request (allowed: \(allowed.sorted().joined(separator: ", ")))",
                    id: id))
        }
        switch type {
        case "subscribe":
            do {
                return .success(RequestMessage(id: id, .subscribe(try decodeFilter(value))))
            } catch {
                return .failure(ProtocolError(.invalidRequest, error.message, id: id))
            }
        case "orientation":
            do {
                let (orientation, device) = try decodeOrientation(value)
                return .success(RequestMessage(id: id, .orientation(orientation, device: device)))
            } catch {
                return .failure(ProtocolError(.invalidRequest, error.message, id: id))
            }
        case "focus":
            switch value["app_id"] {
            case .none:
                return .failure(ProtocolError(.invalidRequest, "a focus request needs \"app_id\": the focused app's app_id, or null when none is", id: id))
            case .some(.null):
                return .success(RequestMessage(id: id, .focus(appID: nil)))
            case .some(let app):
                guard let s = app.stringValue, !s.isEmpty, s.utf8.count <= 512 else {
                    return .failure(
                        ProtocolError(.invalidRequest, "\"app_id\" must be a non-empty string of at most 512 bytes, or null, not \(app.serialized)", id: id))
                }
                return .success(RequestMessage(id: id, .focus(appID: s)))
            }
        case "exclude":
            do {
                return .success(RequestMessage(id: id, .exclude(try RequestedExclusion.decodeList(value["exclusions"]))))
            } catch {
                return .failure(ProtocolError(.invalidRequest, error.message, id: id))
            }
        case "unsubscribe": return .success(RequestMessage(id: id, .unsubscribe))
        case "devices": return .success(RequestMessage(id: id, .devices))
        default: return .success(RequestMessage(id: id, .ping))
        }
    }

    private static func decodeOrientation(_ value: JSONValue) throws(ProtocolDecodingError) -> (DeviceOrientation, String?) {
        guard let angle = value["orientation"] else {
            throw ProtocolDecodingError(
                "an orientation request needs \"orientation\": \(DeviceOrientation.allowedText) (degrees clockwise)")
        }
        guard let degrees = angle.intValue, let orientation = DeviceOrientation(rawValue: degrees) else {
            throw ProtocolDecodingError(
                "\"orientation\" holds \(angle.serialized); it is one of \(DeviceOrientation.allowedText) (degrees clockwise)")
        }
        guard let device = value["device"] else { return (orientation, nil) }
        guard let name = device.stringValue, !name.isEmpty else {
            throw ProtocolDecodingError(
                "\"device\" must be a device's id, name or vvvv:pppp (a non-empty string), not \(device.serialized); "
                    + "leave it out for every device")
        }
        return (orientation, name)
    }

    private static func decodeFilter(_ value: JSONValue) throws(ProtocolDecodingError) -> SubscriptionFilter {
        var filter = SubscriptionFilter()
        filter.kinds = try decodeSet(value, "kinds", names: GestureKind.allCases.map(\.rawValue)) {
            GestureKind(rawValue: $0)
        }
        filter.edges = try decodeSet(value, "edges", names: Edge.allCases.map(\.rawValue)) { Edge(rawValue: $0) }
        filter.fingers = try decodeArrayAsSet(value, "fingers", of: "numbers") { item throws(ProtocolDecodingError) in
            guard let n = item.intValue, (1...20).contains(n) else {
                throw ProtocolDecodingError("\"fingers\" holds \(item.serialized); finger counts are whole numbers 1...20")
            }
            return n
        }
        filter.devices = try decodeArrayAsSet(value, "devices", of: "strings") { item throws(ProtocolDecodingError) in
            guard let s = item.stringValue else {
                throw ProtocolDecodingError("\"devices\" holds \(item.typeNameWithArticle); device ids and names are strings")
            }
            return s
        }
        if let updates = try decodeBool(value, "updates") { filter.updates = updates }
        if let appTouches = try decodeBool(value, "app_touches") { filter.appTouches = appTouches }
        if let explanations = try decodeBool(value, "explanations") { filter.explanations = explanations }
        return filter
    }

    /// The array of names at `key` as a set of what `make` makes of each (nil where the key is absent); a
    /// member that is no string or no name `make` knows is refused with the allowed `names`.
    private static func decodeSet<T: Hashable>(
        _ value: JSONValue, _ key: String, names: [String], _ make: (String) -> T?
    ) throws(ProtocolDecodingError) -> Set<T>? {
        try decodeArrayAsSet(value, key, of: "strings") { item throws(ProtocolDecodingError) in
            guard let s = item.stringValue, let t = make(s) else {
                throw ProtocolDecodingError(
                    "\"\(key)\" holds \(item.serialized); allowed: \(names.map { "\"\($0)\"" }.joined(separator: ", "))")
            }
            return t
        }
    }

    /// The array at `key` as a set of what `member` reads from each item (nil where the key is absent).
    /// Something other than an array is refused as "must be an array of `elementNoun`"; `member` throws the
    /// error that names a wrong item.
    private static func decodeArrayAsSet<T: Hashable>(
        _ value: JSONValue, _ key: String, of elementNoun: String,
        _ member: (JSONValue) throws(ProtocolDecodingError) -> T
    ) throws(ProtocolDecodingError) -> Set<T>? {
        guard let field = value[key] else { return nil }
        guard let items = field.arrayValue else {
            throw ProtocolDecodingError("\"\(key)\" must be an array of \(elementNoun), not \(field.typeNameWithArticle)")
        }
        var set = Set<T>()
        for item in items {
            set.insert(try member(item))
        }
        return set
    }

    /// The boolean at `key` (nil where the key is absent); anything but true or false is refused.
    private static func decodeBool(_ value: JSONValue, _ key: String) throws(ProtocolDecodingError) -> Bool? {
        guard let field = value[key] else { return nil }
        guard let b = field.boolValue else {
            throw ProtocolDecodingError("\"\(key)\" must be true or false, not \(field.typeNameWithArticle)")
        }
        return b
    }
}

/// An error the daemon reports to a client: a machine-readable code and a message for people.
public struct ProtocolError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Equatable, Sendable, CaseIterable {
        /// The line is not JSON (or not UTF-8).
        case invalidJSON = "invalid-json"
        /// JSON, but not a valid request: not an object, no type, unknown field, wrong field type or value.
        case invalidRequest = "invalid-request"
        /// A `type` the daemon does not know.
        case unknownRequest = "unknown-request"
        /// A line longer than the limit; the daemon closes the connection after this error.
        case lineTooLong = "line-too-long"
        /// Too many bad requests in a row; the daemon closes the connection after this error.
        case tooManyErrors = "too-many-errors"
        /// The daemon already serves its maximum number of clients; it closes the connection.
        case tooManyClients = "too-many-clients"
        /// A request named a device the daemon does not read (none has that id, name or vvvv:pppp).
        case unknownDevice = "unknown-device"
        /// A request that changes the daemon's state came faster than the daemon takes them from one user
        /// (docs/protocol.md, "What a client may do"); it was not carried out.
        case rateLimited = "rate-limited"
    }

    public var code: Code
    public var message: String
    public var id: JSONValue?
    /// For `rate-limited`: how long until the same request would be taken (seconds, `retry_after` on the
    /// wire); nil otherwise, and from daemons that do not say.
    public var retryAfter: Double?

    public init(_ code: Code, _ message: String, id: JSONValue? = nil, retryAfter: Double? = nil) {
        self.code = code
        self.message = message
        self.id = id
        self.retryAfter = retryAfter
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
