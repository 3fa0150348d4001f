import GestureCore
import GestureVocabulary
import PlainText

/// Reads the recordings `libinput record` writes (what users attach to input bug reports): YAML, file format
/// version 1, as libinput-record(1) describes it ("FILE FORMAT"). Pure: the caller reads the file.
///
/// The parser reads the block YAML that libinput writes and only that: mappings (`key: value`, `key:` with
/// the value indented below, or a sequence at the key's own indentation), sequences (`- item`, an item that
/// is itself a mapping continuing at the column after its dash), comments, plain, "double-quoted" and
/// 'single-quoted' scalars and one-line flow sequences (`[1, 2, 3]`). No anchors, aliases, tags, multi-line
/// scalars or flow mappings where a value is read (a value gestured does not read may be anything that
/// fits on its line: libinput's own `--with-libinput` events are flow mappings). Keys the format does not
/// define are ignored, as the format asks of every reader.
///
/// What is read: `version` (must be 1) and `devices`; of each device `evdev`'s `name`, `id` (bus, vendor,
/// product, version), `codes` (EV_KEY's codes become the device's keys), `absinfo` (code: [min, max, fuzz,
/// flat, resolution]) and `properties`, and `events`, whose `evdev` lists hold one kernel event each, `[sec,
/// usec, type, code, value]`, in microseconds since the recording began. A recording of several devices
/// (`libinput record` given more than one node) is replayed as its first device with touch axes
/// (ABS_MT_POSITION_X/Y or ABS_X/Y) that is no pen; gestured replays one device per recording, with the
/// proximity of the pens recorded beside it (BTN_TOOL_PEN or BTN_TOOL_RUBBER).
///
/// libinput writes a device name between double quotes without escaping it (a name holding `"` or `\`
/// is written as it is), so a double-quoted scalar is taken as written between its first and last quote.
public enum LibinputRecordParser {
    /// Deepest nesting of mappings and sequences read: libinput's format nests 5 deep; more is not its
    /// format, and the bound keeps the parser's recursion small whatever the file holds.
    static let maximumDepth = 16

    public static func parse(text: String, fileName: String) throws(RecordingError) -> EvemuRecording {
        try parse(bytes: Array(text.utf8), fileName: fileName)
    }

    /// Parses a whole file's bytes (UTF-8), with no copy of them as text.
    public static func parse(bytes: [UInt8], fileName: String) throws(RecordingError) -> EvemuRecording {
        var parser = Parser(bytes: bytes, fileName: fileName)
        let root = try parser.document()
        return try interpret(root, eventsByDevice: parser.eventsByDevice, fileName: fileName)
    }

    // MARK: The tree

    /// A value read from the file, with the line it starts on.
    indirect enum Node {
        case scalar(String, line: Int)
        /// A one-line flow sequence's items, each as its text.
        case flow([String], line: Int)
        case mapping([(key: String, value: Node, line: Int)], line: Int)
        case sequence([Node], line: Int)
        /// A key with no value (`key:` and nothing below it).
        case empty(line: Int)

        var line: Int {
            switch self {
            case .scalar(_, let line), .flow(_, let line), .mapping(_, let line), .sequence(_, let line), .empty(let line):
                return line
            }
        }

        subscript(key: String) -> Node? {
            guard case .mapping(let members, _) = self else { return nil }
            return members.first(where: { $0.key == key })?.value
        }

        /// What the value is, for messages.
        var noun: String {
            switch self {
            case .scalar: return "a scalar"
            case .flow: return "a list in brackets"
            case .mapping: return "a mapping"
            case .sequence: return "a list"
            case .empty: return "nothing"
            }
        }
    }

    /// One line that is not blank and not a comment: where its text starts (after the indentation) and ends
    /// (before a carriage return and trailing blanks).
    struct Line {
        var number: Int
        var indent: Int
        var start: Int
        var end: Int
    }

    struct Parser {
        let bytes: [UInt8]
        let fileName: String
        var offset = 0
        var lineNumber = 0
        /// A line read ahead (or the rest of a `- ` line, to be read as the item it starts).
        var pending: Line?
        var path: [String] = []
        /// Devices begun so far in `devices`; kernel events go to the last one.
        var deviceCount = 0
        var eventsByDevice: [[InputEvent]] = []
        var lastTime = Int64.min

        init(bytes: [UInt8], fileName: String) {
            self.bytes = bytes
            self.fileName = fileName
        }

        func fail(_ line: Int, _ message: String) -> RecordingError {
            RecordingError(fileName: fileName, line: line, message: message)
        }

        /// The text of `start..<end`, control characters escaped and cut to 60 characters, for a message.
        func preview(_ start: Int, _ end: Int) -> String {
            let text = String(decoding: bytes[start..<min(end, start + 60)], as: UTF8.self)
            return escapingControlCharacters(end - start > 60 ? text + "…" : text)
        }

        // MARK: Lines

        mutating func peek() throws(RecordingError) -> Line? {
            if let pending { return pending }
            while offset < bytes.count {
                var end = offset
                while end < bytes.count && bytes[end] != 0x0A { end += 1 }
                let start = offset
                offset = end + 1
                lineNumber += 1
                var i = start
                while i < end && bytes[i] == 0x20 { i += 1 }
                var last = end
                while last > i && (bytes[last - 1] == 0x20 || bytes[last - 1] == 0x09 || bytes[last - 1] == 0x0D) { last -= 1 }
                if i == last || bytes[i] == UInt8(ascii: "#") { continue }
                if bytes[i] == 0x09 {
                    var j = i
                    while j < last && (bytes[j] == 0x09 || bytes[j] == 0x20) { j += 1 }
                    if j == last || bytes[j] == UInt8(ascii: "#") { continue }
                    throw fail(lineNumber, "a tab in the indentation; YAML indents with spaces")
                }
                if i == start, last - i == 3, bytes[i] == 0x2D, bytes[i + 1] == 0x2D, bytes[i + 2] == 0x2D {
                    continue  // a document start marker, "---"
                }
                pending = Line(number: lineNumber, indent: i - start, start: i, end: last)
                return pending
            }
            return nil
        }

        mutating func take() { pending = nil }

        func isSequenceEntry(_ line: Line) -> Bool {
            bytes[line.start] == UInt8(ascii: "-") && (line.end == line.start + 1 || bytes[line.start + 1] == 0x20)
        }

        /// Where the `:` of a `key: value` line is, or nil when the line is no mapping entry. A key is plain
        /// (letters, digits and `_-./`, as libinput writes them) or quoted.
        func mappingColon(_ line: Line) -> Int? {
            var i = line.start
            let first = bytes[i]
            if first == UInt8(ascii: "\"") || first == UInt8(ascii: "'") {
                i += 1
                while i < line.end && bytes[i] != first { i += 1 }
                i += 1
            } else {
                while i < line.end {
                    let b = bytes[i]
                    let plain = (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                        || b == UInt8(ascii: "_") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") || b == UInt8(ascii: "/")
                    if !plain { break }
                    i += 1
                }
                if i == line.start { return nil }
            }
            guard i < line.end, bytes[i] == UInt8(ascii: ":"), i + 1 == line.end || bytes[i + 1] == 0x20 else { return nil }
            return i
        }

        // MARK: Structure

        mutating func document() throws(RecordingError) -> Node {
            guard let first = try peek() else { throw fail(0, "empty file; expected a libinput recording (version: 1, devices: …)") }
            let root = try value(minimumIndent: first.indent, line: first.number)
            if let extra = try peek() {
                throw fail(extra.number, "expected the end of the file or a key at the left margin, got \"\(preview(extra.start, extra.end))\"")
            }
            return root
        }

        /// The value that starts on the next line if it is indented at least `minimumIndent`, else nothing.
        mutating func value(minimumIndent: Int, line: Int) throws(RecordingError) -> Node {
            guard let next = try peek(), next.indent >= minimumIndent else { return .empty(line: line) }
            guard path.count < LibinputRecordParser.maximumDepth else {
                throw fail(next.number, "nested more than \(LibinputRecordParser.maximumDepth) levels deep; a libinput recording nests 5")
            }
            if isSequenceEntry(next) { return try sequence(indent: next.indent) }
            if mappingColon(next) != nil { return try mapping(indent: next.indent) }
            take()
            let node = try inline(next.start, next.end, line: next.number)
            if let after = try peek(), after.indent > next.indent {
                throw fail(after.number, "a value that goes on over more lines; a libinput recording writes each on one line")
            }
            return node
        }

        mutating func mapping(indent: Int) throws(RecordingError) -> Node {
            var members: [(key: String, value: Node, line: Int)] = []
            let firstLine = try peek()!.number
            while let line = try peek(), line.indent == indent, !isSequenceEntry(line) {
                guard let colon = mappingColon(line) else {
                    throw fail(line.number, "expected \"key: value\", got \"\(preview(line.start, line.end))\"")
                }
                take()
                let key = try scalarText(line.start, colon, line: line.number)
                if members.contains(where: { $0.key == key }) {
                    throw fail(line.number, "the key \"\(escapingControlCharacters(key))\" again in the same mapping")
                }
                path.append(key)
                var rest = colon + 1
                while rest < line.end && bytes[rest] == 0x20 { rest += 1 }
                let node: Node
                if rest < line.end && bytes[rest] != UInt8(ascii: "#") {
                    node = try inline(rest, line.end, line: line.number)
                } else if let next = try peek(), next.indent == indent, isSequenceEntry(next) {
                    node = try sequence(indent: indent)
                } else {
                    node = try value(minimumIndent: indent + 1, line: line.number)
                }
                path.removeLast()
                members.append((key, node, line.number))
            }
            if let line = try peek(), line.indent > indent {
                throw fail(line.number, "unexpected indentation: \"\(preview(line.start, line.end))\" belongs to no key above it")
            }
            return .mapping(members, line: firstLine)
        }

        mutating func sequence(indent: Int) throws(RecordingError) -> Node {
            var items: [Node] = []
            let firstLine = try peek()!.number
            // The kernel events of a device: read straight into the device's list.
            let kernelEvents = path.count == 5 && path[0] == "devices" && path[2] == "events" && path[4] == "evdev"
            while let line = try peek(), line.indent == indent, isSequenceEntry(line) {
                take()
                var rest = line.start + 1
                while rest < line.end && bytes[rest] == 0x20 { rest += 1 }
                if kernelEvents {
                    try event(rest, line.end, line: line.number)
                    continue
                }
                path.append("#")
                if path == ["devices", "#"] {
                    deviceCount += 1
                    eventsByDevice.append([])
                    lastTime = Int64.min
                }
                if rest == line.end {
                    items.append(try value(minimumIndent: indent + 1, line: line.number))
                } else {
                    // The item starts on the dash's line, at the column after it; a mapping goes on below at
                    // that column.
                    let column = indent + (rest - line.start)
                    pending = Line(number: line.number, indent: column, start: rest, end: line.end)
                    items.append(try value(minimumIndent: column, line: line.number))
                }
                path.removeLast()
            }
            if let line = try peek(), line.indent > indent {
                throw fail(line.number, "unexpected indentation: \"\(preview(line.start, line.end))\" belongs to no list item above it")
            }
            return .sequence(items, line: firstLine)
        }

        // MARK: Values on one line

        /// A value written on its line from `start`: a flow sequence, a quoted or a plain scalar, then
        /// perhaps a comment.
        mutating func inline(_ start: Int, _ end: Int, line: Int) throws(RecordingError) -> Node {
            let b = bytes[start]
            if b == UInt8(ascii: "[") {
                var depth = 0
                var i = start
                var items: [String] = []
                var itemStart = start + 1
                var closed = false
                while i < end {
                    let c = bytes[i]
                    if c == UInt8(ascii: "[") || c == UInt8(ascii: "{") {
                        depth += 1
                    } else if c == UInt8(ascii: "]") || c == UInt8(ascii: "}") {
                        depth -= 1
                        if depth == 0 {
                            items.append(trimmed(itemStart, i))
                            closed = true
                            break
                        }
                    } else if c == UInt8(ascii: ","), depth == 1 {
                        items.append(trimmed(itemStart, i))
                        itemStart = i + 1
                    }
                    i += 1
                }
                guard closed else { throw fail(line, "a list opened with '[' and not closed on its line") }
                try expectCommentOrEnd(i + 1, end, line: line)
                if items.last == "" { items.removeLast() }  // "[]", or a trailing comma
                if items.contains("") { throw fail(line, "an empty item between two commas in \"\(preview(start, end))\"") }
                return .flow(items, line: line)
            }
            if b == UInt8(ascii: "{") {
                // A flow mapping: gestured reads none, so it is kept as text.
                return .scalar(String(decoding: bytes[start..<end], as: UTF8.self), line: line)
            }
            if b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") {
                // Up to the last quote on the line that a comment or the end follows.
                var close = end - 1
                while close > start {
                    if bytes[close] == b {
                        var after = close + 1
                        while after < end && bytes[after] == 0x20 { after += 1 }
                        if after == end || bytes[after] == UInt8(ascii: "#") { break }
                    }
                    close -= 1
                }
                guard close > start else { throw fail(line, "a string opened with \(b == 0x22 ? "\"" : "'") and not closed on its line") }
                var text = String(decoding: bytes[(start + 1)..<close], as: UTF8.self)
                if b == UInt8(ascii: "'") {
                    var unescaped = ""
                    var previousQuote = false
                    for c in text {
                        if c == "'" && previousQuote { previousQuote = false; continue }
                        previousQuote = c == "'"
                        unescaped.append(c)
                    }
                    text = unescaped
                }
                return .scalar(text, line: line)
            }
            // A plain scalar ends where a comment starts (a '#' after a blank).
            var i = start
            while i < end && !(bytes[i] == UInt8(ascii: "#") && i > start && bytes[i - 1] == 0x20) { i += 1 }
            return .scalar(trimmed(start, i), line: line)
        }

        func trimmed(_ start: Int, _ end: Int) -> String {
            var s = start
            var e = end
            while s < e && bytes[s] == 0x20 { s += 1 }
            while e > s && bytes[e - 1] == 0x20 { e -= 1 }
            return String(decoding: bytes[s..<e], as: UTF8.self)
        }

        func expectCommentOrEnd(_ start: Int, _ end: Int, line: Int) throws(RecordingError) {
            var i = start
            while i < end && bytes[i] == 0x20 { i += 1 }
            guard i == end || bytes[i] == UInt8(ascii: "#") else {
                throw fail(line, "expected a comment or the end of the line after ']', got \"\(preview(i, end))\"")
            }
        }

        /// A key's text: plain, or quoted.
        mutating func scalarText(_ start: Int, _ end: Int, line: Int) throws(RecordingError) -> String {
            if case .scalar(let text, _) = try inline(start, end, line: line) { return text }
            throw fail(line, "a key that is not a name: \"\(preview(start, end))\"")
        }

        /// One kernel event, `[sec, usec, type, code, value]` (then perhaps a comment), appended to the
        /// current device's events.
        mutating func event(_ start: Int, _ end: Int, line: Int) throws(RecordingError) {
            let expected = "expected a kernel event \"[sec, usec, type, code, value]\""
            guard start < end, bytes[start] == UInt8(ascii: "[") else {
                throw fail(line, "\(expected), got \"\(preview(start, end))\"")
            }
            var fields: [Int64] = []
            fields.reserveCapacity(5)
            var i = start + 1
            while true {
                while i < end && bytes[i] == 0x20 { i += 1 }
                var negative = false
                if i < end && bytes[i] == UInt8(ascii: "-") {
                    negative = true
                    i += 1
                }
                guard let number = DecimalScanner.digits(in: bytes, at: &i, end: end, atMost: 12) else {
                    throw fail(line, "\(expected); a number of more than 12 digits")
                }
                guard number.count > 0 else { throw fail(line, "\(expected), got \"\(preview(start, end))\"") }
                fields.append(negative ? -number.value : number.value)
                while i < end && bytes[i] == 0x20 { i += 1 }
                guard i < end else { throw fail(line, "\(expected): the list is not closed with ']'") }
                if bytes[i] == UInt8(ascii: "]") { break }
                guard bytes[i] == UInt8(ascii: ","), fields.count < 5 else {
                    throw fail(line, "\(expected), got \"\(preview(start, end))\"")
                }
                i += 1
            }
            try expectCommentOrEnd(i + 1, end, line: line)
            guard fields.count == 5 else { throw fail(line, "\(expected), got \(fields.count) numbers") }
            let (sec, usec, type, code, value) = (fields[0], fields[1], fields[2], fields[3], fields[4])
            guard sec >= 0, sec < 9_000_000_000_000 else { throw fail(line, "event seconds \(sec) out of range") }
            guard usec >= 0, usec < 1_000_000 else { throw fail(line, "event microseconds \(usec) are not 0...999999") }
            guard let type16 = UInt16(exactly: type) else { throw fail(line, "event type \(type) is not 0...65535") }
            guard let code16 = UInt16(exactly: code) else { throw fail(line, "event code \(code) is not 0...65535") }
            guard let value32 = Int32(exactly: value) else { throw fail(line, "event value \(value) is not a 32-bit integer") }
            let time = sec * 1_000_000 + usec
            if time < lastTime {
                throw fail(line, "event time goes backwards (\(seconds(time)) after \(seconds(lastTime)))")
            }
            lastTime = time
            eventsByDevice[deviceCount - 1].append(InputEvent(timeMicroseconds: time, type: type16, code: code16, value: value32))
        }

        func seconds(_ us: Int64) -> String {
            let fraction = String(us % 1_000_000)
            return "\(us / 1_000_000)." + String(repeating: "0", count: 6 - fraction.utf8.count) + fraction
        }
    }

    // MARK: From the tree to a recording

    static func interpret(_ root: Node, eventsByDevice: [[InputEvent]], fileName: String) throws(RecordingError) -> EvemuRecording {
        func fail(_ line: Int, _ message: String) -> RecordingError {
            RecordingError(fileName: fileName, line: line, message: message)
        }
        guard case .mapping = root else {
            throw fail(root.line, "expected a libinput recording (version: 1, devices: …), got \(root.noun)")
        }
        guard let version = root["version"] else { throw fail(root.line, "no \"version\"; a libinput recording starts with version: 1") }
        guard case .scalar(let text, let line) = version, let number = Int(text) else {
            throw fail(version.line, "\"version\" is \(version.noun), not a number")
        }
        guard number == 1 else {
            throw fail(line, "file format version \(number); gestured reads version 1 of libinput's recording format")
        }
        guard let devicesNode = root["devices"] else { throw fail(root.line, "no \"devices\": the recording holds no device") }
        guard case .sequence(let items, _) = devicesNode, !items.isEmpty else {
            throw fail(devicesNode.line, "\"devices\" is \(devicesNode.noun); expected a list of devices (- node: …)")
        }
        var devices: [DeviceDescription] = []
        for item in items { devices.append(try device(item, fail: fail)) }
        // A pen has position axes too: the panel is the first device with them that is no pen, and the pens
        // recorded beside it come with it (touch arbitration).
        let chosen = devices.firstIndex(where: { $0.positionAxes != nil && !$0.isPen })
            ?? devices.firstIndex(where: { $0.positionAxes != nil }) ?? 0
        let pens = devices.indices.filter { $0 != chosen && devices[$0].isPen }.map { $0 < eventsByDevice.count ? eventsByDevice[$0] : [] }
        return EvemuRecording(
            device: devices[chosen], events: chosen < eventsByDevice.count ? eventsByDevice[chosen] : [], pens: pens)
    }

    static func device(_ node: Node, fail: (Int, String) -> RecordingError) throws(RecordingError) -> DeviceDescription {
        guard case .mapping = node else { throw fail(node.line, "a device is \(node.noun); expected node:, evdev:, events:") }
        guard let evdev = node["evdev"], case .mapping = evdev else {
            throw fail(node.line, "the device has no \"evdev\" description (name, id, codes, absinfo)")
        }
        func integers(_ node: Node, _ what: String, count: ClosedRange<Int>) throws(RecordingError) -> [Int64] {
            guard case .flow(let items, let line) = node else { throw fail(node.line, "\(what) is \(node.noun); expected a list in brackets") }
            guard count.contains(items.count) else {
                throw fail(line, "\(what) holds \(items.count) numbers; expected \(count.lowerBound == count.upperBound ? "\(count.lowerBound)" : "\(count.lowerBound) to \(count.upperBound)")")
            }
            var out: [Int64] = []
            for item in items {
                guard let n = Int64(item) else { throw fail(line, "\(what) holds \"\(escapingControlCharacters(String(item.prefix(40))))\", not a number") }
                out.append(n)
            }
            return out
        }
        guard let nameNode = evdev["name"], case .scalar(let name, _) = nameNode else {
            throw fail(evdev.line, "the device has no \"name\"")
        }
        guard let idNode = evdev["id"] else { throw fail(evdev.line, "the device has no \"id\" ([bus, vendor, product, version])") }
        let id = try integers(idNode, "\"id\"", count: 4...4)
        var ids: [UInt16] = []
        for n in id {
            guard let v = UInt16(exactly: n) else { throw fail(idNode.line, "\"id\" holds \(n), not 0...65535") }
            ids.append(v)
        }
        var keys = Set<UInt16>()
        if let codes = evdev["codes"] {
            guard case .mapping(let types, _) = codes else { throw fail(codes.line, "\"codes\" is \(codes.noun); expected type: [codes]") }
            for entry in types {
                guard let type = Int(entry.key) else { throw fail(entry.line, "\"codes\" has the key \"\(escapingControlCharacters(entry.key))\", not an event type") }
                let list = try integers(entry.value, "the codes of type \(type)", count: 0...65536)
                if type == Int(EV.key) {
                    for code in list {
                        guard let c = UInt16(exactly: code) else { throw fail(entry.line, "key code \(code) is not 0...65535") }
                        keys.insert(c)
                    }
                }
            }
        }
        var axes: [UInt16: AxisInfo] = [:]
        if let absinfo = evdev["absinfo"] {
            guard case .mapping(let entries, _) = absinfo else {
                throw fail(absinfo.line, "\"absinfo\" is \(absinfo.noun); expected code: [min, max, fuzz, flat, resolution]")
            }
            for entry in entries {
                guard let code = UInt16(entry.key) else { throw fail(entry.line, "\"absinfo\" has the key \"\(escapingControlCharacters(entry.key))\", not an axis code") }
                let values = try integers(entry.value, "the axis \(code)", count: 5...6)
                var v: [Int32] = []
                for n in values {
                    guard let x = Int32(exactly: n) else { throw fail(entry.line, "the axis \(code) holds \(n), not a 32-bit integer") }
                    v.append(x)
                }
                // Version 1 writes [min, max, fuzz, flat, resolution]; a sixth number would be the value
                // evemu also keeps, before them: libinput writes none.
                if v.count == 6 { v.removeFirst() }
                if v[0] > v[1] { throw fail(entry.line, "axis \(code) has minimum \(v[0]) above maximum \(v[1])") }
                axes[code] = AxisInfo(minimum: v[0], maximum: v[1], fuzz: v[2], flat: v[3], resolution: v[4])
            }
        }
        var properties = Set<Int>()
        if let props = evdev["properties"] {
            for p in try integers(props, "\"properties\"", count: 0...64) {
                guard (0...31).contains(p) else { throw fail(props.line, "property \(p) is not 0...31") }
                properties.insert(Int(p))
            }
        }
        return DeviceDescription(
            name: name, busType: ids[0], vendor: ids[1], product: ids[2], version: ids[3], properties: properties, axes: axes,
            keys: keys)
    }
}
