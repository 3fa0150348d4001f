import GestureCore
import Glibc
import SystemCalls
import PlainText

/// The daemon's log: one line per message on stderr, each prefixed with its sd-daemon priority (`<3>` …
/// `<7>`), so journald files it under the right level and a terminal still reads it.
public enum Log {
    /// syslog priorities, as sd-daemon(3) prefixes use them.
    public enum Priority: Int32, Comparable, Sendable {
        case error = 3, warning = 4, notice = 5, info = 6, debug = 7

        public static func < (a: Priority, b: Priority) -> Bool { a.rawValue < b.rawValue }
    }

    /// Messages less important than this are dropped. Only the loop's thread touches it.
    nonisolated(unsafe) public static var threshold: Priority = .info

    /// Where lines go; stderr unless a test redirects it.
    nonisolated(unsafe) public static var fd: Int32 = 2

    /// True when `fd` is non-blocking (our own journal stream): a line the journal cannot take now is
    /// dropped and counted rather than stalling the event loop.
    nonisolated(unsafe) public private(set) static var dropsWhenBusy = false
    /// Lines dropped since the journal last took one; reported with the next line that gets through.
    public static var droppedLines: Int { stream.droppedLines }
    /// The dropping writes to a non-blocking `fd` (SystemCalls' one implementation, gesturectl's too).
    nonisolated(unsafe) private static var stream = DroppingLineWriter()

    /// Under systemd, stderr is a stream socket to journald that belongs to this service alone
    /// (`JOURNAL_STREAM` names its device and inode). Then it is made non-blocking, so a journal that
    /// stops reading costs log lines, not the event loop. Anywhere else (a terminal, a pipe shared with a
    /// shell) stderr is left as it is. Returns whether it switched.
    @discardableResult
    public static func useNonBlockingJournalStream(environment: String? = nil) -> Bool {
        guard let stream = environment ?? getenv("JOURNAL_STREAM").map({ String(cString: $0) }) else { return false }
        let parts = stream.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        guard let status = try? SystemCall.fstat(fd), FileIdentity(status) == FileIdentity(device: device, inode: inode)
        else { return false }
        return makeNonBlocking()
    }

    /// Back to blocking writes (before the daemon's last message, which must not be dropped).
    public static func restoreBlocking() {
        guard dropsWhenBusy else { return }
        try? SystemCall.setNonBlocking(fd, false)
        dropsWhenBusy = false
    }

    /// Switches `fd` to non-blocking with dropping (tests call this on a socket of their own).
    @discardableResult
    static func makeNonBlocking() -> Bool {
        guard (try? SystemCall.setNonBlocking(fd)) != nil else { return false }
        dropsWhenBusy = true
        return true
    }

    public static func error(_ message: @autoclosure () -> String) { write(.error, message) }
    public static func warning(_ message: @autoclosure () -> String) { write(.warning, message) }
    public static func notice(_ message: @autoclosure () -> String) { write(.notice, message) }
    public static func info(_ message: @autoclosure () -> String) { write(.info, message) }
    public static func debug(_ message: @autoclosure () -> String) { write(.debug, message) }

    /// Whether a message of `priority` would be written (to skip building expensive ones).
    public static func enabled(_ priority: Priority) -> Bool { priority <= threshold }

    private static func write(_ priority: Priority, _ message: () -> String) {
        guard priority <= threshold else { return }
        // Every line of a multi-line message carries the prefix, so none of it loses its level. The values
        // in a message (a device's name, a file's text) were escaped where they were put in, backslashes
        // too; whatever else could forge a line or drive a terminal (a client's process name: control,
        // format and separator characters) is escaped here.
        var text = ""
        for line in escapingControlCharacters(message(), keepingLines: true, keepingBackslashes: true).split(separator: "\n", omittingEmptySubsequences: false) {
            text += "<\(priority.rawValue)>"
            text += line
            text += "\n"
        }
        guard dropsWhenBusy else {
            // One write(2) per message, so lines from other writers never interleave mid-line.
            _ = text.withUTF8 { SystemCall.writeAll(fd, UnsafeRawBufferPointer($0)) }
            return
        }
        let lines = text.utf8.reduce(0) { $0 + ($1 == 0x0a ? 1 : 0) }
        stream.write(text, lines: lines, notice: { dropped in
            "<\(Priority.warning.rawValue)>\(dropped) log line\(dropped == 1 ? "" : "s") dropped: the journal was not reading\n"
        }) { SystemCall.writeSome(fd, $0) }
    }
}

/// Lets at most `burst` lines of one kind through per window of `windowMicroseconds` and counts the rest,
/// so a flood (thousands of clients misbehaving) costs a few lines, while a rare event is still logged
/// every time. The first line let through in a new window says how many the last one held back.
struct LogRateLimit {
    let burst: Int
    let windowMicroseconds: Int64
    private var windowStart: Int64 = .min
    private var passed = 0
    private var heldBack = 0

    init(burst: Int, windowMicroseconds: Int64) {
        self.burst = burst
        self.windowMicroseconds = windowMicroseconds
    }

    /// Whether a line at `now` may be written; if so, how many were held back before it (to say so).
    mutating func admit(now: Int64) -> (admitted: Bool, heldBack: Int) {
        if windowStart == .min || now - windowStart >= windowMicroseconds {
            windowStart = now
            passed = 0
        }
        guard passed < burst else {
            heldBack += 1
            return (false, 0)
        }
        passed += 1
        defer { heldBack = 0 }
        return (true, heldBack)
    }
}
