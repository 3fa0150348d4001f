import Testing

@testable import GestureProtocol

@Suite struct JSONParserTests {
    @Test func parsesEveryKindOfValue() throws {
        let value = try JSONParser.parse(#" { "a" : [1, -2.5e3, true, false, null], "b": {"c": "d"}, "e": "" } "#)
        #expect(value["a"] == .array([.number("1"), .number("-2.5e3"), .bool(true), .bool(false), .null]))
        #expect(value["b"]?["c"] == .string("d"))
        #expect(value["e"] == .string(""))
        #expect(value["missing"] == nil)
    }

    @Test func keepsNumbersLiterallySoIDsEchoExactly() throws {
        for literal in ["7", "7.0", "7e0", "-0", "123456789012345678901234567890"] {
            let value = try JSONParser.parse(literal)
            #expect(value == .number(literal))
            #expect(value.serialized == literal)
        }
        #expect(try JSONParser.parse("42").intValue == 42)
        #expect(try JSONParser.parse("4.0").intValue == 4)
        #expect(try JSONParser.parse("4.5").intValue == nil)
    }

    @Test func decodesEscapesAndUnicode() throws {
        let value = try JSONParser.parse(#""a\"b\\c\/d\n\t\u00e9\ud83d\ude00 é""#)
        #expect(value == .string("a\"b\\c/d\n\té😀 é"))
    }

    @Test(arguments: [
        ("", "unexpected end of the line"),
        ("{", "expected a quoted key"),
        ("{\"a\":1,}", "expected a quoted key"),
        ("[1,]", "unexpected character ']'"),
        ("[1 2]", "expected ',' or ']' in an array"),
        ("{\"a\" 1}", "expected ':' after a key"),
        ("{\"a\":1 \"b\":2}", "expected ',' or '}' in an object"),
        ("tru", "invalid literal (expected true)"),
        ("01", "unexpected text after the JSON value"),
        ("1.", "invalid number"),
        ("-", "invalid number"),
        ("1e", "invalid number"),
        ("\"abc", "unterminated string"),
        ("\"a\tb\"", "raw control character in a string"),
        ("\"\\x\"", "invalid escape '\\x'"),
        ("\"\\u12zz\"", "invalid hex digit in a \\u escape"),
        ("\"\\u12\"", "incomplete \\u escape"),
        ("\"\\ud800\"", "unpaired surrogate in a \\u escape"),
        ("\"\\udc00\"", "unpaired surrogate in a \\u escape"),
        ("{\"a\":1,\"a\":2}", "duplicate key \"a\""),
        ("{} {}", "unexpected text after the JSON value"),
        ("'a'", "unexpected character '''"),
    ])
    func refusesMalformedText(text: String, message: String) {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(text) }
        do {
            _ = try JSONParser.parse(text)
        } catch {
            #expect(error.message == message)
        }
    }

    @Test func refusesInvalidUTF8InStrings() {
        let bytes: [UInt8] = [0x22, 0x61, 0xff, 0x62, 0x22]  // "a\xffb"
        #expect(throws: JSONParseError.self) { try JSONParser.parse(bytes) }
        let overlong: [UInt8] = [0x22, 0xc0, 0xaf, 0x22]
        #expect(throws: JSONParseError.self) { try JSONParser.parse(overlong) }
    }

    @Test func limitsNestingInsteadOfExhaustingTheStack() throws {
        let ok = String(repeating: "[", count: JSONParser.maximumDepth) + String(repeating: "]", count: JSONParser.maximumDepth)
        _ = try JSONParser.parse(ok)
        let deep = String(repeating: "[", count: 100_000)
        do {
            _ = try JSONParser.parse(deep)
            Issue.record("a 100000-deep array parsed")
        } catch {
            #expect(error.message == "nested deeper than \(JSONParser.maximumDepth) levels")
        }
    }

    @Test func serializesWithEscapesAndNoRawNewlines() throws {
        let value = JSONValue.object([
            ("s", .string("line\nbreak \"quoted\" back\\slash \u{01} \u{2028} é")), ("n", .integer(-3)),
            ("d", .double(1.5)), ("whole", .double(2)), ("nan", .double(.nan)), ("a", .array([.null, .bool(true)])),
        ])
        let text = value.serialized
        #expect(!text.contains("\n"))
        #expect(
            text == #"{"s":"line\nbreak \"quoted\" back\\slash \u0001 \u2028 é","n":-3,"d":1.5,"whole":2,"nan":null,"a":[null,true]}"#)
        #expect(try JSONParser.parse(text)["s"] == .string("line\nbreak \"quoted\" back\\slash \u{01} \u{2028} é"))
    }

    /// Keys are equal when their code points are (RFC 8259, 8.3): "\u00e9" and "e\u0301" are canonically
    /// equivalent Unicode, one String to Swift, but two keys to JSON, so an object may hold both (Python's
    /// json reads it; tools/json-differential.py found the parser refusing it as a duplicate). The same
    /// text escaped or not is one key.
    @Test func keysAreComparedByCodePoints() throws {
        let value = try JSONParser.parse(#"{"\u00e9": 1, "e\u0301": 2, "\u212a": 3, "K": 4}"#)
        #expect(value.objectValue?.count == 4)
        #expect(value["\u{e9}"] == .number("1"))
        #expect(value["e\u{301}"] == .number("2"))
        #expect(value["\u{212a}"] == .number("3"))
        #expect(value["K"] == .number("4"))
        let swapped = try JSONParser.parse(#"{"e\u0301": 1, "\u00e9": 2, "\u212a": 3, "K": 4}"#)
        #expect(value != swapped)
        #expect(JSONValue.string("\u{e9}") != .string("e\u{301}"))
        #expect(throws: JSONParseError.self) { try JSONParser.parse(#"{"\u00e9": 1, "é": 2}"#) }
    }
}
