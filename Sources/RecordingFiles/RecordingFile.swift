// RecordingFiles: a recording (evemu's or `libinput record`'s, told apart by content) and its optional device
// description read from files, once, for the daemon's --replay, `gesturectl replay` and `plot`, the
// benchmarks and the tests. Reading goes through SystemCalls, with one limit on how much is read; parsing is
// GestureCore's `RecordingParser` (`EvemuParser`, `LibinputRecordParser`).
import GestureCore
import SystemCalls

#if canImport(Glibc)
import Glibc
#endif

/// A recording ready to replay: the device it was made on and its events.
public struct DeviceRecording: Sendable {
    public var device: DeviceDescription
    public var events: [InputEvent]

    public init(device: DeviceDescription, events: [InputEvent]) {
        self.device = device
        self.events = events
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
    /// `libinput record` recording (its device and events), whichever its content is. With
    /// `allowingStandardInput`, "-" reads standard input.
    public static func parse(_ path: String, allowingStandardInput: Bool = false) throws(RecordingFileError) -> EvemuRecording {
        let bytes = try read(path, allowingStandardInput: allowingStandardInput)
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            // Read as UTF-8 it would be a line of noise, and either parser's message about it no help.
            let name = fromStandardInput(path, allowingStandardInput) ? "standard input" : path
            throw RecordingFileError(
                "\(name): is UTF-16 text (it starts with a UTF-16 byte order mark); recordings are UTF-8, as evemu-record "
                    + "and libinput record write them: convert it with iconv -f UTF-16 -t UTF-8")
        }
        do {
            return try RecordingParser.parse(text: String(decoding: bytes, as: UTF8.self), fileName: path)
        } catch {
            throw RecordingFileError(error.description)
        }
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
        return DeviceRecording(device: device, events: recording.events)
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

    private static func fromStandardInput(_ path: String, _ allowed: Bool) -> Bool { allowed && path == standardInput }

    /// The file's bytes, at most `maximumBytes`.
    private static func read(_ path: String, allowingStandardInput: Bool) throws(RecordingFileError) -> [UInt8] {
        let fd: Int32
        let fromStandardInput = allowingStandardInput && path == standardInput
        do {
            fd = fromStandardInput ? 0 : try SystemCall.open(path, flags: O_RDONLY | O_CLOEXEC)
        } catch {
            throw RecordingFileError("cannot read the recording \(path): \(error.message) (errno \(error.errno))")
        }
        defer { if !fromStandardInput { SystemCall.close(fd) } }
        let bytes: [UInt8]?
        do {
            bytes = try SystemCall.readAll(fd, path: path, limit: maximumBytes)
        } catch {
            throw RecordingFileError("cannot read the recording \(path): \(error.message) (errno \(error.errno))")
        }
        guard let bytes else {
            throw RecordingFileError(
                "\(fromStandardInput ? "standard input" : path): more than \(maximumBytes >> 20) MiB, the most gestured "
                    + "reads as a recording; is this an evemu or libinput recording?")
        }
        return bytes
    }
}
