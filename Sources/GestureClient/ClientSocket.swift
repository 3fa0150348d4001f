// The client's system calls, made through the SystemCalls module the daemon uses too (the Unix address,
// the interrupted connect, EINTR and poll's remaining time are handled there, once). This file only turns
// their `SystemError`s into `GestureClientError`s, with what a user of a client can do about them.
import Glibc
import SystemCalls

enum ClientSocket {
    /// A blocking `socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)` then `connect(2)` to `path`.
    static func connect(path: String, nonBlocking: Bool = false) throws(GestureClientError) -> Int32 {
        let fd: Int32
        do {
            fd = try SystemCall.unixStreamSocket(nonBlocking: nonBlocking)
        } catch {
            throw .system(operation: error.operation, errno: error.errno)
        }
        do {
            try SystemCall.connect(fd, path: path)
            return fd
        } catch {
            SystemCall.close(fd)
            throw .connect(path: path, errno: error.errno, hint: error.hint ?? hint(forConnectErrno: error.errno, path: path))
        }
    }

    private static func hint(forConnectErrno code: Int32, path: String) -> String {
        switch code {
        case ENOENT, ECONNREFUSED:
            return "is gestured running? Give its socket with --socket or \(GestureClientDefaults.environmentVariable)"
        case EAGAIN:
            return "the daemon is not accepting connections (stopped, or too busy)"
        case EACCES, EPERM:
            return permissionHint(path: path)
        default:
            return "check the socket path"
        }
    }

    /// What to do when connecting to the socket at `path` was refused permission: join the group the
    /// socket file really has (socket_group or gestured.socket's SocketGroup= may name any), log in again
    /// if already added, or, when its mode lets no group connect, have it changed.
    static func permissionHint(path: String, processGroups: [gid_t] = SystemCall.processGroupIDs()) -> String {
        guard let info = try? SystemCall.stat(path) else {
            return "a directory on the way to the socket is not open to you; its owner decides (the socket's own "
                + "permissions are socket_mode and socket_group)"
        }
        let mode = info.st_mode & 0o777
        let octal = String(repeating: "0", count: 4 - String(mode, radix: 8).count) + String(mode, radix: 8)
        let name = (try? SystemCall.groupName(id: info.st_gid)).flatMap { $0 }.map(quotedName) ?? "gid \(info.st_gid)"
        guard mode & 0o020 != 0 else {
            return "the socket's mode is \(octal), which lets no group connect: whoever runs gestured can set socket_mode "
                + "= \"0660\" (or SocketMode=0660 in gestured.socket)"
        }
        if processGroups.contains(info.st_gid) {
            return "you are in its group \(name) already and its mode is \(octal); a directory on the way to it is not open to you"
        }
        let command = (try? SystemCall.groupName(id: info.st_gid)).flatMap { $0 }.map { "sudo usermod -aG \($0) \"$USER\"" }
            ?? "the group with id \(info.st_gid)"
        return "the socket is for members of its group \(name) (mode \(octal)): add your user to it (\(command)), "
            + "then log in again (if you were added already, logging in again is what is missing)"
    }

    private static func quotedName(_ name: String) -> String { "'\(name)'" }

    /// `poll(2)` for readability; false on timeout. `timeoutMilliseconds` -1 waits forever.
    static func waitReadable(_ fd: Int32, timeoutMilliseconds: Int32) throws(GestureClientError) -> Bool {
        do {
            return try SystemCall.poll(fd, events: Int16(POLLIN), timeoutMilliseconds: timeoutMilliseconds)
        } catch {
            throw .system(operation: error.operation, errno: error.errno)
        }
    }

    /// `read(2)`; 0 at end of file (a reset connection counts as ended).
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(GestureClientError) -> Int {
        let result: ReadResult
        do {
            result = try SystemCall.read(fd, into: buffer)
        } catch {
            if error.errno == ECONNRESET { return 0 }
            throw .system(operation: error.operation, errno: error.errno)
        }
        switch result {
        case .bytes(let n): return n
        case .endOfFile: return 0
        // Only when the caller made the descriptor non-blocking and called without it being readable.
        case .wouldBlock: throw .system(operation: "read", errno: EAGAIN)
        }
    }

    /// `send(2)` with MSG_NOSIGNAL until every byte is written.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(GestureClientError) {
        let failure: GestureClientError? = bytes.withUnsafeBytes { all in
            var offset = 0
            while offset < all.count {
                do throws(SystemError) {
                    switch try SystemCall.send(fd, UnsafeRawBufferPointer(rebasing: all[offset...])) {
                    case .wrote(let n) where n > 0: offset += n
                    case .wrote: return .system(operation: "send", errno: EIO)
                    case .wouldBlock: return .system(operation: "send", errno: EAGAIN)
                    }
                } catch {
                    if error.errno == EPIPE || error.errno == ECONNRESET { return .closed }
                    return .system(operation: error.operation, errno: error.errno)
                }
            }
            return nil
        }
        if let failure { throw failure }
    }

    static func close(_ fd: Int32) { SystemCall.close(fd) }

    /// `clock_gettime(CLOCK_MONOTONIC)` in milliseconds.
    static func monotonicMilliseconds() -> Int64 { SystemCall.monotonicMicroseconds() / 1000 }
}
