import GestureConfig
import GestureCore
import Glibc
import SystemCalls

extension DaemonConfiguration {
    /// The daemon's view of a loaded configuration.
    public init(_ configuration: Configuration) {
        self.init(
            daemon: configuration.daemon,
            resolve: { device, paths in configuration.resolve(for: device, paths: paths) },
            names: { device, paths in
                configuration.devices.contains { $0.ignore != true && $0.matches(device, paths: paths) }
            },
            warnings: configuration.warnings.map(\.description))
    }

    /// Loads the configuration the daemon runs on: the file given with `--config` (which must exist), or
    /// the default file, whose absence means the built-in defaults.
    public static func load(path: String?) throws(ConfigurationLoadError) -> DaemonConfiguration {
        let file = path ?? Configuration.defaultPath
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
