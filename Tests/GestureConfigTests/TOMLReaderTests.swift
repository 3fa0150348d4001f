import Testing

@testable import GestureConfig

/// The TOML reader: every TOML type arrives, with the line and column of each key and value, members in
/// file order.
@Suite("TOML reader")
struct TOMLReaderTests {
    func members(_ value: TOMLValue) -> [TOMLMember] {
        if case .table(let members) = value.kind { return members }
        Issue.record("not a table: \(value.described)")
        return []
    }

    @Test func everyTypeArrivesWithItsPosition() throws {
        let root = try TOMLReader.parse(
            text: """
                zeta = "text"
                alpha = 42
                  mid = 2.5
                flag = false
                day = 1979-05-27
                time = 07:32:00
                stamp = 1979-05-27T07:32:00Z
                list = [1, "two", [3]]
                inline = { a = 1 }
                """, sourceName: "t.toml")
        let m = members(root)
        // File order, not sorted.
        #expect(m.map(\.key) == ["zeta", "alpha", "mid", "flag", "day", "time", "stamp", "list", "inline"])
        #expect(m[2].keyPosition == SourcePosition(line: 3, column: 3))
        #expect(m[2].value.position == SourcePosition(line: 3, column: 9))
        #expect(m.map(\.value.described) == [
            "the string \"text\"", "the integer 42", "the number 2.5", "the boolean false",
            "the date 1979-05-27", "the time 07:32:00", "the date-time 1979-05-27T07:32:00Z", "an array of 3",
            "a table",
        ])
        guard case .array(let list) = m[7].value.kind else {
            Issue.record("list is not an array")
            return
        }
        #expect(list.map(\.position.column) == [9, 12, 19])
        #expect(list[2].described == "an array of 1")
        #expect(members(m[8].value).first?.key == "a")
    }

    @Test func tablesFromHeadersAndDottedKeysNest() throws {
        let root = try TOMLReader.parse(
            text: "[a.b]\nc.d = 1\n[[e]]\nf = 1\n[[e]]\n", sourceName: "t.toml")
        let top = members(root)
        #expect(top.map(\.key) == ["a", "e"])
        let b = members(top[0].value)
        #expect(b.map(\.key) == ["b"])
        #expect(b[0].keyPosition == SourcePosition(line: 1, column: 4))
        let c = members(b[0].value)
        #expect(c.map(\.key) == ["c"])
        #expect(members(c[0].value).map(\.keyPosition) == [SourcePosition(line: 2, column: 3)])
        guard case .array(let e) = top[1].value.kind else {
            Issue.record("e is not an array of tables")
            return
        }
        #expect(e.map(\.position) == [SourcePosition(line: 3, column: 1), SourcePosition(line: 5, column: 1)])
    }

    @Test func stringsKeepEscapesAndNUL() throws {
        let root = try TOMLReader.parse(text: "s = \"a\\u0000b\\t\u{e9}\"\n", sourceName: "t.toml")
        guard case .string(let s) = members(root).first?.value.kind else {
            Issue.record("no string")
            return
        }
        #expect(Array(s.unicodeScalars) == ["a", "\u{0}", "b", "\t", "\u{e9}"])
    }

    @Test func emptyTextIsAnEmptyTable() throws {
        #expect(members(try TOMLReader.parse(text: "", sourceName: "t.toml")).isEmpty)
    }

    @Test func syntaxErrorsCarryLineAndColumn() {
        do {
            _ = try TOMLReader.parse(text: "a = 1\nb = [1, 2\n", sourceName: "t.toml")
            Issue.record("parsed")
        } catch {
            #expect(error.position.line == 2)
            #expect(error.position.column > 0)
            #expect(!error.message.isEmpty)
        }
    }
}

extension TOMLReaderTests {
    /// TOML compares keys by code points: "é" written as one code point and as e + combining accent are two
    /// keys, though Swift's String equality takes them for one.
    @Test func keysAreComparedByCodePoints() throws {
        let root = try TOMLReader.parse(text: "\"\u{e9}\" = 1\n\"e\u{301}\" = 2\n", sourceName: "t.toml")
        #expect(members(root).map { Array($0.key.unicodeScalars) } == [["\u{e9}"], ["e", "\u{301}"]])
        #expect(throws: TOMLSyntaxError.self) { try TOMLReader.parse(text: "\"\u{e9}\" = 1\n\"\\u00e9\" = 2\n", sourceName: "t.toml") }
    }
}

extension TOMLReaderTests {
    /// The tree is copied out of the parser without copying each growing array of children again: an
    /// array of 300 000 inline tables (a 1 MiB file's worth) once took minutes that way.
    @Test func aMegabyteOfInlineTablesParses() throws {
        let count = 300_000
        let text = "a = [" + Array(repeating: "{}", count: count).joined(separator: ",") + "]\n"
        let root = try TOMLReader.parse(text: text, sourceName: "t.toml")
        guard case .array(let elements)? = members(root).first?.value.kind else {
            Issue.record("a is not an array")
            return
        }
        #expect(elements.count == count)
        #expect(elements.last?.position == SourcePosition(line: 1, column: 6 + 3 * (count - 1)))
    }
}

extension TOMLReaderTests {
    /// A UTF-8 byte order mark may open a document (TOML 1.0; toml-test's valid/utf8-bom cases): it is not
    /// part of the first key, and columns count from after it.
    @Test func aByteOrderMarkMayOpenTheDocument() throws {
        let root = try TOMLReader.parse(text: "\u{FEFF}a = 1\n", sourceName: "t.toml")
        #expect(members(root).map(\.key) == ["a"])
        #expect(members(root).first?.value.position == SourcePosition(line: 1, column: 5))
        // A configuration saved with one loads.
        #expect(errors("\u{FEFF}[daemon]\nsocket_group = \"\"\n") == [])
    }

    /// Characters a reader cannot see in a message are named: a byte order mark anywhere but the start.
    @Test func aByteOrderMarkAfterTheStartIsNamed() {
        do {
            _ = try TOMLReader.parse(text: "a = 1\n\u{FEFF}b = 2\n", sourceName: "t.toml")
            Issue.record("a byte order mark after the start parsed")
        } catch {
            #expect(error.position == SourcePosition(line: 2, column: 1))
            #expect(
                error.message
                    == "expected a key, found a byte order mark (U+FEFF; one may only open the file); a bare key is letters, digits, '_' and '-', other keys go in quotes")
        }
    }
}
