import GestureConfig
import GestureCore

/// The configuration the daemon runs on, and its reloads: where it comes from (`--config` or the default
/// path), the loader, and what a reload keeps from the running one (the socket's path, mode and group,
/// which apply at the next start).
final class ConfigurationReloader {
    private let options: DaemonOptions
    private let load: (String?) throws(ConfigurationLoadError) -> DaemonConfiguration
    private(set) var current = DaemonConfiguration()

    init(options: DaemonOptions, load: @escaping (String?) throws(ConfigurationLoadError) -> DaemonConfiguration) {
        self.options = options
        self.load = load
    }

    /// The file reloads read.
    var path: String { options.configPath ?? Configuration.defaultPath }

    /// The configuration at start: the file's (a broken one stops the daemon from starting), with
    /// `--socket` over its socket path; the log level and its warnings take effect.
    func loadAtStart() throws(DaemonStartError) -> DaemonConfiguration {
        do {
            current = try load(options.configPath)
        } catch {
            throw DaemonStartError(error.description)
        }
        if let socketPath = options.socketPath { current.daemon.socketPath = socketPath }
        Log.threshold = current.logPriority
        for warning in current.warnings { Log.warning(warning) }
        return current
    }

    /// Reads the file again, as `cause` asked ("SIGHUP received", "client 3 (uid 0, …) asked"): the new
    /// configuration, or why it does not load (the running one stays, and the log says why).
    func reload(cause: String) -> Result<DaemonConfiguration, ConfigurationLoadError> {
        Log.notice("\(cause): reloading the configuration from \(path)")
        var new: DaemonConfiguration
        do {
            new = try load(options.configPath)
        } catch {
            Log.error("configuration not reloaded, keeping the running one: \(error)")
            return .failure(error)
        }
        if let socketPath = options.socketPath { new.daemon.socketPath = socketPath }
        for warning in new.warnings { Log.warning(warning) }
        if new.daemon.socketPath != current.daemon.socketPath || new.daemon.socketMode != current.daemon.socketMode
            || new.daemon.socketGroup != current.daemon.socketGroup
        {
            Log.notice(
                "the socket's path, mode and group change when the daemon restarts (now \(current.daemon.socket(for: options.runner).path))")
            new.daemon.socketPath = current.daemon.socketPath
            new.daemon.socketMode = current.daemon.socketMode
            new.daemon.socketGroup = current.daemon.socketGroup
        }
        current = new
        Log.threshold = new.logPriority
        return .success(new)
    }
}
