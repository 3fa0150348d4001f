// A TOML 1.0 parser in Swift (https://toml.io/en/v1.0.0): UTF-8 bytes in, the TOMLValue tree out, with the
// line and column of every key and value, table members in file order, and an error that says what is wrong
// and what was expected at line:column. Parsing is one pass over the bytes; tables being built are reference
// nodes so later headers can reopen them, and the finished tree is copied into TOMLValue without recursion.
// Nesting is bounded by TOMLReader.maximumDepth before any recursion goes past it.
import PlainText

/// The rules a table was made under, which decide who may add to it later.
private enum TableOrigin {
    /// Named on the way to a deeper header ([a] made by [a.b]): a header may still define it once.
    case implicit
    /// Defined by its own [header], or an element of an array of tables: never defined again, and dotted keys
    /// of a later section may not reach into it.
    case header
    /// Made (or entered) by dotted keys in the section numbered here (or, inside an inline table, numbered for
    /// that table): more dotted keys of that same section may add to it; nothing else may (no header defines
    /// it later, but one may define sub-tables in it).
    case dotted(section: Int)
    /// An inline table: complete when its closing brace is read.
    case inline
}

private final class TableNode {
    var members: [(key: String, keyPosition: SourcePosition, value: Node)] = []
    /// Keys by their UTF-8 bytes: TOML keys are equal when their code points are, while Swift's String
    /// equality would take "\u{e9}" and "e\u{301}" for one key.
    var index: [[UInt8]: Int] = [:]
    var position: SourcePosition
    var origin: TableOrigin

    init(position: SourcePosition, origin: TableOrigin) {
        self.position = position
        self.origin = origin
    }

    func member(_ key: String) -> Node? { index[Array(key.utf8)].map { members[$0].value } }

    func add(_ key: String, _ keyPosition: SourcePosition, _ value: Node) {
        index[Array(key.utf8)] = members.count
        members.append((key, keyPosition, value))
    }
}

private final class ArrayNode {
    var elements: [Node] = []
    var position: SourcePosition
    /// Made by [[header]]s, which may append to it; a written array [ … ] is complete as written.
    var ofTables: Bool

    init(position: SourcePosition, ofTables: Bool) {
        self.position = position
        self.ofTables = ofTables
    }
}

private enum Node {
    case table(TableNode)
    case array(ArrayNode)
    case scalar(TOMLValue)

    /// What the value is, for messages: "a table", "an array", "an integer"...
    var noun: String {
        switch self {
        case .table(let t): if case .inline = t.origin { return "an inline table" } else { return "a table" }
        case .array(let a): return a.ofTables ? "an array of tables" : "an array"
        case .scalar(let v):
            switch v.kind {
            case .string: return "a string"
            case .integer: return "an integer"
            case .float: return "a float"
            case .boolean: return "a boolean"
            case .date: return "a date"
            case .time: return "a time"
            case .dateTime: return "a date-time"
            case .table, .array: return "a value"
            }
        }
    }
}

/// One segment of a dotted key or header, with where it starts.
private struct KeySegment {
    var name: String
    var position: SourcePosition
}

struct TOMLParser {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var offset = 0
    private var line = 1
    private var lineStart = 0
    /// The column of `columnOffset` on the current line, so columns are counted incrementally.
    private var columnOffset = 0
    private var column = 1
    private let maximumDepth: Int
    /// Headers read so far: a dotted key's tables belong to the section they were made in.
    private var section = 0
    /// Inline tables read so far, numbering each one's own section (negative, apart from the headers').
    private var inlineSections = 0
    /// The keys of the last [header] read ([] before the first).
    private var headerKeys: [String] = []
    /// While the value of a `key = value` outside arrays and inline tables is read: the key's whole dotted
    /// path, for `LeadingZeroNumber`.
    private var assignedKey: [String]?

    init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    // MARK: Positions and errors

    /// The position of byte `at` (which must be on the current line or the current line's start).
    private mutating func position(_ at: Int) -> SourcePosition {
        if at < columnOffset || columnOffset < lineStart {
            columnOffset = lineStart
            column = 1
        }
        while columnOffset < at {
            if bytes[columnOffset] & 0xC0 != 0x80 { column += 1 }
            columnOffset += 1
        }
        return SourcePosition(line: line, column: column)
    }

    private mutating func here() -> SourcePosition { position(offset) }

    private mutating func fail(_ message: String, at: Int? = nil) -> TOMLSyntaxError {
        TOMLSyntaxError(message: message, position: position(at ?? offset))
    }

    private mutating func tooDeep(at: Int) -> TOMLSyntaxError {
        TOMLSyntaxError(
            message: "tables and arrays nest more than \(maximumDepth) levels deep here (headers, dotted keys, arrays and "
                + "inline tables all count); no gestured setting is more than a few levels deep",
            position: position(at), tooDeep: true)
    }

    /// The byte at `offset` shown in a message: 'x', a newline, the end of the file, or U+XXXX.
    private func shown(_ at: Int) -> String {
        guard at < bytes.count else { return "the end of the file" }
        let b = bytes[at]
        switch b {
        case 0x0A: return "the end of the line"
        case 0x0D: return at + 1 < bytes.count && bytes[at + 1] == 0x0A ? "the end of the line" : "a carriage return"
        case 0x09: return "a tab"
        case 0x20: return "a space"
        case 0x27: return "\"'\""
        case 0x21...0x7E: return "'\(Character(Unicode.Scalar(b)))'"
        default:
            if b < 0x80 { return "the control character U+\(hex(UInt32(b), 4))" }
            var decoder = UTF8()
            var iterator = bytes[at...].makeIterator()
            if case .scalarValue(let s) = decoder.decode(&iterator) {
                if s == "\u{FEFF}" { return "a byte order mark (U+FEFF; one may only open the file)" }
                return "'\(Character(s))' (U+\(hex(s.value, 4)))"
            }
            return "a byte that is not UTF-8"
        }
    }

    private func hex(_ value: UInt32, _ width: Int) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - digits.utf8.count)) + digits
    }

    // MARK: Bytes

    private var atEnd: Bool { offset >= bytes.count }
    private func peek(_ ahead: Int = 0) -> UInt8? { offset + ahead < bytes.count ? bytes[offset + ahead] : nil }

    private mutating func skipSpaces() {
        while let b = peek(), b == 0x20 || b == 0x09 { offset += 1 }
    }

    /// At a newline (LF or CRLF): consumes it and moves to the next line.
    private mutating func takeNewline() -> Bool {
        if peek() == 0x0A {
            offset += 1
        } else if peek() == 0x0D, peek(1) == 0x0A {
            offset += 2
        } else {
            return false
        }
        line += 1
        lineStart = offset
        columnOffset = offset
        column = 1
        return true
    }

    /// Skips a comment, if one starts here; a comment may hold any character but controls other than tab.
    private mutating func skipComment() throws(TOMLSyntaxError) {
        guard peek() == UInt8(ascii: "#") else { return }
        offset += 1
        while let b = peek(), b != 0x0A {
            if b == 0x0D, peek(1) == 0x0A { break }
            if (b < 0x20 && b != 0x09) || b == 0x7F {
                throw fail("\(shown(offset)) in a comment; a comment may hold any character except controls other than tab")
            }
            offset += 1
        }
    }

    /// After a key/value pair or a header: spaces, perhaps a comment, then the end of the line or file.
    private mutating func endOfStatement(_ what: String) throws(TOMLSyntaxError) {
        skipSpaces()
        try skipComment()
        if atEnd || takeNewline() { return }
        throw fail("expected the end of the line after \(what), found \(shown(offset)); put each key = value and each [header] on a line of its own")
    }

    /// Spaces, newlines and comments, as an array allows between its values.
    private mutating func skipBlank() throws(TOMLSyntaxError) {
        while true {
            skipSpaces()
            try skipComment()
            if !takeNewline() { return }
        }
    }

    // MARK: UTF-8

    /// Finds the first byte that is not well-formed UTF-8 (overlong forms, surrogates and values past U+10FFFF
    /// are not), or nil.
    private static func firstInvalidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var i = 0
        let n = bytes.count
        while i < n {
            let b = bytes[i]
            if b < 0x80 {
                i += 1
                continue
            }
            let length: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch b {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default: return i
            }
            guard i + length <= n else { return i }
            let second = bytes[i + 1]
            guard second >= low && second <= high else { return i }
            for k in 2..<length where bytes[i + k] & 0xC0 != 0x80 { return i }
            i += length
        }
        return nil
    }

    // MARK: The document

    mutating func parseDocument() throws(TOMLSyntaxError) -> TOMLValue {
        if let bad = TOMLParser.firstInvalidUTF8(bytes) {
            // Count lines up to the bad byte (position() only counts columns within a line).
            for k in 0..<bad where bytes[k] == 0x0A {
                line += 1
                lineStart = k + 1
            }
            throw fail("this byte (0x\(hex(UInt32(bytes[bad]), 2))) is not valid UTF-8; a TOML file must be UTF-8 text", at: bad)
        }
        // A UTF-8 byte order mark may open the document (TOML 1.0 allows it, as editors on some systems write
        // one); columns count from after it. Anywhere else U+FEFF is an ordinary character, refused where
        // TOML allows none.
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            offset = 3
            lineStart = 3
            columnOffset = 3
        }
        let root = TableNode(position: SourcePosition(line: 1, column: 1), origin: .header)
        var current = root
        var currentLevel = 0
        while true {
            skipSpaces()
            if atEnd { break }
            if takeNewline() { continue }
            switch peek()! {
            case UInt8(ascii: "#"):
                try skipComment()
                try endOfStatement("a comment")
            case UInt8(ascii: "["):
                section += 1
                (current, currentLevel) = try header(root)
            default:
                try keyValue(into: current, level: currentLevel)
                try endOfStatement("a value")
            }
        }
        return TOMLParser.finish(root)
    }

    /// Reads a [table] or [[array of tables]] header and returns the table the following pairs go into, and
    /// its nesting level.
    private mutating func header(_ root: TableNode) throws(TOMLSyntaxError) -> (TableNode, Int) {
        let start = offset
        let headerPosition = here()
        offset += 1
        let isArray = peek() == UInt8(ascii: "[")
        if isArray { offset += 1 }
        let kind = isArray ? "[[array of tables]] header" : "[table] header"
        skipSpaces()
        let keys = try key(baseLevel: 0)
        headerKeys = keys.map(\.name)
        skipSpaces()
        if isArray {
            guard peek() == UInt8(ascii: "]"), peek(1) == UInt8(ascii: "]") else {
                throw fail("expected ']]' to close the \(kind), found \(shown(offset))")
            }
            offset += 2
        } else {
            guard peek() == UInt8(ascii: "]") else {
                throw fail("expected ']' to close the \(kind), found \(shown(offset))")
            }
            offset += 1
        }
        // Walk to the parent of the last segment, making tables on the way.
        var table = root
        var path = ""
        for segment in keys.dropLast() {
            path += path.isEmpty ? segment.name : "." + segment.name
            switch table.member(segment.name) {
            case nil:
                let made = TableNode(position: headerPosition, origin: .implicit)
                table.add(segment.name, segment.position, .table(made))
                table = made
            case .table(let t):
                if case .inline = t.origin {
                    throw fail("\(path) is an inline table, which is complete as written; a header cannot add to it", at: start)
                }
                table = t
            case .array(let a):
                guard a.ofTables, case .table(let last)? = a.elements.last else {
                    throw fail("\(path) is an array written in place, which a header cannot add to", at: start)
                }
                table = last
            case .scalar(let v):
                throw fail("\(path) is already \(Node.scalar(v).noun) (line \(v.position.line)), not a table", at: start)
            }
        }
        let last = keys[keys.count - 1]
        path += path.isEmpty ? last.name : "." + last.name
        if isArray {
            let element = TableNode(position: headerPosition, origin: .header)
            switch table.member(last.name) {
            case nil:
                let array = ArrayNode(position: headerPosition, ofTables: true)
                array.elements.append(.table(element))
                table.add(last.name, last.position, .array(array))
            case .array(let a) where a.ofTables:
                a.elements.append(.table(element))
            case let existing?:
                throw fail(
                    "[[\(path)]] adds to an array of tables, but \(path) is already \(existing.noun) (line \(Self.line(of: existing)))",
                    at: start)
            }
            try endOfStatement("the header")
            return (element, keys.count)
        }
        switch table.member(last.name) {
        case nil:
            let made = TableNode(position: headerPosition, origin: .header)
            table.add(last.name, last.position, .table(made))
            try endOfStatement("the header")
            return (made, keys.count)
        case .table(let t):
            switch t.origin {
            case .implicit:
                t.origin = .header
                t.position = headerPosition
                try endOfStatement("the header")
                return (t, keys.count)
            case .header:
                throw fail("the table [\(path)] is already defined (line \(t.position.line)); each table is defined once", at: start)
            case .dotted:
                throw fail(
                    "the table \(path) is already defined by dotted keys (line \(t.position.line)); a [header] cannot define it again",
                    at: start)
            case .inline:
                throw fail("\(path) is an inline table (line \(t.position.line)), which is complete as written", at: start)
            }
        case let existing?:
            throw fail("[\(path)] defines a table, but \(path) is already \(existing.noun) (line \(Self.line(of: existing)))", at: start)
        }
    }

    private static func line(of node: Node) -> Int {
        switch node {
        case .table(let t): return t.position.line
        case .array(let a): return a.position.line
        case .scalar(let v): return v.position.line
        }
    }

    /// Reads a key and the '=' after it (with the spaces around it): the key's parts.
    private mutating func keyAndEquals(level: Int) throws(TOMLSyntaxError) -> [KeySegment] {
        let keys = try key(baseLevel: level)
        skipSpaces()
        guard peek() == UInt8(ascii: "=") else {
            throw fail("expected '=' after the key \(Self.dotted(keys)), found \(shown(offset))")
        }
        offset += 1
        skipSpaces()
        return keys
    }

    /// Reads `key = value` and adds it to `table`, whose keys are at nesting level `level` + 1.
    private mutating func keyValue(into table: TableNode, level: Int) throws(TOMLSyntaxError) {
        let keys = try keyAndEquals(level: level)
        assignedKey = headerKeys + keys.map(\.name)
        let value = try self.value(level: level + keys.count)
        assignedKey = nil
        try insert(value, keys: keys, into: table, section: section)
    }

    private static func dotted(_ keys: [KeySegment]) -> String {
        keys.map { segment in
            segment.name.utf8.allSatisfy(isBareKeyByte) && !segment.name.isEmpty ? segment.name : quoted(segment.name)
        }.joined(separator: ".")
    }

    /// Puts `value` at the dotted `keys` under `table`, making the tables between as tables of `section`.
    private mutating func insert(_ value: Node, keys: [KeySegment], into table: TableNode, section: Int) throws(TOMLSyntaxError) {
        var table = table
        let valuePosition: SourcePosition
        switch value {
        case .table(let t): valuePosition = t.position
        case .array(let a): valuePosition = a.position
        case .scalar(let v): valuePosition = v.position
        }
        for (k, segment) in keys.dropLast().enumerated() {
            var path: String { Self.dotted(Array(keys[...k])) }
            switch table.member(segment.name) {
            case nil:
                let made = TableNode(position: segment.position, origin: .dotted(section: section))
                table.add(segment.name, segment.position, .table(made))
                table = made
            case .table(let t):
                switch t.origin {
                case .implicit:
                    t.origin = .dotted(section: section)
                case .dotted(let made) where made == section:
                    break
                case .dotted where section < 0:
                    throw TOMLSyntaxError(
                        message: "\(path) is an inline table's table, which is complete as written; dotted keys cannot add to it",
                        position: valuePosition)
                case .dotted:
                    throw TOMLSyntaxError(
                        message: "the dotted key \(path) adds to a table defined in an earlier section (line \(t.position.line)); write these keys in that section",
                        position: valuePosition)
                case .header:
                    throw TOMLSyntaxError(
                        message: "the dotted key \(path) reaches into a table that a [header] defined (line \(t.position.line)); write these keys under that header",
                        position: valuePosition)
                case .inline:
                    throw TOMLSyntaxError(
                        message: "\(path) is an inline table (line \(t.position.line)), which is complete as written; dotted keys cannot add to it",
                        position: valuePosition)
                }
                table = t
            case let existing?:
                throw TOMLSyntaxError(
                    message: "the dotted key \(path) needs a table, but \(path) is already \(existing.noun) (line \(Self.line(of: existing)))",
                    position: valuePosition)
            }
        }
        let last = keys[keys.count - 1]
        if let existing = table.member(last.name) {
            throw TOMLSyntaxError(
                message: "\(Self.dotted(keys)) is already defined (line \(Self.line(of: existing)), as \(existing.noun)); each key is set once",
                position: valuePosition)
        }
        table.add(last.name, last.position, value)
    }

    // MARK: Keys

    private static func isBareKeyByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "_"), UInt8(ascii: "-"):
            return true
        default: return false
        }
    }

    /// Reads a key (bare, "quoted" or 'literal' segments joined by dots) whose first segment is at nesting
    /// level `baseLevel` + 1; a segment past the depth limit is refused at the dot before it.
    private mutating func key(baseLevel: Int) throws(TOMLSyntaxError) -> [KeySegment] {
        var segments: [KeySegment] = []
        while true {
            if baseLevel + segments.count + 1 > maximumDepth {
                throw tooDeep(at: segments.isEmpty ? offset : dotOffset)
            }
            let start = offset
            let position = here()
            switch peek() {
            case UInt8(ascii: "\"")?:
                if peek(1) == UInt8(ascii: "\""), peek(2) == UInt8(ascii: "\"") {
                    throw fail("a key cannot be a multi-line string; write it in \"quotes\" on one line")
                }
                segments.append(KeySegment(name: try basicString(), position: position))
            case UInt8(ascii: "'")?:
                if peek(1) == UInt8(ascii: "'"), peek(2) == UInt8(ascii: "'") {
                    throw fail("a key cannot be a multi-line string; write it in 'quotes' on one line")
                }
                segments.append(KeySegment(name: try literalString(), position: position))
            default:
                while let b = peek(), Self.isBareKeyByte(b) { offset += 1 }
                if offset == start {
                    let expected = segments.isEmpty ? "a key" : "a key after the dot"
                    throw fail(
                        "expected \(expected), found \(shown(offset)); a bare key is letters, digits, '_' and '-', other keys go in quotes")
                }
                segments.append(
                    KeySegment(name: String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self), position: position))
            }
            skipSpaces()
            guard peek() == UInt8(ascii: ".") else { return segments }
            dotOffset = offset
            offset += 1
            skipSpaces()
        }
    }

    private var dotOffset = 0

    // MARK: Values

    /// Reads a value at nesting level `level` (arrays and inline tables it opens are one level deeper).
    private mutating func value(level: Int) throws(TOMLSyntaxError) -> Node {
        let start = offset
        let position = here()
        guard let b = peek() else { throw fail("expected a value, found the end of the file") }
        switch b {
        case UInt8(ascii: "\""):
            let s: String
            if peek(1) == b, peek(2) == b { s = try multilineString(quote: b) } else { s = try basicString() }
            return .scalar(TOMLValue(kind: .string(s), position: position))
        case UInt8(ascii: "'"):
            let s: String
            if peek(1) == b, peek(2) == b { s = try multilineString(quote: b) } else { s = try literalString() }
            return .scalar(TOMLValue(kind: .string(s), position: position))
        case UInt8(ascii: "["):
            if level + 1 > maximumDepth { throw tooDeep(at: start) }
            assignedKey = nil  // its elements are not the key's value
            return try array(level: level + 1, position: position)
        case UInt8(ascii: "{"):
            if level + 1 > maximumDepth { throw tooDeep(at: start) }
            assignedKey = nil
            return try inlineTable(level: level, position: position)
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            let run = scanToken()
            if Self.matches(run, "true") { return .scalar(TOMLValue(kind: .boolean(true), position: position)) }
            if Self.matches(run, "false") { return .scalar(TOMLValue(kind: .boolean(false), position: position)) }
            offset = start
            throw fail("expected a value, found '\(text(run))'; booleans are true and false in lower case, and strings go in quotes")
        default:
            if b == 0x0A || b == 0x0D || b == UInt8(ascii: "#") {
                throw fail("expected a value after '=', found \(shown(offset))")
            }
            return .scalar(try numberOrDate(position: position))
        }
    }

    /// The run of bytes that can make up a number, date, time or keyword, consumed.
    private mutating func scanToken() -> Bytes {
        let start = offset
        while let b = peek() {
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "_"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: ":"):
                offset += 1
            default:
                return bytes[start..<offset]
            }
        }
        return bytes[start..<offset]
    }

    private mutating func array(level: Int, position: SourcePosition) throws(TOMLSyntaxError) -> Node {
        let array = ArrayNode(position: position, ofTables: false)
        offset += 1
        while true {
            try skipBlank()
            if peek() == UInt8(ascii: "]") {
                offset += 1
                return .array(array)
            }
            if atEnd {
                throw TOMLSyntaxError(message: "this array has no closing ']': the file ends before it", position: position)
            }
            array.elements.append(try value(level: level))
            try skipBlank()
            if atEnd {
                throw TOMLSyntaxError(message: "this array has no closing ']': the file ends before it", position: position)
            }
            let closed = try readCommaOrClose("]") { "expected ',' or ']' after an array element, found \($0.shown($0.offset))" }
            if closed { return .array(array) }
        }
    }

    /// After an array's element or an inline table's pair: reads the ',' that continues it (false) or the
    /// `close` that ends it (true). Anything else is an error, with the message `unexpected` makes from the
    /// parser there.
    private mutating func readCommaOrClose(
        _ close: Unicode.Scalar, orFail unexpected: (TOMLParser) -> String
    ) throws(TOMLSyntaxError) -> Bool {
        switch peek() {
        case UInt8(ascii: ",")?:
            offset += 1
            return false
        case UInt8(ascii: close)?:
            offset += 1
            return true
        default:
            throw fail(unexpected(self))
        }
    }

    /// Reads { key = value, … } for a key at nesting level `level`: its keys are one level deeper.
    private mutating func inlineTable(level: Int, position: SourcePosition) throws(TOMLSyntaxError) -> Node {
        let table = TableNode(position: position, origin: .inline)
        inlineSections -= 1
        let inlineSection = inlineSections
        offset += 1
        skipSpaces()
        if peek() == UInt8(ascii: "}") {
            offset += 1
            return .table(table)
        }
        while true {
            skipSpaces()
            if peek() == UInt8(ascii: "}") {
                throw fail("expected a key after ',', found '}'; an inline table may not end with a comma")
            }
            if peek() == 0x0A || peek() == 0x0D || peek() == UInt8(ascii: "#") {
                throw fail("expected a key, found \(shown(offset)); an inline table is written on one line, without comments")
            }
            let keys = try keyAndEquals(level: level)
            let value = try self.value(level: level + keys.count)
            try insert(value, keys: keys, into: table, section: inlineSection)
            skipSpaces()
            let closed = try readCommaOrClose("}") {
                "expected ',' or '}' in the inline table opened at line \(position.line), found \($0.shown($0.offset)); an inline table is written on one line"
            }
            if closed { return .table(table) }
        }
    }

    // MARK: Strings

    /// A control character a string may not hold (all but tab), at `offset`.
    private func isForbiddenControl(_ b: UInt8) -> Bool { (b < 0x20 && b != 0x09) || b == 0x7F }

    private mutating func basicString() throws(TOMLSyntaxError) -> String {
        let open = offset
        offset += 1
        var out: [UInt8] = []
        while true {
            guard let b = peek() else { throw fail("this string has no closing '\"'; a \"string\" ends on the line it starts", at: open) }
            switch b {
            case UInt8(ascii: "\""):
                offset += 1
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try escape(into: &out)
            case 0x0A, 0x0D:
                throw fail("expected '\"' to close the string before the end of the line; use \"\"\" for a string of several lines, or \\n")
            default:
                if isForbiddenControl(b) {
                    throw fail("\(shown(offset)) in a string; write control characters as escapes such as \\u\(hex(UInt32(b), 4))")
                }
                out.append(b)
                offset += 1
            }
        }
    }

    private mutating func escape(into out: inout [UInt8]) throws(TOMLSyntaxError) {
        let start = offset
        offset += 1
        guard let e = peek() else { throw fail("a string ends in the middle of an escape", at: start) }
        offset += 1
        switch e {
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "\""): out.append(0x22)
        case UInt8(ascii: "\\"): out.append(0x5C)
        case UInt8(ascii: "u"), UInt8(ascii: "U"):
            let count = e == UInt8(ascii: "u") ? 4 : 8
            var value: UInt32 = 0
            for k in 0..<count {
                guard let d = peek().flatMap(Self.hexDigit) else {
                    throw fail("\\\(Character(Unicode.Scalar(e))) needs \(count) hexadecimal digits, found \(shown(offset))", at: k == 0 ? offset : offset)
                }
                value = value << 4 | UInt32(d)
                offset += 1
            }
            guard let scalar = Unicode.Scalar(value) else {
                throw fail("\\\(Character(Unicode.Scalar(e)))\(hex(value, count)) is not a Unicode scalar value (surrogates and values past 10FFFF are not)", at: start)
            }
            UTF8.encode(scalar) { out.append($0) }
        default:
            offset = start
            throw fail(
                "\(shown(start + 1)) after a backslash is not an escape; the escapes are \\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX and \\UXXXXXXXX (write \\\\ for a backslash)")
        }
    }

    private static func hexDigit(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    private mutating func literalString() throws(TOMLSyntaxError) -> String {
        let open = offset
        offset += 1
        let start = offset
        while true {
            guard let b = peek() else { throw fail("this string has no closing \"'\"; a 'string' ends on the line it starts", at: open) }
            if b == UInt8(ascii: "'") {
                offset += 1
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset - 1]), as: UTF8.self)
            }
            if b == 0x0A || b == 0x0D {
                throw fail("expected \"'\" to close the string before the end of the line; use ''' for a string of several lines")
            }
            if isForbiddenControl(b) { throw fail("\(shown(offset)) in a literal string, which cannot hold control characters other than tab") }
            offset += 1
        }
    }

    /// After the opening quotes of a multi-line string: a newline right after them is not part of it.
    private mutating func skipFirstNewline() {
        _ = takeNewline()
    }

    /// At `quote` repeated: true when this closes a multi-line string (three quotes, and up to two more that
    /// belong to the string), appending those extra quotes.
    private mutating func closesMultiline(_ quote: UInt8, into out: inout [UInt8]) -> Bool {
        guard peek() == quote, peek(1) == quote, peek(2) == quote else { return false }
        var run = 3
        while peek(run) == quote { run += 1 }
        if run > 5 { return false }
        for _ in 0..<(run - 3) { out.append(quote) }
        offset += run
        return true
    }

    /// A `"""` (basic: escapes, and a backslash at a line's end trims the newline) or `'''` (literal)
    /// multi-line string, `quote` being its quote character.
    private mutating func multilineString(quote: UInt8) throws(TOMLSyntaxError) -> String {
        let basic = quote == UInt8(ascii: "\"")
        let delimiter = basic ? "\"\"\"" : "'''"
        let openPosition = here()
        offset += 3
        skipFirstNewline()
        var out: [UInt8] = []
        while true {
            guard let b = peek() else {
                throw TOMLSyntaxError(message: "this string has no closing \(delimiter): the file ends before it", position: openPosition)
            }
            if b == quote {
                if closesMultiline(b, into: &out) { return String(decoding: out, as: UTF8.self) }
                if peek(1) == b, peek(2) == b {
                    throw fail(
                        "too many quotes: a \(delimiter) string can end with at most two quotes before its closing \(delimiter)"
                            + (basic ? "; escape them as \\\"" : ""))
                }
                out.append(b)
                offset += 1
            } else if basic && b == UInt8(ascii: "\\") {
                // A backslash at the end of a line (spaces may follow it) trims the newline and the blanks after it.
                var k = 1
                while let c = peek(k), c == 0x20 || c == 0x09 { k += 1 }
                if peek(k) == 0x0A || (peek(k) == 0x0D && peek(k + 1) == 0x0A) {
                    offset += k
                    while true {
                        skipSpaces()
                        if !takeNewline() { break }
                    }
                } else {
                    try escape(into: &out)
                }
            } else if takeNewline() {
                out.append(0x0A)
            } else {
                if isForbiddenControl(b) {
                    throw fail(
                        basic
                            ? "\(shown(offset)) in a string; write control characters as escapes such as \\u\(hex(UInt32(b), 4))"
                            : "\(shown(offset)) in a literal string, which cannot hold control characters other than tab")
                }
                out.append(b)
                offset += 1
            }
        }
    }

    // MARK: Numbers, dates and times

    private static func isDigit(_ b: UInt8?) -> Bool { DecimalScanner.isDigit(b) }

    private mutating func numberOrDate(position: SourcePosition) throws(TOMLSyntaxError) -> TOMLValue {
        let start = offset
        // A date starts with four digits and '-', a time with two digits and ':'.
        if (0..<4).allSatisfy({ Self.isDigit(peek($0)) }) && peek(4) == UInt8(ascii: "-") {
            return TOMLValue(kind: try dateOrDateTime(), position: position)
        }
        if Self.isDigit(peek()) && Self.isDigit(peek(1)) && peek(2) == UInt8(ascii: ":") {
            var text = ""
            try time(into: &text)
            return TOMLValue(kind: .time(text), position: position)
        }
        let token = scanToken()
        if token.isEmpty {
            throw fail("expected a value, found \(shown(offset)); strings go in quotes")
        }
        if let kind = try number(token, start: start) {
            if case .integer = kind { return TOMLValue(kind: kind, position: position, written: text(token)) }
            return TOMLValue(kind: kind, position: position)
        }
        offset = start
        throw fail("'\(text(token))' is not a value: expected a number, a date or time, true or false, or a string in quotes")
    }

    private typealias Bytes = Slice<UnsafeBufferPointer<UInt8>>

    private func text(_ bytes: Bytes) -> String { String(decoding: UnsafeBufferPointer(rebasing: bytes), as: UTF8.self) }

    /// The digit values of `text` (single underscores between digits dropped), or nil when an underscore is
    /// not between two digits or a byte is not a digit of `radix`. Bytes only: no Character or Unicode
    /// tables are touched, which keeps the daemon's start from paging them in.
    private static func digits(_ text: Bytes, radix: UInt8) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var previousWasDigit = false
        for b in text {
            if b == UInt8(ascii: "_") {
                guard previousWasDigit else { return nil }
                previousWasDigit = false
                continue
            }
            guard let d = hexDigit(b), d < radix else { return nil }
            out.append(d)
            previousWasDigit = true
        }
        return previousWasDigit ? out : nil
    }

    /// The digits' value in `radix`, negated when `negative`, or nil when it does not fit in 64 bits.
    private static func value(of digits: [UInt8], radix: UInt8, negative: Bool) -> Int64? {
        var value: Int64 = 0
        for d in digits {
            let (shifted, o1) = value.multipliedReportingOverflow(by: Int64(radix))
            let (next, o2) = negative ? shifted.subtractingReportingOverflow(Int64(d)) : shifted.addingReportingOverflow(Int64(d))
            if o1 || o2 { return nil }
            value = next
        }
        return value
    }

    private static func matches(_ bytes: Bytes, _ word: StaticString) -> Bool {
        word.withUTF8Buffer { bytes.elementsEqual($0) }
    }

    private mutating func number(_ token: Bytes, start: Int) throws(TOMLSyntaxError) -> TOMLValue.Kind? {
        var body = token
        var negative = false
        var signed = false
        if let first = body.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") {
            signed = true
            negative = first == UInt8(ascii: "-")
            body = body.dropFirst()
        }
        if Self.matches(body, "inf") { return .float(negative ? -.infinity : .infinity) }
        if Self.matches(body, "nan") { return .float(negative ? -.nan : .nan) }
        let second = body.dropFirst().first
        if body.count > 2, body.first == UInt8(ascii: "0"),
            second == UInt8(ascii: "x") || second == UInt8(ascii: "o") || second == UInt8(ascii: "b")
        {
            let radix: UInt8 = second == UInt8(ascii: "x") ? 16 : second == UInt8(ascii: "o") ? 8 : 2
            guard !signed else {
                throw fail("'\(text(token))': a hexadecimal, octal or binary integer cannot have a sign", at: start)
            }
            guard let digits = Self.digits(body.dropFirst(2), radix: radix) else {
                throw fail("'\(text(token))' is not a valid base-\(radix) integer: digits with single underscores between them", at: start)
            }
            guard let value = Self.value(of: digits, radix: radix, negative: false) else {
                throw fail("'\(text(token))' does not fit in a 64-bit signed integer", at: start)
            }
            return .integer(value)
        }
        // Decimal: an integer part, then perhaps a fraction and an exponent.
        var integerPart = body
        var fraction: Bytes?
        var exponent: Bytes?
        if let e = body.firstIndex(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
            integerPart = body[..<e]
            exponent = body[(e + 1)...]
        }
        if let dot = integerPart.firstIndex(of: UInt8(ascii: ".")) {
            fraction = integerPart[(dot + 1)...]
            integerPart = integerPart[..<dot]
        }
        if body.contains(UInt8(ascii: "_")), Self.isDigit(integerPart.first),
            Self.digits(integerPart, radix: 10) == nil || fraction.map({ Self.digits($0, radix: 10) == nil && !$0.contains(UInt8(ascii: ".")) }) == true
        {
            throw fail("'\(text(token))': each underscore in a number must be between two digits (1_000, not 1__000 or 1_)", at: start)
        }
        if fraction?.contains(UInt8(ascii: ".")) == true {
            throw fail("'\(text(token))' is not a number: a number has one '.' at most", at: start)
        }
        guard Self.isDigit(integerPart.first), let intDigits = Self.digits(integerPart, radix: 10) else {
            if integerPart.isEmpty && (fraction != nil || exponent != nil) {
                throw fail("'\(text(token))': a float needs digits before its '.' or exponent (write 0.5, not .5)", at: start)
            }
            return nil
        }
        if intDigits.count > 1 && intDigits[0] == 0 {
            var error = fail("'\(text(token))': a decimal number cannot start with a leading zero (write 0o17 for octal)", at: start)
            if fraction == nil && exponent == nil { error.leadingZero = LeadingZeroNumber(text: text(token), keyPath: assignedKey) }
            throw error
        }
        if fraction == nil && exponent == nil {
            guard let value = Self.value(of: intDigits, radix: 10, negative: negative) else {
                throw fail("'\(text(token))' does not fit in a 64-bit signed integer (-9223372036854775808 to 9223372036854775807)", at: start)
            }
            return .integer(value)
        }
        // The float's text without underscores, for the standard library's correctly rounded conversion.
        var ascii: [UInt8] = negative ? [UInt8(ascii: "-")] : []
        ascii += intDigits.map { $0 + 0x30 }
        if let fraction {
            guard let d = Self.digits(fraction, radix: 10) else {
                throw fail("'\(text(token))': a float needs digits after its '.' (write 1.0, not 1.)", at: start)
            }
            ascii.append(UInt8(ascii: "."))
            ascii += d.map { $0 + 0x30 }
        }
        if var exponent {
            ascii.append(UInt8(ascii: "e"))
            if let first = exponent.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") {
                ascii.append(first)
                exponent = exponent.dropFirst()
            }
            guard let d = Self.digits(exponent, radix: 10) else {
                throw fail("'\(text(token))': an exponent needs digits after its 'e' (write 1e6 or 1e-6)", at: start)
            }
            ascii += d.map { $0 + 0x30 }
        }
        guard let value = Double(String(decoding: ascii, as: UTF8.self)) else { return nil }
        return .float(value)
    }

    /// Reads `count` digits as a number, or throws naming `what`.
    private mutating func fixedDigits(_ count: Int, _ what: String) throws(TOMLSyntaxError) -> Int {
        guard let value = DecimalScanner.fixedDigits(in: bytes, at: &offset, end: bytes.count, count: count) else {
            throw fail("expected \(count) digits for the \(what), found \(shown(offset))")
        }
        return value
    }

    private mutating func expect(_ c: UInt8, _ what: String) throws(TOMLSyntaxError) {
        guard peek() == c else { throw fail("expected '\(Character(Unicode.Scalar(c)))' \(what), found \(shown(offset))") }
        offset += 1
    }

    private static func twoDigits(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

    private static func fourDigits(_ n: Int) -> String {
        let s = String(n)
        return String(repeating: "0", count: max(0, 4 - s.utf8.count)) + s
    }

    /// HH:MM:SS[.fraction], appended to `text` in the form toml++ printed them (the library gestured used before): the fraction to nanoseconds
    /// without trailing zeros.
    private mutating func time(into text: inout String) throws(TOMLSyntaxError) {
        let start = offset
        let hour = try fixedDigits(2, "hour")
        try expect(UInt8(ascii: ":"), "between the hour and minutes")
        let minute = try fixedDigits(2, "minutes")
        try expect(UInt8(ascii: ":"), "between the minutes and seconds (a time is HH:MM:SS)")
        let second = try fixedDigits(2, "seconds")
        guard hour < 24, minute < 60, second < 60 else {
            throw fail("\(Self.twoDigits(hour)):\(Self.twoDigits(minute)):\(Self.twoDigits(second)) is not a time of day (hours 00 to 23, minutes and seconds 00 to 59)", at: start)
        }
        text += "\(Self.twoDigits(hour)):\(Self.twoDigits(minute)):\(Self.twoDigits(second))"
        if peek() == UInt8(ascii: ".") {
            offset += 1
            var fraction: [UInt8] = []
            while let b = peek(), Self.isDigit(b) {
                if fraction.count < 9 { fraction.append(b) }
                offset += 1
            }
            if fraction.isEmpty { throw fail("expected digits after the '.' of the seconds, found \(shown(offset))") }
            while fraction.last == UInt8(ascii: "0") { fraction.removeLast() }
            if !fraction.isEmpty { text += "." + String(decoding: fraction, as: UTF8.self) }
        }
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private mutating func dateOrDateTime() throws(TOMLSyntaxError) -> TOMLValue.Kind {
        let start = offset
        let year = try fixedDigits(4, "year")
        try expect(UInt8(ascii: "-"), "between the year and month (a date is YYYY-MM-DD)")
        let month = try fixedDigits(2, "month")
        try expect(UInt8(ascii: "-"), "between the month and day (a date is YYYY-MM-DD)")
        let day = try fixedDigits(2, "day")
        guard (1...12).contains(month), day >= 1, day <= Self.daysIn(month: month, year: year) else {
            throw fail("\(Self.fourDigits(year))-\(Self.twoDigits(month))-\(Self.twoDigits(day)) is not a date in the calendar", at: start)
        }
        var text = "\(Self.fourDigits(year))-\(Self.twoDigits(month))-\(Self.twoDigits(day))"
        // 'T', 't' or a space, then a time, makes a date-time; a space followed by anything else ends the date.
        let separator = peek()
        if separator == UInt8(ascii: "T") || separator == UInt8(ascii: "t")
            || (separator == 0x20 && Self.isDigit(peek(1)) && Self.isDigit(peek(2)) && peek(3) == UInt8(ascii: ":"))
        {
            offset += 1
            text += "T"
            try time(into: &text)
            switch peek() {
            case UInt8(ascii: "Z")?, UInt8(ascii: "z")?:
                offset += 1
                text += "Z"
            case UInt8(ascii: "+")?, UInt8(ascii: "-")?:
                let negative = peek() == UInt8(ascii: "-")
                let offsetStart = offset
                offset += 1
                let hours = try fixedDigits(2, "offset's hours")
                try expect(UInt8(ascii: ":"), "in the offset (+HH:MM)")
                let minutes = try fixedDigits(2, "offset's minutes")
                guard hours < 24, minutes < 60 else {
                    throw fail("the offset is out of range (hours 00 to 23, minutes 00 to 59)", at: offsetStart)
                }
                text += hours == 0 && minutes == 0 ? "Z" : "\(negative ? "-" : "+")\(Self.twoDigits(hours)):\(Self.twoDigits(minutes))"
            default:
                break
            }
            try endOfDateTime()
            return .dateTime(text)
        }
        try endOfDateTime()
        return .date(text)
    }

    /// A date or time must not run on into letters or digits ("1979-05-27x").
    private mutating func endOfDateTime() throws(TOMLSyntaxError) {
        if let b = peek(), Self.isBareKeyByte(b) || b == UInt8(ascii: ".") || b == UInt8(ascii: ":") || b == UInt8(ascii: "+") {
            throw fail("unexpected \(shown(offset)) after a date or time; expected YYYY-MM-DD, HH:MM:SS or YYYY-MM-DDTHH:MM:SS with an optional Z or +HH:MM")
        }
    }

    // MARK: The finished tree

    /// A table or array being copied into TOMLValue, with the children copied so far.
    private struct Frame {
        var table: TableNode?
        var array: ArrayNode?
        var members: [TOMLMember] = []
        var elements: [TOMLValue] = []

        var childCount: Int { table?.members.count ?? array?.elements.count ?? 0 }
        var copied: Int { table != nil ? members.count : elements.count }
        var nextChild: Node { table.map { $0.members[members.count].value } ?? array!.elements[elements.count] }

        mutating func append(_ value: TOMLValue) {
            if let table {
                let member = table.members[members.count]
                members.append(TOMLMember(key: member.key, keyPosition: member.keyPosition, value: value))
            } else {
                elements.append(value)
            }
        }

        consuming func finished() -> TOMLValue {
            if let table { return TOMLValue(kind: .table(members), position: table.position) }
            return TOMLValue(kind: .array(elements), position: array!.position)
        }
    }

    /// Copies the node tree into TOMLValue, depth first with an explicit stack (no recursion). Frames are
    /// changed in place in the stack, so no array of children is copied as it grows.
    private static func finish(_ root: TableNode) -> TOMLValue {
        var stack = [Frame(table: root)]
        while true {
            let top = stack.count - 1
            if stack[top].copied < stack[top].childCount {
                switch stack[top].nextChild {
                case .scalar(let value): stack[top].append(value)
                case .table(let table): stack.append(Frame(table: table))
                case .array(let array): stack.append(Frame(array: array))
                }
                continue
            }
            let value = stack.removeLast().finished()
            if stack.isEmpty { return value }
            stack[stack.count - 1].append(value)
        }
    }
}
