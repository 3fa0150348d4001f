import GestureConfig
import GestureCore
import Glibc
import SystemCalls

extension DaemonConfiguration {
    /// The daemon's view of a loaded configuration.
    public init(_ configuration: Configuration) {
        let d = configuration.daemon
        let priority: Log.Priority
        switch d.logLevel {
        case .error: priority = .error
        case .warning: priority = .warning
        case .notice: priority = .notice
        case .info: priority = .info
        case .debug: priority = .debug
        }
        self.init(
            socketPath: d.socketPath, socketMode: d.socketMode, socketGroup: d.socketGroup, maxClients: d.maxClients,
            clientBufferBytes: d.clientBufferBytes, logLevel: priority,
            resolve: { device, paths in
                let r = configuration.resolve(for: device, paths: paths)
                return DeviceSettings(
                    recognizer: r.recognizer, geometry: r.geometry, ignore: r.ignore, grab: r.grab, warnings: r.warnings)
            },
            names: { device, paths in
                configuration.devices.contains { $0.ignore != true && $0.matches(device, paths: paths) }
            },
            warnings: configuration.warnings.map(\.description))
    }

    /// Loads the configuration the daemon runs on: the file given with `--config` (which must exist), or
    /// the default file, whose absence means the built-in defaults.
    public static func load(path: String?) throws(ConfigurationLoadError) -> DaemonConfiguration {
        let file = path ?? DaemonOptions.defaultConfigPath
        if path == nil {
            do {
                _ = try SystemCall.stat(file)
            } catch {
                if error.errno == ENOENT {
                    Log.info("no \(file); using the built-in defaults")
                    return DaemonConfiguration(Configuration.defaults)
                }
            }
        }
        do {
            let configuration = try Configuration.load(path: file)
            return DaemonConfiguration(configuration)
        } catch {
            throw ConfigurationLoadError(error.description)
        }
    }
}
