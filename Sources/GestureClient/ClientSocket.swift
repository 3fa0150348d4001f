// The client's system calls, wrapped once, here: EINTR is retried in these functions and nowhere else,
// and failures become `GestureClientError.system` with the errno and the call's name.
import Glibc

enum ClientSocket {
    /// `socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)` then `connect(2)` to `path`.
    static func connect(path: String) throws(GestureClientError) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity, !bytes.contains(0) else {
            throw .connect(path: path, errno: ENAMETOOLONG, hint: "a socket path must be 1 to \(capacity - 1) bytes")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        // SOCK_STREAM | SOCK_CLOEXEC (1 | 0o2000000); spelled out because glibc's enum imports unevenly.
        let fd = Glibc.socket(AF_UNIX, 1 | 0o2000000, 0)
        if fd < 0 { throw .system(operation: "socket", errno: errno) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + 1)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, length) }
        }
        if result == 0 { return fd }
        var code = errno
        if code == EINTR {
            // The connection goes on in the background: wait until it is writable, then ask how it went.
            var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            while Glibc.poll(&pfd, 1, -1) < 0 && errno == EINTR {}
            var soError: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &size)
            if soError == 0 { return fd }
            code = soError
        }
        Glibc.close(fd)
        let hint: String
        switch code {
        case ENOENT, ECONNREFUSED:
            hint = "is gestured running? Give its socket with --socket or \(GestureClientDefaults.environmentVariable)"
        case EACCES, EPERM:
            hint = "the socket is only for members of its group (socket_group, 'gestured' by default): "
                + "add your user to it (usermod -aG gestured USER, then log in again)"
        default:
            hint = "check the socket path"
        }
        throw .connect(path: path, errno: code, hint: hint)
    }

    /// `poll(2)` for readability; false on timeout. `timeoutMilliseconds` -1 waits forever. EINTR
    /// restarts the wait with the time that is left.
    static func waitReadable(_ fd: Int32, timeoutMilliseconds: Int32) throws(GestureClientError) -> Bool {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let start = monotonicMilliseconds()
        var remaining = timeoutMilliseconds
        while true {
            let n = Glibc.poll(&pfd, 1, remaining)
            if n > 0 { return true }
            if n == 0 { return false }
            if errno != EINTR { throw .system(operation: "poll", errno: errno) }
            if timeoutMilliseconds >= 0 {
                remaining = max(0, timeoutMilliseconds - Int32(clamping: monotonicMilliseconds() - start))
            }
        }
    }

    /// `read(2)`; 0 at end of file (a reset connection counts as ended).
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(GestureClientError) -> Int {
        while true {
            let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if n >= 0 { return n }
            if errno == EINTR { continue }
            if errno == ECONNRESET { return 0 }
            throw .system(operation: "read", errno: errno)
        }
    }

    /// `send(2)` with MSG_NOSIGNAL until every byte is written.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(GestureClientError) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n > 0 {
                offset += n
                continue
            }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EPIPE || errno == ECONNRESET) { throw .closed }
            throw .system(operation: "send", errno: n < 0 ? errno : EIO)
        }
    }

    static func close(_ fd: Int32) { Glibc.close(fd) }

    /// `clock_gettime(CLOCK_MONOTONIC)` in milliseconds.
    static func monotonicMilliseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }
}
