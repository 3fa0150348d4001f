import Foundation
import GestureClient
import GestureProtocol
import GestureVocabulary
import Testing

/// docs/protocol.md is the contract, and its JSON examples are what a client author copies. Every JSON
/// object in it (code blocks, the session, inline examples) is parsed and its keys checked against what
/// gestured writes for that message: each key in an example is one the daemon writes (or, for a request,
/// one it accepts), and each key the daemon always writes is in the example, so an example that drifts from
/// the encoder fails here. An example shortened with `…` (`,…}` for keys left out, `[…]` for an array) is
/// held only to the first rule.
///
/// What the daemon writes: gesture events as the golden replays hold them (byte for byte what
/// `gesturectl replay` prints over real recordings, GoldenReplayTests), per gesture and phase, and
/// `device` beside them from the daemon; the other messages from ServerMessage's encoder; a device object
/// as the real daemon sends it in `hello`, with the keys only some devices have (`virtual_path`,
/// `output`) from the encoder.
@Suite struct ProtocolDocTests {
    /// The placeholder key an object shortened with `,…}` gets, so that it parses.
    static let shortened = "…"

    /// Every `{"type":…}` object in `text`, as written (strings and nesting followed to its closing brace).
    static func examples(in text: String) -> [String] {
        let scalars = Array(text.unicodeScalars)
        let opening = Array("{\"type\":".unicodeScalars)
        var found: [String] = []
        var i = 0
        while i + opening.count <= scalars.count {
            guard Array(scalars[i..<(i + opening.count)]) == opening else {
                i += 1
                continue
            }
            var depth = 0
            var inString = false
            var j = i
            while j < scalars.count {
                let c = scalars[j]
                if inString {
                    if c == "\\" { j += 1 } else if c == "\"" { inString = false }
                } else if c == "\"" {
                    inString = true
                } else if c == "{" || c == "[" {
                    depth += 1
                } else if c == "}" || c == "]" {
                    depth -= 1
                    if depth == 0 { break }
                }
                j += 1
            }
            var object = String.UnicodeScalarView()
            object.append(contentsOf: scalars[i...min(j, scalars.count - 1)])
            found.append(String(object))
            i = j + 1
        }
        return found
    }

    /// An example as JSON: `,…}` becomes a placeholder key, `[…]` an empty array.
    static func parse(_ example: String) throws -> [(key: String, value: JSONValue)] {
        let text = example.replacingOccurrences(of: ",…}", with: ",\"\(shortened)\":0}").replacingOccurrences(of: "[…]", with: "[]")
        let value = try JSONParser.parse(text)
        guard case .object(let members) = value else { throw TestFailure("not an object: \(example)") }
        return members
    }

    static func keys(_ members: [(key: String, value: JSONValue)]) -> [String] { members.map(\.key) }

    /// What one kind of object may and must hold.
    struct KeySet {
        var possible: Set<String>
        var always: Set<String>
    }

    /// Keys of an encoded server message.
    static func encodedKeys(_ message: ServerMessage) throws -> [String] {
        keys(try parse(message.encoded))
    }

    /// The keys of each reply and notification: with an id and every optional part, and without.
    static func messageKeySets() throws -> [String: KeySet] {
        let device = DeviceInfo(id: "event5", name: "x", vendorProduct: "0000:0000", path: "/dev/input/event5", source: .evdev, slots: 1)
        let full = SubscriptionFilter(kinds: [.pan], edges: [.left], fingers: [1], devices: ["event5"], updates: false, appTouches: true)
        let id = JSONValue.integer(1)
        let access = AppTouchAccess.denied(.otherSeatUser(seat: "seat0"))
        let pairs: [(ServerMessage, ServerMessage)] = [
            (.hello(Hello(devices: [device], appTouchAccess: access)), .hello(Hello(devices: []))),
            (.subscribed(id: id, filter: full, appTouchAccess: access), .subscribed(id: nil, filter: .all)),
            (.appTouchAccessChanged(access), .appTouchAccessChanged(.granted(.root))),
            (.unsubscribed(id: id), .unsubscribed(id: nil)),
            (.devices(id: id, devices: [device]), .devices(id: nil, devices: [])),
            (.pong(id: id), .pong(id: nil)),
            (.oriented(id: id, devices: [device]), .oriented(id: nil, devices: [])),
            (.focused(id: id, appID: "foot"), .focused(id: nil, appID: nil)),
            (.excluded(
                id: id, accepted: [RequestedExclusion(edge: .left)],
                refused: [RefusedExclusion(exclusion: RequestedExclusion(edge: .left), reason: .overCap, message: "x")]),
             .excluded(id: nil, accepted: [], refused: [])),
            (.reloaded(id: id, path: "/etc/gestured/gestured.toml"), .reloaded(id: nil, path: "")),
            (.claimed(id: id, holds: [HoldClaim(region: .normalized(x: 0...1, y: 0...1))]), .claimed(id: nil, holds: [])),
            (.error(ProtocolError(.rateLimited, "x", id: id, retryAfter: 0.03, problems: ["f:1:1: x"])), .error(ProtocolError(.invalidRequest, "x"))),
            (.deviceAdded(device), .deviceAdded(device)),
            (.deviceRemoved(device), .deviceRemoved(device)),
            (.deviceChanged(device), .deviceChanged(device)),
            (.explanation(Self.fullExplanation, device: "event5"), .explanation(Explanation(startMicroseconds: 0, endMicroseconds: 0), device: nil)),
        ]
        var sets: [String: KeySet] = [:]
        for (most, least) in pairs {
            let type = try #require(try parse(most.encoded).first { $0.key == "type" }?.value.stringValue)
            sets[type] = KeySet(possible: Set(try encodedKeys(most)), always: Set(try encodedKeys(least)))
        }
        return sets
    }

    /// An explanation with every part the encoder writes.
    static let fullExplanation: Explanation = {
        let landing = Landing(positionMM: Vector2(1, 2), screenSizeMM: (100, 160), zones: [.left])
        return Explanation(
            startMicroseconds: 1, endMicroseconds: 2, fingers: [landing],
            gestures: [ExplainedGesture(kind: .tap, id: 1, fingers: 1, edge: .left, direction: .up, taps: 1, outcome: .committed)],
            reasons: [
                Reason(
                    kind: .edgeSwipe, cause: .excluded, edge: .left, measurements: [Measurement(.distanceFromEdge, 1, key: "edge_swipe.zone_mm", setting: 5)],
                    gestureID: 1, other: .pan, excludedRange: 0...1, exclusionSource: "gestured.toml:3:1", landing: landing, timeMicroseconds: 1)
            ],
            touches: [
                TouchMeasurement(
                    fingers: 1, startMicroseconds: 1, endMicroseconds: 2, landingDistanceMM: SideDistances(left: 1, right: 99, top: 2, bottom: 158),
                    moveAtSlopMM: Vector2(3, 0), measuredAtSlopMM: 3, travelMM: Vector2(30, 1), releaseVelocityMMPerSecond: Vector2(200, 0),
                    maximumMoveMM: 30)
            ])
    }()

    /// A device object: every key the encoder can write, and those the real daemon writes for every
    /// device (its replayed device in `hello`; a device without passthrough and without WL_OUTPUT).
    static func deviceKeySet() throws -> KeySet {
        var full = DeviceInfo(
            id: "event5", name: "x", vendorProduct: "0000:0000", path: "/dev/input/event5", source: .evdev, slots: 1,
            orientation: .clockwise90, virtualPath: "/dev/input/event9", output: "DSI-1",
            size: PanelSize(widthMM: 1, heightMM: 1, source: .resolution))
        full.focusedApp = "foot"
        full.exclusions = [ExclusionInForce(edge: .left, from: 0, to: 0.5, source: "gestured.toml:3:1")]
        full.pointerPath = "/dev/input/event10"
        full.pointerMode = .mouse
        full.replayClock = ReplayClock(speed: 2, offsetMicroseconds: 1)
        full.edgeZones = EdgeZonesInForce(screenWidthMM: 1, screenHeightMM: 1, left: 5, right: 5, top: 5, bottom: 5, cornerSwipes: true)
        let daemon = try Daemon(["--replay", Paths.recordings + "dell_canvas_touch.evemu"])
        let hello = try daemon.connect().hello
        var real = try #require(hello.devices.first)
        // Every replay has a clock; a kernel device has none: not a key every device has.
        #expect(real.replayClock != nil)
        real.replayClock = nil
        guard case .object(let members) = real.json else { throw TestFailure("a device is not an object") }
        return KeySet(possible: Set(keys(try parse(ServerMessage.deviceAdded(full).encoded)[1].value.objectMembers)),
                      always: Set(keys(members)))
    }

    /// Gesture events per "kind:phase": the keys the golden replays hold, in every event and in any, and
    /// the order the encoder writes them in (pairs of keys seen one before the other).
    static func gestureKeySets() throws -> (sets: [String: KeySet], before: Set<[String]>) {
        let golden = GoldenReplayTests.golden
        var sets: [String: KeySet] = [:]
        var before: Set<[String]> = []
        for file in try FileManager.default.contentsOfDirectory(atPath: golden) where file.hasSuffix(".jsonl") {
            let text = try String(contentsOfFile: golden + file, encoding: .utf8)
            for line in text.split(separator: "\n") {
                let members = try parse(String(line))
                let names = keys(members)
                let value = { (key: String) in members.first { $0.key == key }?.value.stringValue ?? "?" }
                let name = value("gesture") + ":" + value("phase")
                let set = Set(names)
                sets[name] = sets[name].map { KeySet(possible: $0.possible.union(set), always: $0.always.intersection(set)) }
                    ?? KeySet(possible: set, always: set)
                for (i, a) in names.enumerated() { for b in names[(i + 1)...] { before.insert([a, b]) } }
            }
        }
        return (sets, before)
    }

    /// Every request type but `devices` (whose reply has the same type), from their one declaration.
    static let requestTypes = Set(RequestType.allCases.map(\.rawValue)).subtracting(["devices"])

    @Test func everyJSONExampleHasTheKeysTheDaemonWrites() throws {
        let text = try String(contentsOfFile: Paths.packageRoot + "/docs/protocol.md", encoding: .utf8)
        let examples = Self.examples(in: text)
        let messages = try Self.messageKeySets()
        let device = try Self.deviceKeySet()
        let gestures = try Self.gestureKeySets()
        var checked: [String: Int] = [:]

        func check(_ what: String, _ members: [(key: String, value: JSONValue)], against set: KeySet, example: String) {
            let names = Set(Self.keys(members))
            let isShortened = names.contains(Self.shortened)
            let stray = names.subtracting(set.possible).subtracting([Self.shortened])
            #expect(stray.isEmpty, "\(what): \(stray.sorted()) is not written by the daemon, in \(example)")
            if !isShortened {
                let missing = set.always.subtracting(names)
                #expect(missing.isEmpty, "\(what): \(missing.sorted()) is always written but missing from \(example)")
            }
        }

        func checkDevices(_ value: JSONValue?, example: String) {
            let items: [JSONValue]
            switch value {
            case .array(let array)?: items = array
            case let object?: items = [object]
            case nil: items = []
            }
            for item in items {
                guard case .object(let members) = item else {
                    Issue.record("a device is not an object in \(example)")
                    continue
                }
                check("device", members, against: device, example: example)
                checked["device", default: 0] += 1
            }
        }

        for example in examples {
            let members = try Self.parse(example)
            let type = try #require(members.first { $0.key == "type" }?.value.stringValue, "\(example)")
            let value = { (key: String) in members.first { $0.key == key }?.value }
            if Self.requestTypes.contains(type) || (type == "devices" && value("devices") == nil) {
                // A request: the daemon's decoder takes it (it refuses keys it does not know).
                if case .failure(let error) = RequestMessage.decode(line: Array(example.utf8)) {
                    Issue.record("the daemon refuses \(example): \(error.message)")
                }
                checked["request " + type, default: 0] += 1
            } else if type == "gesture" {
                let name = (value("gesture")?.stringValue ?? "?") + ":" + (value("phase")?.stringValue ?? "?")
                guard var set = gestures.sets[name] else {
                    Issue.record("no golden replay has a \(name) event to check \(example) against")
                    continue
                }
                set.possible.insert("device")  // the daemon names the device; replay does not
                check(name, members, against: set, example: example)
                let names = Self.keys(members).filter { $0 != Self.shortened }
                for (i, a) in names.enumerated() {
                    for b in names[(i + 1)...] where gestures.before.contains([b, a]) && !gestures.before.contains([a, b]) {
                        Issue.record("\(name): \(a) comes before \(b), which the daemon writes first, in \(example)")
                    }
                }
                checked[name, default: 0] += 1
            } else if let set = messages[type] {
                check(type, members, against: set, example: example)
                if let filter = value("filter"), case .object(let filterMembers) = filter {
                    let full = SubscriptionFilter(kinds: [.pan], edges: [.left], fingers: [1], devices: ["x"], updates: false, appTouches: true, explanations: true)
                    check("filter", filterMembers, against: KeySet(possible: Set(full.jsonMembers.map(\.key)), always: ["updates"]), example: example)
                }
                if type == "error", let code = value("code")?.stringValue {
                    #expect(ProtocolError.Code(rawValue: code) != nil, "unknown error code in \(example)")
                }
                // An explanation's `device` is the device's id, as a gesture event's.
                checkDevices(type == "explanation" ? nil : value("devices") ?? value("device"), example: example)
                checked[type, default: 0] += 1
            } else {
                Issue.record("an example of a message the daemon does not send: \(example)")
            }
        }
        // Every message the daemon sends has an example, and so does every request.
        for type in messages.keys { #expect(checked[type] != nil, "protocol.md has no example of \(type)") }
        for type in Self.requestTypes.union(["devices"]) { #expect(checked["request " + type] != nil, "protocol.md has no \(type) request") }
        #expect(checked["device", default: 0] >= 5)
        #expect(checked.filter { $0.key.contains(":") }.count >= 5, "gesture examples checked: \(checked)")
    }

    /// The checks can fail: a stray key, a missing one and a shortened example each as the test takes them.
    @Test func theKeyCheckCatchesDrift() throws {
        let members = try Self.parse(#"{"type":"pong","id":1,"extra":true,…}"#)
        #expect(Self.keys(members) == ["type", "id", "extra", Self.shortened])
        let sets = try Self.messageKeySets()
        let pong = try #require(sets["pong"])
        #expect(pong.possible == ["type", "id"] && pong.always == ["type"])
        #expect(!pong.possible.isSuperset(of: Set(Self.keys(members)).subtracting([Self.shortened])))
        let gestures = try Self.gestureKeySets()
        let edgeUpdate = try #require(gestures.sets["edge-swipe:update"])
        #expect(edgeUpdate.always.isSuperset(of: ["edge", "edge_position", "progress", "position", "time"]))
        #expect(!edgeUpdate.possible.contains("taps"))
        #expect(gestures.before.contains(["edge", "edge_position"]) && !gestures.before.contains(["edge_position", "edge"]))
        #expect(Self.examples(in: #"text `{"type":"a","b":{"c":"}"}}` more {"type":"d"}"#) == [#"{"type":"a","b":{"c":"}"}}"#, #"{"type":"d"}"#])
    }
}

extension JSONValue {
    /// An object's members; empty for anything else.
    fileprivate var objectMembers: [(key: String, value: JSONValue)] {
        if case .object(let members) = self { return members }
        return []
    }
}
