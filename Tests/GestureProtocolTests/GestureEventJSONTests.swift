import Testing
@testable import GestureProtocol
import GestureVocabulary

@Suite struct GestureEventJSONTests {
    @Test func panEndLine() {
        let e = GestureEvent(
            kind: .pan, phase: .end, id: 7, timeMicroseconds: 1_330_495_962_164_908, fingers: 2, committed: true,
            direction: .up, position: Vector2(0.25, 0.5), positionMM: Vector2(25, 80),
            translation: Vector2(0, -0.3125), translationMM: Vector2(0, -50.004), velocityMMPerSecond: Vector2(-1.5, -420))
        #expect(GestureEventJSON.encode(e, device: "Panel \"A\"") == """
            {"type":"gesture","gesture":"pan","phase":"end","id":7,"time":1330495962.164908,"fingers":2,\
            "device":"Panel \\"A\\"","committed":true,"direction":"up","position":{"x":0.25,"y":0.5},\
            "position_mm":{"x":25,"y":80},"translation":{"x":0,"y":-0.3125},"translation_mm":{"x":0,"y":-50},\
            "velocity_mm_s":{"x":-1.5,"y":-420}}
            """)
    }

    @Test func panEndWithoutDirectionSaysNull() {
        let e = GestureEvent(kind: .pan, phase: .end, id: 1, timeMicroseconds: 5, fingers: 1, committed: false)
        #expect(GestureEventJSON.encode(e).contains("\"time\":0.000005,"))
        #expect(GestureEventJSON.encode(e).contains("\"committed\":false,\"direction\":null,"))
    }

    @Test func edgeSwipeAndPinchFields() {
        let edge = GestureEvent(kind: .edgeSwipe, phase: .update, id: 2, timeMicroseconds: 0, fingers: 1, edge: .left, progress: 0.123456)
        let line = GestureEventJSON.encode(edge)
        #expect(line.contains("\"gesture\":\"edge-swipe\",\"phase\":\"update\""))
        #expect(line.contains("\"edge\":\"left\""))
        #expect(line.hasSuffix("\"progress\":0.12346}"))
        #expect(!line.contains("committed"))
        let pinch = GestureEvent(kind: .pinch, phase: .update, id: 3, timeMicroseconds: 0, fingers: 2, scale: 1.5, rotationDegrees: -12.345, spanMM: 20)
        #expect(GestureEventJSON.encode(pinch).hasSuffix("\"scale\":1.5,\"rotation\":-12.35,\"span_mm\":20}"))
    }

    @Test(arguments: [
        (1.5, 2, "1.5"), (2.0, 3, "2"), (-0.00001, 4, "0"), (-3.14159, 2, "-3.14"), (0.1, 5, "0.1"),
        (0.000123, 5, "0.00012"), (1e20, 2, "1e+20"), (Double.nan, 2, "null"), (-Double.infinity, 2, "null"),
    ])
    func fixedNumbers(value: Double, decimals: Int, expected: String) {
        var s = ""
        JSONObjectWriter.appendFixed(value, decimals: decimals, to: &s)
        #expect(s == expected)
    }

    // The edges of the fixed-point formatter: signs and zeros, rounding of halves (half away from zero on
    // the double's exact value, as Python's decimal rounds it: a decimal half that is not one in binary
    // rounds the way the binary value lies, even where value × 10^decimals rounds to a half in binary, as
    // 0.995 × 100 and 2.675 × 100 do), digits carried into the integer part, halves past 2^52 units where a
    // double holds no fraction, the fixed-point limit (2^64 units) and beyond it, and decimals outside
    // 0...7. tools/json-differential.py (make test) sweeps far more against decimal.
    @Test(arguments: [
        (0.0, 2, "0"), (-0.0, 2, "0"), (-0.0, 0, "0"), (0.004, 2, "0"), (-0.004, 2, "0"), (-0.005, 2, "-0.01"),
        (0.125, 2, "0.13"), (-0.125, 2, "-0.13"), (2.5, 0, "3"), (-2.5, 0, "-3"), (0.5, 0, "1"), (1.005, 2, "1"),
        (0.994, 2, "0.99"), (0.995, 2, "0.99"), (2.675, 2, "2.67"), (1.0000005, 6, "1.000001"),
        (-9.9999, 3, "-10"), (99.99999, 4, "100"), (10.0, 5, "10"),
        (1.000001, 5, "1"), (1.00001, 5, "1.00001"), (0.1, 7, "0.1"), (1e-7, 7, "0.0000001"), (0.00000005, 7, "0"),
        (0.00000015, 7, "0.0000001"), (123456789.123456, 5, "123456789.12346"), (89_999_999_999.0, 5, "89999999999"),
        (90_000_000_000.0, 5, "90000000000"), (-1e20, 2, "-1e+20"), (1e300, 0, "1e+300"),
        (8_999_999_999_999_999.0, 0, "8999999999999999"), (9e15, 0, "9000000000000000"), (4_503_599_627_370_497.0, 0, "4503599627370497"),
        // 450359962737050.25 × 10 is 4503599627370502.5 exactly, which rounds to the even
        // 4503599627370502 in binary; half away from zero gives ...503.
        (450_359_962_737_050.25, 1, "450359962737050.3"), (1_844_674_407_370.9, 7, "1844674407370.8999023"),
        (18_446_744_073_709_549_568.0, 0, "18446744073709549568"), (18_446_744_073_709_551_616.0, 0, "1.8446744073709552e+19"),
        (1.23456789, 9, "1.2345679"), (2.7, -1, "3"), (Double.infinity, 5, "null"), (-Double.nan, 0, "null"),
        (Double.leastNonzeroMagnitude, 7, "0"), (-Double.greatestFiniteMagnitude, 2, "-1.7976931348623157e+308"),
    ])
    func fixedNumberEdges(value: Double, decimals: Int, expected: String) {
        var bytes: [UInt8] = []
        JSONObjectWriter.appendFixed(value, decimals: decimals, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == expected)
    }

    /// Lines written into one reused buffer: a long line grows it, a shorter one after it is whole and
    /// alone, and both equal the line `encode` returns; a device name with every kind of escape survives.
    @Test func reusedLineBuffer() {
        let buffer = JSONLineBuffer(capacity: 64)
        let long = String(repeating: "\u{1}\"\\é", count: 500)
        let e = GestureEvent(
            kind: .pinch, phase: .update, id: 9, timeMicroseconds: -1, fingers: 2, scale: 0.5, rotationDegrees: -0.0,
            spanMM: 123.456)
        let first = Array(GestureEventJSON.encode(e, device: long, into: buffer))
        #expect(first == Array((GestureEventJSON.encode(e, device: long) + "\n").utf8))
        #expect(first.count > 64 * 16)
        let second = Array(GestureEventJSON.encode(e, device: nil, into: buffer))
        let short = GestureEventJSON.encode(e)
        #expect(second == Array((short + "\n").utf8))
        #expect(short.contains("\"time\":-0.000001,"))
        #expect(short.hasSuffix("\"scale\":0.5,\"rotation\":0,\"span_mm\":123.46}"))
    }

    @Test func stringEscapes() {
        var s = ""
        JSONObjectWriter.appendQuoted("a\"b\\c\nd\u{1}é", to: &s)
        #expect(s == "\"a\\\"b\\\\c\\nd\\u0001é\"")
    }

    @Test func secondsFromMicroseconds() {
        #expect(GestureEventJSON.seconds(0) == "0.000000")
        #expect(GestureEventJSON.seconds(1_000_001) == "1.000001")
        #expect(GestureEventJSON.seconds(-1_500_000) == "-1.500000")
    }
}

@Suite struct WireNameTests {
    @Test func staticNamesEqualRawValues() {
        for k in GestureKind.allCases { #expect(GestureEventJSON.name(k)?.description == k.rawValue) }
        for p in GesturePhase.allCases { #expect(GestureEventJSON.name(p).description == p.rawValue) }
        for e in Edge.allCases { #expect(GestureEventJSON.name(e).description == e.rawValue) }
        for d in SwipeDirection.allCases { #expect(GestureEventJSON.name(d).description == d.rawValue) }
    }

    /// A kind added by a rule outside GestureCore has no static name: its raw value is written, escaped.
    @Test func aKindOutsideTheKnownOnesIsWrittenByItsName() throws {
        let toy = GestureKind("tap-and-\"drag\"")
        #expect(GestureEventJSON.name(toy) == nil)
        #expect(GestureKind(rawValue: toy.rawValue) == nil)
        let line = GestureEventJSON.encode(GestureEvent(kind: toy, phase: .begin, id: 1, timeMicroseconds: 0, fingers: 3))
        #expect(line.hasPrefix(#"{"type":"gesture","gesture":"tap-and-\"drag\"","phase":"begin""#))
    }

    @Test func integersAndSeconds() {
        var b: [UInt8] = []
        JSONObjectWriter.appendInteger(Int64.min, to: &b)
        b.append(32)
        JSONObjectWriter.appendUnsigned(UInt64.max, to: &b)
        b.append(32)
        JSONObjectWriter.appendInteger(0, to: &b)
        b.append(32)
        JSONObjectWriter.appendSeconds(123_000_045, to: &b)
        #expect(String(decoding: b, as: UTF8.self) == "-9223372036854775808 18446744073709551615 0 123.000045")
    }

    /// Every digit count, from 1 to 20, at both ends; seconds at the ends of Int64 and just below zero.
    @Test func integerDigitCounts() {
        var power: UInt64 = 1
        for digits in 1...20 {
            for value in [power, digits == 20 ? UInt64.max : power * 10 - 1] {
                var b: [UInt8] = []
                JSONObjectWriter.appendUnsigned(value, to: &b)
                #expect(String(decoding: b, as: UTF8.self) == String(value))
            }
            if digits < 20 { power *= 10 }
        }
        for value in [Int64.max, Int64.min + 1, -1, -10, 1] {
            var b: [UInt8] = []
            JSONObjectWriter.appendInteger(value, to: &b)
            #expect(String(decoding: b, as: UTF8.self) == String(value))
        }
        #expect(GestureEventJSON.seconds(-1) == "-0.000001")
        #expect(GestureEventJSON.seconds(Int64.max) == "9223372036854.775807")
        #expect(GestureEventJSON.seconds(Int64.min) == "-9223372036854.775808")
    }
}
