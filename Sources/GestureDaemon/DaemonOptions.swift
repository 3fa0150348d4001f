import GestureCore
import GestureProtocol

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

    public init(
        configPath: String? = nil, socketPath: String? = nil, replays: [ReplayOptions] = [],
        discoverDevices: Bool = true
    ) {
        self.configPath = configPath
        self.socketPath = socketPath
        self.replays = replays
        self.discoverDevices = discoverDevices
    }

    /// Where the daemon looks for its configuration when `--config` is not given.
    public static let defaultConfigPath = "/etc/gestured/gestured.toml"
}

/// What applies to one device: its thresholds and geometry, and whether the daemon uses and grabs it.
public struct DeviceSettings: Equatable, Sendable {
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

    public var recognizer: RecognizerSettings
    public var geometry: GeometrySettings
    public var ignore: Bool
    public var grab: Bool
    /// Problems found combining configuration sections, for the log.
    public var warnings: [String]

    public init(
        recognizer: RecognizerSettings = RecognizerSettings(), geometry: GeometrySettings = GeometrySettings(),
        ignore: Bool = false, grab: Bool = false, warnings: [String] = []
    ) {
        self.recognizer = recognizer
        self.geometry = geometry
        self.ignore = ignore
        self.grab = grab
        self.warnings = warnings
    }

    public static func == (a: DeviceSettings, b: DeviceSettings) -> Bool {
        a.recognizer == b.recognizer && a.geometry == b.geometry && a.ignore == b.ignore && a.grab == b.grab
    }
}

/// The part of the configuration the daemon runs on, as it uses it.
public struct DaemonConfiguration: Sendable {
    public var socketPath: String
    public var socketMode: UInt32
    /// Empty: the daemon's own group.
    public var socketGroup: String
    public var maxClients: Int
    public var clientBufferBytes: Int
    public var logLevel: Log.Priority
    /// Settings for a device, by its description and its paths (node and udev links; the recording for
    /// a replay).
    public var resolve: @Sendable (DeviceDescription, [String]) -> DeviceSettings
    /// Whether a configuration section names this device (so it is used even when udev does not call it
    /// a touchscreen).
    public var names: @Sendable (DeviceDescription, [String]) -> Bool
    /// Messages about allowed but doubtful settings, logged at load.
    public var warnings: [String]

    public init(
        socketPath: String = ProtocolConstants.defaultSocketPath, socketMode: UInt32 = 0o660, socketGroup: String = "gestured",
        maxClients: Int = 64, clientBufferBytes: Int = 1 << 20, logLevel: Log.Priority = .info,
        resolve: @escaping @Sendable (DeviceDescription, [String]) -> DeviceSettings = { _, _ in DeviceSettings() },
        names: @escaping @Sendable (DeviceDescription, [String]) -> Bool = { _, _ in false },
        warnings: [String] = []
    ) {
        self.socketPath = socketPath
        self.socketMode = socketMode
        self.socketGroup = socketGroup
        self.maxClients = maxClients
        self.clientBufferBytes = clientBufferBytes
        self.logLevel = logLevel
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
