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

    public static func error(_ message: @autoclosure () -> String) { write(.error, message) }
    public static func warning(_ message: @autoclosure () -> String) { write(.warning, message) }
    public static func notice(_ message: @autoclosure () -> String) { write(.notice, message) }
    public static func info(_ message: @autoclosure () -> String) { write(.info, message) }
    public static func debug(_ message: @autoclosure () -> String) { write(.debug, message) }

    /// Whether a message of `priority` would be written (to skip building expensive ones).
    public static func enabled(_ priority: Priority) -> Bool { priority <= threshold }

    private static func write(_ priority: Priority, _ message: () -> String) {
        guard priority <= threshold else { return }
        // Every line of a multi-line message carries the prefix, so none of it loses its level.
        var text = ""
        for line in message().split(separator: "\n", omittingEmptySubsequences: false) {
            text += "<\(priority.rawValue)>"
            text += line
            text += "\n"
        }
        // One write(2) per message, so lines from other writers never interleave mid-line.
        _ = text.withUTF8 { SystemCall.writeAll(fd, UnsafeRawBufferPointer($0)) }
    }
}
