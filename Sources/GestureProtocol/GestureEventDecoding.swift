import PlainText
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
        event.committed = value["committed"]?.boolValue
        for declared in kind.fields {
            guard let v = value[declared.name], v != .null else { continue }
            event[declared] = try fieldValue(v, of: declared)
        }
        event.position = try vector("position")
        event.positionMM = try vector("position_mm")
        event.translation = try vector("translation")
        event.translationMM = try vector("translation_mm")
        event.velocityMMPerSecond = try vector("velocity_mm_s")
        return DeviceGestureEvent(event: event, device: value["device"]?.stringValue)
    }

    /// A declared field's value, as its storage holds it.
    static func fieldValue(_ v: JSONValue, of field: EventField) throws(ProtocolDecodingError) -> EventFieldValue {
        func names<T: RawRepresentable>(_ make: (T) -> EventFieldValue, what: String) throws(ProtocolDecodingError) -> EventFieldValue
        where T.RawValue == String {
            guard let text = v.stringValue else {
                throw ProtocolDecodingError("gesture event \"\(field.name)\" is \(v.typeNameWithArticle), not a string")
            }
            guard let named = T(rawValue: text) else { throw ProtocolDecodingError("unknown \(what) \"\(text)\"") }
            return make(named)
        }
        func number() throws(ProtocolDecodingError) -> Double {
            guard let d = v.doubleValue else {
                throw ProtocolDecodingError("gesture event \"\(field.name)\" is \(v.typeNameWithArticle), not a number")
            }
            return d
        }
        func integer() throws(ProtocolDecodingError) -> Int {
            guard let i = v.intValue else { throw ProtocolDecodingError("gesture event \"\(field.name)\" is not a whole number") }
            return i
        }
        switch field.storage {
        case .edge, .startEdge: return try names(EventFieldValue.edge, what: "edge")
        case .direction: return try names(EventFieldValue.direction, what: "direction")
        case .taps, .extra(_, .integer): return .integer(try integer())
        case .edgePosition, .progress, .scale, .rotationDegrees, .spanMM, .extra(_, .number): return .number(try number())
        case .extra(_, .flag):
            guard let b = v.boolValue else {
                throw ProtocolDecodingError("gesture event \"\(field.name)\" is \(v.typeNameWithArticle), not true or false")
            }
            return .flag(b)
        }
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
