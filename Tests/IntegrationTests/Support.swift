// Helpers for the integration tests: the real gestured binary in a child process, on a private socket,
// with its log captured and an optional NOTIFY_SOCKET to receive what it tells systemd. Every wait polls
// for a fact with a bound (generous, for slow machines) and fails with the daemon's log when the bound
// passes; nothing sleeps hoping something happened.
import DaemonUnderTest
import GestureClient
import GestureCore
import GestureProtocol
import Glibc
import RecordingFormats
import Testing
import GestureVocabulary

/// Upper bound for any wait; reached only when something is broken.
let patienceMilliseconds: Int64 = 20_000

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

func monotonicMilliseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
}

/// Polls `condition` every few milliseconds until it holds; throws `what` (with context) after the bound.
func waitUntil(
    _ what: @autoclosure () -> String, patience: Int64 = patienceMilliseconds, context: () -> String = { "" },
    _ condition: () throws -> Bool
) throws {
    let deadline = monotonicMilliseconds() + patience
    while true {
        if try condition() { return }
        if monotonicMilliseconds() > deadline {
            throw TestFailure("gave up waiting for \(what())\n\(context())")
        }
        usleep(2000)
    }
}

enum Paths {
    /// Tests/IntegrationTests/Support.swift -> the package root.
    static let packageRoot: String = {
        var path = #filePath
        for _ in 0..<3 { path = String(path[..<path.lastIndex(of: "/")!]) }
        return path
    }()

    static let recordings = packageRoot + "/Tests/Fixtures/recordings/"

    /// The gestured executable: $GESTURED_BIN, or the one built next to this test bundle.
    static func gestured() throws -> String {
        if let env = getenv("GESTURED_BIN") { return String(cString: env) }
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { throw TestFailure("cannot find the test executable (/proc/self/exe)") }
        let exe = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var dir = String(exe[..<exe.lastIndex(of: "/")!])
        // Inside a bundle (…/debug/gestured-packageTests.xctest/…): go up to the build directory.
        while let range = dir.firstRange(of: ".xctest") {
            dir = String(dir[..<range.lowerBound])
            dir = String(dir[..<dir.lastIndex(of: "/")!])
        }
        let candidate = dir + "/gestured"
        guard access(candidate, X_OK) == 0 else {
            throw TestFailure("no gestured binary at \(candidate): run `swift build` first, or set GESTURED_BIN")
        }
        return candidate
    }
}

/// A private temporary directory, removed with everything in it when released.
final class TemporaryDirectory {
    let path: String

    init() {
        var template = Array("/tmp/gestured-test-XXXXXX".utf8CString)
        path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    }

    deinit {
        if let dir = opendir(path) {
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
                if name != "." && name != ".." { unlink(path + "/" + name) }
            }
            closedir(dir)
        }
        rmdir(path)
    }

    func write(_ name: String, _ text: String) -> String {
        let file = path + "/" + name
        let fd = open(file, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0o600)
        precondition(fd >= 0)
        let bytes = Array(text.utf8)
        precondition(bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } == bytes.count)
        close(fd)
        return file
    }
}

/// A datagram socket standing in for systemd's notification socket.
final class NotifySocket {
    let path: String
    let fd: Int32
    private(set) var messages: [String] = []

    init(in directory: TemporaryDirectory) {
        path = directory.path + "/notify"
        fd = socket(AF_UNIX, 2 | 0o4000 | 0o2000000, 0)  // SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC
        precondition(fd >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes + [0]) }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        precondition(rc == 0)
    }

    deinit { close(fd) }

    /// Reads every datagram waiting.
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return }
            messages.append(String(decoding: buffer[0..<n], as: UTF8.self))
        }
    }

    /// Index of the first message after `index` whose lines include `line`.
    func firstIndex(of line: String, after index: Int = -1) -> Int? {
        drain()
        return messages.indices.first { $0 > index && messages[$0].split(separator: "\n").contains(Substring(line)) }
    }

    func waitFor(_ line: String, after index: Int = -1, log: () -> String) throws -> Int {
        var found: Int?
        try waitUntil("\(line) on NOTIFY_SOCKET (got \(messages))", context: log) {
            found = firstIndex(of: line, after: index)
            return found != nil
        }
        return found!
    }
}

/// The gestured binary running in a child process.
final class Daemon {
    let directory: TemporaryDirectory
    let socketPath: String
    let logPath: String
    let pid: pid_t
    private(set) var exitStatus: Int32?

    /// Starts `gestured --no-udev --socket DIR/gestured.sock` plus `arguments` (without `--no-udev` when
    /// `udev`: the machine's input devices); waits until it accepts connections unless `waitForSocket` is false.
    init(
        _ arguments: [String], directory: TemporaryDirectory = TemporaryDirectory(), notify: NotifySocket? = nil,
        environment extra: [String] = [], inheritListener: Int32? = nil, waitForSocket: Bool = true,
        stderrDescriptor: Int32? = nil, udev: Bool = false, patience: Int64 = patienceMilliseconds
    ) throws {
        self.directory = directory
        socketPath = directory.path + "/gestured.sock"
        logPath = directory.path + "/gestured.log"
        let binary = try Paths.gestured()
        var argv = [binary] + (udev ? [] : ["--no-udev"]) + ["--socket", socketPath] + arguments
        if !arguments.contains("--config") && !arguments.contains("--check-config") {
            // Hermetic: never the machine's /etc/gestured/gestured.toml; no group that may not exist.
            argv += ["--config", directory.write("default.toml", "[daemon]\nsocket_group = \"\"\n")]
        }
        var env = ["PATH=/usr/bin:/bin"] + extra
        if let notify { env.append("NOTIFY_SOCKET=\(notify.path)") }
        if inheritListener != nil {
            // systemd's socket activation: the socket is fd 3 and LISTEN_PID names the daemon itself, which
            // only a shell that then execs the daemon can know.
            let quoted = argv.map { "'" + $0 + "'" }.joined(separator: " ")
            argv = ["/bin/sh", "-c", "LISTEN_PID=$$ LISTEN_FDS=1 exec \(quoted)"]
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if let stderrDescriptor {
            // The test holds the other end (a journal stand-in); `log` is then empty.
            posix_spawn_file_actions_adddup2(&actions, stderrDescriptor, 1)
            posix_spawn_file_actions_adddup2(&actions, stderrDescriptor, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        if let listener = inheritListener { posix_spawn_file_actions_adddup2(&actions, listener, 3) }
        var pid: pid_t = 0
        let cArgs = argv.map { strdup($0) } + [nil]
        let cEnv = env.map { strdup($0) } + [nil]
        defer {
            cArgs.forEach { free($0) }
            cEnv.forEach { free($0) }
        }
        let rc = posix_spawn(&pid, argv[0], &actions, nil, cArgs, cEnv)
        guard rc == 0 else { throw TestFailure("posix_spawn \(argv[0]): \(String(cString: strerror(rc)))") }
        self.pid = pid
        if waitForSocket {
            try waitUntil("the daemon to accept connections on \(socketPath)", patience: patience, context: { self.log }) {
                if try !isRunning() { throw TestFailure("gestured exited with status \(exitStatus!):\n\(log)") }
                return (try? GestureClient.connect(path: socketPath))?.hello != nil
            }
        }
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
    }

    var log: String { readWholeFile(logPath) }

    func isRunning() throws -> Bool {
        if exitStatus != nil { return false }
        var status: Int32 = 0
        let r = waitpid(pid, &status, WNOHANG)
        if r == 0 { return true }
        guard r == pid else { throw TestFailure("waitpid: \(String(cString: strerror(errno)))") }
        // WIFEXITED / WEXITSTATUS, and 128+signal for a signal.
        exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return false
    }

    func signal(_ signal: Int32) { kill(pid, signal) }

    /// Sends SIGTERM and waits for the exit status.
    @discardableResult
    func terminate() throws -> Int32 {
        signal(SIGTERM)
        return try waitForExit()
    }

    func waitForExit() throws -> Int32 {
        try waitUntil("gestured to exit", context: { self.log }) { try !isRunning() }
        return exitStatus!
    }

    func waitForLog(_ text: String, occurrences: Int = 1) throws {
        try waitUntil("\"\(text)\" in the daemon's log", context: { self.log }) {
            log.ranges(of: text).count >= occurrences
        }
    }

    func connect() throws -> GestureClient {
        try GestureClient.connect(path: socketPath, timeoutMilliseconds: Int32(patienceMilliseconds))
    }
}

/// Receives with the bound, failing with the daemon's log when nothing comes.
func receive(_ client: GestureClient, from daemon: Daemon) throws -> ServerMessage {
    guard let message = try client.next(timeoutMilliseconds: Int32(patienceMilliseconds)) else {
        throw TestFailure("no message from the daemon within \(patienceMilliseconds) ms\n\(daemon.log)")
    }
    return message
}

func nextGesture(_ client: GestureClient, from daemon: Daemon) throws -> DeviceGestureEvent {
    guard let g = try client.nextGesture(timeoutMilliseconds: Int32(patienceMilliseconds)) else {
        throw TestFailure("no gesture from the daemon within \(patienceMilliseconds) ms\n\(daemon.log)")
    }
    return g
}

/// What the recognizer makes of a recording offline: the sequence every pass of a replay must produce.
func expectedGestures(recording: String, description: String?) throws -> [GestureEvent] {
    let loaded = try RecordingFile.load(Paths.recordings + recording, description: description.map { Paths.recordings + $0 })
    return try RecordingReplay.gestures(of: loaded.events, device: loaded.device).gestures
}

/// An event as one JSON line without the fields that differ between passes of a loop (id, time).
func canonical(_ e: GestureEvent) -> String {
    var e = e
    e.id = 0
    e.timeMicroseconds = 0
    return GestureEventJSON.encode(e)
}

/// Everything the daemon still sends before it closes the connection; fails if it stays open.
func messagesUntilClosed(_ client: GestureClient, from daemon: Daemon) throws -> [ServerMessage] {
    var messages: [ServerMessage] = []
    while true {
        let result = Result { () throws(GestureClientError) in try client.next(timeoutMilliseconds: Int32(patienceMilliseconds)) }
        switch result {
        case .success(let m?):
            messages.append(m)
        case .success(nil):
            throw TestFailure("the daemon kept the connection open for \(patienceMilliseconds) ms\n\(daemon.log)")
        case .failure(.closed):
            return messages
        case .failure(let error):
            throw error
        }
    }
}

/// The error `connect` failed with, or nil when it connected.
func connectError(_ daemon: Daemon) -> GestureClientError? {
    do {
        _ = try GestureClient.connect(path: daemon.socketPath, timeoutMilliseconds: Int32(patienceMilliseconds))
        return nil
    } catch {
        return error
    }
}

/// Runs a program to completion with the bound; returns its exit status and what it wrote to stdout and
/// stderr (together).
func run(_ binary: String, _ arguments: [String], environment: [String] = [], in directory: TemporaryDirectory) throws -> (status: Int32, output: String) {
    let result = try spawnAndWait(binary, arguments, environment: environment, in: directory)
    return (result.status, result.output)
}

/// `run`, with the program's peak resident memory, KiB. Not the rusage of a child posix_spawn made: that
/// is vfork'd, and the kernel counts the memory it shared with this test process until its exec (the
/// whole test process's, 78 MB in a full run) as the child's peak too. The program is forked from a small
/// Python instead, whose own few megabytes are the floor of the figure.
/// `patience` bounds the wait for it to finish.
func runMeasuringMemory(
    _ binary: String, _ arguments: [String], environment: [String] = [], in directory: TemporaryDirectory,
    patience: Int64 = patienceMilliseconds
) throws -> (status: Int32, output: String, peakKiB: Int) {
    let peakPath = directory.path + "/peak-\(UInt32.random(in: 0...UInt32.max)).txt"
    let script = """
        import os, resource, sys
        pid = os.fork()
        if pid == 0:
            os.execv(sys.argv[2], sys.argv[2:])
        _, status = os.waitpid(pid, 0)
        with open(sys.argv[1], "w") as f:
            f.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
        sys.exit(os.waitstatus_to_exitcode(status) % 256)
        """
    let result = try spawnAndWait(
        "/usr/bin/python3", ["-c", script, peakPath, binary] + arguments, environment: environment, in: directory,
        patience: patience)
    guard let peak = Int(readWholeFile(peakPath).trimmingPrefix(" ")) else {
        throw TestFailure("no peak memory measured for \(binary): \(result.output.prefix(500))")
    }
    return (result.status, result.output, peak)
}

/// Spawns `binary` with `arguments`, standard output and error into one file, and waits for it.
private func spawnAndWait(
    _ binary: String, _ arguments: [String], environment: [String] = [], in directory: TemporaryDirectory,
    patience: Int64 = patienceMilliseconds
) throws -> (status: Int32, output: String) {
    let outputPath = directory.path + "/run-\(UInt32.random(in: 0...UInt32.max)).out"
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    let argv = [binary] + arguments
    let cArgs = argv.map { strdup($0) } + [nil]
    let cEnv = (["PATH=/usr/bin:/bin"] + environment).map { strdup($0) } + [nil]
    defer {
        cArgs.forEach { free($0) }
        cEnv.forEach { free($0) }
    }
    // The program starts with no signal blocked and each at its default, as from a shell: a test runs on
    // a worker thread that blocks nearly every signal, and a child would inherit that (a tmux server and
    // its panes that SIGHUP and SIGTERM cannot end outlived the tests).
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGCHLD, SIGUSR1, SIGUSR2] { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    var pid: pid_t = 0
    let rc = posix_spawn(&pid, binary, &actions, &attributes, cArgs, cEnv)
    guard rc == 0 else { throw TestFailure("posix_spawn \(binary): \(String(cString: strerror(rc)))") }
    var status: Int32 = 0
    try waitUntil("\(binary) \(arguments.joined(separator: " ")) to finish", patience: patience, context: { readWholeFile(outputPath) }) {
        waitpid(pid, &status, WNOHANG) == pid
    }
    let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    return (code, readWholeFile(outputPath))
}

extension Paths {
    /// gesturectl, next to gestured.
    static func gesturectl() throws -> String {
        let gestured = try Paths.gestured()
        return String(gestured[..<gestured.lastIndex(of: "/")!]) + "/gesturectl"
    }
}
