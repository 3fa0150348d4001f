import GestureCore
import GestureProtocol
import Glibc
import SystemCalls
import PlainText

/// The listening Unix socket: created by the daemon at the configured path, or inherited from systemd
/// (gestured.socket). A socket the daemon created is removed when it stops, if it is still the one it
/// created; an inherited one belongs to systemd and is left alone.
public final class Listener {
    public let fd: Int32
    /// The socket's path, as configured or as systemd bound it (for the log).
    public let path: String
    /// The device and inode of the socket file the daemon created (nil when inherited): on shutdown the
    /// daemon removes what is at `path` only when it is still that file, never a file or another daemon's
    /// socket that took its place meanwhile.
    public let createdFile: FileIdentity?
    /// Whether the daemon created the socket file and so removes it on shutdown.
    public var ownsPath: Bool { createdFile != nil }
    /// The group the created socket file has (nil when inherited): the configured one, or the daemon's
    /// own when it could not be given.
    public let groupID: gid_t?

    /// Longest the start-up check of an existing socket waits for its owner to say hello.
    static let probeTimeoutMilliseconds: Int32 = 1000

    private init(fd: Int32, path: String, createdFile: FileIdentity?, groupID: gid_t? = nil) {
        self.fd = fd
        self.path = path
        self.createdFile = createdFile
        self.groupID = groupID
    }

    deinit { SystemCall.close(fd) }

    /// Adopts the socket systemd passed (socket activation).
    public static func inherited(fd: Int32, configuredPath: String) -> Listener {
        Listener(fd: fd, path: configuredPath, createdFile: nil)
    }

    /// Creates the socket at `path` with permission bits `mode` and group `group` (empty: the daemon's
    /// own group) and starts listening. A group that does not exist keeps the daemon's own: a warning when
    /// the configuration named it (`groupIsConfigured`), a note when it is the default `gestured` (gestured
    /// is not installed, so nobody is in that group anyway). A stale socket file from a daemon that died is replaced; a live
    /// one (something accepts connections on it, or its queue is full) is an error, as is a file that is
    /// not a socket. Checking a live socket takes at most `probeTimeoutMilliseconds`.
    ///
    /// Nothing is done to the socket by path in a way a link could redirect: the file has `mode` from its
    /// creation (the umask around bind(2)), its group is given with fchownat(2) not following links, and
    /// the group reported is the file's own (lstat). A directory that another user could write to (one of
    /// theirs, or one its group or everyone may write to that is not sticky as /tmp is) is refused: there
    /// they could swap the socket for a link to one of the daemon's files while it is set up.
    public static func create(
        path: String, mode: UInt32, group: String, groupIsConfigured: Bool = true, backlog: Int32 = 64
    ) throws(SystemError) -> Listener {
        try create(path: path, mode: mode, group: group, groupIsConfigured: groupIsConfigured, backlog: backlog, afterBind: {})
    }

    /// `create`, with `afterBind` run between bind(2) and the setting of the group (the tests swap the
    /// socket for a link there, as another user writing to the directory could).
    static func create(
        path: String, mode: UInt32, group: String, groupIsConfigured: Bool = true, backlog: Int32 = 64,
        afterBind: () -> Void
    ) throws(SystemError) -> Listener {
        if path.hasSuffix("/") {
            throw SystemError(
                errno: EISDIR, operation: "bind", path: path,
                hint: "the path ends with '/': give the socket's own file name, such as \(path)gestured.sock")
        }
        let directory = directory(of: path)
        // A directory that cannot be looked at is left to bind(2), which says why (missing, no access).
        if let info = try? SystemCall.stat(directory), let problem = unsafeSocketDirectory(info, daemonUser: geteuid()) {
            throw SystemError(errno: EPERM, operation: "bind", path: path, hint: problem.hint(directory: directory))
        }
        if let existing = try SystemCall.lstatIfPresent(path) {
            guard existing.st_mode & S_IFMT == S_IFSOCK else {
                throw SystemError(
                    errno: EEXIST, operation: "bind", path: path,
                    hint: "the path exists and is not a socket; remove it or choose another path (--socket or socket_path)")
            }
            switch try probe(path) {
            case .stale:
                break
            case .gestured:
                throw SystemError(
                    errno: EADDRINUSE, operation: "bind", path: path,
                    hint: "another gestured is already listening there; stop it, or give this one another --socket")
            case .otherProgram(let peer):
                throw SystemError(
                    errno: EADDRINUSE, operation: "bind", path: path,
                    hint: "another program (\(peer)) is listening there, and it is not gestured (it did not say hello "
                        + "within \(probeTimeoutMilliseconds) ms); stop it, or give this daemon another --socket")
            case .queueFull:
                throw SystemError(
                    errno: EADDRINUSE, operation: "bind", path: path,
                    hint: "a program is listening there but accepts no connections (its queue is full); stop it, or "
                        + "give this daemon another --socket")
            }
            try SystemCall.unlinkIfPresent(path)
            Log.info("removed stale socket \(path) left by a daemon that did not stop cleanly")
        }
        let fd = try SystemCall.unixStreamSocket()
        var bound = false
        var created: Glibc.stat?
        do throws(SystemError) {
            // The socket file is created with `mode` (the kernel gives it 0777 less the umask), so it has no
            // moment with other permissions and no chmod(2) by path follows. The umask is the process's: it
            // is changed for the bind alone (a process with other threads, a test run, would have its files
            // created meanwhile with this mask: the test suite's `swift build` once made a manifest it could
            // not execute).
            do {
                let previous = SystemCall.umask(0o777 & ~mode_t(mode))
                defer { SystemCall.umask(previous) }
                try SystemCall.bind(fd, path: path)
            } catch {
                var error = error
                switch error.errno {
                case ENOENT:
                    error.hint = missingPathHint(path)
                case EACCES, EPERM:
                    error.hint = "the daemon may not create files there; run it as the gestured service or choose another path with --socket"
                default:
                    break
                }
                throw error
            }
            bound = true
            afterBind()
            var made = try ownSocket(path)
            if made.st_mode & 0o7777 != mode_t(mode) {
                // A default ACL on the directory takes the umask's place: the mode is set, on the file itself.
                try SystemCall.chmodNotFollowingLinks(path, mode: mode_t(mode))
            }
            if !group.isEmpty {
                if let gid = try SystemCall.groupID(named: group) {
                    do {
                        // Usually the socket already has the group (the service runs with it as its own):
                        // then no chown(2), which the service's system call filter does not allow.
                        if made.st_gid != gid {
                            try SystemCall.chgrpNotFollowingLinks(path, group: gid)
                        }
                    } catch {
                        Log.warning(
                            "cannot give the socket \(path) to group '\(escapingControlCharacters(group))': \(error.message); only the daemon's own "
                                + "group can connect. Run the daemon as a member of '\(escapingControlCharacters(group))' or set socket_group")
                    }
                } else if groupIsConfigured {
                    Log.warning(
                        "group '\(escapingControlCharacters(group))' does not exist, so the socket \(path) keeps the daemon's own group; create "
                            + "the group (systemd-sysusers with the installed sysusers.d file does) or set socket_group")
                } else {
                    Log.info(
                        "there is no group '\(escapingControlCharacters(group))' (make install and the package create it), so the socket \(path) "
                            + "keeps the daemon's own group")
                }
            }
            try SystemCall.listen(fd, backlog: backlog)
            made = try ownSocket(path)
            created = made
        } catch {
            SystemCall.close(fd)
            // Removed only while it is still the daemon's socket: a file put in its place is not touched.
            if bound, (try? ownSocket(path)) != nil { try? SystemCall.unlinkIfPresent(path) }
            throw error
        }
        return Listener(fd: fd, path: path, createdFile: created.map(FileIdentity.init), groupID: created?.st_gid)
    }

    /// The socket file the daemon just made at `path`, described by lstat(2): an error when what is there
    /// now is not a socket of the daemon's user (a link or another file was put in its place).
    private static func ownSocket(_ path: String) throws(SystemError) -> Glibc.stat {
        let info = try SystemCall.stat(path, followingLinks: false)
        guard info.st_mode & S_IFMT == S_IFSOCK, info.st_uid == geteuid() else {
            let what = info.st_mode & S_IFMT == S_IFLNK ? "a symbolic link" : "another file"
            throw SystemError(
                errno: EEXIST, operation: "bind", path: path,
                hint: "the socket was replaced by \(what) while the daemon set it up, so something else writes in "
                    + "\(escapingControlCharacters(directory(of: path))); the daemon changed nothing of it. Find what did, "
                    + "or choose a directory only the daemon's user can write to (--socket or socket_path)")
        }
        return info
    }

    /// Why a directory is no place for the daemon's socket: another user could replace the socket, between
    /// bind(2) and the setting of its group, with a link to a file of the daemon's user (whose mode or
    /// group would then change instead), and clients could be sent elsewhere.
    enum UnsafeSocketDirectory: Equatable {
        /// It belongs to another user (neither the daemon's nor root), who may change its entries, and
        /// its mode, whatever the mode says.
        case ownedByAnotherUser(uid_t)
        /// Its group or everyone may write to it (`mode`) and it is not sticky: they may rename and
        /// remove the daemon's files in it. A sticky directory (/tmp) lets only a file's owner do that.
        case writableByOthers(mode: mode_t)

        func hint(directory: String) -> String {
            let shownDirectory = escapingControlCharacters(directory)
            switch self {
            case .ownedByAnotherUser(let uid):
                let name = (try? SystemCall.userName(id: uid)).flatMap { $0 }.map { "user \(escapingControlCharacters($0)) (uid \(uid))" }
                    ?? "uid \(uid)"
                return "the socket's directory \(shownDirectory) belongs to \(name), who could swap the socket for a link to "
                    + "another file while the daemon sets it up; choose a directory of the daemon's user or of root "
                    + "(--socket or socket_path)"
            case .writableByOthers(let mode):
                return "the socket's directory \(shownDirectory) (mode 0\(String(mode, radix: 8))) may be written by other users "
                    + "and is not sticky, so any of them could swap the socket for a link to another file while the daemon "
                    + "sets it up; take their write access away (chmod go-w \(shownDirectory)), make it sticky as /tmp is "
                    + "(chmod +t \(shownDirectory)), or choose another path with --socket or socket_path"
            }
        }
    }

    /// Whether the directory `info` describes is unsafe for the socket of a daemon running as `daemonUser`.
    static func unsafeSocketDirectory(_ info: Glibc.stat, daemonUser: uid_t) -> UnsafeSocketDirectory? {
        if info.st_uid != daemonUser && info.st_uid != 0 { return .ownedByAnotherUser(info.st_uid) }
        if info.st_mode & S_ISVTX == 0 && info.st_mode & (S_IWGRP | S_IWOTH) != 0 {
            return .writableByOthers(mode: info.st_mode & 0o7777)
        }
        return nil
    }

    /// The directory part of `path`, which has no trailing slash ("." for a bare name).
    static func directory(of path: String) -> String {
        let slash = path.lastIndex(of: "/")
        return slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
    }

    /// Why bind(2) found no such file or directory at `path`, which has no trailing slash: the directory
    /// is missing, or it is there and its file system makes no files (/proc, /sys).
    static func missingPathHint(_ path: String) -> String {
        let directory = directory(of: path)
        let isDirectory = (try? SystemCall.stat(directory)).map { $0.st_mode & S_IFMT == S_IFDIR } ?? false
        if isDirectory {
            return "the directory \(directory) exists but sockets cannot be created in it (a virtual file system "
                + "such as /proc or /sys?); choose another path with --socket"
        }
        return "the directory \(directory) does not exist; create it (the service's RuntimeDirectory= does) or choose "
            + "another path with --socket"
    }

    /// What is behind an existing socket file.
    enum ProbeResult: Equatable {
        /// Nothing listens: a daemon died without removing it.
        case stale
        /// A gestured answered (its hello, or its refusal when full).
        case gestured
        /// Something listens but did not speak gestured's protocol in time; who, as far as known.
        case otherProgram(String)
        /// Something listens but its queue of connections is full.
        case queueFull
    }

    /// Connects to the socket at `path` without blocking and waits at most `probeTimeoutMilliseconds` for a
    /// first line, which a gestured always sends (hello, or an error when it serves its maximum).
    static func probe(_ path: String) throws(SystemError) -> ProbeResult {
        let fd = try SystemCall.unixStreamSocket()
        defer { SystemCall.close(fd) }
        let deadline = SystemCall.monotonicMicroseconds() + Int64(probeTimeoutMilliseconds) * 1000
        func remainingMilliseconds() -> Int32 {
            Int32(clamping: max(0, (deadline - SystemCall.monotonicMicroseconds() + 999) / 1000))
        }
        do {
            try SystemCall.connect(fd, path: path, timeoutMilliseconds: probeTimeoutMilliseconds)
        } catch {
            switch error.errno {
            case ECONNREFUSED, ENOENT: return .stale
            case EAGAIN, ETIMEDOUT: return .queueFull
            default: throw error
            }
        }
        let peer = (try? SystemCall.peerCredentials(fd)).map(\.described) ?? "unknown owner"
        var line: [UInt8] = []
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 1)
        defer { chunk.deallocate() }
        while line.count < 65536 {
            guard try SystemCall.poll(fd, events: Int16(POLLIN), timeoutMilliseconds: remainingMilliseconds()) else {
                return .otherProgram(peer)
            }
            switch try SystemCall.read(fd, into: chunk) {
            case .bytes(let n):
                line += chunk[0..<n]
                if let end = line.firstIndex(of: UInt8(ascii: "\n")) {
                    return (try? ServerMessage.decode(line: Array(line[..<end]))) != nil ? .gestured : .otherProgram(peer)
                }
            case .wouldBlock:
                continue
            case .endOfFile:
                return .otherProgram(peer)
            }
        }
        return .otherProgram(peer)
    }

    /// Removes the socket file if the daemon created it and it is still the one it created: if the path
    /// now holds another file (replaced by hand, or bound by a second daemon after this one's socket was
    /// deleted), that file is left alone.
    public func removeSocketFile() {
        guard let createdFile else { return }
        do {
            guard let now = try SystemCall.lstatIfPresent(path) else { return }
            guard FileIdentity(now) == createdFile else {
                Log.notice("\(path) is no longer the socket this daemon created; leaving it in place")
                return
            }
            try SystemCall.unlinkIfPresent(path)
        } catch {
            Log.warning("cannot remove the socket \(path): \(error)")
        }
    }
}
