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
        for k in GestureKind.allCases { #expect(GestureEventJSON.name(k).description == k.rawValue) }
        for p in GesturePhase.allCases { #expect(GestureEventJSON.name(p).description == p.rawValue) }
        for e in Edge.allCases { #expect(GestureEventJSON.name(e).description == e.rawValue) }
        for d in SwipeDirection.allCases { #expect(GestureEventJSON.name(d).description == d.rawValue) }
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
}
