// What the programs that drive a real gestured from outside share (gestured-socket-bench, gestured-soak):
// finding the daemon built beside them, a private directory for its socket, configuration and log,
// starting it, connecting clients, and reading its CPU time and memory from /proc.
import Glibc

/// CLOCK_MONOTONIC in seconds.
public func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// A whole file as text ("" when it cannot be read: /proc files of a process that is gone).
public func readWholeFile(_ path: String) -> String {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return "" }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n <= 0 { break }
        bytes += chunk[0..<n]
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// The directory of the running executable: SwiftPM builds gestured beside it.
public let executableDirectory: String = {
    var buffer = [CChar](repeating: 0, count: 4096)
    let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    let exe = String(decoding: buffer[0..<max(0, n)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return String(exe[..<(exe.lastIndex(of: "/") ?? exe.startIndex)])
}()

/// A fresh directory under /tmp for one run's socket, configuration and log.
public struct PrivateDirectory {
    public let path: String

    /// nil when mkdtemp fails (errno says why).
    public init?(prefix: String) {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else { return nil }
        path = String(cString: made)
    }

    /// Writes `text` to the file `name` in the directory (mode 0600); returns its path.
    @discardableResult
    public func write(_ name: String, _ text: String) -> String {
        let file = path + "/" + name
        let fd = open(file, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0o600)
        _ = Array(text.utf8).withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
        return file
    }

    /// Removes the files named and the directory.
    public func remove(_ names: [String]) {
        for name in names { unlink(path + "/" + name) }
        rmdir(path)
    }
}

/// Starts `binary` with `arguments`, its standard error appended to `logPath`. Returns the pid, or the
/// posix_spawn error number.
public func spawnDaemon(_ binary: String, _ arguments: [String], logPath: String) -> Result<pid_t, Errno> {
    let argv = [binary] + arguments
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_addopen(&actions, 2, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
    var pid: pid_t = 0
    let cArgs = argv.map { strdup($0) } + [nil]
    defer { for p in cArgs { free(p) } }
    let rc = posix_spawn(&pid, binary, &actions, nil, cArgs, environ)
    posix_spawn_file_actions_destroy(&actions)
    return rc == 0 ? .success(pid) : .failure(Errno(rc))
}

/// An errno value that says itself.
public struct Errno: Error, CustomStringConvertible {
    public let code: Int32
    public init(_ code: Int32) { self.code = code }
    public var description: String { "\(String(cString: strerror(code))) (errno \(code))" }
}

/// A client socket connected to the Unix socket at `path` (made non-blocking after the connect), with
/// SO_RCVBUF set when `receiveBuffer` is given; nil when the connection failed (errno says why).
public func connectUnixSocket(_ path: String, receiveBuffer: Int32? = nil) -> Int32? {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return nil }
    if var size = receiveBuffer {
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
    let rc = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    if rc != 0 {
        let saved = errno
        close(fd)
        errno = saved
        return nil
    }
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    return fd
}

/// CPU seconds the process used (utime + stime from /proc/PID/stat).
public func cpuSeconds(_ pid: pid_t) -> Double {
    let stat = readWholeFile("/proc/\(pid)/stat")
    guard let close = stat.lastIndex(of: ")") else { return 0 }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    // After the comm field: state is field 3, utime field 14, stime field 15 (1-based in proc(5)).
    guard fields.count > 13, let u = Double(fields[11]), let s = Double(fields[12]) else { return 0 }
    return (u + s) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// A "Key:   N kB" figure from /proc/PID/status (VmRSS, RssAnon, RssFile, Threads); -1 when absent.
public func statusKiB(_ pid: pid_t, _ key: String) -> Int {
    for line in readWholeFile("/proc/\(pid)/status").split(separator: "\n") where line.hasPrefix(key + ":") {
        return Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") ?? -1
    }
    return -1
}

/// A process's memory as /proc/PID/smaps_rollup counts it, in KiB.
/// - `rss`: pages mapped, wherever they come from;
/// - `pss`: each page divided by the number of processes mapping it (a library page five processes map
///   counts a fifth): the process's fair share, what it costs the machine;
/// - `privateDirty`: pages written that only this process has (heap, stacks, relocated data): what no
///   other process shares and the kernel cannot drop without swap.
/// A file page written shortly before (a freshly built binary, not yet written back) also counts as
/// dirty: `flushToDisk` the binary before starting it.
public struct ProcessMemory {
    public var rss: Int
    public var pss: Int
    public var privateDirty: Int
    public var anonymous: Int

    /// nil when the process is gone or its smaps_rollup cannot be read.
    public init?(pid: pid_t) {
        let figures = smapsFigures(readWholeFile("/proc/\(pid)/smaps_rollup").split(separator: "\n"))
        guard let rss = figures["Rss"], let pss = figures["Pss"], let dirty = figures["Private_Dirty"] else { return nil }
        self.rss = rss
        self.pss = pss
        privateDirty = dirty
        anonymous = figures["Anonymous"] ?? 0
    }

    public init(rss: Int, pss: Int, privateDirty: Int, anonymous: Int) {
        self.rss = rss
        self.pss = pss
        self.privateDirty = privateDirty
        self.anonymous = anonymous
    }
}

/// One file (or kind of anonymous memory: [heap], [stack], [anon]) mapped by a process, its mappings'
/// figures added up, in KiB.
public struct MappedFile {
    public var name: String
    public var memory: ProcessMemory
}

/// What each file mapped by `pid` costs, from /proc/PID/smaps, largest PSS first.
public func mappedFiles(_ pid: pid_t) -> [MappedFile] {
    var totals: [String: ProcessMemory] = [:]
    var order: [String] = []
    var name = ""
    var lines: [Substring] = []
    func flush() {
        guard !lines.isEmpty else { return }
        let figures = smapsFigures(lines)
        if totals[name] == nil { order.append(name) }
        var sum = totals[name] ?? ProcessMemory(rss: 0, pss: 0, privateDirty: 0, anonymous: 0)
        sum.rss += figures["Rss"] ?? 0
        sum.pss += figures["Pss"] ?? 0
        sum.privateDirty += figures["Private_Dirty"] ?? 0
        sum.anonymous += figures["Anonymous"] ?? 0
        totals[name] = sum
        lines = []
    }
    for line in readWholeFile("/proc/\(pid)/smaps").split(separator: "\n") {
        // A mapping's header: "start-end perms offset dev inode [name]"; its figures follow as "Key: N kB".
        let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
        if fields.count >= 5, fields[0].contains("-"), !fields[0].hasSuffix(":") {
            flush()
            name = fields.count > 5 ? String(fields[5].drop(while: { $0 == " " })) : "[anon]"
        } else {
            lines.append(line)
        }
    }
    flush()
    return order.map { MappedFile(name: $0, memory: totals[$0]!) }.sorted { $0.memory.pss > $1.memory.pss }
}

/// The "Key:   N kB" lines of an smaps block as numbers.
func smapsFigures(_ lines: [Substring]) -> [String: Int] {
    var figures: [String: Int] = [:]
    for line in lines {
        let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard parts.count == 3, parts[2] == "kB", parts[0].hasSuffix(":"), let value = Int(parts[1]) else { continue }
        figures[String(parts[0].dropLast())] = value
    }
    return figures
}

/// fsync(2) of the file at `path`: a binary just built sits in the page cache as dirty pages until the
/// kernel writes it back, and smaps counts those as the process's Private_Dirty while they last.
@discardableResult
public func flushToDisk(_ path: String) -> Bool {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    return fsync(fd) == 0
}
