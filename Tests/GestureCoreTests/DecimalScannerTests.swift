import PlainText
import Testing

/// The one decimal reader of every parser (evemu, libinput record, JSON, TOML): runs of digits with a
/// bound, fixed-width fields, and exact fixed-point values, each position left where the parsers expect.
@Suite struct DecimalScannerTests {
    static func digits(_ text: String, from start: Int = 0, atMost: Int = 18) -> (value: Int64, count: Int, position: Int)? {
        let bytes = Array(text.utf8)
        var position = start
        guard let read = DecimalScanner.digits(in: bytes, at: &position, end: bytes.count, atMost: atMost) else { return nil }
        return (read.value, read.count, position)
    }

    @Test func aRunOfDigitsStopsAtTheFirstOtherByte() throws {
        let read = try #require(Self.digits("1330495962.164908"))
        #expect(read.value == 1_330_495_962 && read.count == 10 && read.position == 10)
        let fraction = try #require(Self.digits("1330495962.164908", from: 11, atMost: 6))
        #expect(fraction.value == 164_908 && fraction.count == 6 && fraction.position == 17)
        let none = try #require(Self.digits("-5"))
        #expect(none.value == 0 && none.count == 0 && none.position == 0)
        #expect(Self.digits("")?.count == 0)
        #expect(Self.digits("007 ")?.value == 7)
        // Bytes on either side of '0'...'9' are not digits.
        for byte: UInt8 in [0x2f, 0x3a, 0x00, 0xff, 0xb0] { #expect(!DecimalScanner.isDigit(byte)) }
        for byte: UInt8 in 0x30...0x39 { #expect(DecimalScanner.isDigit(byte)) }
        #expect(!DecimalScanner.isDigit(nil as UInt8?))
    }

    @Test func aRunLongerThanItsBoundIsRefused() {
        #expect(Self.digits("123456", atMost: 6)?.value == 123_456)
        #expect(Self.digits("1234567", atMost: 6) == nil)
        #expect(Self.digits("999999999999999999")?.value == 999_999_999_999_999_999)  // 18 digits fit
        #expect(Self.digits("1000000000000000000") == nil)  // 19 do not, with the default bound
    }

    @Test func fixedWidthFieldsReadExactlyTheirDigits() {
        let bytes = Array("2024-1x".utf8)
        var position = 0
        #expect(DecimalScanner.fixedDigits(in: bytes, at: &position, end: bytes.count, count: 4) == 2024)
        #expect(position == 4)
        position = 5
        #expect(DecimalScanner.fixedDigits(in: bytes, at: &position, end: bytes.count, count: 2) == nil)
        #expect(position == 6)  // at the byte that is not a digit, for the message
        position = 5
        #expect(DecimalScanner.fixedDigits(in: bytes, at: &position, end: 6, count: 2) == nil)  // the end comes first
    }

    @Test func skippingDigitsCountsThem() {
        let bytes = Array("12.5e3".utf8)
        var position = 0
        #expect(DecimalScanner.skipDigits(in: bytes, at: &position, end: bytes.count) == 2 && position == 2)
        #expect(DecimalScanner.skipDigits(in: bytes, at: &position, end: bytes.count) == 0 && position == 2)
    }

    @Test func fixedPointValuesAreExact() {
        func micro(_ text: String) -> Int64? { DecimalScanner.fixedPoint(Array(text.utf8), fractionDigits: 6) }
        #expect(micro("12.345678") == 12_345_678)
        #expect(micro("0.1") == 100_000)
        #expect(micro("7") == 7_000_000)
        #expect(micro("-1.5") == -1_500_000)
        #expect(micro("9223372036854.775807") == Int64.max)
        #expect(micro("9223372036854.775808") == nil)  // overflow
        for text in ["", "-", ".5", "5.", "1.1234567", "1e3", "+1", "1.2.3", "1 ", "0x10", "١٢"] {
            #expect(micro(text) == nil, "\(text)")
        }
        #expect(DecimalScanner.fixedPoint(Array("3".utf8), fractionDigits: 0) == 3)
        #expect(DecimalScanner.fixedPoint(Array("3.0".utf8), fractionDigits: 0) == nil)
    }
}
