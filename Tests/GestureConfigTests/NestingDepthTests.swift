import Testing

@testable import GestureConfig

/// A TOML document nested tens of thousands of levels deep (one 40 KB line `[a.a.a…]`) used to overflow
/// the stack in the recursive conversion of the toml++ shim that read TOML then. Such a document is
/// refused with the place where it goes past the limit; documents as deep as the limit, and flat ones full
/// of dots and brackets in values and quoted keys, still load.
@Suite("Nesting depth")
struct NestingDepthTests {
    let limit = TOMLReader.maximumDepth

    /// "a.a.a…" with `segments` segments.
    func dotted(_ segments: Int) -> String { Array(repeating: "a", count: segments).joined(separator: ".") }

    /// The one error parsing `text` gives, which must be the depth error.
    func depthError(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> String {
        let messages = errors(text)
        #expect(messages.count == 1, sourceLocation: sourceLocation)
        let message = messages.first ?? ""
        #expect(message.contains("nest more than \(limit) levels deep"), "\(message.prefix(300))", sourceLocation: sourceLocation)
        #expect(!message.contains("TOML syntax error"), sourceLocation: sourceLocation)
        return message
    }

    @Test func everyWayOfNestingDeepIsRefusedAtThePlaceItGoesTooDeep() {
        // The four shapes the attack used, 20,000 levels each, and a table header as deep as a 1 MiB file
        // allows. Segment k of "a.a.a…" starts at column 2k - 1 after the prefix; the dot before segment
        // limit + 1 is where the document goes past the limit.
        let pastTheLimit = 2 * limit  // the column of that dot in "a.a.a…"
        let cases: [(text: String, column: Int)] = [
            ("[\(dotted(20_000))]\n", 1 + pastTheLimit),
            ("\(dotted(20_000)) = 1\n", pastTheLimit),
            ("[[\(dotted(20_000))]]\n", 2 + pastTheLimit),
            ("x = {\(dotted(20_000)) = 1}\n", 5 + pastTheLimit - 2),
            ("[\(dotted(500_000))]\n", 1 + pastTheLimit),
        ]
        for (text, column) in cases {
            let message = depthError(text)
            #expect(message.hasPrefix("gestured.toml:1:\(column): "), "\(message.prefix(120))")
        }
    }

    @Test func arraysAndInlineTablesCountAsLevels() {
        let arrays = "x = " + String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000) + "\n"
        #expect(depthError(arrays).hasPrefix("gestured.toml:1:\(4 + limit): "))
        let tables = "x = " + String(repeating: "{a = ", count: 5000) + "1" + String(repeating: "}", count: 5000) + "\n"
        #expect(depthError(tables).hasPrefix("gestured.toml:1:"))
        // A header's levels add to its keys' levels, on a later line.
        let mixed = "[\(dotted(limit / 2))]\n\n\(dotted(limit / 2 + 1)) = 1\n"
        #expect(depthError(mixed).hasPrefix("gestured.toml:3:\(2 * (limit / 2 + 1) - 2): "))
    }

    @Test func theLimitItselfLoadsAndOneMoreDoesNot() throws {
        // Unknown keys are errors of their own; at the limit the file parses and only the schema objects.
        let atLimit = errors("[\(dotted(limit))]\n")
        #expect(atLimit.count == 1 && !atLimit[0].contains("levels deep"), "\(atLimit)")
        _ = depthError("[\(dotted(limit + 1))]\n")
        let keyAtLimit = errors("\(dotted(limit)) = 1\n")
        #expect(!keyAtLimit.contains { $0.contains("levels deep") })
        _ = depthError("\(dotted(limit + 1)) = 1\n")
    }

    @Test func dotsAndBracketsInValuesCommentsAndQuotedKeysDoNotCount() throws {
        let many = 5 * limit
        let text = """
            [recognizer]
            # \(String(repeating: "[{.", count: many))
            "\(dotted(many))" = 1
            'q.\(dotted(many))' = 2
            floats = [\(Array(repeating: "1.5", count: many).joined(separator: ", "))]
            times = [\(Array(repeating: "07:32:00.999", count: many).joined(separator: ", "))]
            text = "\(String(repeating: "[{.\\\"", count: many))"
            literal = '\(String(repeating: "[{.\"", count: many))'
            multi = \"\"\"
            \(String(repeating: "[[{{..", count: many))
            \"\"\"
            nested = [[1.5, [2.5]], {a.b = "c.d"}, [{e = [1.0]}]]
            """
        let messages = errors(text)
        // Only the schema's complaints about unknown keys; no depth error and no syntax error.
        #expect(!messages.isEmpty)
        #expect(messages.allSatisfy { !$0.contains("levels deep") && !$0.contains("syntax") }, "\(messages.map { $0.prefix(200) })")
    }

    @Test func theReaderItselfRefusesDeepDocuments() {
        do {
            _ = try TOMLReader.parse(text: "[\(dotted(20_000))]\n", sourceName: "t.toml")
            Issue.record("a 20,000-level document parsed")
        } catch {
            #expect(error.tooDeep)
            #expect(error.position == SourcePosition(line: 1, column: 1 + 2 * limit))
        }
    }
}
