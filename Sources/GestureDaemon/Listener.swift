import GestureProtocol
import Glibc

/// The listening Unix socket: created by the daemon at the configured path, or inherited from systemd
/// (gestured.socket). A socket the daemon created is removed when it stops; an inherited one belongs to
/// systemd and is left alone.
public final class Listener {
    public let fd: Int32
    /// The socket's path, as configured or as systemd bound it (for the log).
    public let path: String
    /// Whether the daemon created the socket file and so removes it on shutdown.
    public let ownsPath: Bool

    private init(fd: Int32, path: String, ownsPath: Bool) {
        self.fd = fd
        self.path = path
        self.ownsPath = ownsPath
    }

    deinit { SystemCall.close(fd) }

    /// Adopts the socket systemd passed (socket activation).
    public static func inherited(fd: Int32, configuredPath: String) -> Listener {
        Listener(fd: fd, path: configuredPath, ownsPath: false)
    }

    /// Creates the socket at `path` with permission bits `mode` and group `group` (empty: the daemon's
    /// own group) and starts listening. A stale socket file from a daemon that died is replaced; a live
    /// one (something accepts connections on it) is an error, as is a file that is not a socket.
    public static func create(path: String, mode: UInt32, group: String, backlog: Int32 = 64) throws(SystemError) -> Listener {
        if let isSocket = try SystemCall.isSocket(path) {
            guard isSocket else {
                throw SystemError(
                    errno: EEXIST, operation: "bind", path: path,
                    hint: "the path exists and is not a socket; remove it or choose another path (--socket or socket_path)")
            }
            if try socketIsLive(path) {
                throw SystemError(
                    errno: EADDRINUSE, operation: "bind", path: path,
                    hint: "another gestured is already listening there; stop it, or give this one another --socket")
            }
            try SystemCall.unlinkIfPresent(path)
            Log.info("removed stale socket \(path) left by a daemon that did not stop cleanly")
        }
        let fd = try SystemCall.unixStreamSocket()
        var bound = false
        do throws(SystemError) {
            // The socket file is created with no access for anyone but the owner, then opened up to `mode`,
            // so it is never briefly more accessible than configured.
            let previous = SystemCall.umask(0o177)
            defer { SystemCall.umask(previous) }
            do {
                try SystemCall.bind(fd, path: path)
            } catch {
                var error = error
                switch error.errno {
                case ENOENT:
                    error.hint = "the directory does not exist; create it (the service's RuntimeDirectory= does) or choose another path with --socket"
                case EACCES, EPERM:
                    error.hint = "the daemon may not create files there; run it as the gestured service or choose another path with --socket"
                default:
                    break
                }
                throw error
            }
            bound = true
            try SystemCall.chmod(path, mode: mode_t(mode))
            if !group.isEmpty {
                if let gid = try SystemCall.groupID(named: group) {
                    do {
                        // Usually the socket already has the group (the service runs with it as its own):
                        // then no chown(2), which the service's system call filter does not allow.
                        if try SystemCall.stat(path).st_gid != gid {
                            try SystemCall.chgrp(path, group: gid)
                        }
                    } catch {
                        Log.warning(
                            "cannot give the socket \(path) to group '\(group)': \(error.message); only the daemon's own "
                                + "group can connect. Run the daemon as a member of '\(group)' or set socket_group")
                    }
                } else {
                    Log.warning(
                        "group '\(group)' does not exist, so the socket \(path) keeps the daemon's own group; create "
                            + "the group (systemd-sysusers with the installed sysusers.d file does) or set socket_group")
                }
            }
            try SystemCall.listen(fd, backlog: backlog)
        } catch {
            SystemCall.close(fd)
            if bound { try? SystemCall.unlinkIfPresent(path) }
            throw error
        }
        return Listener(fd: fd, path: path, ownsPath: true)
    }

    /// Whether a process accepts connections on the socket at `path`.
    private static func socketIsLive(_ path: String) throws(SystemError) -> Bool {
        let probe = try SystemCall.unixStreamSocket(nonBlocking: false)
        defer { SystemCall.close(probe) }
        do {
            try SystemCall.connect(probe, path: path)
            return true
        } catch {
            if error.errno == ECONNREFUSED || error.errno == ENOENT { return false }
            throw error
        }
    }

    /// Removes the socket file if the daemon created it.
    public func removeSocketFile() {
        guard ownsPath else { return }
        do {
            try SystemCall.unlinkIfPresent(path)
        } catch {
            Log.warning("cannot remove the socket \(path): \(error)")
        }
    }
}
