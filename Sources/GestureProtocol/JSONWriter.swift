/// Memory a JSON line is written into, kept from line to line: the daemon encodes every gesture event
/// into its one buffer, so an event costs no allocation. It grows (doubling) when a line needs more.
public final class JSONLineBuffer {
    fileprivate var base: UnsafeMutablePointer<UInt8>
    fileprivate var capacity: Int

    public init(capacity: Int = 512) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// Room for at least `needed` bytes, keeping the first `used`.
    fileprivate func grow(toHold needed: Int, keeping used: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: used)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }
}

/// A small JSON object writer with a fixed key order, so every event line is byte-for-byte deterministic
/// (golden tests compare lines) and cheap enough for the daemon's hot path: it stores ASCII bytes through
/// a pointer into a `JSONLineBuffer`, checking the room once per field rather than once per byte, and
/// formats numbers with integer arithmetic (no String, no Foundation). Not copyable: two writers never
/// write into one buffer.
public struct JSONObjectWriter: ~Copyable {
    private let buffer: JSONLineBuffer
    // The buffer's pointer and size, held here while writing so that the loop stores bytes without
    // going through the class (and its exclusivity checks) for each one.
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var count = 0
    private var first = true

    /// Most bytes one number takes: Int64.min, UInt64.max, or a Double's shortest form
    /// ("-2.2250738585072014e-308", 24).
    static let maximumNumberBytes = 32

    /// Starts an object at the beginning of `buffer`, replacing the line it held.
    public init(into buffer: JSONLineBuffer) {
        self.buffer = buffer
        base = buffer.base
        capacity = buffer.capacity
        base[0] = UInt8(ascii: "{")
        count = 1
    }

    /// Starts an object in a buffer of its own.
    public init(capacity: Int = 512) {
        self.init(into: JSONLineBuffer(capacity: capacity))
    }

    /// Makes sure `extra` more bytes fit.
    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        if count + extra > capacity {
            buffer.grow(toHold: count + extra, keeping: count)
            base = buffer.base
            capacity = buffer.capacity
        }
    }

    @inline(__always)
    private mutating func put(_ byte: UInt8) {
        base[count] = byte
        count += 1
    }

    /// Copies a static string; the caller reserved the room.
    @inline(__always)
    private mutating func put(_ s: StaticString) {
        (base + count).update(from: s.utf8Start, count: s.utf8CodeUnitCount)
        count += s.utf8CodeUnitCount
    }

    /// `,"name":` (no comma before the first), with room reserved for the key and `value` more bytes.
    @inline(__always)
    private mutating func key(_ name: StaticString, value: Int) {
        reserve(name.utf8CodeUnitCount + 4 + value)
        if first { first = false } else { put(UInt8(ascii: ",")) }
        put(UInt8(ascii: "\""))
        put(name)
        put(UInt8(ascii: "\""))
        put(UInt8(ascii: ":"))
    }

    public mutating func string(_ name: StaticString, _ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            // The worst case: every byte a \u00XX escape.
            key(name, value: utf8.count * 6 + 2)
            count += JSONObjectWriter.writeQuoted(utf8, at: base + count)
        }
    }

    /// A value known to need no escaping (an enum's raw value, say).
    public mutating func plainString(_ name: StaticString, _ value: StaticString) {
        key(name, value: value.utf8CodeUnitCount + 2)
        put(UInt8(ascii: "\""))
        put(value)
        put(UInt8(ascii: "\""))
    }

    public mutating func null(_ name: StaticString) {
        key(name, value: 4)
        put("null")
    }

    public mutating func bool(_ name: StaticString, _ value: Bool) {
        key(name, value: 5)
        put(value ? "true" : "false")
    }

    public mutating func int(_ name: StaticString, _ value: Int64) {
        key(name, value: JSONObjectWriter.maximumNumberBytes)
        count += JSONObjectWriter.writeInteger(value, at: base + count)
    }

    public mutating func int(_ name: StaticString, _ value: Int) { int(name, Int64(value)) }

    public mutating func int(_ name: StaticString, _ value: UInt64) {
        key(name, value: JSONObjectWriter.maximumNumberBytes)
        count += JSONObjectWriter.writeUnsigned(value, at: base + count)
    }

    /// A number written with a fixed count of decimals (trailing zeros trimmed); non-finite values are
    /// written as null, since JSON has no NaN.
    public mutating func number(_ name: StaticString, _ value: Double, decimals: Int) {
        key(name, value: JSONObjectWriter.maximumNumberBytes)
        count += JSONObjectWriter.writeFixed(value, decimals: decimals, at: base + count)
    }

    /// `{"x":…,"y":…}`
    public mutating func pair(_ name: StaticString, x: Double, y: Double, decimals: Int) {
        key(name, value: 2 * JSONObjectWriter.maximumNumberBytes + 12)
        put("{\"x\":")
        count += JSONObjectWriter.writeFixed(x, decimals: decimals, at: base + count)
        put(",\"y\":")
        count += JSONObjectWriter.writeFixed(y, decimals: decimals, at: base + count)
        put(UInt8(ascii: "}"))
    }

    /// Seconds with six decimals from microseconds, exactly.
    public mutating func seconds(_ name: StaticString, microseconds: Int64) {
        key(name, value: JSONObjectWriter.maximumNumberBytes)
        count += JSONObjectWriter.writeSeconds(microseconds, at: base + count)
    }

    /// Inserts already-encoded JSON as the value of `name`.
    public mutating func raw(_ name: StaticString, _ json: String) {
        var json = json
        json.withUTF8 { utf8 in
            key(name, value: utf8.count)
            (base + count).update(from: utf8.baseAddress!, count: utf8.count)
            count += utf8.count
        }
    }

    /// Bytes written so far.
    public var byteCount: Int { count }

    /// Closes the object, with a newline after it when asked, and returns the line: the buffer's memory,
    /// valid until the buffer is written again or released.
    @discardableResult
    public consuming func finish(newline: Bool) -> UnsafeRawBufferPointer {
        reserve(2)
        put(UInt8(ascii: "}"))
        if newline { put(0x0a) }
        return UnsafeRawBufferPointer(start: base, count: count)
    }

    public consuming func finish() -> String {
        let buffer = self.buffer
        let line = finish(newline: false)
        return withExtendedLifetime(buffer) { String(decoding: line, as: UTF8.self) }
    }

    // MARK: - Formatting into memory
    // Each writes at `p`, which has room for `maximumNumberBytes` (a quoted string: 6 per byte + 2), and
    // returns the count of bytes written.

    /// "00", "01", … "99": digits are written two at a time.
    private static let digitPairs: StaticString =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

    /// The decimal digits of `value`.
    static func writeUnsigned(_ value: UInt64, at p: UnsafeMutablePointer<UInt8>) -> Int {
        var digits = 1
        var limit: UInt64 = 10
        while value >= limit {
            digits += 1
            if digits == 20 { break }  // 10^20 does not fit; UInt64.max has 20 digits
            limit &*= 10
        }
        writeDigits(value, count: digits, at: p)
        return digits
    }

    static func writeInteger(_ value: Int64, at p: UnsafeMutablePointer<UInt8>) -> Int {
        guard value < 0 else { return writeUnsigned(UInt64(value), at: p) }
        p[0] = UInt8(ascii: "-")
        return 1 + writeUnsigned(value.magnitude, at: p + 1)
    }

    /// Microseconds as seconds with exactly six decimals ("12.000340"; "-1.500000").
    static func writeSeconds(_ microseconds: Int64, at p: UnsafeMutablePointer<UInt8>) -> Int {
        var n = 0
        if microseconds < 0 {
            p[0] = UInt8(ascii: "-")
            n = 1
        }
        let m = microseconds.magnitude
        n += writeUnsigned(m / 1_000_000, at: p + n)
        p[n] = UInt8(ascii: ".")
        writeDigits(m % 1_000_000, count: 6, at: p + n + 1)
        return n + 7
    }

    /// Exactly `count` digits of `value` (below 10^count), with leading zeros.
    @inline(__always)
    private static func writeDigits(_ value: UInt64, count: Int, at p: UnsafeMutablePointer<UInt8>) {
        let pairs = digitPairs.utf8Start
        var v = value
        var i = count
        while i >= 2 {
            let pair = Int(truncatingIfNeeded: v % 100) &* 2
            v /= 100
            i -= 2
            p[i] = pairs[pair]
            p[i + 1] = pairs[pair + 1]
        }
        if i == 1 { p[0] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: v) }
    }

    /// `units` split at `places` decimals: (units / 10^places, units % 10^places), by constants.
    @inline(__always)
    private static func split(_ units: UInt64, places: Int) -> (whole: UInt64, fraction: UInt64) {
        switch places {
        case 0: return (units, 0)
        case 1: return (units / 10, units % 10)
        case 2: return (units / 100, units % 100)
        case 3: return (units / 1_000, units % 1_000)
        case 4: return (units / 10_000, units % 10_000)
        case 5: return (units / 100_000, units % 100_000)
        case 6: return (units / 1_000_000, units % 1_000_000)
        default: return (units / 10_000_000, units % 10_000_000)
        }
    }

    /// 10^places for 0...7 (exact in a Double).
    @inline(__always)
    private static func powerOfTen(_ places: Int) -> Double {
        switch places {
        case 0: return 1
        case 1: return 10
        case 2: return 100
        case 3: return 1_000
        case 4: return 10_000
        case 5: return 100_000
        case 6: return 1_000_000
        default: return 10_000_000
        }
    }

    /// `value` rounded to `decimals` places (0...7), half away from zero, exactly: the double's own value
    /// decides, as decimal arithmetic would round it (0.995 is 0.99499999999999999555… and gives "0.99" with
    /// two places, though 0.995 × 100 rounds to 99.5 in binary). Written without exponent and with trailing
    /// zeros trimmed: 1.5 -> "1.5", 2 -> "2", -0.00001 (4 decimals) -> "0"; "null" for NaN and infinities;
    /// from 2^64 units on (1.8e19 with no decimals, 1.8e12 with seven) Swift's shortest round-trip form
    /// ("1e+20"). tools/json-differential.py checks it against Python's decimal.
    static func writeFixed(_ value: Double, decimals: Int, at p: UnsafeMutablePointer<UInt8>) -> Int {
        guard value.isFinite else {
            for (i, byte) in "null".utf8.enumerated() { p[i] = byte }
            return 4
        }
        let places = min(max(decimals, 0), 7)
        let scale = powerOfTen(places)
        let scaled = abs(value) * scale
        guard scaled < 0x1p64 else {
            // Too large for fixed point in 64 bits: Swift's shortest round-trip form is still valid JSON.
            var text = String(value)
            return text.withUTF8 { utf8 in
                p.update(from: utf8.baseAddress!, count: utf8.count)
                return utf8.count
            }
        }
        // `scaled` is |value| × 10^places rounded to a double; the whole part and the fraction of it are
        // exact. Below 2^52 a fraction other than one half is a whole ulp or more from it, further than the
        // product's rounding error (half an ulp) can move the exact product, so it decides alone. At exactly
        // one half, and from 2^52 on (where a double holds no fraction), the error decides; a fused
        // multiply-add gives it exactly, and only these rare cases pay for it.
        var units = UInt64(scaled)
        let remainder = scaled - Double(units)
        if remainder > 0.5 {
            units += 1
        } else if remainder == 0.5 || scaled >= 0x1p52 {
            let error = (-scaled).addingProduct(abs(value), scale)
            if remainder == 0.5 {
                if error >= 0 { units += 1 }
            } else {
                // A whole number with an error of up to half its ulp (0.5 to 1024): add the error rounded
                // half up (the exact product is positive, so half up is half away from zero).
                let whole = error.rounded(.down)
                units = units &+ UInt64(bitPattern: Int64(whole))
                if error >= whole + 0.5 { units += 1 }
            }
        }
        if units == 0 {
            p[0] = UInt8(ascii: "0")
            return 1
        }
        var n = 0
        if value < 0 {
            p[0] = UInt8(ascii: "-")
            n = 1
        }
        let (whole, decimalPart) = split(units, places: places)
        n += writeUnsigned(whole, at: p + n)
        var fraction = decimalPart
        if fraction == 0 { return n }
        var digits = places
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        p[n] = UInt8(ascii: ".")
        writeDigits(fraction, count: digits, at: p + n + 1)
        return n + 1 + digits
    }

    /// `utf8` as a JSON string literal, escaping quotes, backslashes and control characters.
    static func writeQuoted(_ utf8: UnsafeBufferPointer<UInt8>, at p: UnsafeMutablePointer<UInt8>) -> Int {
        let hex: StaticString = "0123456789abcdef"
        var n = 0
        @inline(__always) func put(_ a: UInt8, _ b: UInt8) {
            p[n] = a
            p[n + 1] = b
            n += 2
        }
        p[n] = UInt8(ascii: "\"")
        n += 1
        for u in utf8 {
            switch u {
            case UInt8(ascii: "\""): put(UInt8(ascii: "\\"), UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): put(UInt8(ascii: "\\"), UInt8(ascii: "\\"))
            case UInt8(ascii: "\n"): put(UInt8(ascii: "\\"), UInt8(ascii: "n"))
            case UInt8(ascii: "\r"): put(UInt8(ascii: "\\"), UInt8(ascii: "r"))
            case UInt8(ascii: "\t"): put(UInt8(ascii: "\\"), UInt8(ascii: "t"))
            case 0..<0x20:
                put(UInt8(ascii: "\\"), UInt8(ascii: "u"))
                put(UInt8(ascii: "0"), UInt8(ascii: "0"))
                put(hex.utf8Start[Int(u >> 4)], hex.utf8Start[Int(u & 0xf)])
            default:
                p[n] = u
                n += 1
            }
        }
        p[n] = UInt8(ascii: "\"")
        return n + 1
    }

    // MARK: - Appending to byte arrays and strings (readable output, messages, tests)

    /// Formats with `write` into stack memory of `room` bytes and appends the result.
    @inline(__always)
    private static func append(
        to out: inout [UInt8], room: Int = maximumNumberBytes, _ write: (UnsafeMutablePointer<UInt8>) -> Int
    ) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: room) { scratch in
            let n = write(scratch.baseAddress!)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[0..<n]))
        }
    }

    static func appendUnsigned(_ value: UInt64, to out: inout [UInt8]) {
        append(to: &out) { writeUnsigned(value, at: $0) }
    }

    static func appendInteger(_ value: Int64, to out: inout [UInt8]) {
        append(to: &out) { writeInteger(value, at: $0) }
    }

    /// Microseconds as seconds with exactly six decimals ("12.000340"; "-1.500000").
    static func appendSeconds(_ microseconds: Int64, to out: inout [UInt8]) {
        append(to: &out) { writeSeconds(microseconds, at: $0) }
    }

    /// Appends `value` rounded to `decimals` places (0...7), without exponent and with trailing zeros
    /// trimmed: 1.5 -> "1.5", 2 -> "2", -0.00001 (4 decimals) -> "0".
    public static func appendFixed(_ value: Double, decimals: Int, to out: inout [UInt8]) {
        append(to: &out) { writeFixed(value, decimals: decimals, at: $0) }
    }

    /// Appends `value` as a JSON string literal, escaping quotes, backslashes and control characters.
    public static func appendQuoted(_ value: String, to out: inout [UInt8]) {
        var value = value
        value.withUTF8 { utf8 in
            append(to: &out, room: utf8.count * 6 + 2) { writeQuoted(utf8, at: $0) }
        }
    }

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
