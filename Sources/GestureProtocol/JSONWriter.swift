/// A small, allocation-light JSON object writer with a fixed key order, so every event line is
/// byte-for-byte deterministic (golden tests compare lines) and cheap enough for the daemon's hot path.
public struct JSONObjectWriter {
    public private(set) var text: String
    private var first = true

    public init(capacity: Int = 256) {
        text = "{"
        text.reserveCapacity(capacity)
    }

    private mutating func key(_ name: String) {
        if first { first = false } else { text += "," }
        text += "\""
        text += name
        text += "\":"
    }

    public mutating func string(_ name: String, _ value: String) {
        key(name)
        JSONObjectWriter.appendQuoted(value, to: &text)
    }

    public mutating func optionalString(_ name: String, _ value: String?) {
        if let value { string(name, value) } else { null(name) }
    }

    public mutating func null(_ name: String) {
        key(name)
        text += "null"
    }

    public mutating func bool(_ name: String, _ value: Bool) {
        key(name)
        text += value ? "true" : "false"
    }

    public mutating func int<I: BinaryInteger>(_ name: String, _ value: I) {
        key(name)
        text += String(value)
    }

    /// A number written with a fixed count of decimals (trailing zeros trimmed); non-finite values are
    /// written as null, since JSON has no NaN.
    public mutating func number(_ name: String, _ value: Double, decimals: Int) {
        key(name)
        JSONObjectWriter.appendFixed(value, decimals: decimals, to: &text)
    }

    /// `{"x":…,"y":…}`
    public mutating func pair(_ name: String, x: Double, y: Double, decimals: Int) {
        key(name)
        text += "{\"x\":"
        JSONObjectWriter.appendFixed(x, decimals: decimals, to: &text)
        text += ",\"y\":"
        JSONObjectWriter.appendFixed(y, decimals: decimals, to: &text)
        text += "}"
    }

    /// Inserts already-encoded JSON as the value of `name`.
    public mutating func raw(_ name: String, _ json: String) {
        key(name)
        text += json
    }

    public mutating func finish() -> String {
        text += "}"
        return text
    }

    /// Appends `value` as a JSON string literal, escaping quotes, backslashes and control characters.
    public static func appendQuoted(_ value: String, to out: inout String) {
        out += "\""
        var needsEscape = false
        for u in value.utf8 where u < 0x20 || u == 0x22 || u == 0x5c {
            needsEscape = true
            break
        }
        if !needsEscape {
            out += value
        } else {
            for scalar in value.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                default:
                    if scalar.value < 0x20 {
                        let hex = String(scalar.value, radix: 16)
                        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                    } else {
                        out.unicodeScalars.append(scalar)
                    }
                }
            }
        }
        out += "\""
    }

    private static let powersOfTen: [Double] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000]

    /// Appends `value` rounded to `decimals` places (0...7), without exponent and with trailing zeros
    /// trimmed: 1.5 -> "1.5", 2 -> "2", -0.00001 (4 decimals) -> "0".
    public static func appendFixed(_ value: Double, decimals: Int, to out: inout String) {
        guard value.isFinite else {
            out += "null"
            return
        }
        let places = min(max(decimals, 0), powersOfTen.count - 1)
        let scale = powersOfTen[places]
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9.0e15 else {
            // Too large for exact fixed-point: Swift's shortest round-trip form is still valid JSON.
            out += String(value)
            return
        }
        var units = Int64(scaled)
        if units == 0 {
            out += "0"
            return
        }
        if value < 0 { out += "-" }
        let divisor = Int64(scale)
        let whole = units / divisor
        units %= divisor
        out += String(whole)
        if units == 0 { return }
        var digits = places
        while units % 10 == 0 {
            units /= 10
            digits -= 1
        }
        let frac = String(units)
        out += "."
        if frac.count < digits { out += String(repeating: "0", count: digits - frac.count) }
        out += frac
    }
}
