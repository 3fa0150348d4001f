import GestureProtocol

/// Who runs the daemon, as far as the socket's defaults go (docs/installation.md, "Where the socket is").
public struct DaemonRunner: Equatable, Sendable {
    /// Root, or the system user `gestured` (the systemd units', the OpenRC service's): a daemon for
    /// the whole system, whose clients are other users.
    public var isSystem: Bool
    /// The runner's environment: XDG_RUNTIME_DIR, the user's runtime directory, is the one read.
    public var environment: [String: String]

    public init(isSystem: Bool, environment: [String: String] = [:]) {
        self.isSystem = isSystem
        self.environment = environment
    }

    /// The name of the system user the packaged service runs as.
    public static let systemUserName = "gestured"
    /// The group the system daemon gives its socket unless configured otherwise; its members may connect.
    public static let systemSocketGroup = "gestured"
}

/// The socket the daemon creates: its path and group, configured or by default.
public struct SocketSettings: Equatable, Sendable {
    public var path: String
    /// The group to give the socket file; "" keeps the daemon's own group.
    public var group: String
    /// Whether the configuration named the group (a missing configured group is worth a warning; the
    /// default group missing means gestured is not installed, which is no fault).
    public var groupIsConfigured: Bool
}

extension DaemonSettings {
    /// The socket's path and group: what the configuration (or `--socket`) says, else the default for who
    /// runs the daemon. A system daemon (root, or the `gestured` user) listens on
    /// /run/gestured/gestured.sock with group `gestured`, which the users who may receive gestures join.
    /// A user's own daemon (anyone else: Sxmo's user, a kiosk's account) listens in the user's runtime
    /// directory, `$XDG_RUNTIME_DIR/gestured.sock` (/run/gestured/gestured.sock when XDG_RUNTIME_DIR is
    /// not set, as under an init system's service), with the user's own group: its clients are the user's
    /// own programs. Clients look in the same places (`ProtocolConstants.socketPaths`).
    public func socket(for runner: DaemonRunner) -> SocketSettings {
        let path =
            socketPath
            ?? (runner.isSystem
                ? ProtocolConstants.defaultSocketPath
                : ProtocolConstants.runtimeDirectorySocketPath(environment: runner.environment)
                    ?? ProtocolConstants.defaultSocketPath)
        return SocketSettings(
            path: path, group: socketGroup ?? (runner.isSystem ? DaemonRunner.systemSocketGroup : ""),
            groupIsConfigured: socketGroup != nil)
    }
}
