import GestureVocabulary

/// What a client can ask the daemon. Each request is declared once, in `RequestType`: its name, its
/// fields, who may send it, how often, and its reply; the daemon's handler for each is one case of
/// `ClientPolicy`'s transition function (docs/architecture.md, "Adding a request").
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
    /// Read the configuration file again and apply it; the reply comes once it is applied or refused.
    case reload
    /// Set this client's hold claims (one-finger holds that are its own, never a pointer's secondary
    /// click, while it is connected), replacing the ones it set before; an empty list clears them.
    case claim([HoldClaim])

    /// The request's type, with its declaration.
    public var type: RequestType {
        switch self {
        case .subscribe: return .subscribe
        case .unsubscribe: return .unsubscribe
        case .devices: return .devices
        case .ping: return .ping
        case .orientation: return .orientation
        case .focus: return .focus
        case .exclude: return .exclude
        case .reload: return .reload
        case .claim: return .claim
        }
    }

    /// The request's fields on the wire, besides `type` and `id`, in the order they are written.
    var jsonMembers: [(key: String, value: JSONValue)] {
        switch self {
        case .subscribe(let filter): return filter.jsonMembers
        case .orientation(let orientation, let device):
            var members: [(key: String, value: JSONValue)] = [("orientation", .integer(orientation.rawValue))]
            if let device { members.append(("device", .string(device))) }
            return members
        case .focus(let app):
            return [("app_id", app.map(JSONValue.string) ?? .null)]
        case .exclude(let list):
            return [("exclusions", .array(list.map(\.json)))]
        case .claim(let list):
            return [("holds", .array(list.map(\.json)))]
        case .unsubscribe, .devices, .ping, .reload:
            return []
        }
    }
}

/// Who may send a request (docs/protocol.md, "Who may set and see what"): a default deny, then the grants
/// each request's declaration names.
public enum RequestRight: String, Equatable, Sendable, CaseIterable {
    /// Every client that can connect: the request changes nothing for anyone else.
    case anyClient = "any-client"
    /// The user of the active session on the seat of the devices it changes, root and the daemon's own
    /// user: it changes what the seat's user gets.
    case seatUser = "seat-user"
    /// Root and the daemon's own user: it changes the daemon itself.
    case administrator = "administrator"

    /// Who that is, for messages: "the user of the active session on the seat, root and the daemon's own user".
    public var who: String {
        switch self {
        case .anyClient: return "every client"
        case .seatUser: return "the user of the active session on the touchscreen's seat, root and the daemon's own user"
        case .administrator: return "root and the daemon's own user"
        }
    }
}

/// How often one seat's clients together may send requests of one type (a token bucket: a burst, then a
/// steady rate), so that no number of clients or connections adds up past it.
public struct RequestRateLimit: Equatable, Sendable {
    public var burst: Double
    public var perSecond: Double
    /// What the requests do, plural, for the `rate-limited` message: "focus changes".
    public var changes: String

    public init(burst: Double, perSecond: Double, changes: String) {
        self.burst = burst
        self.perSecond = perSecond
        self.changes = changes
    }
}

/// A request type's declaration: everything the daemon and its clients know of it besides its handler.
public struct RequestDeclaration: Equatable, Sendable {
    /// Its fields besides `type` and `id` (any other key is refused).
    public var fields: [String]
    /// Who may send it.
    public var right: RequestRight
    /// How often it may come, per seat (nil: as often as a client likes; it changes nothing for others).
    public var rate: RequestRateLimit?
    /// The `type` of its reply (an `error` otherwise).
    public var reply: String
}

/// Every request type, each declared once (its name is the raw value).
public enum RequestType: String, Equatable, Sendable, CaseIterable {
    case subscribe, unsubscribe, devices, ping, orientation, focus, exclude, reload, claim

    public var declaration: RequestDeclaration {
        switch self {
        case .subscribe:
            return RequestDeclaration(
                fields: ["kinds", "edges", "fingers", "devices", "updates", "app_touches", "explanations"], right: .anyClient,
                rate: nil, reply: ServerMessage.TypeName.subscribed)
        case .unsubscribe:
            return RequestDeclaration(fields: [], right: .anyClient, rate: nil, reply: ServerMessage.TypeName.unsubscribed)
        case .devices:
            return RequestDeclaration(fields: [], right: .anyClient, rate: nil, reply: ServerMessage.TypeName.devices)
        case .ping:
            return RequestDeclaration(fields: [], right: .anyClient, rate: nil, reply: ServerMessage.TypeName.pong)
        case .orientation:
            // A screen does not turn faster.
            return RequestDeclaration(
                fields: ["orientation", "device"], right: .seatUser,
                rate: RequestRateLimit(burst: 4, perSecond: 2, changes: "orientation changes"), reply: ServerMessage.TypeName.oriented)
        case .focus:
            // An app switcher flicking through windows; each change works every device's exclusions out again.
            return RequestDeclaration(
                fields: ["app_id"], right: .seatUser, rate: RequestRateLimit(burst: 4, perSecond: 2, changes: "focus changes"),
                reply: ServerMessage.TypeName.focused)
        case .exclude:
            // An app sends its rectangles again as its layout changes.
            return RequestDeclaration(
                fields: ["exclusions"], right: .seatUser, rate: RequestRateLimit(burst: 8, perSecond: 4, changes: "exclusion changes"),
                reply: ServerMessage.TypeName.excluded)
        case .reload:
            return RequestDeclaration(
                fields: [], right: .administrator, rate: RequestRateLimit(burst: 2, perSecond: 0.5, changes: "reloads"),
                reply: ServerMessage.TypeName.reloaded)
        case .claim:
            // As exclusions: sent again when bindings are reloaded or an app's layout changes.
            return RequestDeclaration(
                fields: ["holds"], right: .seatUser, rate: RequestRateLimit(burst: 8, perSecond: 4, changes: "hold claims"),
                reply: ServerMessage.TypeName.claimed)
        }
    }

    /// Its fields on the wire, the keys a request of this type may hold.
    var allowedKeys: Set<String> { Set(["type", "id"] + declaration.fields) }

    /// The request of this type `value` holds (its keys already checked).
    func decode(_ value: JSONValue) throws(ProtocolDecodingError) -> Request {
        switch self {
        case .subscribe: return .subscribe(try RequestMessage.decodeFilter(value))
        case .unsubscribe: return .unsubscribe
        case .devices: return .devices
        case .ping: return .ping
        case .orientation:
            let (orientation, device) = try RequestMessage.decodeOrientation(value)
            return .orientation(orientation, device: device)
        case .focus: return .focus(appID: try RequestMessage.decodeFocus(value))
        case .exclude: return .exclude(try RequestedExclusion.decodeList(value["exclusions"]))
        case .reload: return .reload
        case .claim: return .claim(try HoldClaim.decodeList(value["holds"]))
        }
    }
}

/// One exclusion an `exclude` request asks for: a side's part (`from`...`to`, 0...1 as a binding's
/// `edge_position`), or a whole corner, on the devices `device` names (an id, a name or "vvvv:pppp"; every
/// device when nil), while the app `app` has the focus (an app_id glob, as an [[exclusion]] section's
/// `app`; always when nil).
public struct RequestedExclusion: Equatable, Sendable {
    public var edge: Edge
    public var from: Double
    public var to: Double
    public var device: String?
    public var app: String?

    public init(edge: Edge, from: Double = 0, to: Double = 1, device: String? = nil, app: String? = nil) {
        self.edge = edge
        self.from = from
        self.to = to
        self.device = device
        self.app = app
    }

    /// The keys an exclusion may hold.
    static let keys = ["edge", "from", "to", "device", "app"]

    /// Most exclusions one request may hold.
    public static let maximumPerRequest = 16

    public var json: JSONValue {
        // A corner is excluded whole: it has no part to say.
        var members: [(key: String, value: JSONValue)] = [("edge", .string(edge.rawValue))]
        if !edge.isCorner { members += [("from", .double(from)), ("to", .double(to))] }
        if let device { members.append(("device", .string(device))) }
        if let app { members.append(("app", .string(app))) }
        return .object(members)
    }

    static func decodeList(_ value: JSONValue?) throws(ProtocolDecodingError) -> [RequestedExclusion] {
        guard let value else {
            throw ProtocolDecodingError("an exclude request needs \"exclusions\": an array of {\"edge\", \"from\", \"to\", \"device\", \"app\"} (empty to clear)")
        }
        guard let items = value.arrayValue else { throw ProtocolDecodingError("\"exclusions\" must be an array, not \(value.typeNameWithArticle)") }
        guard items.count <= maximumPerRequest else {
            throw ProtocolDecodingError("\"exclusions\" holds \(items.count) exclusions; at most \(maximumPerRequest) in one request")
        }
        var list: [RequestedExclusion] = []
        for item in items {
            guard case .object(let members) = item else { throw ProtocolDecodingError("an exclusion is an object, not \(item.typeNameWithArticle)") }
            if let unknown = members.first(where: { !keys.contains($0.key) }) {
                throw ProtocolDecodingError("unknown field \"\(unknown.key)\" in an exclusion (allowed: \(keys.sorted().joined(separator: ", ")))")
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
            var app: String?
            if let a = item["app"] {
                guard let s = a.stringValue, !s.isEmpty, s.utf8.count <= 512 else {
                    throw ProtocolDecodingError("an exclusion's \"app\" is the app_id (or a glob of app_ids, as an [[exclusion]] section's app) it holds for, at most 512 bytes")
                }
                app = s
            }
            list.append(RequestedExclusion(edge: edge, from: from, to: to, device: device, app: app))
        }
        return list
    }
}

/// One-finger holds a client keeps for itself (a `claim` request): those whose fingers' centre is in
/// `region` (the whole screen when nil), on the devices `device` names (a glob on a device's id or name,
/// or its "vvvv:pppp", as a binding's `device`; every device when nil), while the app `app` has the focus
/// (an app_id glob; always when nil). Such a hold is the
/// client's gesture: gestured's pointer does not turn it into a secondary click (docs/gestures.md, "Touch
/// that points").
public struct HoldClaim: Equatable, Sendable {
    public var region: ScreenRegion?
    public var device: String?
    public var app: String?

    public init(region: ScreenRegion? = nil, device: String? = nil, app: String? = nil) {
        self.region = region
        self.device = device
        self.app = app
    }

    /// The keys a hold claim may hold.
    static let keys = ["region", "region_mm", "device", "app"]

    /// Most claims one request may hold.
    public static let maximumPerRequest = 16

    public var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = []
        switch region {
        case .normalized(let x, let y)?:
            members.append(("region", .array([.double(x.lowerBound), .double(y.lowerBound), .double(x.upperBound), .double(y.upperBound)])))
        case .millimetres(let x, let y)?:
            members.append(("region_mm", .array([.double(x.lowerBound), .double(y.lowerBound), .double(x.upperBound), .double(y.upperBound)])))
        case nil:
            break
        }
        if let device { members.append(("device", .string(device))) }
        if let app { members.append(("app", .string(app))) }
        return .object(members)
    }

    /// Reads one claim as the daemon sent it back (lenient: what cannot be read is left out).
    init?(reply v: JSONValue) {
        guard case .object = v else { return nil }
        if let r = HoldClaim.rectangle(v["region"]), r.x1 <= 1, r.y1 <= 1 {
            region = .normalized(x: r.x0...r.x1, y: r.y0...r.y1)
        } else if let r = HoldClaim.rectangle(v["region_mm"]) {
            region = .millimetres(x: r.x0...r.x1, y: r.y0...r.y1)
        }
        device = v["device"]?.stringValue
        app = v["app"]?.stringValue
    }

    /// [x_from, y_from, x_to, y_to], each pair in order and not negative.
    private static func rectangle(_ v: JSONValue?) -> (x0: Double, y0: Double, x1: Double, y1: Double)? {
        guard let items = v?.arrayValue, items.count == 4 else { return nil }
        let n = items.compactMap(\.doubleValue)
        guard n.count == 4, n.allSatisfy({ $0.isFinite && $0 >= 0 }), n[0] < n[2], n[1] < n[3] else { return nil }
        return (n[0], n[1], n[2], n[3])
    }

    static func decodeList(_ value: JSONValue?) throws(ProtocolDecodingError) -> [HoldClaim] {
        guard let value else {
            throw ProtocolDecodingError("a claim request needs \"holds\": an array of {\"region\" or \"region_mm\", \"device\", \"app\"} (empty to clear)")
        }
        guard let items = value.arrayValue else { throw ProtocolDecodingError("\"holds\" must be an array, not \(value.typeNameWithArticle)") }
        guard items.count <= maximumPerRequest else {
            throw ProtocolDecodingError("\"holds\" holds \(items.count) claims; at most \(maximumPerRequest) in one request")
        }
        var list: [HoldClaim] = []
        for item in items {
            guard case .object(let members) = item else { throw ProtocolDecodingError("a hold claim is an object, not \(item.typeNameWithArticle)") }
            if let unknown = members.first(where: { !keys.contains($0.key) }) {
                throw ProtocolDecodingError("unknown field \"\(unknown.key)\" in a hold claim (allowed: \(keys.sorted().joined(separator: ", ")))")
            }
            var claim = HoldClaim()
            switch (item["region"], item["region_mm"]) {
            case (_?, _?):
                throw ProtocolDecodingError("a hold claim has \"region\" or \"region_mm\", not both")
            case (let r?, nil):
                guard let rect = rectangle(r), rect.x1 <= 1, rect.y1 <= 1 else {
                    throw ProtocolDecodingError(
                        "a hold claim's \"region\" is [x_from, y_from, x_to, y_to], fractions of the screen from its top-left corner, each from below to, 0 to 1")
                }
                claim.region = .normalized(x: rect.x0...rect.x1, y: rect.y0...rect.y1)
            case (nil, let r?):
                guard let rect = rectangle(r) else {
                    throw ProtocolDecodingError(
                        "a hold claim's \"region_mm\" is [x_from, y_from, x_to, y_to], millimetres from the screen's top-left corner, each from below to")
                }
                claim.region = .millimetres(x: rect.x0...rect.x1, y: rect.y0...rect.y1)
            case (nil, nil):
                break
            }
            if let d = item["device"] {
                guard let s = d.stringValue, !s.isEmpty else { throw ProtocolDecodingError("a hold claim's \"device\" is a device's id, name or vvvv:pppp") }
                claim.device = s
            }
            if let a = item["app"] {
                guard let s = a.stringValue, !s.isEmpty, s.utf8.count <= 512 else {
                    throw ProtocolDecodingError("a hold claim's \"app\" is the app_id (or a glob of app_ids) it holds for, at most 512 bytes")
                }
                claim.app = s
            }
            list.append(claim)
        }
        return list
    }
}

/// Why the daemon did not take one exclusion of an `exclude` request.
public enum ExclusionRefusal: String, Equatable, Sendable, CaseIterable {
    /// Taking it would pass the length of an edge the clients of a seat may exclude together.
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
        var members: [(key: String, value: JSONValue)] = [("type", .string(request.type.rawValue))]
        if let id { members.append(("id", id)) }
        members += request.jsonMembers
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
        guard let typeName = typeValue.stringValue else {
            return .failure(
                ProtocolError(.invalidRequest, "\"type\" must be a string, not \(typeValue.typeNameWithArticle)", id: id))
        }
        guard let type = RequestType(rawValue: typeName) else {
            return .failure(
                ProtocolError(
                    .unknownRequest,
                    "unknown request type \"\(typeName)\" (known: \(RequestType.allCases.map(\.rawValue).joined(separator: ", ")))", id: id))
        }
        let allowed = type.allowedKeys
        if let unknown = members.first(where: { !allowed.contains($0.key) }) {
            return .failure(
                ProtocolError(
                    .invalidRequest,
                    "unknown field \"\(unknown.key)\" in a \(typeName) request (allowed: \(allowed.sorted().joined(separator: ", ")))",
                    id: id))
        }
        do {
            return .success(RequestMessage(id: id, try type.decode(value)))
        } catch {
            return .failure(ProtocolError(.invalidRequest, error.message, id: id))
        }
    }

    /// A focus request's `app_id`: a non-empty string of at most 512 bytes, or null for none.
    static func decodeFocus(_ value: JSONValue) throws(ProtocolDecodingError) -> String? {
        switch value["app_id"] {
        case .none:
            throw ProtocolDecodingError("a focus request needs \"app_id\": the focused app's app_id, or null when none is")
        case .some(.null):
            return nil
        case .some(let app):
            guard let s = app.stringValue, !s.isEmpty, s.utf8.count <= 512 else {
                throw ProtocolDecodingError("\"app_id\" must be a non-empty string of at most 512 bytes, or null, not \(app.serialized)")
            }
            return s
        }
    }

    static func decodeOrientation(_ value: JSONValue) throws(ProtocolDecodingError) -> (DeviceOrientation, String?) {
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

    static func decodeFilter(_ value: JSONValue) throws(ProtocolDecodingError) -> SubscriptionFilter {
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
        /// A request that changes the daemon's state came faster than the daemon takes them from one seat
        /// (docs/protocol.md, "Who may set and see what"); it was not carried out.
        case rateLimited = "rate-limited"
        /// The client may not send that request (its declaration's `RequestRight`: a request that changes
        /// what the seat's user gets is the seat user's, root's and the daemon's own user's; `reload` is
        /// root's and the daemon's own user's); nothing was changed.
        case notPermitted = "not-permitted"
        /// A `reload` found a configuration that does not load: the running one stays; `problems` says where.
        case reloadFailed = "reload-failed"
    }

    public var code: Code
    public var message: String
    public var id: JSONValue?
    /// For `rate-limited`: how long until the same request would be taken (seconds, `retry_after` on the
    /// wire); nil otherwise, and from daemons that do not say.
    public var retryAfter: Double?
    /// For `reload-failed`: each problem of the file, "path:line:column: message" (`problems` on the wire).
    public var problems: [String]

    public init(_ code: Code, _ message: String, id: JSONValue? = nil, retryAfter: Double? = nil, problems: [String] = []) {
        self.code = code
        self.message = message
        self.id = id
        self.retryAfter = retryAfter
        self.problems = problems
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
