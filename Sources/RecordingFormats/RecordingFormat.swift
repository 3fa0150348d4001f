import GestureCore
import GestureVocabulary

/// The recording formats gestured reads, told apart by content (never by file name).
public enum RecordingFormat: Equatable, Sendable {
    /// evemu-record's text: N:, I:, P:, B:, A: and E: lines.
    case evemu
    /// `libinput record`'s YAML (LibinputRecordParser).
    case libinputRecord

    /// The format of `text`: libinput's when the first line that is neither blank nor a `#` comment is a
    /// YAML key at the left margin in lower case (`version:`, `ndevices:`, `devices:`…) or a YAML document
    /// start (`---`); evemu's otherwise (its lines start with an upper-case letter and a colon, and its
    /// parser words what it expected). A UTF-8 byte order mark before the first line is passed over.
    public static func of(_ text: String) -> RecordingFormat {
        Array(text.utf8).withUnsafeBufferPointer { of(bytes: $0, complete: true) } ?? .evemu
    }

    /// The format of a file's first `bytes`, as `of(_:)` tells it: nil while no line that is neither blank
    /// nor a comment has been read whole (unless `complete`, the file's end, when that is evemu's).
    public static func of(bytes: UnsafeBufferPointer<UInt8>, complete: Bool) -> RecordingFormat? {
        var lineStart = byteOrderMarkLength(bytes)
        while lineStart < bytes.count {
            guard let newline = bytes[lineStart...].firstIndex(of: 0x0A) ?? (complete ? bytes.count : nil) else { return nil }
            var content = bytes[lineStart..<newline]
            lineStart = newline + 1
            while let last = content.last, last == 0x0D || last == 0x20 || last == 0x09 { content = content.dropLast() }
            let significant = content.drop(while: { $0 == 0x20 || $0 == 0x09 })
            guard let first = significant.first, first != UInt8(ascii: "#") else { continue }
            if content.elementsEqual("---".utf8) { return .libinputRecord }
            guard let start = content.first, start >= UInt8(ascii: "a") && start <= UInt8(ascii: "z") else { return .evemu }
            let key = content.prefix(while: { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "_") })
            return content.dropFirst(key.count).first == UInt8(ascii: ":") ? .libinputRecord : .evemu
        }
        return complete ? .evemu : nil
    }

    /// 3 when `bytes` start with UTF-8's byte order mark (EF BB BF, which some editors write), else 0.
    public static func byteOrderMarkLength(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
    }
}

/// A recording read in whichever format it is in (RecordingFormat.of).
public enum RecordingParser {
    /// Parses a whole file's text; a UTF-8 byte order mark before it is passed over.
    public static func parse(text: String, fileName: String) throws(RecordingError) -> EvemuRecording {
        let text = text.hasPrefix("\u{FEFF}") ? String(text.unicodeScalars.dropFirst()) : text
        switch RecordingFormat.of(text) {
        case .evemu: return try EvemuParser.parse(text: text, fileName: fileName)
        case .libinputRecord: return try LibinputRecordParser.parse(text: text, fileName: fileName)
        }
    }
}
