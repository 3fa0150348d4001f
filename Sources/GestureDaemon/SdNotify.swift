import CLinux
import CSystemd
import Glibc
import SystemCalls

/// Talks to systemd: readiness notifications (sd_notify) and inherited sockets (sd_listen_fds). Outside
/// systemd (no $NOTIFY_SOCKET, no $LISTEN_FDS) every call is a harmless no-op.
public enum SystemdNotifier {
    /// `sd_notify(0, state)`; failures are logged at debug level only, since not running under systemd is
    /// normal.
    public static func notify(_ state: String) {
        let result = sd_notify(0, state)
        if result < 0 {
            Log.debug("sd_notify(\(state.split(separator: "\n").joined(separator: " "))) failed: \(String(cString: strerror(-result)))")
        }
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
    /// when the daemon was not socket-activated. Unsets $LISTEN_FDS so children do not inherit it.
    /// Throws when systemd passed something the daemon cannot use.
    public static func activationSocket() throws(SystemError) -> Int32? {
        let count = sd_listen_fds(1)
        if count < 0 {
            throw SystemError(errno: -count, operation: "sd_listen_fds")
        }
        if count == 0 { return nil }
        let fd = SD_LISTEN_FDS_START
        if count > 1 {
            Log.warning("systemd passed \(count) sockets; using the first (fd \(fd)) and closing the rest")
            for extra in (fd + 1)..<(fd + count) { SystemCall.close(extra) }
        }
        let isUnixStream = sd_is_socket_unix(fd, gestured_sock_stream, 1, nil, 0)
        guard isUnixStream > 0 else {
            throw SystemError(
                errno: isUnixStream < 0 ? -isUnixStream : EINVAL, operation: "sd_is_socket_unix",
                hint: "the socket systemd passed is not a listening Unix stream socket; check gestured.socket (ListenStream=)")
        }
        try SystemCall.setCloseOnExec(fd)
        try SystemCall.setNonBlocking(fd)
        return fd
    }
}
