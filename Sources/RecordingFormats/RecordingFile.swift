// RecordingFile: a recording (evemu's or `libinput record`'s, told apart by content) and its optional device
// description read from files, once, for the daemon's --replay, `gesturectl replay` and `plot`, the
// benchmarks and the tests. Reading goes through SystemCalls, with one limit on how much is read; parsing is
// this module's `RecordingParser` (`EvemuParser`, `LibinputRecordParser`).
import GestureCore
import SystemCalls

#if canImport(Glibc)
import Glibc
#endif

/// A recording ready to replay: the device it was made on and its events.
public struct DeviceRecording: Sendable {
    public var device: DeviceDescription
    public var events: [InputEvent]
    /// The events of the pens recorded beside the device (`EvemuRecording.pens`).
    public var pens: [[InputEvent]]

    public init(device: DeviceDescription, events: [InputEvent], pens: [[InputEvent]] = []) {
        self.device = device
        self.events = events
        self.pens = pens
    }
}

/// Why a recording cannot be loaded; the message names the file (and line) and says what to do.
public struct RecordingFileError: Error, Equatable, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

public enum RecordingFile {
    /// The most read from one recording or description file: 256 MiB, hours of touches at evemu's ~30 bytes
    /// an event. More is surely not a recording (/dev/zero), and reading stops there instead of growing
    /// without bound.
    public static let maximumBytes = 256 << 20

    /// The path that means standard input where it is allowed (`gesturectl replay -`).
    public static let standardInput = "-"

    /// Reads and parses one recording file: an evemu file (events, a device description, or both) or a
    /// `libinput record` recording (its device and events), whichever its content is (a UTF-8 byte order
    /// mark before it is passed over). With `allowingStandardInput`, "-" reads standard input.
    ///
    /// An evemu file is parsed as it is read, a megabyte at a time, so only its events stay (16 bytes an
    /// event against evemu's ~28 bytes a line: about 0.6 times the file); a libinput recording is parsed
    /// from its bytes as read, with no copy of them as text.
    public static func parse(_ path: String, allowingStandardInput: Bool = false) throws(RecordingFileError) -> EvemuRecording {
        let fromStandardInput = allowingStandardInput && path == standardInput
        let fd: Int32
        do {
            fd = fromStandardInput ? 0 : try SystemCall.open(path, flags: O_RDONLY | O_CLOEXEC)
        } catch {
            throw RecordingFileError("cannot read the recording \(path): \(error.message) (errno \(error.errno))")
        }
        defer { if !fromStandardInput { SystemCall.close(fd) } }
        // A regular file's size, to reserve room once; 0 for a pipe or a terminal.
        let sizeHint = min((try? SystemCall.fstat(fd, path: path)).map { Int($0.st_size) } ?? 0, maximumBytes)
        var chunk = [UInt8](repeating: 0, count: chunkBytes)
        // Read and not parsed yet: the head of the file until its format is known, then evemu's last
        // partial line; a libinput recording's every byte.
        var pending: [UInt8] = []
        var total = 0
        var format: RecordingFormat?
        var undecidedFrom = 0
        var evemu = EvemuParser(fileName: path)
        // The parsers' errors name the file and line.
        func parsing<T>(_ body: () throws(RecordingError) -> T) throws(RecordingFileError) -> T {
            do { return try body() } catch { throw RecordingFileError(error.description) }
        }
        while true {
            let read = chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(SystemError) in try SystemCall.readSome(fd, into: buffer, path: path) }
            }
            let n: Int
            switch read {
            case .success(let count): n = count
            case .failure(let error):
                throw RecordingFileError("cannot read the recording \(path): \(error.message) (errno \(error.errno))")
            }
            if n == 0 { break }
            total += n
            guard total <= maximumBytes else {
                throw RecordingFileError(
                    "\(fromStandardInput ? "standard input" : path): more than \(maximumBytes >> 20) MiB, the most gestured "
                        + "reads as a recording; is this an evemu or libinput recording?")
            }
            if total == n && n >= 2 && (chunk[0] == 0xFF && chunk[1] == 0xFE || chunk[0] == 0xFE && chunk[1] == 0xFF) {
                // Read as UTF-8 it would be a line of noise, and either parser's message about it no help.
                throw RecordingFileError(
                    "\(fromStandardInput ? "standard input" : path): is UTF-16 text (it starts with a UTF-16 byte order mark); "
                        + "recordings are UTF-8, as evemu-record and libinput record write them: convert it with iconv -f UTF-16 -t UTF-8")
            }
            let before = pending.count
            if total == n { dropByteOrderMark(&chunk, count: n, into: &pending) } else { pending.append(contentsOf: chunk[0..<n]) }
            // Only what was just read is searched, so a file with no newline (/dev/zero) or of comments
            // alone costs one pass over it, never a pass for every megabyte.
            guard let lastNewline = lastNewline(in: pending, from: before) else { continue }
            if format == nil {
                // Lines before `undecidedFrom` are blank or comments: they decide nothing.
                format = pending.withUnsafeBufferPointer {
                    RecordingFormat.of(bytes: UnsafeBufferPointer(rebasing: $0[undecidedFrom...]), complete: false)
                }
                switch format {
                case .evemu: evemu.reserve(forBytes: sizeHint)
                case .libinputRecord: pending.reserveCapacity(sizeHint)
                case nil:
                    undecidedFrom = lastNewline + 1
                    continue
                }
            }
            guard format == .evemu else { continue }
            try parsing { () throws(RecordingError) in
                try pending.withUnsafeBufferPointer { b in
                    Result { () throws(RecordingError) in try evemu.parse(lines: UnsafeBufferPointer(rebasing: b[...lastNewline])) }
                }.get()
            }
            pending.removeSubrange(...lastNewline)
        }
        switch format ?? pending.withUnsafeBufferPointer({ RecordingFormat.of(bytes: $0, complete: true) }) {
        case .evemu, nil:
            try parsing { () throws(RecordingError) in
                try pending.withUnsafeBufferPointer { b in
                    Result { () throws(RecordingError) in try evemu.parse(lines: b) }
                }.get()
            }
            return evemu.finish()
        case .libinputRecord:
            return try parsing { () throws(RecordingError) in try LibinputRecordParser.parse(bytes: pending, fileName: path) }
        }
    }

    /// The index of the last newline in `bytes` at or after `start`: memchr(3) tells whether there is one
    /// (a megabyte without one is searched in microseconds, in a debug build too), then the last is found
    /// from the end, a line back at most.
    private static func lastNewline(in bytes: [UInt8], from start: Int) -> Int? {
        bytes.withUnsafeBufferPointer { b in
            guard start < b.count, let base = b.baseAddress, memchr(base + start, 0x0A, b.count - start) != nil else { return nil }
            var i = b.count - 1
            while base[i] != 0x0A { i -= 1 }
            return i
        }
    }

    /// How much is read at a time: 1 MiB.
    static let chunkBytes = 1 << 20

    /// Appends the first `count` bytes of `chunk`, the file's first, to `pending`, less a UTF-8 byte order
    /// mark they start with.
    private static func dropByteOrderMark(_ chunk: inout [UInt8], count: Int, into pending: inout [UInt8]) {
        let mark = chunk.withUnsafeBufferPointer { RecordingFormat.byteOrderMarkLength(UnsafeBufferPointer(rebasing: $0[0..<count])) }
        pending.append(contentsOf: chunk[mark..<count])
    }

    /// The recording at `path` with its device: from the description file at `descriptionPath` (a `.desc`
    /// of N:, I:, P:, B:, A: lines, or a libinput recording's device) when given, else from the recording's
    /// own header.
    public static func load(
        _ path: String, description descriptionPath: String? = nil, allowingStandardInput: Bool = false
    ) throws(RecordingFileError) -> DeviceRecording {
        let recording = try parse(path, allowingStandardInput: allowingStandardInput)
        var device = recording.device
        if let descriptionPath {
            guard let described = try parse(descriptionPath).device else {
                throw RecordingFileError("\(descriptionPath): has no device description (N:, I:, P:, B:, A: lines)")
            }
            device = described
        }
        guard let device else {
            throw RecordingFileError("\(path): has no device description; pass the device's .desc file with --device")
        }
        return DeviceRecording(device: device, events: recording.events, pens: recording.pens)
    }

    /// Writes `text` to `path` (created or truncated, mode 0644 before the umask).
    public static func write(_ text: String, to path: String) throws(RecordingFileError) {
        let fd: Int32
        do {
            fd = try SystemCall.open(path, flags: O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode: 0o644)
        } catch {
            throw RecordingFileError("cannot write \(path): \(error.message) (errno \(error.errno))")
        }
        defer { SystemCall.close(fd) }
        var bytes = Array(text.utf8)
        let ok = bytes.withUnsafeMutableBytes { SystemCall.writeAll(fd, UnsafeRawBufferPointer($0)) }
        if !ok {
            throw RecordingFileError("cannot write \(path): \(String(cString: strerror(errno))) (errno \(errno))")
        }
    }

}
