/// The recording formats gestured reads, told apart by content (never by file name).
public enum RecordingFormat: Equatable, Sendable {
    /// evemu-record's text: N:, I:, P:, B:, A: and E: lines.
    case evemu
    /// `libinput record`'s YAML (LibinputRecordParser).
    case libinputRecord

    /// The UTF-8 byte order mark (U+FEFF) some editors put at the start of a text file.
    static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// Where the text of `bytes` starts: after a UTF-8 byte order mark, which both parsers skip (a
    /// recording saved by an editor that writes one is still the recording; its first line keeps number 1).
    static func textStart(_ bytes: some Collection<UInt8>) -> Int {
        bytes.starts(with: byteOrderMark) ? byteOrderMark.count : 0
    }

    /// The format of `text`: libinput's when the first line that is neither blank nor a `#` comment is a
    /// YAML key at the left margin in lower case (`version:`, `ndevices:`, `devices:`…) or a YAML document
    /// start (`---`); evemu's otherwise (its lines start with an upper-case letter and a colon, and its
    /// parser words what it expected). A UTF-8 byte order mark before the first line is not part of it.
    public static func of(_ text: String) -> RecordingFormat {
        let utf8 = text.utf8
        var lineStart = utf8.index(utf8.startIndex, offsetBy: textStart(utf8))
        while lineStart < utf8.endIndex {
            let lineEnd = utf8[lineStart...].firstIndex(of: 0x0A) ?? utf8.endIndex
            var content = utf8[lineStart..<lineEnd]
            lineStart = lineEnd < utf8.endIndex ? utf8.index(after: lineEnd) : lineEnd
            while let last = content.last, last == 0x0D || last == 0x20 || last == 0x09 { content = content.dropLast() }
            let significant = content.drop(while: { $0 == 0x20 || $0 == 0x09 })
            guard let first = significant.first, first != UInt8(ascii: "#") else { continue }
            if content.elementsEqual("---".utf8) { return .libinputRecord }
            guard let start = content.first, start >= UInt8(ascii: "a") && start <= UInt8(ascii: "z") else { return .evemu }
            let key = content.prefix(while: { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "_") })
            return content.dropFirst(key.count).first == UInt8(ascii: ":") ? .libinputRecord : .evemu
        }
        return .evemu
    }
}

/// A recording read in whichever format it is in (RecordingFormat.of).
public enum RecordingParser {
    public static func parse(text: String, fileName: String) throws(RecordingError) -> EvemuRecording {
        switch RecordingFormat.of(text) {
        case .evemu: return try EvemuParser.parse(text: text, fileName: fileName)
        case .libinputRecord: return try LibinputRecordParser.parse(text: text, fileName: fileName)
        }
    }
}
