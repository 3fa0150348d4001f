// The socket server's system calls: Unix stream sockets, non-blocking reads and writes, peer
// credentials, and the socket file's permissions. Part of `SystemCall` (SystemCalls.swift): EINTR is
// retried through `retryingInterrupts`, failures throw a `SystemError` naming the call.
import CLinux
import Glibc

/// The result of a non-blocking read.
public enum ReadResult: Equatable {
    case bytes(Int)
    /// Nothing to read now (EAGAIN).
    case wouldBlock
    /// The peer closed its end.
    case endOfFile
}

/// The result of a non-blocking write.
public enum WriteResult: Equatable {
    case wrote(Int)
    /// The socket buffer is full (EAGAIN).
    case wouldBlock
}

/// Who is on the other end of a Unix socket (SO_PEERCRED).
public struct PeerCredentials: Equatable, Sendable {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32

    /// "uid 1000, pid 4242 gesturectl" (the name from /proc/PID/comm, when it can be read; a process
    /// chooses its own name, so control characters in it are shown as "?").
    public var described: String {
        var text = "uid \(uid), pid \(pid)"
        if pid > 0, let comm = SystemCall.readSmallFile("/proc/\(pid)/comm") {
            var scalars = Substring(comm).unicodeScalars[...]
            while let last = scalars.last, last == "\n" || last == " " { scalars = scalars.dropLast() }
            while let first = scalars.first, first == " " { scalars = scalars.dropFirst() }
            var name = ""
            for scalar in scalars { name.unicodeScalars.append(scalar.value < 0x20 || scalar.value == 0x7f ? "?" : scalar) }
            if !name.isEmpty { text += " \(name)" }
        }
        return text
    }
}

extension SystemCall {
    /// Fills a `sockaddr_un` for `path`; throws ENAMETOOLONG with a hint when it does not fit in sun_path,
    /// EINVAL when it is empty or holds a NUL byte. With `abstractAt`, a path starting with "@" names a
    /// socket in the abstract namespace (the "@" becomes the leading NUL byte), as systemd writes them.
    static func withUnixAddress<R>(
        _ path: String, operation: String, abstractAt: Bool = false,
        _ body: (UnsafePointer<sockaddr>, socklen_t) -> R
    ) throws(SystemError) -> R {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        if abstractAt && bytes.count > 1 && bytes[0] == UInt8(ascii: "@") && !bytes.dropFirst().contains(0) {
            bytes[0] = 0
            guard bytes.count <= capacity else {
                throw SystemError(
                    errno: ENAMETOOLONG, operation: operation, path: path,
                    hint: "an abstract Unix socket name must be 1 to \(capacity - 1) bytes")
            }
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
            // An abstract name is exactly its bytes: no terminating NUL counted.
            let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
            }
        }
        if bytes.isEmpty || bytes.contains(0) {
            throw SystemError(
                errno: EINVAL, operation: operation, path: path,
                hint: bytes.isEmpty ? "the socket path is empty; give the path of a file" : "a socket path cannot contain a NUL byte")
        }
        guard bytes.count < capacity else {
            throw SystemError(
                errno: ENAMETOOLONG, operation: operation, path: path,
                hint: "a Unix socket path must be 1 to \(capacity - 1) bytes; choose a shorter path")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + 1)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }

    /// `socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)`; pass `nonBlocking: false` for a
    /// blocking client socket.
    public static func unixStreamSocket(nonBlocking: Bool = true) throws(SystemError) -> Int32 {
        var type = gestured_sock_stream | gestured_sock_cloexec
        if nonBlocking { type |= gestured_sock_nonblock }
        return try retryingInterrupts("socket") { Glibc.socket(AF_UNIX, type, 0) }
    }

    /// `bind(2)` to a filesystem path.
    public static func bind(_ fd: Int32, path: String) throws(SystemError) {
        let result = try withUnixAddress(path, operation: "bind") { Glibc.bind(fd, $0, $1) }
        if result == -1 { throw SystemError(errno: Glibc.errno, operation: "bind", path: path) }
    }

    /// `listen(2)`.
    public static func listen(_ fd: Int32, backlog: Int32) throws(SystemError) {
        _ = try retryingInterrupts("listen") { Glibc.listen(fd, backlog) }
    }

    /// `connect(2)` to a filesystem path. An interrupted connect goes on in the background and cannot be
    /// retried by calling again, and on a non-blocking socket it may be in progress (EINPROGRESS): then it
    /// waits for writability with `poll(2)`, at most `timeoutMilliseconds` (-1: no bound; ETIMEDOUT when
    /// the time passes), and asks SO_ERROR how it went. A non-blocking Unix socket whose listener's queue
    /// is full fails at once with EAGAIN.
    public static func connect(_ fd: Int32, path: String, timeoutMilliseconds: Int32 = -1) throws(SystemError) {
        let result = try withUnixAddress(path, operation: "connect") { Glibc.connect(fd, $0, $1) }
        if result == 0 { return }
        let code = Glibc.errno
        guard code == EINTR || code == EINPROGRESS else { throw SystemError(errno: code, operation: "connect", path: path) }
        guard try poll(fd, events: Int16(POLLOUT), timeoutMilliseconds: timeoutMilliseconds) else {
            throw SystemError(errno: ETIMEDOUT, operation: "connect", path: path)
        }
        var soError: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        _ = try retryingInterrupts("getsockopt(SO_ERROR)") { getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length) }
        if soError != 0 { throw SystemError(errno: soError, operation: "connect", path: path) }
    }

    /// `poll(2)` of one descriptor for `events`: true when one of them (or an error or hang-up) is
    /// pending, false when `timeoutMilliseconds` passed (-1 waits without bound). EINTR restarts the wait
    /// with the time that is left.
    public static func poll(_ fd: Int32, events: Int16, timeoutMilliseconds: Int32) throws(SystemError) -> Bool {
        var pfd = pollfd(fd: fd, events: events, revents: 0)
        return try pollRetrying(&pfd, 1, timeoutMilliseconds) > 0
    }

    /// `poll(2)` of `fds` (each entry's `revents` filled in): how many have an event pending, 0 when
    /// `timeoutMilliseconds` passed (-1 waits without bound). EINTR restarts the wait with the time that is
    /// left, so a caller's loop sees a wake-up only for a descriptor or its own deadline.
    public static func poll(_ fds: inout [pollfd], timeoutMilliseconds: Int32) throws(SystemError) -> Int {
        let count = fds.count
        // The closure returns a Result: Swift 6.0's withUnsafeMutableBufferPointer rethrows any Error, not
        // the closure's typed error.
        return try fds.withUnsafeMutableBufferPointer { buffer in
            Result { () throws(SystemError) in try pollRetrying(buffer.baseAddress!, count, timeoutMilliseconds) }
        }.get()
    }

    private static func pollRetrying(
        _ fds: UnsafeMutablePointer<pollfd>, _ count: Int, _ timeoutMilliseconds: Int32
    ) throws(SystemError) -> Int {
        let start = monotonicMicroseconds()
        var remaining = timeoutMilliseconds
        while true {
            let n = Glibc.poll(fds, nfds_t(count), remaining)
            if n >= 0 { return Int(n) }
            let code = Glibc.errno
            if code != EINTR { throw SystemError(errno: code, operation: "poll") }
            if timeoutMilliseconds >= 0 {
                let elapsed = (monotonicMicroseconds() - start) / 1000
                remaining = Int32(clamping: max(0, Int64(timeoutMilliseconds) - elapsed))
            }
        }
    }

    /// `accept4(2)` with SOCK_NONBLOCK | SOCK_CLOEXEC; nil when no connection is waiting (EAGAIN).
    /// ECONNABORTED (the peer gave up while queued) also returns nil.
    public static func accept(_ fd: Int32) throws(SystemError) -> Int32? {
        while true {
            let client = accept4(fd, nil, nil, gestured_sock_nonblock | gestured_sock_cloexec)
            if client >= 0 { return client }
            let code = Glibc.errno
            switch code {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK, ECONNABORTED: return nil
            default: throw SystemError(errno: code, operation: "accept4")
            }
        }
    }

    /// `getsockopt(SO_PEERCRED)`: the pid, uid and gid of the process that connected.
    public static func peerCredentials(_ fd: Int32) throws(SystemError) -> PeerCredentials {
        var credentials = gestured_peer_credentials()
        var length = socklen_t(MemoryLayout<gestured_peer_credentials>.size)
        _ = try retryingInterrupts("getsockopt(SO_PEERCRED)") {
            getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length)
        }
        return PeerCredentials(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid)
    }

    /// `read(2)` into `buffer` on a non-blocking descriptor.
    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> ReadResult {
        let n = try readOrWouldBlock("read", fd) { Glibc.read(fd, buffer.baseAddress, buffer.count) }
        guard let n else { return .wouldBlock }
        return n == 0 ? .endOfFile : .bytes(n)
    }

    /// `send(2)` with MSG_NOSIGNAL (a closed peer gives EPIPE, not SIGPIPE) on a non-blocking socket.
    public static func send(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws(SystemError) -> WriteResult {
        let n = try readOrWouldBlock("send", fd) { Glibc.send(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL)) }
        guard let n else { return .wouldBlock }
        return .wrote(n)
    }

    private static func readOrWouldBlock(_ operation: String, _ fd: Int32, _ body: () -> Int) throws(SystemError) -> Int? {
        while true {
            let n = body()
            if n >= 0 { return n }
            let code = Glibc.errno
            switch code {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return nil
            default: throw SystemError(errno: code, operation: operation)
            }
        }
    }

    /// `unlink(2)`; a missing file is not an error.
    public static func unlinkIfPresent(_ path: String) throws(SystemError) {
        if Glibc.unlink(path) == 0 { return }
        let code = Glibc.errno
        if code == ENOENT { return }
        throw SystemError(errno: code, operation: "unlink", path: path)
    }

    /// `lstat(2)`: whether `path` exists and is a socket; nil when it does not exist.
    public static func isSocket(_ path: String) throws(SystemError) -> Bool? {
        try lstatIfPresent(path).map { ($0.st_mode & S_IFMT) == S_IFSOCK }
    }

    /// `fchmodat(2)` with `AT_SYMLINK_NOFOLLOW`: the mode of the file at `path` itself, never of what a
    /// symbolic link there points to (glibc refuses a link with EOPNOTSUPP).
    public static func chmodNotFollowingLinks(_ path: String, mode: mode_t) throws(SystemError) {
        _ = try retryingInterrupts("fchmodat", path: path) { fchmodat(AT_FDCWD, path, mode, AT_SYMLINK_NOFOLLOW) }
    }

    /// `fchownat(2)` with `AT_SYMLINK_NOFOLLOW`, of the group only: a symbolic link at `path` would get the
    /// group itself; what it points to is never changed.
    public static func chgrpNotFollowingLinks(_ path: String, group: gid_t) throws(SystemError) {
        _ = try retryingInterrupts("fchownat", path: path) { fchownat(AT_FDCWD, path, uid_t.max, group, AT_SYMLINK_NOFOLLOW) }
    }

    /// `umask(2)`; returns the previous mask.
    @discardableResult
    public static func umask(_ mask: mode_t) -> mode_t { Glibc.umask(mask) }

    /// `getgrnam_r(3)`: the id of the group named `name`, nil when there is no such group.
    public static func groupID(named name: String) throws(SystemError) -> gid_t? {
        var group = Glibc.group()
        var result: UnsafeMutablePointer<Glibc.group>? = nil
        return try withGrowingBuffer("getgrnam_r", path: name) { buffer, size in
            let code = getgrnam_r(name, &group, buffer, size, &result)
            return (code, code == 0 ? result.map { _ in group.gr_gid } : nil)
        }
    }

    /// `getpwnam_r(3)`: the id of the user named `name`, nil when there is no such user.
    public static func userID(named name: String) throws(SystemError) -> uid_t? {
        var user = Glibc.passwd()
        var result: UnsafeMutablePointer<Glibc.passwd>? = nil
        return try withGrowingBuffer("getpwnam_r", path: name) { buffer, size in
            let code = getpwnam_r(name, &user, buffer, size, &result)
            return (code, code == 0 ? result.map { _ in user.pw_uid } : nil)
        }
    }

    /// `getsockopt(SO_PEERGROUPS)` (Linux 4.13): the supplementary groups of the process on the other end
    /// of a Unix socket, as they were when it connected. Empty where the kernel does not say (older
    /// kernels: ENOPROTOOPT).
    public static func peerGroups(_ fd: Int32) -> [gid_t] {
        var groups = [gid_t](repeating: 0, count: 64)
        while true {
            var length = socklen_t(groups.count * MemoryLayout<gid_t>.size)
            let result = groups.withUnsafeMutableBytes { getsockopt(fd, SOL_SOCKET, gestured_so_peergroups, $0.baseAddress, &length) }
            if result == 0 { return Array(groups.prefix(Int(length) / MemoryLayout<gid_t>.size)) }
            if errno == ERANGE, Int(length) > groups.count * MemoryLayout<gid_t>.size, length <= 65536 * 4 {
                groups = [gid_t](repeating: 0, count: Int(length) / MemoryLayout<gid_t>.size)
                continue
            }
            if errno == EINTR { continue }
            return []
        }
    }

    /// `getegid(2)` and `getgroups(2)`: the groups the process has, effective group first.
    public static func processGroupIDs() -> [gid_t] {
        var groups = [getegid()]
        let count = getgroups(0, nil)
        if count > 0 {
            var supplementary = [gid_t](repeating: 0, count: Int(count))
            let n = getgroups(count, &supplementary)
            if n > 0 { groups += supplementary.prefix(Int(n)) }
        }
        return groups
    }

    /// `getgrgid_r(3)`: the name of the group `id`, nil when no group has that id.
    public static func groupName(id: gid_t) throws(SystemError) -> String? {
        var group = Glibc.group()
        var result: UnsafeMutablePointer<Glibc.group>? = nil
        return try withGrowingBuffer("getgrgid_r", path: "gid \(id)") { buffer, size in
            let code = getgrgid_r(id, &group, buffer, size, &result)
            return (code, code == 0 ? result.map { _ in String(cString: group.gr_name) } : nil)
        }
    }

    /// `getpwuid_r(3)`: the name of the user `id`, nil when no user has that id.
    public static func userName(id: uid_t) throws(SystemError) -> String? {
        var user = Glibc.passwd()
        var result: UnsafeMutablePointer<Glibc.passwd>? = nil
        return try withGrowingBuffer("getpwuid_r", path: "uid \(id)") { buffer, size in
            let code = getpwuid_r(id, &user, buffer, size, &result)
            return (code, code == 0 ? result.map { _ in String(cString: user.pw_name) } : nil)
        }
    }

    /// Calls `body` (a `get*_r` function: its error number, and what it found) with a buffer that grows
    /// while it is too small (ERANGE, up to 1 MiB); EINTR is retried.
    private static func withGrowingBuffer<T>(
        _ operation: String, path: String, _ body: (UnsafeMutablePointer<CChar>, Int) -> (Int32, T?)
    ) throws(SystemError) -> T? {
        var size = 1024
        while true {
            var buffer = [CChar](repeating: 0, count: size)
            let (code, found) = buffer.withUnsafeMutableBufferPointer { body($0.baseAddress!, size) }
            if code == ERANGE && size < 1 << 20 {
                size *= 4
                continue
            }
            if code == EINTR { continue }
            if code != 0 { throw SystemError(errno: code, operation: operation, path: path) }
            return found
        }
    }

    /// `write(2)` until every byte is written (EINTR retried, short writes finished). Returns false when
    /// the descriptor refuses (for the log, which has nowhere left to report that).
    @discardableResult
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        writeSome(fd, bytes) == bytes.count
    }

    /// `write(2)` as much as a non-blocking descriptor takes now (EINTR retried, short writes continued
    /// while it takes more). Returns the bytes written; fewer than asked when it would block or failed.
    public static func writeSome(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
        writingWhileTaken(bytes) { Glibc.write(fd, $0, $1) }
    }

    /// `write` (a write(2) or send(2) of a pointer and a count) until every byte is taken or it takes no more.
    private static func writingWhileTaken(_ bytes: UnsafeRawBufferPointer, _ write: (UnsafeRawPointer, Int) -> Int) -> Int {
        var offset = 0
        while offset < bytes.count {
            let n = write(bytes.baseAddress! + offset, bytes.count - offset)
            if n > 0 {
                offset += n
            } else if n == -1 && Glibc.errno == EINTR {
                continue
            } else {
                break
            }
        }
        return offset
    }

    /// `send(2)` with MSG_DONTWAIT and MSG_NOSIGNAL: as much as the socket takes now, without waiting and
    /// without changing the descriptor's flags (which a child sharing it would see). Returns the bytes
    /// written; fewer than asked when it would block or failed.
    public static func sendSome(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
        writingWhileTaken(bytes) { Glibc.send(fd, $0, $1, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
    }

    /// One datagram to the Unix datagram socket at `path` ("@name": in the abstract namespace), from a
    /// socket made for it and closed after: `socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC)`, `sendto(2)` with
    /// MSG_NOSIGNAL. What sd_notify(3) does, for the daemon's readiness messages.
    public static func sendDatagram(_ bytes: UnsafeRawBufferPointer, toUnixSocket path: String) throws(SystemError) {
        let fd = try retryingInterrupts("socket") { Glibc.socket(AF_UNIX, gestured_sock_dgram | gestured_sock_cloexec, 0) }
        defer { _ = Glibc.close(fd) }
        let sent = try withUnixAddress(path, operation: "sendto", abstractAt: true) { address, length in
            var result: Int
            repeat {
                result = Glibc.sendto(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), address, length)
            } while result == -1 && Glibc.errno == EINTR
            return result == -1 ? -Int(Glibc.errno) : result
        }
        if sent < 0 { throw SystemError(errno: Int32(-sent), operation: "sendto", path: path) }
        if sent != bytes.count { throw SystemError(errno: EMSGSIZE, operation: "sendto", path: path) }
    }

    /// Whether `fd` is a listening Unix stream socket (what sd_is_socket_unix(fd, SOCK_STREAM, 1, NULL, 0)
    /// asks): `fstat(2)` says a socket, SO_TYPE stream, SO_ACCEPTCONN set, and `getsockname(2)` AF_UNIX.
    public static func isListeningUnixStreamSocket(_ fd: Int32) throws(SystemError) -> Bool {
        let status = try fstat(fd)
        guard status.st_mode & S_IFMT == S_IFSOCK else { return false }
        func option(_ name: Int32, _ operation: String) throws(SystemError) -> Int32 {
            var value: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            _ = try retryingInterrupts(operation) { getsockopt(fd, SOL_SOCKET, name, &value, &length) }
            return value
        }
        guard try option(SO_TYPE, "getsockopt(SO_TYPE)") == gestured_sock_stream,
            try option(SO_ACCEPTCONN, "getsockopt(SO_ACCEPTCONN)") != 0
        else { return false }
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = try retryingInterrupts("getsockname") {
            withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
        }
        return Int32(address.ss_family) == AF_UNIX
    }

    /// `fcntl(F_SETFD, FD_CLOEXEC)`.
    public static func setCloseOnExec(_ fd: Int32) throws(SystemError) {
        _ = try retryingInterrupts("fcntl(F_SETFD)") { fcntl(fd, F_SETFD, FD_CLOEXEC) }
    }

    /// `read(2)` of `fd` to its end (EINTR retried); nil as soon as more than `limit` bytes have come, so
    /// an endless source (/dev/zero) costs at most `limit` bytes and stops. `path` names it in errors.
    public static func readAll(_ fd: Int32, path: String?, limit: Int) throws(SystemError) -> [UInt8]? {
        var bytes: [UInt8] = []
        let chunkBytes = 65536
        var chunk = [UInt8](repeating: 0, count: chunkBytes)
        while true {
            let n = try retryingInterrupts("read", path: path) {
                chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            }
            if n == 0 { return bytes }
            if bytes.count + n > limit { return nil }
            bytes.append(contentsOf: chunk[0..<n])
        }
    }

    /// `read(2)` of up to `buffer.count` bytes from a blocking descriptor (EINTR retried); 0 at its end.
    /// `path` names it in errors.
    public static func readSome(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String?) throws(SystemError) -> Int {
        try retryingInterrupts("read", path: path) { Glibc.read(fd, buffer.baseAddress, buffer.count) }
    }

    /// Reads a small text file whole (for /proc/PID/comm); nil when it cannot be read.
    public static func readSmallFile(_ path: String, limit: Int = 4096) -> String? {
        guard let fd = try? open(path, flags: O_RDONLY | O_CLOEXEC) else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: limit)
        let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, limit) }
        guard n > 0 else { return nil }
        return String(decoding: bytes[0..<n], as: UTF8.self)
    }
}
