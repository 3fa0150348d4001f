import CLinux
import Glibc

extension SystemCall {
    /// The names in directory `path` (`opendir(3)`, `readdir(3)`, `closedir(3)`), without "." and "..",
    /// in the order readdir gives them, at most `limit` of them (a directory holds what it holds; the
    /// caller says how much it wants to look at).
    public static func directoryEntries(_ path: String, limit: Int) throws(SystemError) -> [String] {
        guard let directory = opendir(path) else { throw SystemError(errno: errno, operation: "opendir", path: path) }
        defer { closedir(directory) }
        var names: [String] = []
        while names.count < limit {
            errno = 0
            guard let entry = readdir(directory) else {
                if errno != 0 { throw SystemError(errno: errno, operation: "readdir", path: path) }
                break
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}

extension SystemCall {
    /// `inotify_init1(IN_NONBLOCK | IN_CLOEXEC)`: a descriptor for `addDirectoryWatch`, readable when a
    /// directory it watches changes.
    public static func directoryNotifications() throws(SystemError) -> Int32 {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw SystemError(errno: errno, operation: "inotify_init1") }
        return fd
    }

    /// `inotify_add_watch(2)`: `fd` (from `directoryNotifications`) becomes readable when a file in
    /// directory `path` is written, created, moved in or out, or deleted (how logind replaces its seat
    /// files: a new file renamed over the old). Returns the watch, for `removeDirectoryWatch`.
    @discardableResult
    public static func addDirectoryWatch(_ fd: Int32, _ path: String) throws(SystemError) -> Int32 {
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF)
        let watch = inotify_add_watch(fd, path, mask)
        guard watch >= 0 else { throw SystemError(errno: errno, operation: "inotify_add_watch", path: path) }
        return watch
    }

    /// `inotify_rm_watch(2)`: no more notifications of `watch` on `fd`.
    public static func removeDirectoryWatch(_ fd: Int32, _ watch: Int32) {
        _ = inotify_rm_watch(fd, watch)
    }

    /// Reads and discards what an inotify descriptor (non-blocking) has queued, so that it is no longer
    /// readable; the caller looks at the directory itself.
    public static func drainNotifications(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n > 0 { continue }
            if n < 0 && errno == EINTR { continue }
            return
        }
    }
}
