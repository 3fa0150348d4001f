import GestureCore
import GestureVocabulary
import PlainText

/// A recording as evemu-record writes it: an optional device description (N:, I:, P:, B:, A: lines) and
/// events (E: lines). Comment lines start with `#`.
public struct EvemuRecording: Sendable {
    public var device: DeviceDescription?
    public var events: [InputEvent]
    /// The events of each pen recorded with the device on the same clock (a `libinput record` of the panel
    /// and its pen), for touch arbitration in a replay; empty for evemu's one-device recordings.
    public var pens: [[InputEvent]]

    public init(device: DeviceDescription?, events: [InputEvent], pens: [[InputEvent]] = []) {
        self.device = device
        self.events = events
        self.pens = pens
    }
}

/// A malformed recording: where, and what was expected.
public struct RecordingError: Error, Equatable, Sendable, CustomStringConvertible {
    public var fileName: String
    /// 1-based; 0 when the problem is the file as a whole.
    public var line: Int
    public var message: String

    public init(fileName: String, line: Int, message: String) {
        self.fileName = fileName
        self.line = line
        self.message = message
    }

    public var description: String {
        line > 0 ? "\(fileName):\(line): \(message)" : "\(fileName): \(message)"
    }
}

/// Reads the evemu text format (EVEMU 1.0 to 1.3 variants). Pure: the caller reads the file, whole
/// (`parse(text:)`) or a piece at a time (`EvemuParser()`, `parse(lines:)`, `finish()`), so a large
/// recording is never held as text beside its events.
public struct EvemuParser: Sendable {
    private var builder = DeviceBuilder()
    private var events: [InputEvent] = []
    private var lineNumber = 0
    private var lastTime = Int64.min
    private let fileName: String

    /// A parser for the file `fileName` (for messages).
    public init(fileName: String) {
        self.fileName = fileName
    }

    /// Parses one file. Header lines build the device; E: lines the events.
    public static func parse(text: String, fileName: String) throws(RecordingError) -> EvemuRecording {
        var parser = EvemuParser(fileName: fileName)
        let bytes = Array(text.utf8)
        parser.reserve(forBytes: bytes.count)
        // The closure returns a Result: Swift 6.0's withUnsafeBufferPointer rethrows any Error, not the
        // closure's typed error.
        try bytes.withUnsafeBufferPointer { b in
            Result { () throws(RecordingError) in try parser.parse(lines: b) }
        }.get()
        return parser.finish()
    }

    /// Room for the events of a file of `count` bytes, reserved once: as many as it could hold (an event
    /// line is 13 bytes at the least, "E: 0.0 0 0 0"; evemu-record's are 24 and more), so the array never
    /// grows by copying, which held two of it at once. Room never written is never resident.
    public mutating func reserve(forBytes count: Int) {
        events.reserveCapacity(events.count + count / 13)
    }

    /// Parses whole lines: `b` ends at the end of a line (after its newline, or where the file ends).
    /// Header lines build the device; E: lines the events.
    public mutating func parse(lines b: UnsafeBufferPointer<UInt8>) throws(RecordingError) {
        var lineStart = 0
        while lineStart < b.count {
            var lineEnd = lineStart
            while lineEnd < b.count && b[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
            defer { lineStart = lineEnd + 1 }
            try parseLine(b, lineStart, lineEnd)
        }
    }

    /// The recording read so far: the device its header described (nil without one) and its events.
    public func finish() -> EvemuRecording {
        EvemuRecording(device: builder.sawHeader ? builder.build() : nil, events: events)
    }

    private mutating func parseLine(_ bytes: UnsafeBufferPointer<UInt8>, _ lineStart: Int, _ lineEnd: Int) throws(RecordingError) {
            lineNumber += 1
            // Fast path for the common case, an event line in the usual form; anything else (headers,
            // comments, malformed lines) goes through the general code below, which also words the errors.
            if let event = EvemuParser.fastEvent(bytes, lineStart, lineEnd) {
                if event.timeMicroseconds < lastTime {
                    throw RecordingError(
                        fileName: fileName, line: lineNumber,
                        message: "event time goes backwards (\(EvemuParser.seconds(event.timeMicroseconds)) after \(EvemuParser.seconds(lastTime)))")
                }
                lastTime = event.timeMicroseconds
                events.append(event)
                return
            }
            var line = Substring(String(decoding: UnsafeBufferPointer(rebasing: bytes[lineStart..<lineEnd]), as: UTF8.self))
            if line.last == "\r" { line = line.dropLast() }
            let trimmed = line.drop(while: { $0 == " " || $0 == "\t" })
            if trimmed.isEmpty || trimmed.first == "#" { return }
            let (fileName, lineNumber) = (self.fileName, self.lineNumber)
            func fail(_ message: String) -> RecordingError {
                RecordingError(fileName: fileName, line: lineNumber, message: message)
            }
            guard trimmed.count >= 2, trimmed.dropFirst().first == ":" else {
                throw fail(
                    "expected a line starting with N:, I:, P:, B:, A: or E: (or a # comment), got \"\(EvemuParser.preview(trimmed))\"")
            }
            let tag = trimmed.first!
            var body = trimmed.dropFirst(2)
            // evemu 2.x writes a readable comment after the fields ("E: … 0013\t# EV_ABS / …"); a name may
            // contain '#', so N: lines keep theirs.
            if tag != "N", let hash = body.firstIndex(of: "#") { body = body[..<hash] }
            let fields = body.split(whereSeparator: { $0 == " " || $0 == "\t" })
            switch tag {
            case "E":
                let event = try EvemuParser.parseEvent(fields, fail: fail)
                if event.timeMicroseconds < lastTime {
                    throw fail("event time goes backwards (\(EvemuParser.seconds(event.timeMicroseconds)) after \(EvemuParser.seconds(lastTime)))")
                }
                lastTime = event.timeMicroseconds
                events.append(event)
            case "N":
                builder.name = String(body.drop(while: { $0 == " " }))
                builder.sawHeader = true
            case "I":
                guard fields.count == 4, let bus = UInt16(fields[0], radix: 16), let vendor = UInt16(fields[1], radix: 16),
                    let product = UInt16(fields[2], radix: 16), let version = UInt16(fields[3], radix: 16)
                else { throw fail("expected \"I: <bus> <vendor> <product> <version>\" in hex, got \"\(EvemuParser.preview(trimmed))\"") }
                builder.ids = (bus, vendor, product, version)
                builder.sawHeader = true
            case "P":
                let bytes = try EvemuParser.hexBytes(fields, what: "P: <property bitmask bytes in hex>", fail: fail)
                builder.propertyBytes.append(contentsOf: bytes)
                builder.sawHeader = true
            case "B":
                guard let first = fields.first, let type = UInt8(first, radix: 16) else {
                    throw fail("expected \"B: <event type> <bitmask bytes>\" in hex, got \"\(EvemuParser.preview(trimmed))\"")
                }
                let bytes = try EvemuParser.hexBytes(fields.dropFirst(), what: "B: <event type> <bitmask bytes in hex>", fail: fail)
                builder.bitBytes[type, default: []].append(contentsOf: bytes)
                builder.sawHeader = true
            case "A":
                guard fields.count == 5 || fields.count == 6, let code = UInt16(fields[0], radix: 16),
                    let minimum = Int32(fields[1]), let maximum = Int32(fields[2]), let fuzz = Int32(fields[3]),
                    let flat = Int32(fields[4])
                else {
                    throw fail(
                        "expected \"A: <code hex> <min> <max> <fuzz> <flat> [<resolution>]\", got \"\(EvemuParser.preview(trimmed))\"")
                }
                var resolution: Int32 = 0
                if fields.count == 6 {
                    guard let r = Int32(fields[5]) else { throw fail("axis resolution \"\(EvemuParser.preview(fields[5]))\" is not a number") }
                    resolution = r
                }
                if minimum > maximum { throw fail("axis 0x\(String(code, radix: 16)) has minimum \(minimum) above maximum \(maximum)") }
                builder.axes[code] = AxisInfo(minimum: minimum, maximum: maximum, fuzz: fuzz, flat: flat, resolution: resolution)
                builder.sawHeader = true
            case "L", "S":
                // LED and switch states: nothing a touchscreen needs.
                return
            default:
                throw fail("unknown line type \"\(EvemuParser.preview(Substring(String(tag)))):\"; expected N:, I:, P:, B:, A: or E:")
            }
    }

    /// Parses "E: <sec>.<usec> <type hex> <code hex> <value>[ # comment]" straight from the bytes; nil for
    /// anything else (the general parser then reads or rejects the line).
    @inline(__always)
    static func fastEvent(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> InputEvent? {
        var i = start
        @inline(__always) func skipBlanks() {
            while i < end && (b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0d) { i += 1 }
        }
        @inline(__always) func hexDigit(_ c: UInt8) -> UInt32? {
            switch c {
            case 0x30...0x39: return UInt32(c - 0x30)
            case 0x61...0x66: return UInt32(c - 0x61 + 10)
            case 0x41...0x46: return UInt32(c - 0x41 + 10)
            default: return nil
            }
        }
        @inline(__always) func hex16() -> UInt16? {
            var v: UInt32 = 0
            var n = 0
            while i < end, let d = hexDigit(b[i]) {
                v = v << 4 | d
                n += 1
                i += 1
                if n > 4 { return nil }
            }
            return n == 0 ? nil : UInt16(v)
        }
        skipBlanks()
        guard end - i > 2, b[i] == UInt8(ascii: "E"), b[i + 1] == UInt8(ascii: ":") else { return nil }
        i += 2
        skipBlanks()
        // Seconds and microseconds.
        guard let whole = DecimalScanner.digits(in: b, at: &i, end: end, atMost: 12), whole.count > 0,
            i < end, b[i] == UInt8(ascii: ".")
        else { return nil }
        i += 1
        guard let fraction = DecimalScanner.digits(in: b, at: &i, end: end, atMost: 6), fraction.count > 0 else { return nil }
        var micro = fraction.value
        for _ in fraction.count..<6 { micro *= 10 }
        guard i < end, b[i] == 0x20 || b[i] == 0x09 else { return nil }
        skipBlanks()
        guard let type = hex16(), i < end, b[i] == 0x20 || b[i] == 0x09 else { return nil }
        skipBlanks()
        guard let code = hex16(), i < end, b[i] == 0x20 || b[i] == 0x09 else { return nil }
        skipBlanks()
        var negative = false
        if i < end, b[i] == UInt8(ascii: "-") {
            negative = true
            i += 1
        }
        guard let magnitude = DecimalScanner.digits(in: b, at: &i, end: end, atMost: 10), magnitude.count > 0 else { return nil }
        let value = negative ? -magnitude.value : magnitude.value
        guard value >= Int64(Int32.min), value <= Int64(Int32.max) else { return nil }
        skipBlanks()
        guard i == end || b[i] == UInt8(ascii: "#") else { return nil }
        return InputEvent(timeMicroseconds: whole.value * 1_000_000 + micro, type: type, code: code, value: Int32(value))
    }

    private static func parseEvent(_ fields: [Substring], fail: (String) -> RecordingError) throws(RecordingError) -> InputEvent {
        guard fields.count == 4 else {
            throw fail("expected \"E: <sec.usec> <type hex> <code hex> <value>\", got \(fields.count) fields")
        }
        guard let time = parseTime(fields[0]) else {
            throw fail("expected a timestamp <seconds>.<microseconds>, got \"\(preview(fields[0]))\"")
        }
        guard let type = UInt16(fields[1], radix: 16) else { throw fail("event type \"\(preview(fields[1]))\" is not hex") }
        guard let code = UInt16(fields[2], radix: 16) else { throw fail("event code \"\(preview(fields[2]))\" is not hex") }
        guard let value = Int32(fields[3]) else {
            throw fail("event value \"\(preview(fields[3]))\" is not a 32-bit decimal integer")
        }
        return InputEvent(timeMicroseconds: time, type: type, code: code, value: value)
    }

    /// "1330495962.164908" -> microseconds. The fraction has up to six digits.
    static func parseTime(_ s: Substring) -> Int64? {
        // A '.' and no sign: DecimalScanner.fixedPoint takes "-W" and "W" too.
        guard s.contains("."), s.first != "-" else { return nil }
        var text = s
        guard let time = text.withUTF8({ DecimalScanner.fixedPoint($0, fractionDigits: 6) }),
            time < 9_000_000_000_000 * 1_000_000
        else { return nil }
        return time
    }

    private static func hexBytes<S: Sequence>(_ fields: S, what: String, fail: (String) -> RecordingError)
        throws(RecordingError) -> [UInt8] where S.Element == Substring
    {
        var bytes: [UInt8] = []
        for f in fields {
            guard let b = UInt8(f, radix: 16) else { throw fail("expected \(what), \"\(preview(f))\" is not a hex byte") }
            bytes.append(b)
        }
        return bytes
    }

    /// Up to 60 characters of a line, control characters escaped, for a message.
    private static func preview(_ s: Substring) -> String {
        escapingControlCharacters(s.count > 60 ? String(s.prefix(60)) + "…" : String(s))
    }

    private static func seconds(_ us: Int64) -> String {
        let frac = String(us % 1_000_000)
        return "\(us / 1_000_000)." + String(repeating: "0", count: 6 - frac.count) + frac
    }

    private struct DeviceBuilder {
        var sawHeader = false
        var name = ""
        var ids: (UInt16, UInt16, UInt16, UInt16) = (0, 0, 0, 0)
        var propertyBytes: [UInt8] = []
        var bitBytes: [UInt8: [UInt8]] = [:]
        var axes: [UInt16: AxisInfo] = [:]

        func bits(_ bytes: [UInt8]) -> [Int] {
            var out: [Int] = []
            for (i, b) in bytes.enumerated() where b != 0 {
                for bit in 0..<8 where b & (1 << bit) != 0 { out.append(i * 8 + bit) }
            }
            return out
        }

        func build() -> DeviceDescription {
            var keys = Set<UInt16>()
            // An input_event's code is 16 bits: bits past that (a recording with surplus B: lines) name no key.
            for k in bits(bitBytes[UInt8(EV.key)] ?? []) {
                if let code = UInt16(exactly: k) { keys.insert(code) }
            }
            // Axes declared in the bitmask but without an A: line get no range; only A: lines count.
            return DeviceDescription(
                name: name, busType: ids.0, vendor: ids.1, product: ids.2, version: ids.3,
                properties: Set(bits(propertyBytes)), axes: axes, keys: keys)
        }
    }
}
