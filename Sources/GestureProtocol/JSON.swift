import PlainText

/// A JSON value as the socket protocol reads and writes it.
///
/// Numbers keep their literal text, so a request `id` is echoed back exactly as the client wrote it
/// (`7`, `7.0` and `7e0` stay distinct), and no precision is lost on the way through. Objects keep their
/// members in the order they were read; duplicate keys are refused by the parser. Strings and keys are
/// equal when their code points are (RFC 8259, section 8.3), not when Swift's String calls them equal:
/// "\u00e9" and "e\u0301" are two keys.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    /// The number's literal text, valid JSON number syntax.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([(key: String, value: JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.number(x), .number(y)): return x == y
        case let (.string(x), .string(y)): return x.utf8.elementsEqual(y.utf8)
        case let (.array(x), .array(y)): return x == y
        case let (.object(x), .object(y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.key.utf8.elementsEqual($1.key.utf8) && $0.value == $1.value }
        case (.null, _), (.bool, _), (.number, _), (.string, _), (.array, _), (.object, _): return false
        }
    }

    /// A number value from an integer.
    public static func integer<T: BinaryInteger>(_ value: T) -> JSONValue { .number(String(value)) }

    /// A number value from a double; NaN and infinities (which JSON cannot express) become `null`.
    public static func double(_ value: Double) -> JSONValue {
        guard value.isFinite else { return .null }
        if value == value.rounded(), abs(value) < 1e15 { return .number(String(Int64(value))) }
        return .number(String(value))
    }

    /// The member named `key` of an object; nil for other values or a missing key.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first(where: { $0.key.utf8.elementsEqual(key.utf8) })?.value
    }

    /// The name of the JSON type, as error messages spell it.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    /// The JSON type with its article, as a sentence needs it: "an object", "an array", "a string", "null".
    public var typeNameWithArticle: String {
        switch self {
        case .null: return "null"
        case .array, .object: return "an \(typeName)"
        case .bool, .number, .string: return "a \(typeName)"
        }
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    public var doubleValue: Double? {
        if case .number(let text) = self { return Double(text) }
        return nil
    }

    /// The value as an integer when it is a number with no fraction that fits in an `Int`.
    public var intValue: Int? {
        guard case .number(let text) = self else { return nil }
        if let i = Int(text) { return i }
        guard let d = Double(text), d == d.rounded(), abs(d) < 9e15 else { return nil }
        return Int(d)
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var objectValue: [(key: String, value: JSONValue)]? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The value as compact JSON text on one line (no newline at the end). Written as bytes and made a
    /// String once, so its cost is linear in its length (appending to a String piece by piece copied it
    /// as it grew: an explanation of 2 MB took minutes, issue 36).
    public var serialized: String {
        var out: [UInt8] = []
        JSONSerializer.write(self, into: &out)
        return String(decoding: out, as: UTF8.self)
    }
}

/// Writes JSON text. Strings are escaped so a serialized value never contains a raw newline.
public enum JSONSerializer {
    public static func write(_ value: JSONValue, into out: inout String) {
        var bytes: [UInt8] = []
        write(value, into: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `value` as JSON text's UTF-8 bytes.
    public static func write(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: append("null", to: &out)
        case .bool(let b): append(b ? "true" : "false", to: &out)
        case .number(let text): out.append(contentsOf: text.utf8)
        case .string(let s): writeString(s, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                write(item, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (i, member) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                writeString(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                write(member.value, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func append(_ s: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    /// Appends `s` as a quoted JSON string: `"` and `\` escaped, control characters as `\n`, `\t` or
    /// `\u00XX`; everything else (all of Unicode) as UTF-8.
    public static func writeString(_ s: String, into out: inout String) {
        var bytes: [UInt8] = []
        writeString(s, into: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }

    /// As `writeString(_:into:)` for a String, appending UTF-8 bytes: DEL, U+2028 and U+2029 are escaped
    /// too (`\u007f`, `\u2028`, `\u2029`: a line separator would end a line in some readers).
    public static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { utf8 in
            var plainStart = 0
            var i = 0
            while i < utf8.count {
                let byte = utf8[i]
                var escape: StaticString?
                var length = 1
                switch byte {
                case UInt8(ascii: "\""): escape = "\\\""
                case UInt8(ascii: "\\"): escape = "\\\\"
                case 0x0a: escape = "\\n"
                case 0x0d: escape = "\\r"
                case 0x09: escape = "\\t"
                case 0xe2 where i + 2 < utf8.count && utf8[i + 1] == 0x80 && (utf8[i + 2] == 0xa8 || utf8[i + 2] == 0xa9):
                    escape = utf8[i + 2] == 0xa8 ? "\\u2028" : "\\u2029"
                    length = 3
                default:
                    guard byte < 0x20 || byte == 0x7f else {
                        i += 1
                        continue
                    }
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plainStart..<i]))
                if let escape {
                    append(escape, to: &out)
                } else {
                    // \u00XX for the other control characters and DEL.
                    let hex: StaticString = "0123456789abcdef"
                    append("\\u00", to: &out)
                    out.append(hex.utf8Start[Int(byte >> 4)])
                    out.append(hex.utf8Start[Int(byte & 0xf)])
                }
                i += length
                plainStart = i
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plainStart..<utf8.count]))
        }
        out.append(UInt8(ascii: "\""))
    }
}

/// Why a text is not acceptable JSON: what is wrong and at which byte (0-based) of the line.
public struct JSONParseError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public var offset: Int
    public var description: String { "\(message) at byte \(offset)" }
}

/// A strict JSON parser (RFC 8259) for one line of the protocol: UTF-8 only, no duplicate keys, nesting
/// limited so a hostile line cannot exhaust the stack.
public struct JSONParser {
    /// Deepest nesting of arrays and objects accepted.
    public static let maximumDepth = 32

    private let bytes: [UInt8]
    private var position = 0
    private var depth = 0

    private init(bytes: [UInt8]) { self.bytes = bytes }

    /// Parses one complete JSON value; whitespace around it is allowed, anything else after it is not.
    public static func parse<Bytes: Collection>(_ input: Bytes) throws(JSONParseError) -> JSONValue
    where Bytes.Element == UInt8 {
        var parser = JSONParser(bytes: Array(input))
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        if parser.position != parser.bytes.count {
            throw parser.error("unexpected text after the JSON value")
        }
        return value
    }

    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    private func error(_ message: String) -> JSONParseError {
        JSONParseError(message: message, offset: position)
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0a, 0x0d: position += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard position < bytes.count else { throw error("unexpected end of the line") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character '\(printable(bytes[position]))'")
        }
    }

    private func printable(_ byte: UInt8) -> String {
        if byte >= 0x20 && byte < 0x7f { return String(UnicodeScalar(byte)) }
        return "\\x" + (byte < 16 ? "0" : "") + String(byte, radix: 16)
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        let matches = literal.withUTF8Buffer { expected in
            position + count <= bytes.count && bytes[position..<position + count].elementsEqual(expected)
        }
        guard matches else { throw error("invalid literal (expected \(literal))") }
        position += count
    }

    private mutating func enter() throws(JSONParseError) {
        depth += 1
        if depth > JSONParser.maximumDepth {
            throw error("nested deeper than \(JSONParser.maximumDepth) levels")
        }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = []
        // By their UTF-8 bytes: a Set<String> would take canonically equivalent keys for one.
        var keys = Set<[UInt8]>()
        try parseItems(closingWith: "}", in: "an object") { parser throws(JSONParseError) in
            guard parser.position < parser.bytes.count, parser.bytes[parser.position] == UInt8(ascii: "\"") else {
                throw parser.error("expected a quoted key")
            }
            let keyOffset = parser.position
            let key = try parser.parseString()
            guard keys.insert(Array(key.utf8)).inserted else {
                throw JSONParseError(message: "duplicate key \"\(key)\"", offset: keyOffset)
            }
            parser.skipWhitespace()
            guard parser.position < parser.bytes.count, parser.bytes[parser.position] == UInt8(ascii: ":") else {
                throw parser.error("expected ':' after a key")
            }
            parser.position += 1
            parser.skipWhitespace()
            members.append((key, try parser.parseValue()))
        }
        return .object(members)
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        var items: [JSONValue] = []
        try parseItems(closingWith: "]", in: "an array") { parser throws(JSONParseError) in
            items.append(try parser.parseValue())
        }
        return .array(items)
    }

    /// Reads an object's or an array's items, from its opening bracket (at `position`) past its closing
    /// one, `close`: each through `readItem`, whitespace before it skipped, the items separated by commas;
    /// the nesting is counted in `depth` while inside. `container` ("an object") names it in the errors.
    private mutating func parseItems(
        closingWith close: Unicode.Scalar, in container: String,
        _ readItem: (inout JSONParser) throws(JSONParseError) -> Void
    ) throws(JSONParseError) {
        try enter()
        position += 1  // the opening bracket
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: close) {
            position += 1
            depth -= 1
            return
        }
        while true {
            skipWhitespace()
            try readItem(&self)
            skipWhitespace()
            guard position < bytes.count else { throw error("unexpected end of the line inside \(container)") }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            if bytes[position] == UInt8(ascii: close) {
                position += 1
                depth -= 1
                return
            }
            throw error("expected ',' or '\(close)' in \(container)")
        }
    }

    private mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = position
        let end = bytes.count
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < end, DecimalScanner.isDigit(bytes[position]) else { throw error("invalid number") }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
        } else {
            _ = DecimalScanner.skipDigits(in: bytes, at: &position, end: end)
        }
        if position < end, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard DecimalScanner.skipDigits(in: bytes, at: &position, end: end) > 0 else { throw error("invalid number") }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard DecimalScanner.skipDigits(in: bytes, at: &position, end: end) > 0 else { throw error("invalid number") }
        }
        if position - start > 64 {
            throw JSONParseError(message: "number longer than 64 characters", offset: start)
        }
        return .number(String(decoding: bytes[start..<position], as: UTF8.self))
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw error("incomplete \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[position]
            let digit: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(b - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(b - UInt8(ascii: "A") + 10)
            default: throw error("invalid hex digit in a \\u escape")
            }
            value = value * 16 + digit
            position += 1
        }
        return value
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        position += 1  // opening quote
        var out: [UInt8] = []
        var runStart = position
        while true {
            guard position < bytes.count else { throw error("unterminated string") }
            let b = bytes[position]
            if b == UInt8(ascii: "\"") {
                out.append(contentsOf: bytes[runStart..<position])
                position += 1
                break
            }
            if b < 0x20 { throw error("raw control character in a string") }
            if b != UInt8(ascii: "\\") {
                position += 1
                continue
            }
            out.append(contentsOf: bytes[runStart..<position])
            position += 1
            guard position < bytes.count else { throw error("unterminated escape") }
            let escaped = bytes[position]
            position += 1
            switch escaped {
            case UInt8(ascii: "\""): out.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
            case UInt8(ascii: "/"): out.append(UInt8(ascii: "/"))
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0c)
            case UInt8(ascii: "n"): out.append(0x0a)
            case UInt8(ascii: "r"): out.append(0x0d)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalarValue = try parseHex4()
                if (0xD800...0xDBFF).contains(scalarValue) {
                    guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                        bytes[position + 1] == UInt8(ascii: "u")
                    else { throw error("unpaired surrogate in a \\u escape") }
                    position += 2
                    let low = try parseHex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate in a \\u escape") }
                    scalarValue = 0x10000 + ((scalarValue - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalarValue) {
                    throw error("unpaired surrogate in a \\u escape")
                }
                guard let scalar = Unicode.Scalar(scalarValue) else { throw error("invalid \\u escape") }
                out.append(contentsOf: Array(String(Character(scalar)).utf8))
            default:
                throw error("invalid escape '\\\(printable(escaped))'")
            }
            runStart = position
        }
        guard let string = String(validating: out, as: UTF8.self) else {
            throw error("string is not valid UTF-8")
        }
        return string
    }
}
