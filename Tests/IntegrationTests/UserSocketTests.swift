// gestured run by a user as themselves (Sxmo's way, or a kiosk account), with no --socket: it listens in
// the user's runtime directory, and every client finds it there with no flag. Then the clients' lookup
// order: $GESTURED_SOCKET alone, else $XDG_RUNTIME_DIR/gestured.sock, else /run/gestured/gestured.sock,
// going on past a missing or stale socket. When the tests run as root, the daemon and its clients run as
// nobody (root's daemon is the system's, which listens on /run/gestured).
import DaemonUnderTest
import GestureProtocol
import Glibc
import Testing

@testable import GestureClient

/// A private runtime directory (mode 0700, as XDG_RUNTIME_DIR is), owned by the user the programs run as.
final class RuntimeDirectory {
    let directory = TemporaryDirectory()
    var path: String { directory.path }
    /// Where a user's daemon listens, and clients look first.
    var socketPath: String { path + "/gestured.sock" }

    init() throws {
        chmod(path, 0o700)
        if getuid() == 0 {
            guard chown(path, 65534, 65534) == 0 else { throw TestFailure("chown \(path) to nobody failed") }
        }
    }

    /// `argv` with exactly `environment` (and PATH), as nobody when the tests run as root.
    func asUser(_ argv: [String], environment: [String]) -> [String] {
        let command = ["/usr/bin/env", "-i", "PATH=/usr/bin:/bin"] + environment + argv
        return getuid() == 0 ? ["/usr/sbin/runuser", "-u", "nobody", "--"] + command : command
    }

    /// `path` copied into the directory, with its mode (a program stays runnable), so the user the
    /// programs run as can reach it: the checkout itself may be where only its owner can go (a clone in a
    /// `mktemp -d` directory, mode 0700).
    func copy(_ path: String) throws -> String {
        let target = self.path + "/" + String(path.split(separator: "/").last ?? "")
        let copied = try run("/bin/cp", ["-p", path, target], in: directory)
        guard copied.status == 0 else { throw TestFailure("cp \(path): \(copied.output)") }
        return target
    }

    /// A file the user can read.
    func write(_ name: String, _ text: String) -> String {
        let file = directory.write(name, text)
        chmod(file, 0o644)
        return file
    }
}

/// Where the Python client's module is in the source tree.
private func pythonModuleDirectory() -> String {
    let src = Paths.packageRoot + "/clients/python/src"
    return access(src + "/gestured.py", R_OK) == 0 ? src : Paths.packageRoot + "/clients/python"
}

/// A Unix socket file nothing listens on: what a daemon that was killed leaves behind.
private func makeStaleSocket(at path: String) throws {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw TestFailure("socket: \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
    let rc = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard rc == 0 else { throw TestFailure("bind \(path): \(String(cString: strerror(errno)))") }
}

@Suite struct UserSocketTests {
    @Test func aUsersDaemonListensInTheRuntimeDirectoryAndEveryClientFindsItWithoutFlags() throws {
        let runtime = try RuntimeDirectory()
        // The default file's [daemon] section: no socket_path, no socket_group.
        let config = runtime.write("gestured.toml", readWholeFile(Paths.packageRoot + "/config/gestured.toml"))
        let pidFile = runtime.path + "/gestured.pid"
        let daemonArguments = [
            try runtime.copy(try Paths.gestured()), "--no-udev", "--config", config, "--replay",
            try runtime.copy(Paths.recordings + "EP0430M09.1-finger-drag-up-down.events"),
            "--device", try runtime.copy(Paths.recordings + "EP0430M09.desc"),
        ]
        // `exec` keeps one process: its pid is the daemon's, written before the exec.
        let script = "echo $$ > \(pidFile) && exec " + daemonArguments.map { "'\($0)'" }.joined(separator: " ")
        let launcher = try Background(
            runtime.asUser(["/bin/sh", "-c", script], environment: ["XDG_RUNTIME_DIR=\(runtime.path)"]),
            outputPath: runtime.directory.path + "/daemon.log")
        defer {
            if let pid = pid_t(readWholeFile(pidFile).split(separator: "\n").first ?? "") { kill(pid, SIGTERM) }
            _ = try? launcher.stop(SIGTERM)
        }
        try waitUntil("the user's daemon to listen on \(runtime.socketPath)", context: { launcher.output }) {
            (try? GestureClient.connect(path: runtime.socketPath))?.hello.devices.count == 1
        }
        // The group it says is the one the socket has: the user's own.
        var info = stat()
        #expect(lstat(runtime.socketPath, &info) == 0)
        let group = try #require(getgrgid(info.st_gid)).pointee.gr_name.map { String(cString: $0) } ?? ""
        #expect(launcher.output.contains("listening on \(runtime.socketPath) (mode 0660, group \(group))"), "\(launcher.output)")
        let complaints = launcher.output.split(separator: "\n").filter { $0.hasPrefix("<4>") || $0.hasPrefix("<3>") }
        #expect(!complaints.contains { $0.contains("socket") || $0.contains("group") }, "\(launcher.output)")
        #expect(getuid() != 0 || info.st_uid == 65534)

        // gesturectl with no --socket and no GESTURED_SOCKET.
        let output = runtime.directory.path + "/devices.out"
        let devices = try Background(
            runtime.asUser(
                ["/bin/sh", "-c", "exec '\(try runtime.copy(try Paths.gesturectl()))' devices > \(output) 2>&1"],
                environment: ["XDG_RUNTIME_DIR=\(runtime.path)"]),
            outputPath: runtime.directory.path + "/devices.log")
        #expect(try devices.stop(0) == 0, "\(readWholeFile(output))")
        #expect(readWholeFile(output).contains("replay1\tEP0430M09"), "\(readWholeFile(output))")

        // The Python client with no path.
        _ = try runtime.copy(pythonModuleDirectory() + "/gestured.py")
        let python = """
            import gestured
            client = gestured.Client()
            print(client.path, [device.name for device in client.devices()])
            """
        let pythonOutput = runtime.directory.path + "/python.out"
        let client = try Background(
            runtime.asUser(
                ["/bin/sh", "-c", "exec /usr/bin/python3 -c \"$0\" > \(pythonOutput) 2>&1", python],
                environment: ["XDG_RUNTIME_DIR=\(runtime.path)", "PYTHONPATH=\(runtime.path)"]),
            outputPath: runtime.directory.path + "/python.log")
        #expect(try client.stop(0) == 0, "\(readWholeFile(pythonOutput))")
        #expect(readWholeFile(pythonOutput) == "\(runtime.socketPath) ['EP0430M09']\n")
    }

    /// The listening line names the group the socket file has. A group the configuration names that does
    /// not exist is a warning; the default group `gestured` missing (gestured not installed: the README's
    /// commands on a build machine) is a note, and the socket keeps the daemon's group, which the line says.
    @Test func theListeningLineNamesTheGroupTheSocketHas() throws {
        func groupOfSocket(_ daemon: Daemon) throws -> String {
            var info = stat()
            guard lstat(daemon.socketPath, &info) == 0 else { throw TestFailure("no socket at \(daemon.socketPath)") }
            return try #require(getgrgid(info.st_gid)).pointee.gr_name.map { String(cString: $0) } ?? ""
        }
        let directory = TemporaryDirectory()
        let configured = try Daemon(
            ["--config", directory.write("missing.toml", "[daemon]\nsocket_group = \"no-such-group-here\"\n")],
            directory: directory)
        try configured.waitForLog("listening on")
        #expect(configured.log.contains("<4>group 'no-such-group-here' does not exist"), "\(configured.log)")
        #expect(configured.log.contains("listening on \(configured.socketPath) (mode 0660, group \(try groupOfSocket(configured)))"), "\(configured.log)")
        #expect(try groupOfSocket(configured) != "no-such-group-here")

        let unset = try Daemon(["--config", directory.write("empty.toml", "")])
        try unset.waitForLog("listening on")
        let group = try groupOfSocket(unset)
        #expect(unset.log.contains("listening on \(unset.socketPath) (mode 0660, group \(group))"), "\(unset.log)")
        #expect(!unset.log.contains("<4>") && !unset.log.contains("<3>"), "\(unset.log)")
        if getuid() == 0 && getgrnam("gestured") == nil {
            // A system daemon where gestured is not installed.
            #expect(unset.log.contains("<6>there is no group 'gestured'"), "\(unset.log)")
            #expect(group == String(cString: getgrgid(getgid())!.pointee.gr_name))
        } else if getuid() == 0 {
            #expect(group == "gestured")
        }
    }

    /// A runtime directory anyone may write to (not sticky) is refused, before any socket is made in it:
    /// another user could swap the socket for a link to one of the user's files while it is set up, whose
    /// mode would change instead (issue 28, item 5: nobody's private 0600 file became 0660).
    @Test func aUsersDaemonRefusesARuntimeDirectoryOthersMayWriteTo() throws {
        let runtime = try RuntimeDirectory()
        let secret = runtime.write("secret", "nobody's own")
        chmod(secret, 0o600)
        if getuid() == 0 { chown(secret, 65534, 65534) }
        let argv = runtime.asUser(
            [try runtime.copy(try Paths.gestured()), "--no-udev", "--config", runtime.write("gestured.toml", "")],
            environment: ["XDG_RUNTIME_DIR=\(runtime.path)"])
        chmod(runtime.path, 0o777)
        defer { chmod(runtime.path, 0o700) }
        let daemon = try Background(argv, outputPath: runtime.directory.path + "/daemon.log")
        let status = try daemon.stop(0)
        #expect(status == 1, "\(daemon.output)")
        #expect(
            daemon.output.contains(
                "the socket's directory \(runtime.path) (mode 0777) may be written by other users and is not sticky"),
            "\(daemon.output)")
        #expect(daemon.output.contains("chmod go-w \(runtime.path)"), "\(daemon.output)")
        var info = stat()
        #expect(lstat(runtime.socketPath, &info) != 0)
        #expect(stat(secret, &info) == 0 && info.st_mode & 0o777 == 0o600)
    }

    /// Issue 28, item 6: a client refused permission is told the group the socket really has, not
    /// `gestured` whatever the socket's group is, and the command that adds the user to it.
    @Test func aRefusedClientIsToldTheSocketsRealGroup() throws {
        guard getuid() == 0 else { return }  // the client must be another user than the daemon's
        let directory = TemporaryDirectory()
        chmod(directory.path, 0o755)
        let config = directory.write("gestured.toml", "[daemon]\nsocket_mode = \"0660\"\nsocket_group = \"users\"\n")
        let daemon = try Daemon(["--config", config], directory: directory)
        try daemon.waitForLog("listening on")
        #expect(daemon.log.contains("group users)"), "\(daemon.log)")
        let gesturectl = directory.path + "/gesturectl"
        #expect(try run("/bin/cp", ["-p", try Paths.gesturectl(), gesturectl], in: directory).status == 0)
        chmod(gesturectl, 0o755)
        let refused = try run(
            "/usr/sbin/runuser", ["-u", "nobody", "--", gesturectl, "devices", "--socket", daemon.socketPath], in: directory)
        #expect(refused.status != 0)
        #expect(
            refused.output.contains(
                "the socket is for members of its group 'users' (mode 0660): add your user to it (sudo usermod -aG users \"$USER\"), then log in again"),
            "\(refused.output)")
        #expect(!refused.output.contains("-aG gestured"), "\(refused.output)")

        // A mode that lets no group in: joining would not help, and it says so.
        chmod(daemon.socketPath, 0o600)
        let closed = try run(
            "/usr/sbin/runuser", ["-u", "nobody", "--", gesturectl, "devices", "--socket", daemon.socketPath], in: directory)
        #expect(closed.output.contains("the socket's mode is 0600, which lets no group connect"), "\(closed.output)")
    }

    /// $GESTURED_SOCKET is taken alone; the runtime directory's socket is passed over when it is missing or
    /// stale, for the system's socket. (Whether a system daemon listens on /run/gestured here decides which
    /// of two outcomes the last step has; both are checked.)
    @Test func theClientsLookupOrder() throws {
        let daemon = try Daemon([
            "--replay", Paths.recordings + "EP0430M09.1-finger-drag-up-down.events", "--device", Paths.recordings + "EP0430M09.desc",
        ])
        let runtime = TemporaryDirectory()
        let ctl = try Paths.gesturectl()
        let systemSocket = ProtocolConstants.defaultSocketPath
        let systemDaemon = access(systemSocket, F_OK) == 0

        // A stale socket in the runtime directory, GESTURED_SOCKET naming a live daemon: the variable wins.
        try makeStaleSocket(at: runtime.path + "/gestured.sock")
        let named = try run(ctl, ["devices"], environment: ["XDG_RUNTIME_DIR=\(runtime.path)", "GESTURED_SOCKET=\(daemon.socketPath)"], in: runtime)
        #expect(named.status == 0 && named.output.contains("replay1\tEP0430M09"), "\(named.output)")

        // GESTURED_SOCKET naming the stale socket: an error about that path alone, no other daemon instead.
        let stale = try run(ctl, ["devices"], environment: ["GESTURED_SOCKET=\(runtime.path)/gestured.sock"], in: runtime)
        #expect(stale.status != 0, "\(stale.output)")
        #expect(stale.output.contains("cannot connect to \(runtime.path)/gestured.sock: Connection refused"), "\(stale.output)")
        #expect(!stale.output.contains(systemSocket), "\(stale.output)")

        // No GESTURED_SOCKET: the stale socket, then a missing one, are passed over for the system's.
        for (state, said) in [("stale", "nothing listens there"), ("missing", "no such file")] {
            if state == "missing" { unlink(runtime.path + "/gestured.sock") }
            let fallback = try run(ctl, ["devices"], environment: ["XDG_RUNTIME_DIR=\(runtime.path)"], in: runtime)
            if systemDaemon {
                #expect(!fallback.output.contains(runtime.path), "\(state): \(fallback.output)")
            } else {
                #expect(fallback.status != 0, "\(state): \(fallback.output)")
                #expect(
                    fallback.output.contains(
                        "cannot connect to \(systemSocket): No such file or directory; tried first: \(runtime.path)/gestured.sock (\(said))"),
                    "\(state): \(fallback.output)")
            }
        }
    }

    /// The same order in the library, on real sockets: past a stale and a missing socket to a live one.
    @Test func theLibraryGoesOnPastAMissingOrStaleSocket() throws {
        let daemon = try Daemon([])
        let directory = TemporaryDirectory()
        let stale = directory.path + "/stale.sock"
        try makeStaleSocket(at: stale)
        let missing = directory.path + "/missing.sock"
        for nonBlocking in [false, true] {
            let (fd, path) = try GestureClientDefaults.connectFirst([stale, missing, daemon.socketPath], nonBlocking: nonBlocking)
            close(fd)
            #expect(path == daemon.socketPath)
        }
        #expect(throws: GestureClientError.connect(
            path: missing, errno: ENOENT,
            hint: "tried first: \(stale) (nothing listens there); is gestured running? Give its socket with --socket or GESTURED_SOCKET"
        )) { _ = try GestureClientDefaults.connectFirst([stale, missing], nonBlocking: false) }
        // One path (--socket, GESTURED_SOCKET) is its own error.
        #expect(throws: GestureClientError.connect(
            path: stale, errno: ECONNREFUSED, hint: "is gestured running? Give its socket with --socket or GESTURED_SOCKET"
        )) { _ = try GestureClientDefaults.connectFirst([stale], nonBlocking: false) }
    }
}
