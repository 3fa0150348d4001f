import GestureVocabulary
import PlainText

/// An explanation (`Explanation`: one touch sequence, where its fingers landed, what it became and why the
/// other kinds did not happen) as the daemon sends it to clients that subscribed with `explanations`, and
/// as `gesturectl explain --json` prints it: one JSON object, `"type":"explanation"` (docs/protocol.md,
/// "Explanations").
public enum ExplanationJSON {
    public static let typeName = "explanation"

    /// One line of JSON, without the newline; `device` is the device's id (the daemon's), nil offline.
    public static func encode(_ x: Explanation, device: String? = nil) -> String {
        var members: [(key: String, value: JSONValue)] = [("type", .string(typeName))]
        if let device { members.append(("device", .string(device))) }
        members += [
            ("start", time(x.startMicroseconds)),
            ("end", time(x.endMicroseconds)),
            ("fingers", .array(x.fingers.map(landing))),
            ("gestures", .array(x.gestures.map(gesture))),
            ("reasons", .array(x.reasons.map(reason))),
            ("touches", .array(x.touches.map(touch))),
        ]
        if x.fingersAlreadyDown > 0 { members.append(("fingers_already_down", .integer(x.fingersAlreadyDown))) }
        if !x.unlisted.isEmpty { members.append(("unlisted", unlisted(x.unlisted))) }
        return JSONValue.object(members).serialized
    }

    /// Reads an `explanation` object back (a client of the daemon's stream); nil when it is not one.
    /// Unknown causes, quantities and keys are skipped, so a client keeps working with a newer daemon.
    public static func decode(_ value: JSONValue) -> (explanation: Explanation, device: String?)? {
        guard value["type"]?.stringValue == typeName, let start = microseconds(value["start"]), let end = microseconds(value["end"]) else {
            return nil
        }
        let fingers = (value["fingers"]?.arrayValue ?? []).compactMap(decodeLanding)
        let gestures = (value["gestures"]?.arrayValue ?? []).compactMap(decodeGesture)
        let reasons = (value["reasons"]?.arrayValue ?? []).compactMap(decodeReason)
        let touches = (value["touches"]?.arrayValue ?? []).compactMap(decodeTouch)
        return (
            Explanation(
                startMicroseconds: start, endMicroseconds: end, fingers: fingers, gestures: gestures, reasons: reasons, touches: touches,
                fingersAlreadyDown: max(0, value["fingers_already_down"]?.intValue ?? 0), unlisted: decodeUnlisted(value["unlisted"])),
            value["device"]?.stringValue
        )
    }

    // MARK: Encoding

    static func time(_ microseconds: Int64) -> JSONValue {
        let sign = microseconds < 0 ? "-" : ""
        let m = microseconds.magnitude
        let fraction = String(m % 1_000_000)
        return .number(sign + String(m / 1_000_000) + "." + String(repeating: "0", count: 6 - fraction.count) + fraction)
    }

    /// A measured value to 1e-4 (more than any reason prints), without trailing zeros.
    static func value(_ d: Double) -> JSONValue {
        guard d.isFinite else { return .null }
        var s = NumberText.fixed(d, decimals: 4)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return .number(s == "-0" ? "0" : s)
    }

    static func landing(_ l: Landing) -> JSONValue {
        .object([
            ("position_mm", .object([("x", value(l.positionMM.x)), ("y", value(l.positionMM.y))])),
            (
                "from_edges_mm",
                .object([
                    ("left", value(l.fromLeftMM)), ("right", value(l.fromRightMM)), ("top", value(l.fromTopMM)),
                    ("bottom", value(l.fromBottomMM)),
                ])
            ),
            ("zones", .array(l.zones.map { .string($0.rawValue) })),
        ])
    }

    static func vector(_ v: Vector2) -> JSONValue { .object([("x", value(v.x)), ("y", value(v.y))]) }

    /// One touch's measurements (`TouchMeasurement`).
    static func touch(_ t: TouchMeasurement) -> JSONValue {
        let d = t.landingDistanceMM
        var members: [(key: String, value: JSONValue)] = [
            ("fingers", .integer(t.fingers)), ("start", time(t.startMicroseconds)), ("end", time(t.endMicroseconds)),
            ("landed_mm", .object([("left", value(d.left)), ("right", value(d.right)), ("top", value(d.top)), ("bottom", value(d.bottom))])),
            ("slop_mm", value(t.measuredAtSlopMM)),
        ]
        if let move = t.moveAtSlopMM { members.append(("move_at_slop_mm", vector(move))) }
        members += [
            ("travel_mm", vector(t.travelMM)), ("release_velocity_mm_per_s", vector(t.releaseVelocityMMPerSecond)),
            ("maximum_move_mm", value(t.maximumMoveMM)),
        ]
        return .object(members)
    }

    static func gesture(_ g: ExplainedGesture) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("gesture", .string(g.kind.rawValue)), ("id", .integer(g.id)), ("fingers", .integer(g.fingers)),
        ]
        if let edge = g.edge { members.append(("edge", .string(edge.rawValue))) }
        if let taps = g.taps { members.append(("taps", .integer(taps))) }
        if let direction = g.direction { members.append(("direction", .string(direction.rawValue))) }
        members.append(("outcome", .string(g.outcome.rawValue)))
        if g.beganBeforeExplaining { members.append(("began_before_explaining", .bool(true))) }
        return .object(members)
    }

    /// What the lists leave out: counts, and the gestures by kind and outcome.
    static func unlisted(_ u: Unlisted) -> JSONValue {
        .object([
            ("fingers", .integer(u.fingers)),
            (
                "gestures",
                .array(
                    u.gestures.map {
                        .object([("gesture", .string($0.kind.rawValue)), ("outcome", .string($0.outcome.rawValue)), ("count", .integer($0.count))])
                    })
            ),
            ("touches", .integer(u.touches)),
            ("reasons", .integer(u.reasons)),
        ])
    }

    static func reason(_ r: Reason) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = []
        if let kind = r.kind { members.append(("gesture", .string(kind.rawValue))) }
        if let id = r.gestureID { members.append(("id", .integer(id))) }
        members.append(("cause", .string(r.cause.rawValue)))
        if let edge = r.edge { members.append(("edge", .string(edge.rawValue))) }
        if let other = r.other { members.append(("other", .string(other.rawValue))) }
        members.append(
            (
                "measurements",
                .array(
                    r.measurements.map { m in
                        .object([
                            ("quantity", .string(m.quantity.rawValue)), ("value", value(m.value)), ("unit", .string(m.quantity.unitName)),
                            ("key", .string(m.key)), ("setting", value(m.setting)),
                        ])
                    })
            ))
        if let range = r.excludedRange {
            var excluded: [(String, JSONValue)] = [("from", value(range.lowerBound)), ("to", value(range.upperBound))]
            if let source = r.exclusionSource { excluded.append(("source", .string(source))) }
            members.append(("excluded", .object(excluded)))
        }
        if let landing = r.landing { members.append(("landing", self.landing(landing))) }
        members.append(("time", time(r.timeMicroseconds)))
        members.append(("text", .string(r.description)))
        return .object(members)
    }

    // MARK: Decoding

    /// A time in seconds, as event times are read (`GestureEventDecoding.microseconds(fromSeconds:)`): nil
    /// for a number that is no time (one past Int64's microseconds, found by fuzzing, trapped here once).
    static func microseconds(_ v: JSONValue?) -> Int64? {
        guard case .number(let text)? = v else { return nil }
        return GestureEventDecoding.microseconds(fromSeconds: text)
    }

    static func decodeLanding(_ v: JSONValue) -> Landing? {
        guard let x = v["position_mm"]?["x"]?.doubleValue, let y = v["position_mm"]?["y"]?.doubleValue, let edges = v["from_edges_mm"],
            let left = edges["left"]?.doubleValue, let right = edges["right"]?.doubleValue, let top = edges["top"]?.doubleValue,
            let bottom = edges["bottom"]?.doubleValue
        else { return nil }
        let zones = (v["zones"]?.arrayValue ?? []).compactMap { $0.stringValue.flatMap(Edge.init(rawValue:)) }
        return Landing(positionMM: Vector2(x, y), fromLeftMM: left, fromRightMM: right, fromTopMM: top, fromBottomMM: bottom, zones: zones)
    }

    static func decodeVector(_ v: JSONValue?) -> Vector2? {
        guard let x = v?["x"]?.doubleValue, let y = v?["y"]?.doubleValue else { return nil }
        return Vector2(x, y)
    }

    static func decodeTouch(_ v: JSONValue) -> TouchMeasurement? {
        guard let fingers = v["fingers"]?.intValue, let start = microseconds(v["start"]), let end = microseconds(v["end"]),
            let landed = v["landed_mm"], let left = landed["left"]?.doubleValue, let right = landed["right"]?.doubleValue,
            let top = landed["top"]?.doubleValue, let bottom = landed["bottom"]?.doubleValue, let slop = v["slop_mm"]?.doubleValue,
            let travel = decodeVector(v["travel_mm"]), let velocity = decodeVector(v["release_velocity_mm_per_s"]),
            let maximum = v["maximum_move_mm"]?.doubleValue
        else { return nil }
        return TouchMeasurement(
            fingers: fingers, startMicroseconds: start, endMicroseconds: end,
            landingDistanceMM: SideDistances(left: left, right: right, top: top, bottom: bottom), moveAtSlopMM: decodeVector(v["move_at_slop_mm"]),
            measuredAtSlopMM: slop, travelMM: travel, releaseVelocityMMPerSecond: velocity, maximumMoveMM: maximum)
    }

    static func decodeGesture(_ v: JSONValue) -> ExplainedGesture? {
        guard let kind = v["gesture"]?.stringValue.flatMap(GestureKind.init(rawValue:)), let id = v["id"]?.intValue,
            let fingers = v["fingers"]?.intValue, let outcome = v["outcome"]?.stringValue.flatMap(ExplainedGesture.Outcome.init(rawValue:))
        else { return nil }
        return ExplainedGesture(
            kind: kind, id: UInt64(max(id, 0)), fingers: fingers, edge: v["edge"]?.stringValue.flatMap(Edge.init(rawValue:)),
            direction: v["direction"]?.stringValue.flatMap(SwipeDirection.init(rawValue:)), taps: v["taps"]?.intValue, outcome: outcome,
            beganBeforeExplaining: v["began_before_explaining"]?.boolValue ?? false)
    }

    static func decodeUnlisted(_ v: JSONValue?) -> Unlisted {
        guard let v else { return Unlisted() }
        let gestures = (v["gestures"]?.arrayValue ?? []).compactMap { g -> GestureTally? in
            guard let kind = g["gesture"]?.stringValue.flatMap(GestureKind.init(rawValue:)),
                let outcome = g["outcome"]?.stringValue.flatMap(ExplainedGesture.Outcome.init(rawValue:)), let count = g["count"]?.intValue, count > 0
            else { return nil }
            return GestureTally(kind: kind, outcome: outcome, count: count)
        }
        return Unlisted(
            fingers: max(0, v["fingers"]?.intValue ?? 0), gestures: gestures, touches: max(0, v["touches"]?.intValue ?? 0),
            reasons: max(0, v["reasons"]?.intValue ?? 0))
    }

    static func decodeReason(_ v: JSONValue) -> Reason? {
        guard let cause = v["cause"]?.stringValue.flatMap(ReasonCause.init(rawValue:)) else { return nil }
        let measurements = (v["measurements"]?.arrayValue ?? []).compactMap { m -> Measurement? in
            guard let q = m["quantity"]?.stringValue.flatMap(Quantity.init(rawValue:)), let value = m["value"]?.doubleValue,
                let key = m["key"]?.stringValue, let setting = m["setting"]?.doubleValue
            else { return nil }
            return Measurement(q, value, key: key, setting: setting)
        }
        var range: ClosedRange<Double>?
        if let from = v["excluded"]?["from"]?.doubleValue, let to = v["excluded"]?["to"]?.doubleValue, from <= to { range = from...to }
        return Reason(
            kind: v["gesture"]?.stringValue.flatMap(GestureKind.init(rawValue:)), cause: cause,
            edge: v["edge"]?.stringValue.flatMap(Edge.init(rawValue:)), measurements: measurements,
            gestureID: v["id"]?.intValue.map { UInt64(max($0, 0)) }, other: v["other"]?.stringValue.flatMap(GestureKind.init(rawValue:)),
            excludedRange: range, exclusionSource: v["excluded"]?["source"]?.stringValue, landing: v["landing"].flatMap(decodeLanding), timeMicroseconds: microseconds(v["time"]) ?? 0)
    }
}
