import GestureCore
import PlainText

/// A position in the configuration file (1-based; 0 means unknown).
package struct SourcePosition: Equatable, Sendable, Comparable {
    package var line: Int
    package var column: Int

    package static func < (a: SourcePosition, b: SourcePosition) -> Bool {
        (a.line, a.column) < (b.line, b.column)
    }
}

/// A TOML value as parsed, with where it was written.
package struct TOMLValue: Sendable {
    package enum Kind: Sendable {
        case table([TOMLMember])
        case array([TOMLValue])
        case string(String)
        case integer(Int64)
        case float(Double)
        case boolean(Bool)
        /// A date, time or date-time; the associated text is its TOML form.
        case date(String), time(String), dateTime(String)
    }

    package var kind: Kind
    package var position: SourcePosition
    /// An integer's text as written (`0o660`, `660`), for messages that tell how to write it instead; nil
    /// for every other kind.
    package var written: String?

    package init(kind: Kind, position: SourcePosition, written: String? = nil) {
        self.kind = kind
        self.position = position
        self.written = written
    }

    /// How the value reads in an error message ("the string \"abc\"", "the integer 5", "a table").
    package var described: String {
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
package struct TOMLMember: Sendable {
    package var key: String
    package var keyPosition: SourcePosition
    package var value: TOMLValue
}

/// A TOML syntax error, or a document refused for nesting too deep.
package struct TOMLSyntaxError: Error, Sendable {
    package var message: String
    package var position: SourcePosition
    /// The text nests deeper than `TOMLReader.maximumDepth` (its syntax after that point was not looked at).
    var tooDeep = false
    /// The error is a number with a leading zero (`0660`), which TOML refuses: a caller that knows the key
    /// expects a string can say how to write it.
    package var leadingZero: LeadingZeroNumber?
}

/// A number TOML refuses for its leading zero, as written, and the dotted key whose value it is (nil inside
/// an array or an inline table).
package struct LeadingZeroNumber: Equatable, Sendable {
    package var text: String
    package var keyPath: [String]?
}

package enum TOMLReader {
    /// Deepest a document may nest: each segment of a header or dotted key is a level, and so is each array
    /// or inline table a value opens. A deeper document is refused where it goes past the limit (no gestured
    /// setting is more than a few levels deep, and the parser's recursion stays within this bound).
    static let maximumDepth = 64

    /// Parses TOML 1.0 text (TOMLParser). Members of every table come back in the order they are written in
    /// the file.
    package static func parse(bytes: UnsafeBufferPointer<UInt8>, sourceName: String) throws(TOMLSyntaxError) -> TOMLValue {
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

/// A string in double quotes with quotes, backslashes and every character `escapingControlCharacters`
/// escapes (control, format and separator characters) escaped, for messages.
package func quoted(_ s: String) -> String {
    var out = "\""
    for scalar in s.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\t": out += "\\t"
        default:
            if isEscapedInMessages(scalar) {
                out += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
    return out + "\""
}
