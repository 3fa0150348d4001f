// SystemCalls: the system calls gestured's programs make, wrapped once, here, for the daemon (devices,
// udev, the event loop, the socket server), the configuration loader, the recording loader and the client
// library alike. Each wrapper's doc comment names the C function; EINTR is retried in one place
// (`retryingInterrupts`, or a wait restarted with the time left); a failure throws a `SystemError` that
// carries the errno, the call and the path it concerned. Add new wrappers here rather than calling Glibc
// elsewhere.
import Glibc

/// A failed system or library call: the errno, what was being done, and on which path.
public struct SystemError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The errno value (positive), e.g. `EACCES`.
    public var errno: Int32
    /// The C function or action that failed, e.g. "open" or "libevdev_next_event".
    public var operation: String
    /// The file the call concerned, if any.
    public var path: String?
    /// What the user can do about it, if there is something to say.
    public var hint: String?

    public init(errno: Int32, operation: String, path: String? = nil, hint: String? = nil) {
        self.errno = errno
        self.operation = operation
        self.path = path
        self.hint = hint
    }

    /// The message `strerror(3)` gives for `errno`.
    public var message: String { String(cString: strerror(errno)) }

    public var description: String {
        var text = operation
        if let path { text += " \(path)" }
        text += ": \(message) (errno \(errno))"
        if let hint { text += ". \(hint)" }
        return text
    }
}

/// Thin wrappers over the C calls, EINTR retried here and nowhere else.
public enum SystemCall {
    /// Runs `body` until it returns something other than -1 with errno EINTR; returns the result, or throws
    /// a `SystemError` built from errno when the call failed.
    @inline(__always)
    public static func retryingInterrupts<T: BinaryInteger>(
        _ operation: String, path: String? = nil, _ body: () -> T
    ) throws(SystemError) -> T {
        while true {
            let result = body()
            if result != -1 { return result }
            let code = Glibc.errno
            if code == EINTR { continue }
            throw SystemError(errno: code, operation: operation, path: path)
        }
    }

    /// `open(2)`; `flags` should include `O_CLOEXEC`.
    public static func open(_ path: String, flags: Int32, mode: mode_t = 0) throws(SystemError) -> Int32 {
        try retryingInterrupts("open", path: path) { Glibc.open(path, flags, mode) }
    }

    /// `close(2)`. EINTR is not retried (on Linux the descriptor is released anyway); other errors are
    /// returned for logging, since there is nothing a caller could do about them.
    @discardableResult
    public static func close(_ fd: Int32) -> SystemError? {
        if Glibc.close(fd) == 0 { return nil }
        let code = Glibc.errno
        return code == EINTR ? nil : SystemError(errno: code, operation: "close")
    }

    /// `write(2)` of `bytes` in one call (EINTR retried): the bytes written. For descriptors that take a
    /// write whole or not at all (uinput takes whole `input_event`s).
    public static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String? = nil) throws(SystemError) -> Int {
        try retryingInterrupts("write", path: path) { Glibc.write(fd, bytes.baseAddress, bytes.count) }
    }

    /// `fcntl(2)` with F_GETFL/F_SETFL: makes `fd` non-blocking (or blocking again, `nonBlocking: false`).
    public static func setNonBlocking(_ fd: Int32, _ nonBlocking: Bool = true) throws(SystemError) {
        let flags = try retryingInterrupts("fcntl(F_GETFL)") { fcntl(fd, F_GETFL) }
        if (flags & O_NONBLOCK != 0) == nonBlocking { return }
        let new = nonBlocking ? flags | O_NONBLOCK : flags & ~O_NONBLOCK
        _ = try retryingInterrupts("fcntl(F_SETFL)") { fcntl(fd, F_SETFL, new) }
    }

    /// `stat(2)`, or `lstat(2)` when `followingLinks` is false (a symbolic link is then described itself).
    public static func stat(_ path: String, followingLinks: Bool = true) throws(SystemError) -> Glibc.stat {
        var status = Glibc.stat()
        _ = try retryingInterrupts(followingLinks ? "stat" : "lstat", path: path) {
            followingLinks ? callStat(path, &status) : lstat(path, &status)
        }
        return status
    }

    /// `fstat(2)`; `path` names the file in errors.
    public static func fstat(_ fd: Int32, path: String? = nil) throws(SystemError) -> Glibc.stat {
        var status = Glibc.stat()
        _ = try retryingInterrupts("fstat", path: path) { Glibc.fstat(fd, &status) }
        return status
    }

    /// `lstat(2)`; nil when nothing is at `path` (ENOENT).
    public static func lstatIfPresent(_ path: String) throws(SystemError) -> Glibc.stat? {
        do {
            return try stat(path, followingLinks: false)
        } catch {
            if error.errno == ENOENT { return nil }
            throw error
        }
    }
}

/// `stat(2)` itself (at file scope, where `stat` names the C function rather than `SystemCall.stat`).
private func callStat(_ path: String, _ status: inout Glibc.stat) -> Int32 { stat(path, &status) }

/// Which file a path named at some moment: its device and inode.
public struct FileIdentity: Equatable, Sendable {
    public var device: UInt64
    public var inode: UInt64

    public init(_ status: stat) {
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }

    public init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }
}
