/// A small JSON object writer with a fixed key order, so every event line is byte-for-byte deterministic
/// (golden tests compare lines) and cheap enough for the daemon's hot path: it appends ASCII bytes to one
/// buffer and makes a String once, with no Unicode-aware string appends per field.
public struct JSONObjectWriter {
    public private(set) var bytes: [UInt8]
    private var first = true

    public init(capacity: Int = 384) {
        bytes = []
        bytes.reserveCapacity(capacity)
        bytes.append(UInt8(ascii: "{"))
    }

    @inline(__always)
    private mutating func key(_ name: StaticString) {
        if first { first = false } else { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        JSONObjectWriter.appendStatic(name, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    public mutating func string(_ name: StaticString, _ value: String) {
        key(name)
        JSONObjectWriter.appendQuoted(value, to: &bytes)
    }

    /// A value known to need no escaping (an enum's raw value, say).
    public mutating func plainString(_ name: StaticString, _ value: StaticString) {
        key(name)
        bytes.append(UInt8(ascii: "\""))
        JSONObjectWriter.appendStatic(value, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    public mutating func optionalString(_ name: StaticString, _ value: String?) {
        if let value { string(name, value) } else { null(name) }
    }

    public mutating func null(_ name: StaticString) {
        key(name)
        JSONObjectWriter.appendStatic("null", to: &bytes)
    }

    public mutating func bool(_ name: StaticString, _ value: Bool) {
        key(name)
        JSONObjectWriter.appendStatic(value ? "true" : "false", to: &bytes)
    }

    public mutating func int(_ name: StaticString, _ value: Int64) {
        key(name)
        JSONObjectWriter.appendInteger(value, to: &bytes)
    }

    public mutating func int(_ name: StaticString, _ value: Int) { int(name, Int64(value)) }

    public mutating func int(_ name: StaticString, _ value: UInt64) {
        key(name)
        JSONObjectWriter.appendUnsigned(value, to: &bytes)
    }

    /// A number written with a fixed count of decimals (trailing zeros trimmed); non-finite values are
    /// written as null, since JSON has no NaN.
    public mutating func number(_ name: StaticString, _ value: Double, decimals: Int) {
        key(name)
        JSONObjectWriter.appendFixed(value, decimals: decimals, to: &bytes)
    }

    /// `{"x":…,"y":…}`
    public mutating func pair(_ name: StaticString, x: Double, y: Double, decimals: Int) {
        key(name)
        JSONObjectWriter.appendStatic("{\"x\":", to: &bytes)
        JSONObjectWriter.appendFixed(x, decimals: decimals, to: &bytes)
        JSONObjectWriter.appendStatic(",\"y\":", to: &bytes)
        JSONObjectWriter.appendFixed(y, decimals: decimals, to: &bytes)
        bytes.append(UInt8(ascii: "}"))
    }

    /// Seconds with six decimals from microseconds, exactly.
    public mutating func seconds(_ name: StaticString, microseconds: Int64) {
        key(name)
        JSONObjectWriter.appendSeconds(microseconds, to: &bytes)
    }

    /// Inserts already-encoded JSON as the value of `name`.
    public mutating func raw(_ name: StaticString, _ json: String) {
        key(name)
        bytes.append(contentsOf: json.utf8)
    }

    /// Closes the object and returns its bytes (UTF-8, no newline).
    public mutating func finishBytes() -> [UInt8] {
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    public mutating func finish() -> String {
        String(decoding: finishBytes(), as: UTF8.self)
    }

    // MARK: - Appending to byte buffers

    @inline(__always)
    static func appendStatic(_ s: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    static func appendUnsigned(_ value: UInt64, to out: inout [UInt8]) {
        if value < 10 {
            out.append(UInt8(ascii: "0") &+ UInt8(value))
            return
        }
        var digits: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)  // room for 20 digits, written backwards
        var count = 0
        var v = value
        withUnsafeMutableBytes(of: &digits) { buf in
            while v > 0 {
                buf[31 - count] = UInt8(ascii: "0") &+ UInt8(v % 10)
                v /= 10
                count += 1
            }
            out.append(contentsOf: buf[(32 - count)...])
        }
    }

    static func appendInteger(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        appendUnsigned(value.magnitude, to: &out)
    }

    /// Microseconds as seconds with exactly six decimals ("12.000340"; "-1.500000").
    static func appendSeconds(_ microseconds: Int64, to out: inout [UInt8]) {
        if microseconds < 0 { out.append(UInt8(ascii: "-")) }
        let m = microseconds.magnitude
        appendUnsigned(m / 1_000_000, to: &out)
        out.append(UInt8(ascii: "."))
        var frac = m % 1_000_000
        var divisor: UInt64 = 100_000
        while divisor > 0 {
            out.append(UInt8(ascii: "0") &+ UInt8(frac / divisor))
            frac %= divisor
            divisor /= 10
        }
    }

    /// Appends `value` as a JSON string literal, escaping quotes, backslashes and control characters.
    public static func appendQuoted(_ value: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for u in value.utf8 {
            switch u {
            case UInt8(ascii: "\""): appendStatic("\\\"", to: &out)
            case UInt8(ascii: "\\"): appendStatic("\\\\", to: &out)
            case UInt8(ascii: "\n"): appendStatic("\\n", to: &out)
            case UInt8(ascii: "\r"): appendStatic("\\r", to: &out)
            case UInt8(ascii: "\t"): appendStatic("\\t", to: &out)
            case 0..<0x20:
                appendStatic("\\u00", to: &out)
                let hex: StaticString = "0123456789abcdef"
                out.append(hex.utf8Start[Int(u >> 4)])
                out.append(hex.utf8Start[Int(u & 0xf)])
            default:
                out.append(u)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static let powersOfTen: [Double] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000]

    /// Appends `value` rounded to `decimals` places (0...7), without exponent and with trailing zeros
    /// trimmed: 1.5 -> "1.5", 2 -> "2", -0.00001 (4 decimals) -> "0".
    public static func appendFixed(_ value: Double, decimals: Int, to out: inout [UInt8]) {
        guard value.isFinite else {
            appendStatic("null", to: &out)
            return
        }
        let places = min(max(decimals, 0), powersOfTen.count - 1)
        let scale = powersOfTen[places]
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9.0e15 else {
            // Too large for exact fixed-point: Swift's shortest round-trip form is still valid JSON.
            out.append(contentsOf: String(value).utf8)
            return
        }
        var units = UInt64(scaled)
        if units == 0 {
            out.append(UInt8(ascii: "0"))
            return
        }
        if value < 0 { out.append(UInt8(ascii: "-")) }
        let divisor = UInt64(scale)
        appendUnsigned(units / divisor, to: &out)
        units %= divisor
        if units == 0 { return }
        var digits = places
        while units % 10 == 0 {
            units /= 10
            digits -= 1
        }
        out.append(UInt8(ascii: "."))
        // Leading zeros of the fraction, then its digits.
        var width = 1
        var probe = units
        while probe >= 10 {
            probe /= 10
            width += 1
        }
        for _ in width..<digits { out.append(UInt8(ascii: "0")) }
        appendUnsigned(units, to: &out)
    }

    // MARK: - String conveniences (readable output, tests)

    public static func appendFixed(_ value: Double, decimals: Int, to out: inout String) {
        var bytes: [UInt8] = []
        appendFixed(value, decimals: decimals, to: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }

    public static func appendQuoted(_ value: String, to out: inout String) {
        var bytes: [UInt8] = []
        appendQuoted(value, to: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }
}
