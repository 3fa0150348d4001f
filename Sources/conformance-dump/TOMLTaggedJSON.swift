import GestureConfig
import GestureProtocol

/// A TOML document's tree as JSON with every scalar tagged with its type, the form toml-test uses and
/// tools/toml-fixtures.py writes from Python's tomllib: {"type": "integer", "value": "5"}; tables are JSON
/// objects in file order and arrays JSON arrays. The corpus test (Tests/Fixtures/toml) and the differential
/// check against tomllib (tools/toml-differential.py through conformance-dump) compare parsers in this form.
public enum TOMLTaggedJSON {
    /// The tagged tree of `bytes`, or the syntax error as "line:column: message".
    public static func render(bytes: [UInt8]) -> Result<JSONValue, TOMLTaggedJSONError> {
        // The closure returns a Result: Swift 6.0's withUnsafeBufferPointer rethrows any Error, not the
        // closure's typed error.
        let parsed = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(TOMLSyntaxError) in try TOMLReader.parse(bytes: buffer, sourceName: "document") }
        }
        switch parsed {
        case .success(let root): return .success(tagged(root))
        case .failure(let error):
            return .failure(TOMLTaggedJSONError(line: error.position.line, column: error.position.column, message: error.message))
        }
    }

    /// How a float's value is written: "nan", "inf", "-inf", or Swift's shortest form that reads back exactly.
    public static func floatText(_ d: Double) -> String {
        if d.isNaN { return "nan" }
        if d.isInfinite { return d < 0 ? "-inf" : "inf" }
        return "\(d)"
    }

    static func tagged(_ value: TOMLValue) -> JSONValue {
        // Arrays and tables nest at most TOMLReader.maximumDepth deep (plus a level per array of tables in
        // a header), so this recursion is bounded by the parser.
        func scalar(_ type: String, _ text: String) -> JSONValue { .object([("type", .string(type)), ("value", .string(text))]) }
        switch value.kind {
        case .table(let members): return .object(members.map { ($0.key, tagged($0.value)) })
        case .array(let elements): return .array(elements.map(tagged))
        case .string(let s): return scalar("string", s)
        case .integer(let i): return scalar("integer", String(i))
        case .float(let d): return scalar("float", floatText(d))
        case .boolean(let b): return scalar("bool", b ? "true" : "false")
        case .date(let t): return scalar("date-local", t)
        case .time(let t): return scalar("time-local", t)
        case .dateTime(let t):
            let hasOffset = t.hasSuffix("Z") || t.dropFirst(19).contains("+") || t.dropFirst(19).contains("-")
            return scalar(hasOffset ? "datetime" : "datetime-local", t)
        }
    }
}

public struct TOMLTaggedJSONError: Error {
    public var line: Int
    public var column: Int
    public var message: String
}
