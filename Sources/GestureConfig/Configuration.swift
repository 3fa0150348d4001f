import GestureVocabulary
import GestureCore
import GestureProtocol
import PlainText

/// How much the daemon logs; each level includes the ones above it. The raw values are the
/// configuration's spellings; `syslogPriority` is the sd-daemon / syslog priority of the level.
public enum LogLevel: String, CaseIterable, Sendable, Comparable {
    case error, warning, notice, info, debug

    /// LOG_ERR .. LOG_DEBUG, for sd-daemon "<N>" prefixes.
    public var syslogPriority: Int {
        switch self {
        case .error: return 3
        case .warning: return 4
        case .notice: return 5
        case .info: return 6
        case .debug: return 7
        }
    }

    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.syslogPriority < b.syslogPriority }
}

/// The [daemon] section: the socket and the daemon's limits.
public struct DaemonSettings: Equatable, Sendable {
    /// Where the listening Unix socket is created (ignored under systemd socket activation); nil when the
    /// configuration does not say, and then who runs the daemon decides (`socket(for:)`).
    public var socketPath: String?
    /// Permission bits of the socket file. Connecting needs write permission.
    public var socketMode: UInt32 = 0o660
    /// Group the socket file is given; empty leaves the daemon's own group; nil when the configuration does
    /// not say (`socket(for:)`).
    public var socketGroup: String?
    /// Clients connected at once; one more is refused with an error.
    public var maxClients: Int = 64
    /// Clients one user (uid) may have connected at once, so that one user's programs cannot take every
    /// connection: a quarter of the default max_clients, more than a session's shell, panel, keyboard,
    /// `gesturectl bind` and a few scripts use. Root and the daemon's own user are not counted against it.
    public var maxClientsPerUID: Int = 16
    /// Bound of each client's outgoing buffer; a client that lets it fill is disconnected.
    public var clientBufferBytes: Int = 1 << 20
    public var logLevel: LogLevel = .info
    /// Who else may see app touches (`app_touches_for`), besides root, the daemon's own user and the user
    /// of the active session on the touchscreen's seat: users and groups, by name as written.
    public var appTouchesFor: [AppTouchViewer] = []

    public init() {}
}

/// A user or a group `app_touches_for` names: `"alice"` or `"%kiosk"` (a group, as sudoers writes them).
public enum AppTouchViewer: Equatable, Sendable, CustomStringConvertible {
    case user(String)
    case group(String)

    /// Reads `"alice"`, `"1000"` (a uid) or `"%kiosk"`; nil when it is neither a user nor a group name.
    public init?(_ text: String) {
        if text.hasPrefix("%") {
            let name = String(text.dropFirst())
            guard ConfigDecoder.isGroupName(name) else { return nil }
            self = .group(name)
        } else {
            guard ConfigDecoder.isGroupName(text) else { return nil }
            self = .user(text)
        }
    }

    public var description: String {
        switch self {
        case .user(let name): return name
        case .group(let name): return "%" + name
        }
    }
}

/// One [[device]] section: which devices it matches and what it sets for them. Every setting is
/// optional: a section sets only the keys it names, and later matching sections override earlier ones
/// key by key (see `Configuration.resolve`).
public struct DeviceSection: Equatable, Sendable {
    /// Glob (fnmatch-style: `*`, `?`, `[a-z]`, `[!0-9]`, `\` escapes) on the device name.
    public var matchName: String?
    /// "vvvv:pppp", lower-case hex.
    public var matchID: String?
    /// Glob on the device node or one of its udev links; `*` and `?` do not match `/`.
    public var matchPath: String?

    public var rotation: Rotation?
    public var flipX: Bool?
    public var flipY: Bool?
    /// Six finite numbers [a, b, c, d, e, f].
    public var calibration: [Double]?
    public var panelWidthMM: Double?
    public var panelHeightMM: Double?
    /// The panel's diagonal, for a panel without axis resolution whose width and height are not given:
    /// they follow from the axis ranges' aspect.
    public var panelDiagonalInches: Double?
    /// The panel's aspect ("16:9"), with `panelDiagonalInches`: instead of the axis ranges'.
    public var panelAspect: PanelAspect?
    public var ignore: Bool?
    public var grab: Bool?
    /// Touch ownership: grab the panel and forward through a virtual copy what system gestures do not own.
    public var passthrough: Bool?
    /// Touch arbitration with the panel's pens (no gestures while a pen is near); `false` turns it off.
    public var penArbitration: Bool?
    /// A pen that belongs with the panel when udev does not say so (no common LIBINPUT_DEVICE_GROUP or
    /// physical parent): a glob on the pen's name, or its "vvvv:pppp".
    public var pen: String?
    /// What the panel's touches do besides touching, for apps no [[pointer]] section names (`pointer`).
    public var pointerMode: PointerMode?
    /// Finger travel of one wheel detent when touch scrolls as a mouse (`pointer_scroll_mm`).
    public var pointerScrollMM: Double?
    /// Whether a two-finger scroll released while moving goes on (`pointer_fling`).
    public var pointerFling: Bool?
    /// Recognizer thresholds this section overrides, by their key relative to [recognizer]
    /// ("slop_mm", "pan.commit_distance_mm", "edge_swipe.left.zone_mm").
    public var recognizerOverrides: [String: SettingValue]

    /// Where the section starts, for messages ("device section at gestured.toml:40:1").
    public var location: ConfigLocation

    public init(
        matchName: String? = nil, matchID: String? = nil, matchPath: String? = nil, rotation: Rotation? = nil,
        flipX: Bool? = nil, flipY: Bool? = nil, calibration: [Double]? = nil, panelWidthMM: Double? = nil,
        panelHeightMM: Double? = nil, ignore: Bool? = nil, grab: Bool? = nil, passthrough: Bool? = nil,
        recognizerOverrides: [String: SettingValue] = [:], location: ConfigLocation = ConfigLocation(file: "")
    ) {
        self.matchName = matchName
        self.matchID = matchID
        self.matchPath = matchPath
        self.rotation = rotation
        self.flipX = flipX
        self.flipY = flipY
        self.calibration = calibration
        self.panelWidthMM = panelWidthMM
        self.panelHeightMM = panelHeightMM
        self.ignore = ignore
        self.grab = grab
        self.passthrough = passthrough
        self.recognizerOverrides = recognizerOverrides
        self.location = location
    }

    /// True when every match key the section has matches the device: the name glob the device name,
    /// the id its vendor:product, the path glob any of `paths` (the device node and its udev links).
    /// A section with a match_path never matches when no path is known.
    public func matches(_ device: DeviceDescription, paths: [String]) -> Bool {
        if let matchName, !Glob(matchName, pathname: false).matches(device.name) { return false }
        if let matchID, matchID != device.vendorProduct.lowercased() { return false }
        if let matchPath {
            let glob = Glob(matchPath, pathname: true)
            if !paths.contains(where: { glob.matches($0) }) { return false }
        }
        return true
    }
}


/// One [[exclusion]] section: parts of the edges that are no edge zone while the focused app matches
/// (always, without `app`), on the devices it names (every device, without `device`).
public struct ExclusionSection: Equatable, Sendable {
    /// Globs on the focused app's app_id; nil: whatever is focused (or nothing).
    public var apps: [String]?
    /// The sides and corners, with the part of each side (`edge_position`, 0...1 along it).
    public var exclusions: [EdgeExclusion]
    /// A glob on the device's name, or its "vvvv:pppp"; nil: every device.
    public var device: String?
    /// Where the section starts ("gestured.toml:40:1"), said in `devices` as the exclusion's source.
    public var location: ConfigLocation

    public init(apps: [String]? = nil, exclusions: [EdgeExclusion] = [], device: String? = nil, location: ConfigLocation = ConfigLocation(file: "")) {
        self.apps = apps
        self.exclusions = exclusions
        self.device = device
        self.location = location
    }

    /// Whether the section holds for `app` (the focused app's app_id, nil when none is known).
    public func holds(forApp app: String?) -> Bool {
        guard let apps else { return true }
        guard let app else { return false }
        return apps.contains { Glob($0, pathname: false).matches(app) }
    }

    /// Whether the section applies to `device`.
    public func applies(to description: DeviceDescription) -> Bool {
        guard let pattern = device else { return true }
        return DeviceNamePattern.matches(pattern, name: description.name, vendorProduct: description.vendorProduct)
    }
}

/// One [[pointer]] section: what touch does, besides touching, while the focused app matches (the panels'
/// `pointer` for the others), on the devices it names (every device, without `device`).
public struct PointerSection: Equatable, Sendable {
    /// Globs on the focused app's app_id.
    public var apps: [String]
    public var mode: PointerMode
    /// A glob on the device's name, or its "vvvv:pppp"; nil: every device.
    public var device: String?
    public var location: ConfigLocation

    public init(apps: [String], mode: PointerMode, device: String? = nil, location: ConfigLocation = ConfigLocation(file: "")) {
        self.apps = apps
        self.mode = mode
        self.device = device
        self.location = location
    }

    /// Whether the section holds for `app` (the focused app's app_id, nil when none is known).
    public func holds(forApp app: String?) -> Bool {
        guard let app else { return false }
        return apps.contains { Glob($0, pathname: false).matches(app) }
    }

    /// Whether the section applies to `device`.
    public func applies(to description: DeviceDescription) -> Bool {
        guard let pattern = device else { return true }
        return DeviceNamePattern.matches(pattern, name: description.name, vendorProduct: description.vendorProduct)
    }
}

extension Configuration {
    /// What to say when `app`, given as the focused app (`--focus`), puts no [[exclusion]] section in force
    /// on `device`: that none names it, which names it for other devices only, or which would name it but
    /// for case (app_id globs are case-sensitive, as app_ids are: "Sketch" is not "sketch"). Nil when a
    /// section holds for it.
    public func focusAdvice(_ app: String, device: DeviceDescription) -> String? {
        let naming = exclusions.filter { $0.apps != nil }
        if naming.contains(where: { $0.holds(forApp: app) && $0.applies(to: device) }) { return nil }
        let shown = "\"\(escapingControlCharacters(app))\""
        if let other = naming.first(where: { $0.holds(forApp: app) }) {
            return "the [[exclusion]] section at \(other.location) names \(shown) for devices matching "
                + "\"\(escapingControlCharacters(other.device ?? ""))\", not this one; no section applies it here"
        }
        let lowered = app.lowercased()
        for section in naming {
            for pattern in section.apps ?? [] where Glob(pattern.lowercased(), pathname: false).matches(lowered) {
                return "no [[exclusion]] section names \(shown): app_id globs are case-sensitive; did you mean "
                    + "\"\(escapingControlCharacters(pattern))\" (the section at \(section.location))?"
            }
        }
        let names = naming.flatMap { $0.apps ?? [] }.map { "\"\(escapingControlCharacters($0))\"" }
        return "no [[exclusion]] section names \(shown)"
            + (names.isEmpty ? " (the file has none with an app)" : " (the sections name \(names.joined(separator: ", ")))")
    }
}

/// A device named as the configuration names one outside its match keys ([[exclusion]]'s `device`, a
/// [[device]]'s `pen`): a "vvvv:pppp", or else a glob on its name.
public enum DeviceNamePattern {
    public static func matches(_ pattern: String, name: String, vendorProduct: String?) -> Bool {
        if ConfigDecoder.vendorProduct(pattern) != nil { return pattern.lowercased() == vendorProduct?.lowercased() }
        return Glob(pattern, pathname: false).matches(name)
    }
}

/// What applies to one device once every matching [[device]] section has been applied over the
/// [recognizer] defaults.
public struct ResolvedDeviceSettings: Equatable, Sendable {
    public var recognizer: RecognizerSettings
    public var geometry: GeometrySettings
    /// The daemon leaves the device alone.
    public var ignore: Bool
    /// The daemon takes the device exclusively (EVIOCGRAB).
    public var grab: Bool
    /// Passthrough (touch ownership): the daemon grabs the device and re-emits, through a uinput copy of it,
    /// every touch that no system gesture owns.
    public var passthrough: Bool
    /// Touch arbitration with the device's pens: while one is in proximity (and shortly after) the device
    /// makes no gestures. On unless a section says `pen_arbitration = false`.
    public var penArbitration: Bool = true
    /// The `pen` key of the last matching section that sets it: a pen that belongs with the device besides
    /// those udev groups with it (a glob on its name, or its "vvvv:pppp").
    public var pen: String?
    /// The [[exclusion]] sections that apply to the device (whichever app they name), in file order.
    public var exclusionSections: [ExclusionSection] = []
    /// What the device's touches do for apps no [[pointer]] section names (`pointer`).
    public var pointerMode: PointerMode = .touch
    /// Finger travel of a wheel detent (`pointer_scroll_mm`).
    public var pointerScrollMM: Double = 10
    /// Whether a two-finger scroll flings (`pointer_fling`).
    public var pointerFling: Bool = false
    /// The [[pointer]] sections that apply to the device (whichever app they name), in file order.
    public var pointerSections: [PointerSection] = []

    /// What the device's touches do while `app` is focused (nil: none known): the last [[pointer]] section
    /// naming it, else the device's `pointer`.
    public func pointerMode(forApp app: String?) -> PointerMode {
        pointerSections.last { $0.holds(forApp: app) }?.mode ?? pointerMode
    }

    /// Whether the device gets a virtual pointer: with passthrough, when its `pointer` or a [[pointer]]
    /// section for it asks for anything but touch.
    public var makesPointer: Bool {
        passthrough && (pointerMode.usesPointer || pointerSections.contains { $0.mode.usesPointer })
    }

    /// The exclusions these sections put in force while `app` is focused (nil: none known), each with the
    /// place of its section ("gestured.toml:12:1"), in file order: what the daemon gives the device's engine
    /// and `gesturectl replay` and `plot --focus` use offline.
    public func configuredExclusions(forApp app: String?) -> [(exclusion: EdgeExclusion, source: String)] {
        exclusionSections.filter { $0.holds(forApp: app) }.flatMap { section in
            section.exclusions.map { e in
                var sourced = e
                sourced.source = "\(section.location)"
                return (exclusion: sourced, source: sourced.source)
            }
        }
    }
    /// Indices into `Configuration.devices` of the sections that matched, in the order applied.
    public var matchedSections: [Int]
    /// Settings dropped because combining sections made them contradict (e.g. min_fingers above
    /// max_fingers); one message each, naming the section. Empty when all is well.
    public var warnings: [String]

    /// With no arguments: what applies to a device no configuration mentions.
    public init(
        recognizer: RecognizerSettings = RecognizerSettings(), geometry: GeometrySettings = GeometrySettings(),
        ignore: Bool = false, grab: Bool = false, passthrough: Bool = false, matchedSections: [Int] = [], warnings: [String] = []
    ) {
        self.recognizer = recognizer
        self.geometry = geometry
        self.ignore = ignore
        self.grab = grab
        self.passthrough = passthrough
        self.matchedSections = matchedSections
        self.warnings = warnings
    }
}

/// The whole configuration: typed, validated, with every default filled in.
public struct Configuration: Equatable, Sendable {
    public var daemon: DaemonSettings
    /// The recognizer thresholds every device starts from.
    public var recognizer: RecognizerSettings
    /// The [[device]] sections in file order.
    public var devices: [DeviceSection]
    /// The [[exclusion]] sections in file order.
    public var exclusions: [ExclusionSection] = []
    /// The [[pointer]] sections in file order.
    public var pointers: [PointerSection] = []
    /// Things that are allowed but probably not meant (a world-writable socket); the daemon logs them.
    public var warnings: [ConfigDiagnostic]

    public init(
        daemon: DaemonSettings = DaemonSettings(), recognizer: RecognizerSettings = RecognizerSettings(),
        devices: [DeviceSection] = [], warnings: [ConfigDiagnostic] = []
    ) {
        self.daemon = daemon
        self.recognizer = recognizer
        self.devices = devices
        self.warnings = warnings
    }

    /// The built-in defaults: what an empty file, and config/gestured.toml, load to.
    public static let defaults = Configuration()

    /// Where `make install` puts the configuration and the daemon looks for it unless told otherwise.
    public static let defaultPath = "/etc/gestured/gestured.toml"

    /// Reads and validates the file at `path`. Errors name the path as given.
    public static func load(path: String) throws(ConfigError) -> Configuration {
        try ConfigDecoder.decode(try TOMLDocument.read(path: path, modeKeys: ConfigDecoder.modeKeys), fileName: path)
    }

    /// Validates TOML text; `fileName` is what messages call it.
    public static func parse(text: String, fileName: String) throws(ConfigError) -> Configuration {
        try ConfigDecoder.decode(try TOMLDocument.parse(text: text, fileName: fileName, modeKeys: ConfigDecoder.modeKeys), fileName: fileName)
    }

}
