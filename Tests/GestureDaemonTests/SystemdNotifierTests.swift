import CLinux
import Glibc
import SystemCalls
import Testing

@testable import GestureDaemon

/// sd_notify(3) and sd_listen_fds(3) as the daemon speaks them without libsystemd. The integration tests
/// run the real daemon with a NOTIFY_SOCKET and with a socket passed as fd 3; these check the cases those
/// do not reach: abstract sockets, inherited variables meant for another process, malformed values.
@Suite struct SystemdNotifierTests {
    /// A datagram socket bound to `address` (a path, or "\0name" in the abstract namespace).
    private func datagramSocket(boundTo address: [UInt8]) throws -> Int32 {
        let fd = socket(AF_UNIX, gestured_sock_dgram | gestured_sock_cloexec | gestured_sock_nonblock, 0)
        try #require(fd >= 0)
        var storage = sockaddr_un()
        storage.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &storage.sun_path) { $0.copyBytes(from: address) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + address.count)
        let rc = withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        try #require(rc == 0, "bind: errno \(errno)")
        return fd
    }

    private func receive(_ fd: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return n < 0 ? nil : String(decoding: buffer[0..<n], as: UTF8.self)
    }

    private func temporaryDirectory() -> String {
        var template = Array("/tmp/gestured-notify-XXXXXX".utf8CString)
        return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    }

    /// Runs `body` with a datagram socket bound to a path of its own (the path, the descriptor).
    private func withNotifySocket(_ body: (String, Int32) throws -> Void) throws {
        let dir = temporaryDirectory()
        let path = dir + "/notify"
        defer {
            unlink(path)
            rmdir(dir)
        }
        let fd = try datagramSocket(boundTo: Array(path.utf8) + [0])
        defer { close(fd) }
        try body(path, fd)
    }

    @Test func sendsTheStateAsOneDatagramToAPathSocket() throws {
        try withNotifySocket { path, fd in
            try SystemdNotifier.send("READY=1\nSTATUS=Watching 1 touchscreen", to: path)
            #expect(receive(fd) == "READY=1\nSTATUS=Watching 1 touchscreen")
            #expect(receive(fd) == nil)  // one datagram, nothing more
        }
    }

    @Test func sendsToAnAbstractSocketNamedWithAnAt() throws {
        let name = "gestured-notify-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = try datagramSocket(boundTo: [0] + Array(name.utf8))
        defer { close(fd) }
        try SystemdNotifier.send("STOPPING=1", to: "@" + name)
        #expect(receive(fd) == "STOPPING=1")
    }

    /// sd_watchdog_enabled(3): $WATCHDOG_USEC for this process when $WATCHDOG_PID is unset or names it.
    @Test func theWatchdogIntervalIsForThisProcessOnly() {
        #expect(SystemdNotifier.watchdogInterval(usec: "2000000", pid: nil, ownPID: 42) == 2_000_000)
        #expect(SystemdNotifier.watchdogInterval(usec: "2000000", pid: "42", ownPID: 42) == 2_000_000)
        #expect(SystemdNotifier.watchdogInterval(usec: "2000000", pid: "41", ownPID: 42) == nil)
        #expect(SystemdNotifier.watchdogInterval(usec: nil, pid: nil, ownPID: 42) == nil)
        #expect(SystemdNotifier.watchdogInterval(usec: "0", pid: nil, ownPID: 42) == nil)
        #expect(SystemdNotifier.watchdogInterval(usec: "soon", pid: nil, ownPID: 42) == nil)
    }

    /// Outside systemd (NOTIFY_SOCKET unset or empty) a notification goes nowhere and is no error. Shown
    /// on a real socket that receives every notification while the variable names it: the same notifier
    /// sends there while it is set, nothing once it is unset or emptied (the variable is read at every
    /// call, not remembered from an earlier one), and sends there again when it is set again.
    @Test func withoutANotifySocketNothingIsSent() throws {
        try withNotifySocket { path, fd in
            var notifySocket: String? = path
            let environment = { (name: String) -> String? in name == "NOTIFY_SOCKET" ? notifySocket : nil }

            SystemdNotifier.notify("READY=1\nSTATUS=set", environment: environment)
            #expect(receive(fd) == "READY=1\nSTATUS=set")
            #expect(receive(fd) == nil)

            notifySocket = nil
            SystemdNotifier.notify("STATUS=unset", environment: environment)
            SystemdNotifier.notify("WATCHDOG=1", environment: environment)
            #expect(receive(fd) == nil)
            try SystemdNotifier.send("READY=1", to: nil)

            notifySocket = ""
            SystemdNotifier.notify("STATUS=empty", environment: environment)
            #expect(receive(fd) == nil)
            try SystemdNotifier.send("READY=1", to: "")

            notifySocket = path
            SystemdNotifier.notify("STATUS=set again", environment: environment)
            #expect(receive(fd) == "STATUS=set again")
            #expect(receive(fd) == nil)
        }
    }

    @Test func aMissingSocketOrAnotherAddressFamilyIsAnErrorWithItsErrno() {
        #expect(throws: SystemError(errno: ENOENT, operation: "sendto", path: "/nonexistent/gestured-notify")) {
            try SystemdNotifier.send("READY=1", to: "/nonexistent/gestured-notify")
        }
        do {
            try SystemdNotifier.send("READY=1", to: "vsock:2:1234")
            Issue.record("a vsock address was accepted")
        } catch {
            #expect(error.errno == EAFNOSUPPORT)
            #expect(error.description.contains("vsock:2:1234"))
        }
    }

    @Test func socketsPassedToAnotherProcessOrNoneAreNotTaken() throws {
        #expect(try SystemdNotifier.activationSocket(listenPID: nil, listenFDs: nil, ownPID: 100) == nil)
        // A parent's variables inherited: LISTEN_PID names the parent, not us.
        #expect(try SystemdNotifier.activationSocket(listenPID: "99", listenFDs: "1", ownPID: 100) == nil)
        #expect(try SystemdNotifier.activationSocket(listenPID: "100", listenFDs: "0", ownPID: 100) == nil)
    }

    @Test func malformedVariablesAreErrorsThatSayWhatToDo() {
        for (pid, fds, culprit) in [("abc", "1", "$LISTEN_PID"), ("-5", "1", "$LISTEN_PID"), ("100", "x", "$LISTEN_FDS"),
                                    ("100", nil, "$LISTEN_FDS"), ("100", "-1", "$LISTEN_FDS")] as [(String, String?, String)] {
            do {
                _ = try SystemdNotifier.activationSocket(listenPID: pid, listenFDs: fds, ownPID: 100)
                Issue.record("LISTEN_PID=\(pid) LISTEN_FDS=\(fds ?? "(unset)") was accepted")
            } catch {
                #expect(error.errno == EINVAL)
                #expect(error.description.contains(culprit))
                #expect(error.description.contains("gestured.socket"))
            }
        }
    }

    @Test func onlyAListeningUnixStreamSocketIsTakenForTheListener() throws {
        let dir = temporaryDirectory()
        let path = dir + "/s"
        defer {
            unlink(path)
            rmdir(dir)
        }
        let listening = try SystemCall.unixStreamSocket()
        defer { close(listening) }
        try SystemCall.bind(listening, path: path)
        try SystemCall.listen(listening, backlog: 4)
        #expect(try SystemCall.isListeningUnixStreamSocket(listening))

        let notListening = try SystemCall.unixStreamSocket()
        defer { close(notListening) }
        #expect(try !SystemCall.isListeningUnixStreamSocket(notListening))

        let datagram = try datagramSocket(boundTo: [0] + Array("gestured-notify-dgram-\(getpid())".utf8))
        defer { close(datagram) }
        #expect(try !SystemCall.isListeningUnixStreamSocket(datagram))

        var pipeEnds: [Int32] = [0, 0]
        try #require(pipe(&pipeEnds) == 0)
        defer { pipeEnds.forEach { close($0) } }
        #expect(try !SystemCall.isListeningUnixStreamSocket(pipeEnds[0]))

        #expect(throws: SystemError.self) { try SystemCall.isListeningUnixStreamSocket(-1) }
    }
}
