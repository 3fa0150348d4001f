import DecimalText
import GestureVocabulary

/// Reads the gesture event objects `GestureEventJSON` writes back into `GestureEvent`s, for clients.
/// Unknown keys are ignored; a missing or mistyped required field is an error naming it.
public enum GestureEventDecoding {
    /// The `type` of gesture event lines.
    public static let typeName = "gesture"

    /// The event in `value` when its type is `gesture`; nil for other types.
    public static func decode(_ value: JSONValue, type: String) throws(ProtocolDecodingError) -> DeviceGestureEvent? {
        guard type == typeName else { return nil }
        func field(_ key: String) throws(ProtocolDecodingError) -> JSONValue {
            guard let v = value[key] else { throw ProtocolDecodingError("gesture event has no \"\(key)\"") }
            return v
        }
        func string(_ key: String) throws(ProtocolDecodingError) -> String {
            let v = try field(key)
            guard let s = v.stringValue else {
                throw ProtocolDecodingError("gesture event \"\(key)\" is \(v.typeNameWithArticle), not a string")
            }
            return s
        }
        func vector(_ key: String) throws(ProtocolDecodingError) -> Vector2 {
            let v = try field(key)
            guard let x = v["x"]?.doubleValue, let y = v["y"]?.doubleValue else {
                throw ProtocolDecodingError("gesture event \"\(key)\" is not an object with numbers x and y")
            }
            return Vector2(x, y)
        }
        func optionalNumber(_ key: String) throws(ProtocolDecodingError) -> Double? {
            guard let v = value[key], v != .null else { return nil }
            guard let d = v.doubleValue else {
                throw ProtocolDecodingError("gesture event \"\(key)\" is \(v.typeNameWithArticle), not a number")
            }
            return d
        }

        let kindText = try string("gesture")
        guard let kind = GestureKind(rawValue: kindText) else {
            throw ProtocolDecodingError("unknown gesture \"\(kindText)\"")
        }
        let phaseText = try string("phase")
        guard let phase = GesturePhase(rawValue: phaseText) else {
            throw ProtocolDecodingError("unknown gesture phase \"\(phaseText)\"")
        }
        let idValue = try field("id")
        guard case .number(let idText) = idValue, let id = UInt64(idText) else {
            throw ProtocolDecodingError("gesture event \"id\" is not a whole number")
        }
        let timeValue = try field("time")
        guard case .number(let timeText) = timeValue, let time = microseconds(fromSeconds: timeText) else {
            throw ProtocolDecodingError("gesture event \"time\" is not a number of seconds")
        }
        guard let fingers = try field("fingers").intValue else {
            throw ProtocolDecodingError("gesture event \"fingers\" is not a whole number")
        }
        var event = GestureEvent(kind: kind, phase: phase, id: id, timeMicroseconds: time, fingers: fingers)
        if let edgeText = value["edge"]?.stringValue {
            guard let edge = Edge(rawValue: edgeText) else { throw ProtocolDecodingError("unknown edge \"\(edgeText)\"") }
            event.edge = edge
        }
        event.edgePosition = try optionalNumber("edge_position")
        if let startText = value["start_edge"]?.stringValue {
            guard let edge = Edge(rawValue: startText) else { throw ProtocolDecodingError("unknown edge \"\(startText)\"") }
            event.startEdge = edge
        }
        if let tapsValue = value["taps"], tapsValue != .null {
            guard let taps = tapsValue.intValue else {
                throw ProtocolDecodingError("gesture event \"taps\" is not a whole number")
            }
            event.taps = taps
        }
        event.committed = value["committed"]?.boolValue
        if let directionText = value["direction"]?.stringValue {
            guard let direction = SwipeDirection(rawValue: directionText) else {
                throw ProtocolDecodingError("unknown direction \"\(directionText)\"")
            }
            event.direction = direction
        }
        event.position = try vector("position")
        event.positionMM = try vector("position_mm")
        event.translation = try vector("translation")
        event.translationMM = try vector("translation_mm")
        event.velocityMMPerSecond = try vector("velocity_mm_s")
        event.progress = try optionalNumber("progress")
        event.scale = try optionalNumber("scale")
        event.rotationDegrees = try optionalNumber("rotation")
        event.spanMM = try optionalNumber("span_mm")
        return DeviceGestureEvent(event: event, device: value["device"]?.stringValue)
    }

    /// Exact microseconds from a JSON number of seconds such as "12.345678" (no floating-point rounding
    /// for the fixed-point form the daemon writes; other forms go through Double).
    static func microseconds(fromSeconds text: String) -> Int64? {
        var utf8 = text
        if let exact = utf8.withUTF8({ DecimalScanner.fixedPoint($0, fractionDigits: 6) }) { return exact }
        guard let seconds = Double(text), seconds.isFinite, abs(seconds) < 9e12 else { return nil }
        return Int64((seconds * 1_000_000).rounded())
    }
}
