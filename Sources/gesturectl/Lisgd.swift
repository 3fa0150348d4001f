// `gesturectl lisgd`: lisgd's command line (Sxmo's gesture daemon) on gestured's events. docs/lisgd.md has
// the mapping and every difference.
#if canImport(Glibc)
import Glibc
#endif
import GestureBindings
import GestureConfig
import GestureProtocol
import GestureVocabulary
import CommandLineArguments

private let lisgdUsage = """
    usage: gesturectl lisgd [-d DEVICE] [-t PX] [-T PX] [-r DEGREES] [-m MS] [-w PX] [-h PX] [-s SCALE]
                            [-o TURNS] [-v] [--socket PATH] -g FINGERS,SWIPE,EDGE,DISTANCE[,P|R],COMMAND ...

    Runs lisgd's gesture bindings on gestured's events: a drop-in for lisgd (Sxmo: replace `lisgd` with
    `gesturectl lisgd`). Each -g binds a swipe of FINGERS fingers in direction SWIPE (LR RL DU UD DLUR
    URDL ULDR DRUL) from EDGE (L R T B TL TR BL BR, N for none, * for any) of at least DISTANCE (S M L *) to
    COMMAND, run by sh -c; P fires while the fingers are down, every -T pixels, R (the default) on release.
    The first matching -g runs. docs/lisgd.md maps every option onto gestured and lists the differences.

      -d DEVICE        only gestures of this device: its node (/dev/input/eventN), a symlink to it
                       (/dev/input/by-path/…, /dev/input/by-id/…), or gestured's id or name for it
      -g SPEC          a binding (repeat for more)
      -t PX            distance a swipe must cover, in pixels (default 125)
      -T PX            distance between two firings of a pressed (P) binding, in pixels (default 60)
      -r DEGREES       how far from each of the 8 directions a swipe may be (default 15, at most 45)
      -m MS            a gesture must be done within this many milliseconds (default 800)
      -w PX            the screen's width in pixels (with -h: converts pixels to millimetres; without them
                       a pixel is taken as 0.1 mm)
      -h PX            the screen's height in pixels
      -s SCALE         accepted for lisgd's command line; the edge zones are gestured's (zone_mm)
      -o TURNS         the screen is turned by TURNS x 90 degrees (0 to 3): rotates the bindings as lisgd does
      -v               log every gesture and how it was matched
      --socket PATH    the daemon's socket (default: $GESTURED_SOCKET, else $XDG_RUNTIME_DIR/gestured.sock,
                       else \(ProtocolConstants.defaultSocketPath))

    """

/// lisgd's swipe names, with the direction each is on a screen as the user sees it (y grows downward).
enum LisgdSwipe: String, CaseIterable {
    case DU, DLUR, LR, ULDR, UD, URDL, RL, DRUL

    /// The compass angle lisgd gives the swipe: 0 for up, clockwise, 45 degrees apart.
    var degrees: Double { Double(LisgdSwipe.allCases.firstIndex(of: self)!) * 45 }

    /// Turned by 90 degrees clockwise, lisgd's `swipereorient`.
    var turned: LisgdSwipe { LisgdSwipe.allCases[(LisgdSwipe.allCases.firstIndex(of: self)! + 2) % 8] }
}

/// lisgd's edges: a side, a corner, none, or any.
enum LisgdEdge: String, CaseIterable {
    case L, R, T, B, TL, TR, BL, BR, N
    case any = "*"

    var edge: Edge? {
        switch self {
        case .L: return .left
        case .R: return .right
        case .T: return .top
        case .B: return .bottom
        case .TL: return .topLeft
        case .TR: return .topRight
        case .BL: return .bottomLeft
        case .BR: return .bottomRight
        case .N, .any: return nil
        }
    }

    /// lisgd's `edgereorient`.
    var turned: LisgdEdge {
        switch self {
        case .L: return .T
        case .R: return .B
        case .T: return .R
        case .B: return .L
        case .TL: return .TR
        case .TR: return .BR
        case .BL: return .TL
        case .BR: return .BL
        case .N, .any: return self
        }
    }

    /// lisgd's rule: a side also matches the corners at its ends; a corner only itself; N only no edge.
    func accepts(_ e: Edge?) -> Bool {
        switch self {
        case .any: return true
        case .N: return e == nil
        default:
            guard let e, let mine = edge else { return false }
            if e == mine { return true }
            if let (a, b) = e.sidesOfCorner { return mine == a || mine == b }
            return false
        }
    }
}

/// lisgd's distance classes; a binding's class matches that class and the longer ones.
enum LisgdDistance: Int, Comparable {
    case any = 0, short, medium, long

    init?(_ s: String) {
        switch s {
        case "*": self = .any
        case "S": self = .short
        case "M": self = .medium
        case "L": self = .long
        default: return nil
        }
    }

    var name: String { ["*", "S", "M", "L"][rawValue] }

    static func < (a: LisgdDistance, b: LisgdDistance) -> Bool { a.rawValue < b.rawValue }
}

struct LisgdBinding {
    var spec: String
    var fingers: Int
    var swipe: LisgdSwipe
    var edge: LisgdEdge
    var distance: LisgdDistance
    var pressed: Bool
    var command: String
}

struct LisgdOptions {
    var device: DeviceSelector?
    var threshold = 125.0
    var pressedThreshold = 60.0
    var leniency = 15.0
    var timeoutMilliseconds = 800.0
    var width: Double?
    var height: Double?
    var edgeScale = 1.0
    var orientation = 0
    var verbose = false
    var socket: String?
    var bindings: [LisgdBinding] = []

    /// Parses `-g FINGERS,SWIPE,EDGE,DISTANCE[,P|R],COMMAND`. As in lisgd, a fifth field other than P or R
    /// is the command; unlike lisgd (strtok), the command keeps any further commas.
    static func parseBinding(_ spec: String) -> Result<LisgdBinding, LisgdError> {
        var fields: [Substring] = []
        var rest = Substring(spec)
        while fields.count < 5, let comma = rest.firstIndex(of: ",") {
            fields.append(rest[..<comma])
            rest = rest[rest.index(after: comma)...]
        }
        fields.append(rest)
        func fail(_ why: String) -> Result<LisgdBinding, LisgdError> { .failure(LisgdError("-g '\(spec)': \(why)")) }
        guard fields.count >= 5 else {
            return fail("expected FINGERS,SWIPE,EDGE,DISTANCE[,P|R],COMMAND (at least 5 comma-separated fields), got \(fields.count)")
        }
        guard let fingers = Int(fields[0]), (1...20).contains(fingers) else {
            return fail("the finger count '\(fields[0])' is not a number from 1 to 20")
        }
        guard let swipe = LisgdSwipe(rawValue: String(fields[1])) else {
            return fail("the swipe '\(fields[1])' is not one of \(LisgdSwipe.allCases.map(\.rawValue).joined(separator: " "))")
        }
        guard let edge = LisgdEdge(rawValue: String(fields[2])) else {
            return fail("the edge '\(fields[2])' is not one of \(LisgdEdge.allCases.map(\.rawValue).joined(separator: " "))")
        }
        guard let distance = LisgdDistance(String(fields[3])) else {
            return fail("the distance '\(fields[3])' is not one of S M L *")
        }
        var pressed = false
        var command: Substring
        if fields.count == 6, fields[4] == "P" || fields[4] == "R" {
            pressed = fields[4] == "P"
            command = fields[5]
        } else {
            // The 5-field form: everything after the distance is the command.
            command = spec[fields[4].startIndex...]
        }
        if fields.count == 5, fields[4] == "P" || fields[4] == "R" {
            return fail("the mode '\(fields[4])' is not followed by a command")
        }
        guard !command.isEmpty else { return fail("the command is empty") }
        return .success(
            LisgdBinding(
                spec: spec, fingers: fingers, swipe: swipe, edge: edge, distance: distance, pressed: pressed,
                command: String(command)))
    }

    static func parse(_ args: [String]) -> Result<LisgdOptions, LisgdError> {
        var o = LisgdOptions()
        var arguments = Arguments(args, command: "lisgd", usage: lisgdUsage)
        do {
            _ = try arguments.parse(help: []) { (a, option) throws(UsageError) in
                if option == "-v" {
                    o.verbose = true
                    return
                }
                guard ["-d", "-g", "-t", "-T", "-r", "-m", "-w", "-h", "-s", "-o", "--socket"].contains(option) else {
                    throw UsageError("unknown option '\(option)'")
                }
                let v = try a.value(of: option, missing: "option \(option) expects a value")
                func number(_ range: ClosedRange<Double>, _ what: String) throws(UsageError) -> Double {
                    guard let d = Double(v), range.contains(d) else {
                        throw UsageError(
                            "\(option) \(v): \(what) must be a number from \(formatted(range.lowerBound)) to \(formatted(range.upperBound))")
                    }
                    return d
                }
                switch option {
                case "-d":
                    guard !v.isEmpty else {
                        throw UsageError("-d needs a device: its node (/dev/input/event5), a symlink to it (/dev/input/by-path/…), or gestured's id or name for it")
                    }
                    if let problem = DeviceSelector(v).problem { throw UsageError("-d \(v): \(problem)") }
                    o.device = DeviceSelector(v)
                case "--socket": o.socket = v
                case "-g":
                    switch parseBinding(v) {
                    case .success(let b): o.bindings.append(b)
                    case .failure(let e): throw UsageError(e.description)
                    }
                case "-t": o.threshold = try number(1...100_000, "the distance in pixels")
                case "-T": o.pressedThreshold = try number(1...100_000, "the distance in pixels")
                case "-r": o.leniency = try number(0...45, "the leniency in degrees")
                case "-m": o.timeoutMilliseconds = try number(1...3_600_000, "the time in milliseconds")
                case "-w": o.width = try number(1...100_000, "the width in pixels")
                case "-h": o.height = try number(1...100_000, "the height in pixels")
                case "-s": o.edgeScale = try number(0.01...100, "the edge scale")
                default:  // -o
                    guard let n = Int(v), (0...3).contains(n) else {
                        throw UsageError("-o \(v): the orientation must be 0, 1, 2 or 3 (quarter turns)")
                    }
                    o.orientation = n
                }
            }
        } catch {
            return .failure(LisgdError(error.message))
        }
        if (o.width == nil) != (o.height == nil) {
            return .failure(LisgdError("give both -w and -h (the screen's size in pixels), or neither"))
        }
        if o.bindings.isEmpty {
            return .failure(LisgdError("no -g bindings: gesturectl lisgd has no built-in gestures (lisgd's config.h); give them with -g"))
        }
        for _ in 0..<o.orientation {
            for j in o.bindings.indices {
                o.bindings[j].swipe = o.bindings[j].swipe.turned
                o.bindings[j].edge = o.bindings[j].edge.turned
            }
        }
        return .success(o)
    }
}

private func formatted(_ d: Double) -> String { BindingMatcher.decimal(d) }

struct LisgdError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// lisgd's matching on gestured's pans and edge swipes.
struct LisgdSource: ActionSource {
    let options: LisgdOptions
    let log: Logger

    /// Per gesture in flight: the translation (mm) and time (µs) lisgd would measure from; a pressed
    /// firing moves both, as lisgd resets its start point and clock.
    private var anchors: [String: (translation: Vector2, time: Int64)] = [:]
    /// Each device's screen size in millimetres, learnt from its events.
    private var screens: [String: Vector2] = [:]
    /// Gestures in flight for which -v has said "no -g matches".
    private var unmatched: Set<String> = []
    /// The ids of the devices -d names, as last reported (nil: not known yet).
    private var selected: Set<String>?

    init(options: LisgdOptions, log: Logger) {
        self.options = options
        self.log = log
    }

    /// Every device's gestures: -d is matched here, against the devices the daemon reports (a symlink
    /// resolved to the node the daemon reads), as devices come and go.
    var subscriptionFilter: SubscriptionFilter {
        // lisgd's swipes anywhere on the screen include one-finger pans away from the edges: app touches,
        // which come where this user may see them.
        SubscriptionFilter(
            kinds: [.pan, .edgeSwipe], fingers: Set(options.bindings.map(\.fingers)), updates: options.bindings.contains { $0.pressed },
            appTouches: options.bindings.contains { $0.fingers == 1 })
    }

    mutating func devicesChanged(_ devices: [DeviceInfo]) -> [String] {
        guard let selector = options.device else { return [] }
        let ids = Set(devices.filter(selector.matches).map(\.id))
        defer { selected = ids }
        if ids.isEmpty {
            return selected?.isEmpty == true ? [] : ["-d \(selector.text): \(selector.noMatch(among: devices)); waiting for it"]
        }
        return ids == selected ? [] : ["-d \(selector.text): \(ids.sorted().joined(separator: ", "))"]
    }

    mutating func reload() -> [String]? { nil }

    mutating func forgetGesturesInFlight() {
        anchors = [:]
        unmatched = []
    }

    /// Pixels per millimetre along x and y: from -w/-h and the screen's size, else 10 (a pixel of 0.1 mm).
    private func pixelsPerMM(_ screen: Vector2) -> Vector2 {
        if let w = options.width, let h = options.height, screen.x > 0, screen.y > 0 {
            return Vector2(w / screen.x, h / screen.y)
        }
        return Vector2(10, 10)
    }

    /// lisgd's `gesturecalculateswipe`: the direction within the leniency of one of the 8, or nil when the
    /// swipe is shorter than `minimum` pixels or between directions.
    private func swipe(_ v: Vector2, minimum: Double) -> LisgdSwipe? {
        guard v.length >= minimum else { return nil }
        var degrees = atan2(v.x, -v.y) * 180 / Double.pi
        if degrees < 0 { degrees += 360 }
        for s in LisgdSwipe.allCases where abs(degrees - s.degrees) <= options.leniency { return s }
        if abs(degrees - 360) <= options.leniency { return .DU }
        return nil
    }

    /// lisgd's `gesturecalculatedistance`: a third and two thirds of the screen's height (vertical swipes),
    /// width (horizontal) or diagonal.
    private func distance(_ v: Vector2, _ s: LisgdSwipe, screen: Vector2) -> LisgdDistance {
        let span: Double
        switch s {
        case .DU, .UD: span = screen.y
        case .LR, .RL: span = screen.x
        default: span = screen.length
        }
        let d = v.length
        return d >= span * 0.66 ? .long : d >= span * 0.33 ? .medium : .short
    }

    private func key(_ e: GestureEvent, _ device: String?) -> String { "\(device ?? "")/\(e.id)" }

    private mutating func screen(_ e: GestureEvent, device: String?) -> Vector2 {
        let id = device ?? ""
        if e.position.x > 0.05, e.position.y > 0.05 {
            let s = Vector2(e.positionMM.x / e.position.x, e.positionMM.y / e.position.y)
            screens[id] = s
            return s
        }
        return screens[id] ?? Vector2(e.positionMM.x, e.positionMM.y)
    }

    /// lisgd's own --verbose says what it did not match (below).
    func unmatched(_ event: GestureEvent, deviceID: String?, deviceName: String?) -> String? { nil }

    mutating func actions(for e: GestureEvent, deviceID: String?, deviceName: String?, happenedAt: Int64) -> [Action] {
        guard e.kind == .pan || e.kind == .edgeSwipe else { return [] }
        if options.device != nil {
            guard let deviceID, selected?.contains(deviceID) == true else { return [] }
        }
        let k = key(e, deviceID)
        if e.phase == .begin { anchors[k] = (Vector2.zero, e.timeMicroseconds) }
        guard let anchor = anchors[k] else { return [] }
        if e.phase == .cancel {
            anchors[k] = nil
            unmatched.remove(k)
            return []
        }
        let screenMM = screen(e, device: deviceID)
        let scale = pixelsPerMM(screenMM)
        let moved = e.translationMM - anchor.translation
        let v = Vector2(moved.x * scale.x, moved.y * scale.y)
        let screenPX = Vector2(screenMM.x * scale.x, screenMM.y * scale.y)
        let edge = e.kind == .edgeSwipe ? e.edge : e.startEdge
        let elapsed = Double(e.timeMicroseconds - anchor.time) / 1000
        let inTime = elapsed < options.timeoutMilliseconds

        if e.phase == .end {
            anchors[k] = nil
            defer { unmatched.remove(k) }
            guard let s = swipe(v, minimum: options.threshold) else {
                if options.verbose {
                    log.info("\(e.kind.rawValue) \(e.fingers) from \(edge?.rawValue ?? "no edge") moved \(Int(v.length)) px: no swipe (-t \(formatted(options.threshold)), -r \(formatted(options.leniency)))")
                }
                return []
            }
            let d = distance(v, s, screen: screenPX)
            guard inTime else {
                if options.verbose { log.info("\(s.rawValue) \(e.fingers) took \(Int(elapsed)) ms: longer than -m \(formatted(options.timeoutMilliseconds))") }
                return []
            }
            return fire(fingers: e.fingers, swipe: s, edge: edge, distance: d, pressed: false, event: e, deviceID: deviceID)
        }
        // begin or update: lisgd's pressed mode. lisgd checks once per motion event and, when the fingers have
        // moved -T pixels since the last firing, runs the command once and measures anew from where they
        // are: one firing per event at most, however far it moved (a panel with huge coordinates and a
        // resolution of 1 would otherwise make one event millions of firings).
        guard options.bindings.contains(where: \.pressed), let s = swipe(v, minimum: options.pressedThreshold), inTime else { return [] }
        let actions = fire(fingers: e.fingers, swipe: s, edge: edge, distance: .any, pressed: true, event: e, deviceID: deviceID)
        if !actions.isEmpty { anchors[k] = (e.translationMM, e.timeMicroseconds) }
        return actions
    }

    /// lisgd's `gestureexecute`: the first binding that matches. On release every binding is considered
    /// (a P binding too); while pressed only P bindings with distance *.
    private mutating func fire(
        fingers: Int, swipe: LisgdSwipe, edge: Edge?, distance: LisgdDistance, pressed: Bool, event: GestureEvent,
        deviceID: String?
    ) -> [Action] {
        let index = options.bindings.firstIndex { b in
            b.fingers == fingers && b.swipe == swipe && b.distance <= distance && b.edge.accepts(edge)
                && (!pressed || b.pressed)
        }
        let edgeName = LisgdEdge.allCases.first { $0.edge != nil && $0.edge == edge }?.rawValue ?? "N"
        let what = "\(pressed ? "pressed " : "")\(fingers),\(swipe.rawValue),\(edgeName),\(distance.name)"
        guard let index else {
            // Said once per gesture: a pressed check runs on every update.
            if options.verbose, !unmatched.contains(key(event, deviceID)) {
                unmatched.insert(key(event, deviceID))
                log.info("\(what): no -g matches")
            }
            return []
        }
        let b = options.bindings[index]
        if options.verbose { log.info("\(what): runs -g '\(b.spec)'") }
        var env = BindingMatcher.environment(event, deviceID: deviceID, deviceName: nil, binding: Binding(index: index + 1, location: ConfigLocation(file: "-g"), command: .shell(b.command)))
        env.removeAll { $0.hasPrefix("GESTURE_BINDING=") }
        env.append("GESTURE_BINDING=\(b.spec)")
        env.append("LISGD_SWIPE=\(swipe.rawValue)")
        return [
            Action(
                key: index, label: "-g '\(b.spec)'", arguments: ["/bin/sh", "-c", b.command], environment: env,
                ifRunning: .queue, maxPerSecond: 50)
        ]
    }
}

func runLisgd(_ args: [String]) -> Int32 {
    if args.contains("--help") {
        print(lisgdUsage, terminator: "")
        return 0
    }
    let options: LisgdOptions
    switch LisgdOptions.parse(args) {
    case .success(let o): options = o
    case .failure(let error):
        printError("gesturectl lisgd: \(error)\nRun 'gesturectl lisgd --help' for the options.\n")
        return 2
    }
    let log = Logger(prefix: "gesturectl lisgd", verbose: options.verbose)
    if options.edgeScale != 1 {
        log.info("-s \(formatted(options.edgeScale)): the edge zones are gestured's ([recognizer.edge_swipe.*] zone_mm in gestured.toml), not scaled here")
    }
    log.info("\(options.bindings.count) binding\(options.bindings.count == 1 ? "" : "s") from -g")
    return CommandRunner(source: LisgdSource(options: options, log: log), socketPath: options.socket, log: log).run()
}
