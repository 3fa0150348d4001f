import Glibc
import SystemCalls

/// Talks to systemd: readiness notifications and inherited sockets, through the two documented, stable
/// protocols themselves rather than libsystemd: sd_notify(3) is one datagram to the Unix socket that
/// $NOTIFY_SOCKET names, sd_listen_fds(3) is $LISTEN_PID and $LISTEN_FDS describing descriptors from 3 on.
/// Linking libsystemd for these loaded it and six more libraries (libgcrypt, libgpg-error, liblzma,
/// libzstd, liblz4, libcap) into the daemon: about 1.1 MB resident (docs/architecture.md, "Memory").
/// Outside systemd (no $NOTIFY_SOCKET, no $LISTEN_FDS) every call is a harmless no-op.
public enum SystemdNotifier {
    /// The first descriptor systemd passes (SD_LISTEN_FDS_START).
    public static let firstPassedDescriptor: Int32 = 3

    /// The notifications (READY, RELOADING, STOPPING, WATCHDOG) whose last sending failed: logged once,
    /// then again only after one got through.
    nonisolated(unsafe) private static var failing: Set<Substring> = []

    /// `sd_notify(0, state)`: `state` sent to $NOTIFY_SOCKET. Without $NOTIFY_SOCKET nothing is sent (not
    /// running under systemd is normal). With it, a failed READY=1, RELOADING=1, STOPPING=1 or WATCHDOG=1
    /// matters (systemd waits for readiness and kills a daemon whose watchdog pings stop): the first
    /// failure of each is logged at warning; a status line alone at debug.
    public static func notify(_ state: String) { notify(state, environment: environment) }

    /// `notify` with the environment read through `environment` (a test's own), at every call: systemd
    /// may be gone (NOTIFY_SOCKET unset by a wrapper) or changed, and nothing is remembered from before.
    static func notify(_ state: String, environment: (String) -> String?) {
        let socket = environment("NOTIFY_SOCKET")
        let kinds = state.split(separator: "\n").compactMap { line -> Substring? in
            let name = line.prefix { $0 != "=" }
            return ["READY", "RELOADING", "STOPPING", "WATCHDOG"].contains(name) ? name : nil
        }
        do {
            try send(state, to: socket)
            for kind in kinds { failing.remove(kind) }
        } catch {
            let message = "cannot notify systemd (sd_notify \(state.split(separator: "\n").joined(separator: " "))): \(error)"
            guard socket?.isEmpty == false, let kind = kinds.first else {
                Log.debug(message)
                return
            }
            guard failing.insert(kind).inserted else { return }
            Log.warning(message + "; systemd may time the service out or restart it")
        }
    }

    /// The watchdog interval systemd asks for (`WatchdogSec=`: $WATCHDOG_USEC, for this process when
    /// $WATCHDOG_PID is unset or names it), microseconds; nil when there is none.
    public static func watchdogInterval() -> Int64? {
        watchdogInterval(usec: environment("WATCHDOG_USEC"), pid: environment("WATCHDOG_PID"), ownPID: getpid())
    }

    /// What sd_watchdog_enabled(3) decides from the values of $WATCHDOG_USEC and $WATCHDOG_PID.
    public static func watchdogInterval(usec: String?, pid: String?, ownPID: Int32) -> Int64? {
        guard let usec, let interval = Int64(usec), interval > 0 else { return nil }
        if let pid, Int32(pid) != ownPID { return nil }
        return interval
    }

    /// WATCHDOG=1: the loop is alive.
    public static func watchdogPing() { notify("WATCHDOG=1") }

    /// `state` as one datagram to the Unix datagram socket `socketPath`, a file path or "@name" in the
    /// abstract namespace; nothing when `socketPath` is nil or empty (not started by systemd).
    public static func send(_ state: String, to socketPath: String?) throws(SystemError) {
        guard let socketPath, !socketPath.isEmpty else { return }
        guard socketPath.hasPrefix("/") || socketPath.hasPrefix("@") else {
            throw SystemError(
                errno: EAFNOSUPPORT, operation: "sd_notify", path: socketPath,
                hint: "$NOTIFY_SOCKET is neither a path nor an abstract socket (\"@name\"); gestured speaks only AF_UNIX to systemd")
        }
        var failure: SystemError?
        Array(state.utf8).withUnsafeBytes { buffer in
            do throws(SystemError) {
                try SystemCall.sendDatagram(buffer, toUnixSocket: socketPath)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }

    /// READY=1 with a status line.
    public static func ready(status: String) { notify("READY=1\nSTATUS=\(status)") }

    /// RELOADING=1 with MONOTONIC_USEC (required by Type=notify-reload, harmless for Type=notify).
    public static func reloading() {
        notify("RELOADING=1\nMONOTONIC_USEC=\(SystemCall.monotonicMicroseconds())\nSTATUS=Reloading configuration")
    }

    /// STOPPING=1.
    public static func stopping() { notify("STOPPING=1\nSTATUS=Shutting down") }

    /// The listening Unix stream socket systemd passed (socket activation through gestured.socket), or nil
    /// when the daemon was not socket-activated. Unsets $LISTEN_PID, $LISTEN_FDS and $LISTEN_FDNAMES so
    /// children do not inherit them. Throws when systemd passed something the daemon cannot use.
    public static func activationSocket() throws(SystemError) -> Int32? {
        let listenPID = environment("LISTEN_PID")
        let listenFDs = environment("LISTEN_FDS")
        for name in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] { unsetenv(name) }
        return try activationSocket(listenPID: listenPID, listenFDs: listenFDs, ownPID: getpid())
    }

    /// `activationSocket()` on given values of $LISTEN_PID and $LISTEN_FDS, for a process `ownPID`: what
    /// sd_listen_fds(3) decides. The descriptors are not for this process when $LISTEN_PID names another
    /// (a parent's variables inherited): nil then, and when there is no $LISTEN_PID.
    public static func activationSocket(listenPID: String?, listenFDs: String?, ownPID: Int32) throws(SystemError) -> Int32? {
        guard let listenPID else { return nil }
        guard let pid = Int32(listenPID), pid > 0 else {
            throw SystemError(
                errno: EINVAL, operation: "sd_listen_fds",
                hint: "$LISTEN_PID is \"\(listenPID)\", not a process id; unset LISTEN_PID and LISTEN_FDS, or start gestured through gestured.socket")
        }
        guard pid == ownPID else { return nil }
        guard let listenFDs, let count = Int32(listenFDs), count >= 0, count <= Int32.max - firstPassedDescriptor else {
            throw SystemError(
                errno: EINVAL, operation: "sd_listen_fds",
                hint: "$LISTEN_FDS is \(listenFDs.map { "\"\($0)\"" } ?? "missing"), not a number of descriptors; unset LISTEN_PID and LISTEN_FDS, or start gestured through gestured.socket")
        }
        if count == 0 { return nil }
        let fd = firstPassedDescriptor
        for passed in fd..<(fd + count) { try SystemCall.setCloseOnExec(passed) }
        if count > 1 {
            Log.warning("systemd passed \(count) sockets; using the first (fd \(fd)) and closing the rest")
            for extra in (fd + 1)..<(fd + count) { _ = SystemCall.close(extra) }
        }
        guard try SystemCall.isListeningUnixStreamSocket(fd) else {
            throw SystemError(
                errno: EINVAL, operation: "sd_is_socket_unix",
                hint: "the socket systemd passed is not a listening Unix stream socket; check gestured.socket (ListenStream=)")
        }
        try SystemCall.setNonBlocking(fd)
        return fd
    }

    private static func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
}
