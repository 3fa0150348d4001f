// PlainText: how text is read and written here, with no dependencies: DecimalScanner (this file), the one
// reader of decimal digits for every parser (recordings, JSON numbers and event times, TOML's dates, times
// and numbers); NumberText.swift, numbers written for people; Escaping.swift, values from outside made
// safe to show. DecimalScanner allocates nothing and is inlinable, so the recordings' fast paths cost what
// their own loops did.

/// Decimal digits read from bytes (ASCII '0'...'9'), at a position the caller advances.
public enum DecimalScanner {
    /// The most digits `digits(in:at:end:atMost:)` reads: any 18 digits fit in an Int64.
    public static let maximumDigits = 18

    /// Whether `byte` is an ASCII decimal digit.
    @inlinable @inline(__always)
    public static func isDigit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }

    /// Whether `byte` is an ASCII decimal digit; false for nil (the end of the text).
    @inlinable @inline(__always)
    public static func isDigit(_ byte: UInt8?) -> Bool { byte.map(isDigit) ?? false }

    /// Reads the run of digits at `bytes[position..<end]`, advancing `position` past it: its value and how
    /// many digits it had (0 when `position` is not at a digit; `position` is then unchanged). Nil when the
    /// run is longer than `atMost` digits (at most `maximumDigits`): `position` is then at the first digit
    /// past `atMost`.
    @inlinable @inline(__always)
    public static func digits<Bytes: RandomAccessCollection<UInt8>>(
        in bytes: Bytes, at position: inout Int, end: Int, atMost: Int
    ) -> (value: Int64, count: Int)? where Bytes.Index == Int {
        var value: Int64 = 0
        var count = 0
        while position < end {
            let digit = bytes[position] &- 0x30
            guard digit < 10 else { break }
            guard count < atMost else { return nil }
            value = value &* 10 &+ Int64(digit)
            count += 1
            position += 1
        }
        return (value, count)
    }

    /// Reads exactly `count` digits at `bytes[position..<end]` (a date's four-digit year), advancing
    /// `position` past them; nil when fewer are there, `position` then at the first byte that is not one.
    @inlinable
    public static func fixedDigits<Bytes: RandomAccessCollection<UInt8>>(
        in bytes: Bytes, at position: inout Int, end: Int, count: Int
    ) -> Int? where Bytes.Index == Int {
        var value = 0
        for _ in 0..<count {
            guard position < end, isDigit(bytes[position]) else { return nil }
            value = value * 10 + Int(bytes[position] &- 0x30)
            position += 1
        }
        return value
    }

    /// Advances `position` past the run of digits at `bytes[position..<end]`; how many there were.
    @inlinable @inline(__always)
    public static func skipDigits<Bytes: RandomAccessCollection<UInt8>>(
        in bytes: Bytes, at position: inout Int, end: Int
    ) -> Int where Bytes.Index == Int {
        let start = position
        while position < end, isDigit(bytes[position]) { position += 1 }
        return position - start
    }

    /// The exact value of a fixed-point decimal "[-]W[.F]" (all of `bytes`), scaled by 10^`fractionDigits`
    /// (microseconds from seconds, with 6): nil when the text is not of that form (an exponent, no digits
    /// on either side of the '.', more than `fractionDigits` after it, more than `maximumDigits` before it)
    /// or the value does not fit in an Int64.
    @inlinable
    public static func fixedPoint<Bytes: RandomAccessCollection<UInt8>>(
        _ bytes: Bytes, fractionDigits: Int
    ) -> Int64? where Bytes.Index == Int {
        var position = bytes.startIndex
        let end = bytes.endIndex
        let negative = position < end && bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        guard let whole = digits(in: bytes, at: &position, end: end, atMost: maximumDigits), whole.count > 0 else { return nil }
        var fraction: Int64 = 0
        if position < end {
            guard bytes[position] == UInt8(ascii: "."), fractionDigits > 0 else { return nil }
            position += 1
            guard let read = digits(in: bytes, at: &position, end: end, atMost: fractionDigits), read.count > 0,
                position == end
            else { return nil }
            fraction = read.value
            for _ in read.count..<fractionDigits { fraction *= 10 }
        }
        var scale: Int64 = 1
        for _ in 0..<fractionDigits { scale *= 10 }
        let (product, overflow) = whole.value.multipliedReportingOverflow(by: scale)
        let (magnitude, sumOverflow) = product.addingReportingOverflow(fraction)
        guard !overflow, !sumOverflow else { return nil }
        return negative ? -magnitude : magnitude
    }
}
