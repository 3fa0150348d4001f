import CTOML

/// A position in the configuration file (1-based; 0 means unknown).
struct SourcePosition: Equatable, Sendable, Comparable {
    var line: Int
    var column: Int

    static func < (a: SourcePosition, b: SourcePosition) -> Bool {
        (a.line, a.column) < (b.line, b.column)
    }
}

/// A TOML value as parsed, with where it was written.
struct TOMLValue: Sendable {
    enum Kind: Sendable {
        case table([TOMLMember])
        case array([TOMLValue])
        case string(String)
        case integer(Int64)
        case float(Double)
        case boolean(Bool)
        /// A date, time or date-time; the associated text is its TOML form.
        case date(String), time(String), dateTime(String)
    }

    var kind: Kind
    var position: SourcePosition

    /// How the value reads in an error message ("the string \"abc\"", "the integer 5", "a table").
    var described: String {
        switch kind {
        case .table: return "a table"
        case .array(let elements): return "an array of \(elements.count)"
        case .string(let s): return "the string \(quoted(s))"
        case .integer(let i): return "the integer \(i)"
        case .float(let d): return "the number \(d.isFinite && d == d.rounded() && abs(d) < 1e15 ? "\(formatNumber(d)).0" : formatNumber(d))"
        case .boolean(let b): return "the boolean \(b)"
        case .date(let t): return "the date \(t)"
        case .time(let t): return "the time \(t)"
        case .dateTime(let t): return "the date-time \(t)"
        }
    }
}

/// One `key = value` of a table (or a sub-table named by a header), with where its key was written.
struct TOMLMember: Sendable {
    var key: String
    var keyPosition: SourcePosition
    var value: TOMLValue
}

/// A TOML syntax error, or a document refused for nesting too deep.
struct TOMLSyntaxError: Error, Sendable {
    var message: String
    var position: SourcePosition
    /// The text nests deeper than `TOMLReader.maximumDepth` (its syntax after that point was not looked at).
    var tooDeep = false
}

enum TOMLReader {
    /// Deepest a document may nest: each segment of a header or dotted key is a level, and so is each array
    /// or inline table a value opens. A deeper document is refused where it goes past the limit (no gestured
    /// setting is more than a few levels deep, and the parser's recursion stays within this bound).
    static let maximumDepth = 64

    /// Parses TOML 1.0 text (TOMLParser). Members of every table come back in the order they are written in
    /// the file.
    static func parse(bytes: UnsafeBufferPointer<UInt8>, sourceName: String) throws(TOMLSyntaxError) -> TOMLValue {
        var parser = TOMLParser(bytes: bytes, maximumDepth: maximumDepth)
        return try parser.parseDocument()
    }

    static func parse(text: String, sourceName: String) throws(TOMLSyntaxError) -> TOMLValue {
        var text = text
        let result: Result<TOMLValue, TOMLSyntaxError> = text.withUTF8 { bytes in
            do throws(TOMLSyntaxError) {
                return .success(try parse(bytes: bytes, sourceName: sourceName))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

/// The toml++ shim (CTOML), kept beside TOMLReader until the Swift parser replaces it, to compare the two.
enum CTOMLReader {
    /// Deepest a document may nest (each header or dotted-key segment, array and inline table is a level).
    static let maximumDepth = Int(CTOML_MAXIMUM_DEPTH)

    /// Parses TOML text through toml++ (the CTOML shim). Members of every table come back in the order
    /// they are written in the file.
    static func parse(bytes: UnsafeBufferPointer<UInt8>, sourceName: String) throws(TOMLSyntaxError) -> TOMLValue {
        let document: OpaquePointer? = bytes.withMemoryRebound(to: CChar.self) { chars in
            ctoml_parse(chars.baseAddress, chars.count, sourceName)
        }
        guard let document else {
            throw TOMLSyntaxError(message: "out of memory while parsing", position: SourcePosition(line: 0, column: 0))
        }
        defer { ctoml_free(document) }
        guard ctoml_succeeded(document) != 0 else {
            throw TOMLSyntaxError(
                message: String(cString: ctoml_error_description(document)),
                position: SourcePosition(
                    line: Int(ctoml_error_line(document)), column: Int(ctoml_error_column(document))),
                tooDeep: ctoml_error_is_too_deep(document) != 0)
        }
        let count = ctoml_node_count(document)
        guard count > 0, let nodes = ctoml_nodes(document) else {
            return TOMLValue(kind: .table([]), position: SourcePosition(line: 1, column: 1))
        }
        var index = 0
        let root = build(UnsafeBufferPointer(start: nodes, count: count), &index)
        return root.value
    }

    static func parse(text: String, sourceName: String) throws(TOMLSyntaxError) -> TOMLValue {
        var text = text
        let result: Result<TOMLValue, TOMLSyntaxError> = text.withUTF8 { bytes in
            do throws(TOMLSyntaxError) {
                return .success(try parse(bytes: bytes, sourceName: sourceName))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Builds the node at `index` and its subtree, leaving `index` just past the subtree.
    private static func build(
        _ nodes: UnsafeBufferPointer<ctoml_node>, _ index: inout Int
    ) -> (key: String?, keyPosition: SourcePosition, value: TOMLValue) {
        let node = nodes[index]
        index += 1
        let position = SourcePosition(line: Int(node.line), column: Int(node.column))
        let key = node.key.map { string($0, node.key_length) }
        let keyPosition =
            node.key_line > 0
            ? SourcePosition(line: Int(node.key_line), column: Int(node.key_column)) : position
        let kind: TOMLValue.Kind
        switch node.kind {
        case CTOML_TABLE:
            var members: [TOMLMember] = []
            for _ in 0..<node.child_count {
                let child = build(nodes, &index)
                members.append(TOMLMember(key: child.key ?? "", keyPosition: child.keyPosition, value: child.value))
            }
            // toml++ keeps tables sorted by key; errors read better in file order.
            members.sort { $0.keyPosition < $1.keyPosition }
            kind = .table(members)
        case CTOML_ARRAY:
            var elements: [TOMLValue] = []
            for _ in 0..<node.child_count {
                elements.append(build(nodes, &index).value)
            }
            kind = .array(elements)
        case CTOML_STRING: kind = .string(string(node.string, node.string_length))
        case CTOML_INTEGER: kind = .integer(node.integer)
        case CTOML_FLOAT: kind = .float(node.floating)
        case CTOML_BOOLEAN: kind = .boolean(node.boolean != 0)
        case CTOML_DATE: kind = .date(string(node.string, node.string_length))
        case CTOML_TIME: kind = .time(string(node.string, node.string_length))
        case CTOML_DATE_TIME: kind = .dateTime(string(node.string, node.string_length))
        default: kind = .table([])  // not produced by the shim; an empty table is harmless
        }
        return (key, keyPosition, TOMLValue(kind: kind, position: position))
    }

    private static func string(_ pointer: UnsafePointer<CChar>?, _ length: Int) -> String {
        guard let pointer, length > 0 else { return "" }
        return pointer.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }
}

/// A string in double quotes with quotes, backslashes and control characters escaped, for messages.
func quoted(_ s: String) -> String {
    var out = "\""
    for scalar in s.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\t": out += "\\t"
        default:
            if scalar.value < 0x20 || scalar.value == 0x7f {
                out += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
    return out + "\""
}

/// A number as a person writes it: "500" rather than "500.0", "0.08" as is.
func formatNumber(_ d: Double) -> String {
    if d.isNaN { return "nan" }
    if d.isInfinite { return d < 0 ? "-inf" : "inf" }
    if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
    return String(d)
}
