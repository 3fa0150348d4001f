import GestureVocabulary

/// Constants of the socket protocol (docs/protocol.md is the contract).
public enum ProtocolConstants {
    /// The protocol version the daemon announces in `hello`. It changes only when a change is not
    /// backward compatible; added fields and message types keep the number.
    public static let version = 1
    /// The package version, in its one place: sent in `hello`, printed by `gestured --version` and
    /// `gesturectl --version`, read by the Makefile for the man pages; debian/changelog's latest entry
    /// must name the same version (a test and `make deb` check it).
    public static let daemonVersion = "0.1.0"
    /// Longest request line the daemon accepts, in bytes without the newline; a longer line closes the
    /// connection.
    public static let maximumRequestLineBytes = 64 * 1024
    /// The system's socket: where a daemon run as root or as the `gestured` system user listens (the
    /// systemd units, the OpenRC service) unless configured otherwise, and where clients look last.
    public static let defaultSocketPath = "/run/gestured/gestured.sock"
    /// The environment variable clients read the socket path from.
    public static let socketEnvironmentVariable = "GESTURED_SOCKET"
    /// The user's runtime directory (XDG Base Directory Specification): private to the user (mode 0700),
    /// on a tmpfs, emptied at the user's last logout.
    public static let runtimeDirectoryVariable = "XDG_RUNTIME_DIR"
    /// The socket's file name in the runtime directory, where a daemon a user runs as themselves listens:
    /// directly in it, as `wayland-0` and `pipewire-0` are (the directory is the user's alone, so no
    /// subdirectory is needed for its permissions and none is left to clean up), with the system socket's
    /// own name.
    public static let runtimeDirectorySocketName = "gestured.sock"

    /// `$XDG_RUNTIME_DIR/gestured.sock`, or nil when XDG_RUNTIME_DIR is unset, empty or not an absolute
    /// path (the specification says to ignore such a value).
    public static func runtimeDirectorySocketPath(environment: [String: String]) -> String? {
        guard let directory = environment[runtimeDirectoryVariable], directory.hasPrefix("/") else { return nil }
        return (directory.hasSuffix("/") ? directory : directory + "/") + runtimeDirectorySocketName
    }

    /// Where a client looks for the daemon, in order (docs/protocol.md, "Connecting"): `--socket` if given,
    /// else $GESTURED_SOCKET if set, alone: a path the user named is never traded for another daemon's.
    /// Otherwise the user's own daemon, `$XDG_RUNTIME_DIR/gestured.sock`, then the system's,
    /// /run/gestured/gestured.sock; a client goes on to the next when nothing is at the first or nothing
    /// listens there (a stale socket left by a daemon that died).
    public static func socketPaths(option: String?, environment: [String: String]) -> [String] {
        if let option, !option.isEmpty { return [option] }
        if let env = environment[socketEnvironmentVariable], !env.isEmpty { return [env] }
        return (runtimeDirectorySocketPath(environment: environment).map { [$0] } ?? []) + [defaultSocketPath]
    }
}

/// Where a device's input comes from.
public enum DeviceSource: String, Equatable, Sendable, CaseIterable {
    /// A kernel input device read through libevdev.
    case evdev
    /// A recording replayed by `gestured --replay`.
    case replay
}

/// How the screen is turned as the user sees it, set at run time on top of a device's configured geometry
/// (the `orientation` request): the degrees the user turned the device clockwise from its natural
/// position, the display following so its content stays upright. iio-sensor-proxy's names: `normal` is 0,
/// `left-up` (the device's left edge up) 90, `bottom-up` 180, `right-up` 270.
public enum DeviceOrientation: Int, Equatable, Sendable, CaseIterable {
    case normal = 0
    case clockwise90 = 90
    case upsideDown = 180
    case clockwise270 = 270

    /// "0, 90, 180 or 270", for messages.
    public static let allowedText = "0, 90, 180 or 270"
}

/// A part of an edge that is no edge zone on a device, and where it came from: "gestured.toml:12:1" for an
/// [[exclusion]] section (which holds while the focused app matches it).
public struct ExclusionInForce: Equatable, Sendable {
    public var edge: Edge
    public var from: Double
    public var to: Double
    public var source: String

    public init(edge: Edge, from: Double, to: Double, source: String) {
        self.edge = edge
        self.from = from
        self.to = to
        self.source = source
    }

    public var json: JSONValue {
        .object([("edge", .string(edge.rawValue)), ("from", .double(from)), ("to", .double(to)), ("source", .string(source))])
    }

    init?(json: JSONValue) {
        guard let edge = json["edge"]?.stringValue.flatMap(Edge.init(rawValue:)), let from = json["from"]?.doubleValue,
            let to = json["to"]?.doubleValue
        else { return nil }
        self.init(edge: edge, from: from, to: to, source: json["source"]?.stringValue ?? "")
    }
}

/// A pen the daemon found belonging with a touchscreen, for touch arbitration (`pens` of a device).
public struct PairedPen: Equatable, Sendable {
    /// How the daemon knows the pen belongs with the touchscreen.
    public enum Pairing: String, Equatable, Sendable, CaseIterable {
        /// udev gives both the same LIBINPUT_DEVICE_GROUP (as libinput groups them).
        case group
        /// Both are input devices of the same physical device in sysfs (udev gives no group to one of them).
        case parent
        /// A [[device]] section's `pen` key names the pen.
        case configuration
    }

    /// The pen's event node.
    public var path: String
    public var name: String
    public var pairedBy: Pairing

    public init(path: String, name: String, pairedBy: Pairing) {
        self.path = path
        self.name = name
        self.pairedBy = pairedBy
    }

    public var json: JSONValue {
        .object([("path", .string(path)), ("name", .string(name)), ("paired_by", .string(pairedBy.rawValue))])
    }

    init?(json: JSONValue) {
        guard let path = json["path"]?.stringValue, let pairing = json["paired_by"]?.stringValue.flatMap(Pairing.init(rawValue:))
        else { return nil }
        self.init(path: path, name: json["name"]?.stringValue ?? "", pairedBy: pairing)
    }

    /// "by its LIBINPUT_DEVICE_GROUP", for the log and `gesturectl devices`.
    public var how: String {
        switch pairedBy {
        case .group: return "same LIBINPUT_DEVICE_GROUP"
        case .parent: return "same physical device"
        case .configuration: return "named by the pen key"
        }
    }
}

/// How a replayed device's clock (a recording's timestamps, shifted pass after pass) maps onto
/// CLOCK_MONOTONIC: an event at `time` happens, on the daemon's schedule, at `offsetMicroseconds + time /
/// speed` (`replay_clock` of a device: `speed` and `offset` in seconds). A kernel device's clock is
/// CLOCK_MONOTONIC itself and has none. A client ages a replay's events exactly with it (`gesturectl bind`
/// drops what fires late), at any `--speed`.
public struct ReplayClock: Equatable, Sendable {
    public var speed: Double
    public var offsetMicroseconds: Int64

    public init(speed: Double, offsetMicroseconds: Int64) {
        self.speed = speed
        self.offsetMicroseconds = offsetMicroseconds
    }

    /// When an event at `eventTime` (µs, the replay's clock) happens, µs CLOCK_MONOTONIC; nil when that is
    /// out of range (a forged clock).
    public func monotonicMicroseconds(forEventTime eventTime: Int64) -> Int64? {
        guard speed.isFinite, speed > 0 else { return nil }
        let t = Double(offsetMicroseconds) + (Double(eventTime) / speed).rounded(.up)
        guard t.isFinite, abs(t) < 9e18 else { return nil }
        return Int64(t)
    }

    public var json: JSONValue {
        .object([("speed", .double(speed)), ("offset", .number(GestureEventJSON.seconds(offsetMicroseconds)))])
    }

    init?(json: JSONValue) {
        guard let speed = json["speed"]?.doubleValue, speed.isFinite, speed > 0, case .number(let text)? = json["offset"],
            let offset = GestureEventDecoding.microseconds(fromSeconds: text)
        else { return nil }
        self.init(speed: speed, offsetMicroseconds: offset)
    }
}

/// Whether a touchscreen makes no gestures while its pen is near (`pen_arbitration` of the device).
public enum PenArbitrationSetting: String, Equatable, Sendable {
    case on, off
}

/// What the daemon tells clients about one device (in `hello`, `devices` replies and notifications).
public struct DeviceInfo: Equatable, Sendable {
    /// Unique while the daemon runs: the kernel name for evdev devices (`event5`), `replay1`, … for
    /// replays. Gesture events name their device by this id.
    public var id: String
    /// The device's name as the kernel (or the recording) gives it.
    public var name: String
    /// "vvvv:pppp", lower-case hex.
    public var vendorProduct: String
    /// The device node (`/dev/input/event5`) or the recording file.
    public var path: String?
    public var source: DeviceSource
    /// Touch slots (most fingers tracked at once); 1 for a single-touch device.
    public var slots: Int
    /// The orientation set at run time (`orientation` request); `.normal` until one is set, and again
    /// whenever the device is added.
    public var orientation: DeviceOrientation
    /// For a device in passthrough: the node of its virtual copy (`/dev/input/event9`), which the
    /// compositor reads instead of the grabbed panel. Absent otherwise.
    public var virtualPath: String?
    /// For a device in passthrough whose configuration asks for a virtual pointer (touch that points): the
    /// pointer's node. Absent otherwise.
    public var pointerPath: String?
    /// What the device's touches do for the focused app now (`pointer` and [[pointer]] sections), while it
    /// has a pointer; private to the seat's audience, as it follows the focused app.
    public var pointerMode: PointerMode?
    /// The output (connector name, "DSI-1") the touchscreen belongs to: its `WL_OUTPUT` udev property, the
    /// convention libinput and compositors follow. Absent when unset (and for replays).
    public var output: String?
    /// The panel's physical size in use (in its own axes) and where it came from; absent from daemons
    /// that do not say.
    public var size: PanelSize?
    /// The focused app's app_id as the daemon was last told (`focus` request); absent when none is known.
    public var focusedApp: String?
    /// The parts of the device's edges that are no edge zone now, each with where it came from; absent
    /// when there are none.
    public var exclusions: [ExclusionInForce] = []
    /// Touch arbitration with pens (`pen_arbitration`); absent from daemons that do not say, and for
    /// replays.
    public var penArbitration: PenArbitrationSetting?
    /// The pens found belonging with the device while arbitration is on, and how each was found.
    public var pens: [PairedPen] = []
    /// The screen as the user sees it now and the edge zones in force on it (what `gesturectl plot --socket`
    /// draws); absent from daemons that do not say.
    public var edgeZones: EdgeZonesInForce?
    /// For a replay: how its clock maps onto CLOCK_MONOTONIC (`ReplayClock`); nil for a kernel device.
    public var replayClock: ReplayClock?
    /// The seat the touchscreen belongs to (udev's `ID_SEAT`, seat0 when unset, as logind assigns it): whose
    /// session is active there decides who may see its app touches. On the wire only when it is not seat0.
    public var seat: String = DeviceInfo.defaultSeat

    /// The seat of a device udev names none for.
    public static let defaultSeat = "seat0"

    public init(
        id: String, name: String, vendorProduct: String, path: String?, source: DeviceSource, slots: Int,
        orientation: DeviceOrientation = .normal, virtualPath: String? = nil, output: String? = nil,
        size: PanelSize? = nil
    ) {
        self.id = id
        self.name = name
        self.vendorProduct = vendorProduct
        self.path = path
        self.source = source
        self.slots = slots
        self.orientation = orientation
        self.virtualPath = virtualPath
        self.output = output
        self.size = size
    }

    /// The device as a client that may not see its seat's private details sees it: the fields declared
    /// public here and no other, so a field added to a device is private until it is declared here. Left
    /// out: the focused app (what the seat's user is doing), the exclusions (which follow the focused app,
    /// and name the clients that keep them) and the pointer's mode (which follows the focused app).
    public var publicView: DeviceInfo {
        var view = DeviceInfo(
            id: id, name: name, vendorProduct: vendorProduct, path: path, source: source, slots: slots, orientation: orientation,
            virtualPath: virtualPath, output: output, size: size)
        view.penArbitration = penArbitration
        view.pens = pens
        view.seat = seat
        view.replayClock = replayClock
        // The screen and its zones are the configuration's and the orientation's, public as the size is.
        view.edgeZones = edgeZones
        // The virtual pointer's node is the configuration's, public as the copy's is.
        view.pointerPath = pointerPath
        return view
    }

    /// Whether `selector` names this device: its id, its name or its "vvvv:pppp" (as subscription
    /// filters and `orientation` requests name devices).
    public func isNamed(by selector: String) -> Bool {
        selector == id || selector == name || selector == vendorProduct
    }

    public var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("id", .string(id)), ("name", .string(name)), ("vendor_product", .string(vendorProduct)),
        ]
        if let path { members.append(("path", .string(path))) }
        members.append(("source", .string(source.rawValue)))
        members.append(("slots", .integer(slots)))
        members.append(("orientation", .integer(orientation.rawValue)))
        if let virtualPath { members.append(("virtual_path", .string(virtualPath))) }
        if let pointerPath { members.append(("pointer_path", .string(pointerPath))) }
        if let pointerMode { members.append(("pointer_mode", .string(pointerMode.rawValue))) }
        if let output { members.append(("output", .string(output))) }
        if let size {
            members.append(("size_mm", .object([("width", .double(size.widthMM)), ("height", .double(size.heightMM))])))
            members.append(("size_source", .string(size.source.rawValue)))
        }
        if let focusedApp { members.append(("focused_app", .string(focusedApp))) }
        if !exclusions.isEmpty { members.append(("exclusions", .array(exclusions.map(\.json)))) }
        if let penArbitration { members.append(("pen_arbitration", .string(penArbitration.rawValue))) }
        if !pens.isEmpty { members.append(("pens", .array(pens.map(\.json)))) }
        if seat != DeviceInfo.defaultSeat { members.append(("seat", .string(seat))) }
        if let edgeZones { members += edgeZones.members }
        if let replayClock { members.append(("replay_clock", replayClock.json)) }
        return .object(members)
    }

    /// Reads a device object; unknown keys are ignored (fields may be added), missing ones are errors.
    public init(json: JSONValue) throws(ProtocolDecodingError) {
        guard case .object = json else { throw ProtocolDecodingError("device is \(json.typeNameWithArticle), not an object") }
        guard let id = json["id"]?.stringValue else { throw ProtocolDecodingError("device has no string \"id\"") }
        guard let name = json["name"]?.stringValue else {
            throw ProtocolDecodingError("device \(id) has no string \"name\"")
        }
        self.id = id
        self.name = name
        self.vendorProduct = json["vendor_product"]?.stringValue ?? "0000:0000"
        self.path = json["path"]?.stringValue
        self.source = json["source"]?.stringValue.flatMap(DeviceSource.init(rawValue:)) ?? .evdev
        self.slots = json["slots"]?.intValue ?? 1
        // A daemon older than the `orientation` request sends none: its devices are never turned.
        self.orientation = json["orientation"]?.intValue.flatMap(DeviceOrientation.init(rawValue:)) ?? .normal
        self.virtualPath = json["virtual_path"]?.stringValue
        self.pointerPath = json["pointer_path"]?.stringValue
        self.pointerMode = json["pointer_mode"]?.stringValue.flatMap(PointerMode.init(rawValue:))
        self.output = json["output"]?.stringValue
        if let width = json["size_mm"]?["width"]?.doubleValue, let height = json["size_mm"]?["height"]?.doubleValue,
            let source = json["size_source"]?.stringValue.flatMap(PanelSize.Source.init(rawValue:))
        {
            self.size = PanelSize(widthMM: width, heightMM: height, source: source)
        } else {
            self.size = nil
        }
        self.focusedApp = json["focused_app"]?.stringValue
        self.exclusions = (json["exclusions"]?.arrayValue ?? []).compactMap(ExclusionInForce.init(json:))
        self.penArbitration = json["pen_arbitration"]?.stringValue.flatMap(PenArbitrationSetting.init(rawValue:))
        self.pens = (json["pens"]?.arrayValue ?? []).compactMap(PairedPen.init(json:))
        self.seat = json["seat"]?.stringValue ?? DeviceInfo.defaultSeat
        self.replayClock = json["replay_clock"].flatMap(ReplayClock.init(json:))
        self.edgeZones = EdgeZonesInForce(json: json)
    }
}

/// The screen as the user sees it now (after the configured rotation and calibration and the orientation
/// set at run time) and its edge zones in force: `screen_mm`, `edge_zones_mm` (the width of each side's
/// zone whose side is on; a side that is off is absent) and `corner_swipes` in a device object.
public struct EdgeZonesInForce: Equatable, Sendable {
    public var screenWidthMM: Double
    public var screenHeightMM: Double
    /// Each side's zone width, nil for a side that is off.
    public var left: Double?
    public var right: Double?
    public var top: Double?
    public var bottom: Double?
    /// Whether corner swipes are on (where two sides' zones meet).
    public var cornerSwipes: Bool

    public init(
        screenWidthMM: Double, screenHeightMM: Double, left: Double?, right: Double?, top: Double?, bottom: Double?, cornerSwipes: Bool
    ) {
        self.screenWidthMM = screenWidthMM
        self.screenHeightMM = screenHeightMM
        self.left = left
        self.right = right
        self.top = top
        self.bottom = bottom
        self.cornerSwipes = cornerSwipes
    }

    /// A side's zone width, nil when the side is off (or for a corner).
    public subscript(edge: Edge) -> Double? {
        switch edge {
        case .left: return left
        case .right: return right
        case .top: return top
        case .bottom: return bottom
        case .topLeft, .topRight, .bottomLeft, .bottomRight: return nil
        }
    }

    var members: [(key: String, value: JSONValue)] {
        var zones: [(key: String, value: JSONValue)] = []
        for edge in Edge.sides { if let w = self[edge] { zones.append((edge.rawValue, .double(w))) } }
        return [
            ("screen_mm", .object([("width", .double(screenWidthMM)), ("height", .double(screenHeightMM))])),
            ("edge_zones_mm", .object(zones)),
            ("corner_swipes", .bool(cornerSwipes)),
        ]
    }

    /// Read from a device object; nil when it has no `screen_mm` (an older daemon).
    init?(json: JSONValue) {
        guard let width = json["screen_mm"]?["width"]?.doubleValue, let height = json["screen_mm"]?["height"]?.doubleValue,
            width.isFinite, height.isFinite, width > 0, height > 0
        else { return nil }
        let zones = json["edge_zones_mm"]
        func side(_ edge: Edge) -> Double? { zones?[edge.rawValue]?.doubleValue.flatMap { $0.isFinite && $0 > 0 ? $0 : nil } }
        self.init(
            screenWidthMM: width, screenHeightMM: height, left: side(.left), right: side(.right), top: side(.top), bottom: side(.bottom),
            cornerSwipes: json["corner_swipes"]?.boolValue ?? false)
    }
}

/// A panel's physical size, as the daemon uses it for every millimetre threshold.
public struct PanelSize: Equatable, Sendable, CustomStringConvertible {
    /// Where the size came from.
    public enum Source: String, Equatable, Sendable {
        /// The axes' resolution, as the kernel reports it.
        case resolution
        /// The configuration (panel_width_mm and panel_height_mm, or panel_diagonal_inches).
        case configuration
        /// Neither: a typical diagonal is assumed (set the size in the configuration).
        case assumed
    }

    public var widthMM: Double
    public var heightMM: Double
    public var source: Source

    public init(widthMM: Double, heightMM: Double, source: Source) {
        self.widthMM = widthMM
        self.heightMM = heightMM
        self.source = source
    }

    /// "596 x 334 mm (from the axis resolution)".
    public var description: String {
        let from: String
        switch source {
        case .resolution: from = "from the axis resolution"
        case .configuration: from = "configured"
        case .assumed: from = "assumed: no axis resolution and none configured"
        }
        return "\(Int(widthMM.rounded())) x \(Int(heightMM.rounded())) mm (\(from))"
    }
}

/// A message from the daemon a client could not make sense of.
public struct ProtocolDecodingError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Which gestures a subscribed client receives. A nil set means "all"; a gesture is delivered when it
/// passes every set. The decision is made on a gesture's `begin` and holds for all its events, so a
/// client always sees whole gestures: `begin`, its `update`s (unless `updates` is false), then `end` or
/// `cancel`.
public struct SubscriptionFilter: Equatable, Sendable {
    public var kinds: Set<GestureKind>?
    /// Edges an edge swipe must start from; other kinds are not affected.
    public var edges: Set<Edge>?
    /// Finger counts, as the `begin` event reports them.
    public var fingers: Set<Int>?
    /// Device ids, names or "vvvv:pppp" values; a device matching any of them passes.
    public var devices: Set<String>?
    /// Whether to receive `update` events (begin, end and cancel always come).
    public var updates: Bool
    /// Whether to receive app touches (one-finger taps, holds and pans away from the edge zones in force:
    /// an app's input), the `app_touches` key; false unless asked. They come only to a client that may see
    /// them (`AppTouchAccess`, which `hello` and `subscribed` carry).
    public var appTouches: Bool
    /// Whether to receive `explanation` messages: each touch sequence on the devices `devices` accepts,
    /// explained (docs/protocol.md, "Explanations"). They show app touches too, so only clients that may
    /// see app touches get them; the `subscribed` reply's filter says whether this one does.
    public var explanations: Bool

    public init(
        kinds: Set<GestureKind>? = nil, edges: Set<Edge>? = nil, fingers: Set<Int>? = nil,
        devices: Set<String>? = nil, updates: Bool = true, appTouches: Bool = false, explanations: Bool = false
    ) {
        self.kinds = kinds
        self.edges = edges
        self.fingers = fingers
        self.devices = devices
        self.updates = updates
        self.appTouches = appTouches
        self.explanations = explanations
    }

    /// Everything, updates and app touches included (app touches only where the client may see them).
    public static let all = SubscriptionFilter(appTouches: true)

    public func accepts(device: DeviceInfo) -> Bool {
        guard let devices else { return true }
        return devices.contains(where: device.isNamed(by:))
    }

    /// Whether a gesture that begins with `event` on `device` is delivered.
    public func acceptsGesture(beginning event: GestureEvent, on device: DeviceInfo) -> Bool {
        if let kinds, !kinds.contains(event.kind) { return false }
        if let edges, event.kind.declares(EventFields.edge) {
            guard let edge = event.edge, edges.contains(edge) else { return false }
        }
        if let fingers, !fingers.contains(event.fingers) { return false }
        return accepts(device: device)
    }

    /// The filter as the members of a `subscribe` request (and of the `subscribed` reply).
    public var jsonMembers: [(key: String, value: JSONValue)] {
        var members: [(key: String, value: JSONValue)] = []
        if let kinds {
            members.append(("kinds", .array(GestureKind.allCases.filter(kinds.contains).map { .string($0.rawValue) })))
        }
        if let edges {
            members.append(("edges", .array(Edge.allCases.filter(edges.contains).map { .string($0.rawValue) })))
        }
        if let fingers { members.append(("fingers", .array(fingers.sorted().map { .integer($0) }))) }
        if let devices { members.append(("devices", .array(devices.sorted().map { .string($0) }))) }
        members.append(("updates", .bool(updates)))
        // Only when asked, so a client that does not ask still talks to a daemon older than the key.
        if appTouches { members.append(("app_touches", .bool(true))) }
        if explanations { members.append(("explanations", .bool(true))) }
        return members
    }
}
