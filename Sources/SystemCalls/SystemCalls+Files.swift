import CLinux
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

    /// `realpath(3)`: the path with every symbolic link, `.` and `..` resolved (the file must exist).
    public static func realPath(_ path: String) throws(SystemError) -> String {
        guard let resolved = Glibc.realpath(path, nil) else { throw SystemError(errno: errno, operation: "realpath", path: path) }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// `mkstemp(3)`: a new file `prefix` followed by six random characters, created with O_EXCL (never an
    /// existing file or link, whoever made it), mode 0600; its descriptor (close-on-exec) and its path.
    public static func makeTemporaryFile(prefix: String) throws(SystemError) -> (fd: Int32, path: String) {
        var template = Array((prefix + "XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { CLinux.mkostemp($0.baseAddress!, O_CLOEXEC) }
        guard fd >= 0 else { throw SystemError(errno: errno, operation: "mkostemp", path: prefix + "XXXXXX") }
        return (fd, String(cString: template))
    }

    /// `fchmod(2)`.
    public static func changeMode(_ fd: Int32, _ mode: mode_t, path: String? = nil) throws(SystemError) {
        if Glibc.fchmod(fd, mode) != 0 { throw SystemError(errno: errno, operation: "fchmod", path: path) }
    }

    /// `fchown(2)`.
    public static func changeOwner(_ fd: Int32, uid: uid_t, gid: gid_t, path: String? = nil) throws(SystemError) {
        if Glibc.fchown(fd, uid, gid) != 0 { throw SystemError(errno: errno, operation: "fchown", path: path) }
    }

    /// `flock(2)` with LOCK_EX | LOCK_NB: true when the lock was taken, false when another holds it.
    public static func tryLockExclusively(_ fd: Int32, path: String? = nil) throws(SystemError) -> Bool {
        while gestured_flock(fd, gestured_lock_ex | gestured_lock_nb) != 0 {
            if errno == EINTR { continue }
            if errno == EWOULDBLOCK { return false }
            throw SystemError(errno: errno, operation: "flock", path: path)
        }
        return true
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
