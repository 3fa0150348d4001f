import GestureConfig
import GestureCore
import GestureProtocol
import Glibc
import SystemCalls

/// How `gestured` was started (its command line, parsed by the executable).
public struct DaemonOptions: Equatable, Sendable {
    /// The configuration file; nil means the default path, which may be missing (built-in defaults then).
    public var configPath: String?
    /// `--socket`: overrides the configuration's socket path.
    public var socketPath: String?
    /// `--replay`: virtual devices to add.
    public var replays: [ReplayOptions]
    /// Whether to find touchscreens with udev and follow hotplug (`--no-udev` turns it off, for tests and
    /// demos that should see only their replays).
    public var discoverDevices: Bool
    /// Who runs the daemon: the socket's path and group default by it (`DaemonSettings.socket(for:)`).
    public var runner: DaemonRunner
    /// Where logind publishes whose session is active on each seat (`--seats-directory`; a test's
    /// directory stands in for it).
    public var seatsDirectory: String = SeatMonitor.defaultDirectory

    public init(
        configPath: String? = nil, socketPath: String? = nil, replays: [ReplayOptions] = [],
        discoverDevices: Bool = true, runner: DaemonRunner = .current()
    ) {
        self.configPath = configPath
        self.socketPath = socketPath
        self.replays = replays
        self.discoverDevices = discoverDevices
        self.runner = runner
    }
}

extension DaemonRunner {
    /// This process: a system daemon when its effective user is root or `gestured`; XDG_RUNTIME_DIR from
    /// its environment.
    public static func current() -> DaemonRunner {
        let uid = geteuid()
        let isSystem = uid == 0 || (try? SystemCall.userName(id: uid)) == DaemonRunner.systemUserName
        var environment: [String: String] = [:]
        if let directory = getenv(ProtocolConstants.runtimeDirectoryVariable) {
            environment[ProtocolConstants.runtimeDirectoryVariable] = String(cString: directory)
        }
        return DaemonRunner(isSystem: isSystem, environment: environment)
    }
}

/// What applies to one device (thresholds, geometry, ignore, grab, warnings): what GestureConfig resolves
/// for it, used as is.
public typealias DeviceSettings = ResolvedDeviceSettings

extension ResolvedDeviceSettings {
    /// These settings with udev's LIBINPUT_CALIBRATION_MATRIX (the matrix libinput applies, often set by
    /// hwdb for panels mounted rotated) as the calibration, when the configuration sets no rotation, flip
    /// or calibration of its own for the device. A configured geometry always wins.
    public func applyingUdevCalibration(_ matrix: [Double]?) -> DeviceSettings {
        guard let matrix, matrix.count == 6, matrix.allSatisfy(\.isFinite), geometry.calibration == nil,
            geometry.rotation == .none, !geometry.flipX, !geometry.flipY
        else { return self }
        var settings = self
        settings.geometry.calibration = matrix
        return settings
    }
}

/// The configuration the daemon runs on: the [daemon] section as GestureConfig loaded it (its defaults are
/// `DaemonSettings`'), how to resolve each device's settings, and the warnings to log.
public struct DaemonConfiguration: Sendable {
    /// Socket path, mode and group, client limits, log level.
    public var daemon: DaemonSettings
    /// Settings for a device, by its description and its paths (node and udev links; the recording for
    /// a replay).
    public var resolve: @Sendable (DeviceDescription, [String]) -> DeviceSettings
    /// Whether a configuration section names this device (so it is used even when udev does not call it
    /// a touchscreen).
    public var names: @Sendable (DeviceDescription, [String]) -> Bool
    /// Messages about allowed but doubtful settings, logged at load.
    public var warnings: [String]

    /// `daemon.logLevel` as the log's priority.
    public var logPriority: Log.Priority {
        switch daemon.logLevel {
        case .error: return .error
        case .warning: return .warning
        case .notice: return .notice
        case .info: return .info
        case .debug: return .debug
        }
    }

    public init(
        daemon: DaemonSettings = DaemonSettings(),
        resolve: @escaping @Sendable (DeviceDescription, [String]) -> DeviceSettings = { _, _ in DeviceSettings() },
        names: @escaping @Sendable (DeviceDescription, [String]) -> Bool = { _, _ in false },
        warnings: [String] = []
    ) {
        self.daemon = daemon
        self.resolve = resolve
        self.names = names
        self.warnings = warnings
    }
}

/// Why the configuration could not be loaded; the message names file, line, column and key.
public struct ConfigurationLoadError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
