// System calls the daemon makes, wrapped once, here: each wrapper retries EINTR and throws a `SystemError`
// that carries the errno, the operation and the path it concerned. Shared by every adapter in the module
// (devices, udev, the event loop, the socket server); add new wrappers here rather than calling Glibc
// directly elsewhere.
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

    /// `fcntl(2)` with F_GETFL/F_SETFL: makes `fd` non-blocking.
    public static func setNonBlocking(_ fd: Int32) throws(SystemError) {
        let flags = try retryingInterrupts("fcntl(F_GETFL)") { fcntl(fd, F_GETFL) }
        if flags & O_NONBLOCK != 0 { return }
        _ = try retryingInterrupts("fcntl(F_SETFL)") { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
    }

    /// `stat(2)`, or `lstat(2)` when `followingLinks` is false (a symbolic link is then described itself).
    public static func stat(_ path: String, followingLinks: Bool = true) throws(SystemError) -> Glibc.stat {
        var status = Glibc.stat()
        _ = try retryingInterrupts(followingLinks ? "stat" : "lstat", path: path) {
            followingLinks ? callStat(path, &status) : lstat(path, &status)
        }
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
