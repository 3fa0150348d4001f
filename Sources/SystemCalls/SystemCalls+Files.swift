import Glibc

extension SystemCall {
    /// `rename(2)`: `from` replaces `to` at once (same file system).
    public static func rename(_ from: String, to: String) throws(SystemError) {
        if Glibc.rename(from, to) != 0 { throw SystemError(errno: errno, operation: "rename", path: to) }
    }

    /// `fsync(2)`: the file's data on the disk before it is renamed over another.
    public static func fsync(_ fd: Int32, path: String? = nil) throws(SystemError) {
        while Glibc.fsync(fd) != 0 {
            if errno == EINTR { continue }
            throw SystemError(errno: errno, operation: "fsync", path: path)
        }
    }

    /// `unlink(2)`, for a file of one's own left behind by a failed write.
    public static func unlink(_ path: String) -> SystemError? {
        Glibc.unlink(path) == 0 ? nil : SystemError(errno: errno, operation: "unlink", path: path)
    }

    /// `kill(2)`: sends `signal` to `pid`.
    public static func kill(_ pid: pid_t, _ signal: Int32) throws(SystemError) {
        if Glibc.kill(pid, signal) != 0 { throw SystemError(errno: errno, operation: "kill") }
    }
}

/// A terminal switched to reading key by key (no line editing, no echo, Ctrl-C read as a key rather than
/// a signal, so the terminal is always given back as it was), until `restore`.
public struct RawTerminal {
    public let fd: Int32
    private let saved: termios

    /// nil when `fd` is not a terminal.
    public init?(fd: Int32) {
        guard isatty(fd) == 1 else { return nil }
        var attributes = termios()
        guard tcgetattr(fd, &attributes) == 0 else { return nil }
        self.fd = fd
        saved = attributes
        attributes.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG)
        withUnsafeMutableBytes(of: &attributes.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(fd, TCSANOW, &attributes) == 0 else { return nil }
    }

    /// The terminal as it was.
    public func restore() {
        var attributes = saved
        _ = tcsetattr(fd, TCSANOW, &attributes)
    }
}
