// What an adversarial pass (a hostile user, a careless admin) found against the real binaries, each kept
// as a regression test: real processes, real files and sockets.
import DaemonUnderTest
import GestureClient
import GestureProtocol
import Glibc
import Testing

/// One line `[a.a.a…]` 20,000 levels deep: it used to overflow the stack of the configuration loader.
let deepTOML = "[" + Array(repeating: "a", count: 20_000).joined(separator: ".") + "]\n"

@Suite(.serialized) struct AttackTests {
    @Test func aDeeplyNestedConfigurationIsAnErrorNotACrash() throws {
        let directory = TemporaryDirectory()
        let deep = directory.write("deep.toml", deepTOML)
        let place = "\(deep):1:\(1 + 2 * 64): "
        let check = try run(try Paths.gestured(), ["--check-config", deep], in: directory)
        #expect(check.status == 1)
        #expect(check.output.contains(place + "the file is refused: tables and arrays nest more than 64 levels deep"), "\(check.output.prefix(400))")
        let replay = try run(
            try Paths.gesturectl(), ["replay", "--config", deep, Paths.recordings + dellRecording], in: directory)
        #expect(replay.status == 1)
        #expect(replay.output.hasPrefix("gesturectl replay: " + place), "\(replay.output.prefix(400))")
    }

    @Test func sighupWithADeeplyNestedConfigurationKeepsTheDaemonAndItsConfiguration() throws {
        let directory = TemporaryDirectory()
        let notify = NotifySocket(in: directory)
        let config = directory.write("gestured.toml", "[daemon]\nsocket_group = \"\"\nmax_clients = 2\n")
        let daemon = try Daemon(dell + ["--loop", "--speed", "10", "--config", config], directory: directory, notify: notify)
        let ready = try notify.waitFor("READY=1", log: { daemon.log })
        let client = try daemon.connect()
        try client.subscribe()
        _ = directory.write("gestured.toml", deepTOML)
        daemon.signal(SIGHUP)
        let reloading = try notify.waitFor("RELOADING=1", after: ready, log: { daemon.log })
        _ = try notify.waitFor("READY=1", after: reloading, log: { daemon.log })
        try daemon.waitForLog("configuration not reloaded, keeping the running one: \(config):1:129: ")
        #expect(try daemon.isRunning())
        _ = try nextGesture(client, from: daemon)
        // Still the old limit of two clients.
        let second = try daemon.connect()
        try second.ping()
        guard case .daemon(let e)? = connectError(daemon) else {
            Issue.record("a third client was accepted after the refused reload")
            return
        }
        #expect(e.code == .tooManyClients)
        #expect(try daemon.terminate() == 0)
        #expect(access(daemon.socketPath, F_OK) != 0)
    }

    @Test func shutdownLeavesAFileThatReplacedTheSocket() throws {
        let directory = TemporaryDirectory()
        let daemon = try Daemon([], directory: directory)
        #expect(unlink(daemon.socketPath) == 0)
        _ = directory.write("gestured.sock", "not a socket: an admin's file\n")
        #expect(try daemon.terminate() == 0)
        #expect(readWholeFile(daemon.socketPath) == "not a socket: an admin's file\n")
        #expect(daemon.log.contains("\(daemon.socketPath) is no longer the socket this daemon created; leaving it in place"))
    }

    @Test func stoppingADaemonLeavesTheSocketOfTheOneThatTookItsPath() throws {
        let directory = TemporaryDirectory()
        let first = try Daemon([], directory: directory)
        // The first daemon's socket is deleted (by hand, or by a tmpfiles clean-up); a second daemon then
        // binds the same path.
        #expect(unlink(first.socketPath) == 0)
        let second = try Daemon([], directory: directory)
        #expect(try first.terminate() == 0)
        #expect(access(second.socketPath, F_OK) == 0)
        try second.connect().ping()
        #expect(try second.terminate() == 0)
        #expect(access(second.socketPath, F_OK) != 0)
    }

    /// A listening socket at `path` in this process, with room for `backlog` connections nobody accepts.
    func listeningSocket(_ path: String, backlog: Int32) -> Int32 {
        let fd = socket(AF_UNIX, 1 | 0o2000000, 0)  // SOCK_STREAM | SOCK_CLOEXEC
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        #expect(listen(fd, backlog) == 0)
        return fd
    }

    @Test func startUpDoesNotHangOnASocketWhoseQueueIsFull() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/gestured.sock"
        let listener = listeningSocket(path, backlog: 0)
        defer { close(listener) }
        // Fill its queue: non-blocking connects succeed until the queue is full, then fail with EAGAIN.
        var queued: [Int32] = []
        defer { queued.forEach { close($0) } }
        var full = false
        for _ in 0..<64 where !full {
            let fd = socket(AF_UNIX, 1 | 0o4000 | 0o2000000, 0)  // SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
            let rc = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            if rc == 0 { queued.append(fd) } else { full = errno == EAGAIN; close(fd) }
        }
        #expect(full)
        // The old blocking probe waited here forever, with SIGTERM blocked for the signalfd.
        let daemon = try Daemon([], directory: directory, waitForSocket: false)
        #expect(try daemon.waitForExit() == 1)
        #expect(daemon.log.contains("a program is listening there but accepts no connections (its queue is full)"), "\(daemon.log)")
        #expect(access(path, F_OK) == 0)  // not ours to remove
    }

    @Test func aSocketOfAnotherProgramIsNotCalledGestured() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/gestured.sock"
        let listener = listeningSocket(path, backlog: 16)
        defer { close(listener) }
        let daemon = try Daemon([], directory: directory, waitForSocket: false)
        #expect(try daemon.waitForExit() == 1)
        #expect(daemon.log.contains("another program (uid \(getuid()), pid \(getpid())"), "\(daemon.log)")
        #expect(daemon.log.contains("it is not gestured"))
        #expect(!daemon.log.contains("another gestured"))
        #expect(access(path, F_OK) == 0)
    }

    @Test func socketPathsThatCannotWorkAreExplained() throws {
        let directory = TemporaryDirectory()
        let gestured = try Paths.gestured()
        let config = directory.write("c.toml", "[daemon]\nsocket_group = \"\"\n")
        func start(_ socket: String) throws -> (status: Int32, output: String) {
            try run(gestured, ["--no-udev", "--config", config, "--socket", socket], in: directory)
        }
        let empty = try start("")
        #expect(empty.status == 2)
        #expect(empty.output == "gestured: --socket needs a path; it is empty\n")
        #expect(!empty.output.contains("too long"))
        let slash = try start(directory.path + "/")
        #expect(slash.status == 1)
        #expect(slash.output.contains("the path ends with '/': give the socket's own file name"), "\(slash.output)")
        let proc = try start("/proc/gestured-test.sock")
        #expect(proc.status == 1)
        #expect(proc.output.contains("the directory /proc exists but sockets cannot be created in it"), "\(proc.output)")
        let missing = try start(directory.path + "/no/such/dir/g.sock")
        #expect(missing.status == 1)
        #expect(missing.output.contains("the directory \(directory.path)/no/such/dir does not exist"), "\(missing.output)")
    }

    @Test func aFIFOAtTheConfigurationPathNeverFreezesTheDaemon() throws {
        let directory = TemporaryDirectory()
        let notify = NotifySocket(in: directory)
        let config = directory.write("gestured.toml", "[daemon]\nsocket_group = \"\"\n")
        let daemon = try Daemon(dell + ["--loop", "--speed", "10", "--config", config], directory: directory, notify: notify)
        let ready = try notify.waitFor("READY=1", log: { daemon.log })
        let client = try daemon.connect()
        try client.subscribe()
        #expect(unlink(config) == 0)
        #expect(mkfifo(config, 0o600) == 0)
        // The old open(2) waited here for a writer, with nothing served and SIGTERM unread.
        daemon.signal(SIGHUP)
        let reloading = try notify.waitFor("RELOADING=1", after: ready, log: { daemon.log })
        _ = try notify.waitFor("READY=1", after: reloading, log: { daemon.log })
        try daemon.waitForLog(
            "configuration not reloaded, keeping the running one: \(config): cannot read the configuration: it is a FIFO")
        _ = try nextGesture(client, from: daemon)
        try client.ping()
        #expect(try daemon.terminate() == 0)
        let check = try run(try Paths.gestured(), ["--check-config", config], in: directory)
        #expect(check.status == 1)
        #expect(check.output.contains("it is a FIFO (named pipe); the configuration must be a regular file"))
    }

    /// Runs `binary` with standard input from `stdinPath`; its status and output, with the same bound as `run`.
    func runReading(_ stdinPath: String, _ binary: String, _ arguments: [String], in directory: TemporaryDirectory) throws -> (status: Int32, output: String) {
        try run("/bin/sh", ["-c", "exec \"$0\" \"$@\" < \(stdinPath)", binary] + arguments, in: directory)
    }

    @Test func replayingAnEndlessFileStopsAtTheDaemonsLimit() throws {
        let directory = TemporaryDirectory()
        let ctl = try Paths.gesturectl()
        let limit = "more than 256 MiB, the most gestured reads as a recording; is this an evemu or libinput recording?"
        // It used to grow past 1 GB and abort.
        let file = try run(ctl, ["replay", "/dev/zero"], in: directory)
        #expect(file.status == 1)
        #expect(file.output == "gesturectl replay: /dev/zero: \(limit)\n")
        let standardInput = try runReading("/dev/zero", ctl, ["replay", "-"], in: directory)
        #expect(standardInput.status == 1)
        #expect(standardInput.output == "gesturectl replay: standard input: \(limit)\n")
        let description = try run(ctl, ["replay", "--device", "/dev/zero", Paths.recordings + dellRecording], in: directory)
        #expect(description.status == 1)
        #expect(description.output == "gesturectl replay: /dev/zero: \(limit)\n")
        // The daemon's --replay reads through the same loader, with the same limit.
        let daemon = try Daemon(["--replay", "/dev/zero"], directory: directory, waitForSocket: false)
        #expect(try daemon.waitForExit() == 1)
        #expect(daemon.log.contains("cannot replay: /dev/zero: \(limit)"))
    }

    @Test func replayErrorsShowControlBytesEscaped() throws {
        let directory = TemporaryDirectory()
        // An escape sequence that would clear a terminal, a bell, and a carriage return that would hide the
        // start of the message.
        let hostile = directory.write("hostile.events", "E: 0.1 0003 0035 5\nE: 0.2 00\u{1b}[2J\u{07} 0035 5\r\n")
        let r = try run(try Paths.gesturectl(), ["replay", "--device", Paths.recordings + "EP0430M09.desc", hostile], in: directory)
        #expect(r.status == 1)
        #expect(r.output == "gesturectl replay: \(hostile):2: event type \"00\\u{1b}[2J\\u{7}\" is not hex\n")
        let name = directory.write("name.events", "N: Evil\u{1b}]0;owned\u{07}\nE: 0.1 0003 0035 5\nE: 0.1 0000 0000 0\n")
        let unsupported = try run(try Paths.gesturectl(), ["replay", name], in: directory)
        #expect(unsupported.status == 1)
        #expect(!unsupported.output.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "\(unsupported.output)")
        #expect(unsupported.output.contains("Evil\\u{1b}]0;owned\\u{7}"), "\(unsupported.output)")
        let line = directory.write("line.events", "\u{1b}[31mred\n")
        let daemon = try Daemon(["--replay", line], directory: directory, waitForSocket: false)
        #expect(try daemon.waitForExit() == 1)
        #expect(!daemon.log.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "\(daemon.log)")
        #expect(daemon.log.contains("got \"\\u{1b}[31mred\""), "\(daemon.log)")
    }

    /// Issue 28, item 8: a name holding the text `\u{a}` logs apart from one holding a newline (the backslash
    /// is escaped), and bidirectional overrides and line separators reach no log raw: the daemon's, from a
    /// device's name, and gesturectl's, from what a daemon says.
    @Test func logsTellAWrittenEscapeFromTheCharacterAndShowFormatCharactersEscaped() throws {
        let directory = TemporaryDirectory()
        let description = readWholeFile(Paths.recordings + "EP0430M09.desc")
            .replacing("N: EP0430M09\n", with: "N: Pan\\u{a}el\u{202e}X\u{2028}Y\n")
        let desc = directory.write("named.desc", description)
        let daemon = try Daemon(["--replay", Paths.recordings + "EP0430M09.1-finger-drag-up-down.events", "--device", desc], directory: directory)
        try daemon.waitForLog("device replay1 added")
        #expect(daemon.log.contains("device replay1 added: \"Pan\\\\u{a}el\\u{202e}X\\u{2028}Y\""), "\(daemon.log)")
        #expect(!daemon.log.unicodeScalars.contains { $0.value == 0x202e || $0.value == 0x2028 }, "\(daemon.log)")

        // gesturectl bind's log: a daemon (socat here) says hello with devices named so.
        let devices = [
            DeviceInfo(id: "event7", name: "x\\u{a}y", vendorProduct: "0eef:0001", path: "/dev/input/event7", source: .evdev, slots: 10),
            DeviceInfo(id: "event8", name: "x\ny", vendorProduct: "0eef:0001", path: "/dev/input/event8", source: .evdev, slots: 10),
            DeviceInfo(id: "event9", name: "\u{202e}lenap", vendorProduct: "0eef:0001", path: "/dev/input/event9", source: .evdev, slots: 10),
        ]
        let replies = directory.write("replies", ServerMessage.hello(Hello(devices: devices)).encoded + "\n")
        let socket = directory.path + "/fake.sock"
        let server = try Background(
            ["/usr/bin/socat", "UNIX-LISTEN:\(socket)", "SYSTEM:cat \(replies); sleep 5"], outputPath: directory.path + "/socat.log")
        defer { _ = try? server.stop() }
        try waitUntil("socat to listen", context: { server.output }) { access(socket, F_OK) == 0 }
        let bindings = directory.write("bindings.toml", "[[binding]]\nedge = \"left\"\ncommand = [\"true\"]\n")
        let bind = try Background(
            [try Paths.gesturectl(), "bind", "--bindings", bindings, "--socket", socket], outputPath: directory.path + "/bind.log")
        try bind.waitForOutput("connected to gestured")
        _ = try bind.stop()
        #expect(
            bind.output.contains(#"devices: event7 "x\\u{a}y", event8 "x\u{a}y", event9 "\u{202e}lenap""#), "\(bind.output)")
        #expect(!bind.output.unicodeScalars.contains { $0.value == 0x202e }, "\(bind.output)")
    }

    /// Issue 28, item 9: a recording whose ABS_MT_SLOT range is 0...2147483647 is published with the 256
    /// slots followed, and the warning names the device; one of -5...-1 is refused, not taken for 5 slots.
    @Test func aRecordingsNonsenseSlotRangeIsCappedOrRefused() throws {
        let directory = TemporaryDirectory()
        let events = Paths.recordings + "EP0430M09.1-finger-drag-up-down.events"
        let original = readWholeFile(Paths.recordings + "EP0430M09.desc")
        let capped = directory.write("capped.desc", original.replacing("A: 2f 0 4 0 0 0\n", with: "A: 2f 0 2147483647 0 0 0\n"))
        let daemon = try Daemon(["--replay", events, "--device", capped], directory: directory)
        try daemon.waitForLog("device replay1 added")
        #expect(daemon.log.contains("<4>replay1: EP0430M09 declares 2147483648 slots (ABS_MT_SLOT 0...2147483647); gestured follows the first 256"), "\(daemon.log)")
        #expect(daemon.log.contains("device replay1 added: \"EP0430M09\" (0000:0000, 256 slots,"), "\(daemon.log)")
        #expect(try daemon.connect().hello.devices.map(\.slots) == [256])
        _ = try daemon.terminate()

        let negative = directory.write("negative.desc", original.replacing("A: 2f 0 4 0 0 0\n", with: "A: 2f -5 -1 0 0 0\n"))
        let r = try run(try Paths.gesturectl(), ["replay", "--device", negative, events], in: directory)
        #expect(r.status == 1)
        #expect(r.output.contains("EP0430M09: its ABS_MT_SLOT axis has the range -5...-1, but the kernel numbers slots 0 to N-1"), "\(r.output)")
    }

    @Test func errorsAboutJSONTypesReadAsEnglish() throws {
        let daemon = try Daemon([])
        let client = try daemon.connect()
        try client.sendRaw(Array("[1]\n{\"type\":\"subscribe\",\"id\":2,\"kinds\":{}}\n{\"type\":\"ping\",\"id\":{}}\n".utf8))
        var messages: [String] = []
        for _ in 0..<3 {
            guard case .error(let e) = try receive(client, from: daemon) else {
                Issue.record("a bad request was not answered with an error")
                return
            }
            messages.append(e.message)
        }
        #expect(messages == [
            "a request is a JSON object, not an array", "\"kinds\" must be an array of strings, not an object",
            "\"id\" must be a string or a number, not an object",
        ])
    }

    @Test func aConnectionStormCostsNoLogLinesAndBadClientsAFew() throws {
        // 3,000 connections used to log 6,448 lines at info, the default level.
        let daemon = try Daemon([])
        for _ in 0..<300 { try daemon.connect().close() }
        // 30 clients dropped for 16 bad requests in a row each: at most 10 lines a minute.
        for _ in 0..<30 {
            let client = try daemon.connect()
            try client.sendRaw(Array(String(repeating: "{}\n", count: 16).utf8))
            _ = try messagesUntilClosed(client, from: daemon)
        }
        try daemon.connect().ping()
        try daemon.waitForLog("disconnected: sent 16 bad requests in a row", occurrences: 10)
        #expect(try daemon.terminate() == 0)
        let log = daemon.log
        #expect(log.ranges(of: "disconnected: sent 16 bad requests in a row").count == 10, "\(log)")
        #expect(!log.contains(" connected"), "\(log.prefix(2000))")
        #expect(!log.contains("client closed the connection"))
        #expect(log.split(separator: "\n").count < 25, "\(log)")
        // At debug level every one is there.
        let directory = TemporaryDirectory()
        let verbose = try Daemon(["--config", directory.write("gestured.toml", debugConfiguration)], directory: directory)
        for _ in 0..<5 { try verbose.connect().close() }
        try verbose.waitForLog("disconnected: client closed the connection", occurrences: 6)  // and the start-up probe
        #expect(verbose.log.ranges(of: " connected").count >= 6)
    }
}

/// Connection exhaustion: one user's process holding every connection it can open locks nobody else out.
/// The flood runs as `nobody` (runuser: the test needs root, as CI runs it), against `max_clients` 64 and
/// the default `max_clients_per_uid` 16.
@Suite(.serialized) struct ConnectionShareTests {
    @Test func oneUserCannotTakeEveryConnection() throws {
        try #require(getuid() == 0, "this test connects as another user through runuser, which needs root")
        let directory = TemporaryDirectory()
        chmod(directory.path, 0o755)
        let config = directory.write("gestured.toml", "[daemon]\nsocket_group = \"\"\nsocket_mode = \"0666\"\n")
        let daemon = try Daemon(["--config", config], directory: directory)
        // 64 connections from one process of uid nobody, each waiting for its first line.
        let flood = """
            import socket, sys, time
            held, accepted, refused = [], 0, 0
            for _ in range(64):
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(sys.argv[1])
                s.settimeout(5)
                line = s.makefile().readline()
                if '"hello"' in line: accepted += 1
                elif 'max_clients_per_uid' in line: refused += 1
                held.append(s)
            print("counts", accepted, refused)
            sys.stdout.flush()
            time.sleep(60)
            """
        let script = directory.write("flood.py", flood)
        chmod(script, 0o644)
        let process = try Background(
            ["/usr/sbin/runuser", "-u", "nobody", "--", "/usr/bin/python3", script, daemon.socketPath],
            outputPath: directory.path + "/flood.out")
        defer { _ = try? process.stop(SIGKILL) }
        try process.waitForOutput("counts ")
        #expect(process.output.contains("counts 16 48"), "nobody's 64 connections (accepted, refused): \(process.output)")
        // While nobody holds its 16, root (gesturectl bind as root, an administrator) still connects, and
        // so does another user.
        let root = try daemon.connect()
        try root.ping()
        let other = try run(
            "/usr/sbin/runuser", ["-u", "daemon", "--", "/usr/bin/python3", "-c",
            "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print(s.makefile().readline()[:30])",
            daemon.socketPath], in: directory)
        #expect(other.output.contains("\"hello\""), "\(other.output)")
        #expect(daemon.log.contains("max_clients_per_uid"))
    }
}
