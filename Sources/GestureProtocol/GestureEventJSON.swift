import GestureVocabulary

/// The JSON encoding of gesture events: one object per line, the same objects `gesturectl replay` prints
/// and the daemon publishes (docs/protocol.md, "Gesture events", is the contract).
public enum GestureEventJSON {
    /// Decimals per field: normalised values to 1e-5 (0.02 mm on a 2 m panel), millimetres to 0.01 mm,
    /// time to the microsecond, angles to 0.01°.
    static let normalisedDecimals = 5
    static let millimetreDecimals = 2

    /// Seconds with six decimals, from microseconds, exactly (no floating-point rounding).
    public static func seconds(_ microseconds: Int64) -> String {
        var bytes: [UInt8] = []
        JSONObjectWriter.appendSeconds(microseconds, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// One line of JSON (without the newline). `device` is the daemon's device id; replay passes nil.
    public static func encode(_ e: GestureEvent, device: String? = nil) -> String {
        var w = JSONObjectWriter()
        write(e, device: device, to: &w)
        return w.finish()
    }

    /// The same line and a newline into `buffer` (replacing what it held), with no allocation once the
    /// buffer has grown to a line's size: how the daemon encodes each event, once for all its clients.
    /// Returns the line, in the buffer's memory: valid until the buffer is written again or released.
    @discardableResult
    public static func encode(_ e: GestureEvent, device: String?, into buffer: JSONLineBuffer) -> UnsafeRawBufferPointer {
        var idRange = 0..<0
        return encode(e, device: device, into: buffer, idRange: &idRange)
    }

    /// As `encode(_:device:into:)`, and where in the line the `id`'s digits are (`idRange`), so that the
    /// daemon can give each client its own id for the gesture without encoding the line again.
    public static func encode(_ e: GestureEvent, device: String?, into buffer: JSONLineBuffer, idRange: inout Range<Int>)
        -> UnsafeRawBufferPointer
    {
        var w = JSONObjectWriter(into: buffer)
        idRange = write(e, device: device, to: &w)
        return w.finish(newline: true)
    }

    /// The common fields, and those the event's kind declares, each in its place (EventFields.swift).
    /// Returns where the id's digits are.
    @discardableResult
    private static func write(_ e: GestureEvent, device: String?, to w: inout JSONObjectWriter) -> Range<Int> {
        let declared = e.kind.descriptor
        w.plainString("type", "gesture")
        if let kind = name(e.kind) { w.plainString("gesture", kind) } else { w.string("gesture", e.kind.rawValue) }
        w.plainString("phase", name(e.phase))
        w.int("id", e.id)
        var digits = 1
        var rest = e.id / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        let idRange = (w.byteCount - digits)..<w.byteCount
        w.seconds("time", microseconds: e.timeMicroseconds)
        w.int("fingers", e.fingers)
        if let device { w.string("device", device) }
        for field in declared.beforeCommitted { write(field, of: e, to: &w) }
        if let committed = e.committed { w.bool("committed", committed) }
        if e.phase == .end {
            for field in declared.atEnd { write(field, of: e, to: &w) }
        }
        w.pair("position", x: e.position.x, y: e.position.y, decimals: normalisedDecimals)
        w.pair("position_mm", x: e.positionMM.x, y: e.positionMM.y, decimals: millimetreDecimals)
        w.pair("translation", x: e.translation.x, y: e.translation.y, decimals: normalisedDecimals)
        w.pair("translation_mm", x: e.translationMM.x, y: e.translationMM.y, decimals: millimetreDecimals)
        w.pair(
            "velocity_mm_s", x: e.velocityMMPerSecond.x, y: e.velocityMMPerSecond.y,
            decimals: millimetreDecimals)
        for field in declared.afterMotion { write(field, of: e, to: &w) }
        return idRange
    }

    /// One declared field: absent when the event does not carry it, except at the end, where a field
    /// known only then is null (a pan's direction when it has none).
    private static func write(_ field: EventField, of e: GestureEvent, to w: inout JSONObjectWriter) {
        switch e[field] {
        case .edge(let v)?: w.plainString(field.key, name(v))
        case .direction(let v)?: w.plainString(field.key, name(v))
        case .integer(let v)?: w.int(field.key, v)
        case .number(let v)?: w.number(field.key, v, decimals: field.decimals)
        case .flag(let v)?: w.bool(field.key, v)
        case nil: if field.place == .atEnd { w.null(field.key) }
        }
    }

    // The wire names, as static strings (they equal the enums' raw values; a test checks it). A kind's name
    // is its own static string, written as it is unless it needs escaping (a name a rule outside
    // GestureCore chose may hold anything): then nil, and the raw value is written escaped.
    static func name(_ k: GestureKind) -> StaticString? {
        let plain = k.name.withUTF8Buffer { bytes in
            !bytes.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 >= 0x7f }
        }
        return plain ? k.name : nil
    }

    static func name(_ p: GesturePhase) -> StaticString {
        switch p {
        case .begin: return "begin"
        case .update: return "update"
        case .end: return "end"
        case .cancel: return "cancel"
        }
    }

    static func name(_ e: Edge) -> StaticString {
        switch e {
        case .left: return "left"
        case .right: return "right"
        case .top: return "top"
        case .bottom: return "bottom"
        case .topLeft: return "top-left"
        case .topRight: return "top-right"
        case .bottomLeft: return "bottom-left"
        case .bottomRight: return "bottom-right"
        }
    }

    static func name(_ d: SwipeDirection) -> StaticString {
        switch d {
        case .up: return "up"
        case .down: return "down"
        case .left: return "left"
        case .right: return "right"
        case .upLeft: return "up-left"
        case .upRight: return "up-right"
        case .downLeft: return "down-left"
        case .downRight: return "down-right"
        }
    }
}
