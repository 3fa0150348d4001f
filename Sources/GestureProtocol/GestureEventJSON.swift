import GestureCore

/// The JSON encoding of gesture events: one object per line, the same objects `gesturectl replay` prints
/// and the daemon publishes (docs/protocol.md, "Gesture events", is the contract).
public enum GestureEventJSON {
    /// Decimals per field: normalised values to 1e-5 (0.02 mm on a 2 m panel), millimetres to 0.01 mm,
    /// time to the microsecond, angles to 0.01°.
    static let normalisedDecimals = 5
    static let millimetreDecimals = 2

    /// Seconds with six decimals, from microseconds, exactly (no floating-point rounding).
    public static func seconds(_ microseconds: Int64) -> String {
        let negative = microseconds < 0
        let magnitude = microseconds.magnitude
        let whole = magnitude / 1_000_000
        let frac = String(magnitude % 1_000_000)
        return (negative ? "-" : "") + String(whole) + "." + String(repeating: "0", count: 6 - frac.count) + frac
    }

    /// One line of JSON (without the newline). `device` is the daemon's device name; replay passes nil.
    public static func encode(_ e: GestureEvent, device: String? = nil) -> String {
        var w = JSONObjectWriter()
        w.string("type", "gesture")
        w.string("gesture", e.kind.rawValue)
        w.string("phase", e.phase.rawValue)
        w.int("id", e.id)
        w.raw("time", seconds(e.timeMicroseconds))
        w.int("fingers", e.fingers)
        if let device { w.string("device", device) }
        if let edge = e.edge { w.string("edge", edge.rawValue) }
        if let committed = e.committed { w.bool("committed", committed) }
        if e.kind == .pan && e.phase == .end { w.optionalString("direction", e.direction?.rawValue) }
        w.pair("position", x: e.position.x, y: e.position.y, decimals: normalisedDecimals)
        w.pair("position_mm", x: e.positionMM.x, y: e.positionMM.y, decimals: millimetreDecimals)
        w.pair("translation", x: e.translation.x, y: e.translation.y, decimals: normalisedDecimals)
        w.pair("translation_mm", x: e.translationMM.x, y: e.translationMM.y, decimals: millimetreDecimals)
        w.pair(
            "velocity_mm_s", x: e.velocityMMPerSecond.x, y: e.velocityMMPerSecond.y,
            decimals: millimetreDecimals)
        if let progress = e.progress { w.number("progress", progress, decimals: normalisedDecimals) }
        if let scale = e.scale { w.number("scale", scale, decimals: normalisedDecimals) }
        if let rotation = e.rotationDegrees { w.number("rotation", rotation, decimals: 2) }
        if let span = e.spanMM { w.number("span_mm", span, decimals: millimetreDecimals) }
        return w.finish()
    }
}
