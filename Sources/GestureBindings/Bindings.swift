import GestureConfig
import GestureProtocol
import GestureVocabulary
import PlainText

// The bindings file of `gesturectl bind` (~/.config/gestured/bindings.toml): which gestures run which
// commands. Read with the same TOML reader and the same error messages (file:line:column, the key, did you
// mean) as gestured.toml; docs/bindings.md documents every key.

/// When a binding fires.
public enum BindingTrigger: Equatable, Sendable {
    /// When the gesture is recognized (its `begin` event).
    case begin
    /// When the gesture ends (its `end` event; a cancelled gesture never fires).
    case end
    /// Once per gesture, on the first event at which the value is passed.
    case threshold(BindingThreshold)
    /// Holds (`held_seconds`): once the fingers have been down this many seconds, counted from the landing
    /// (the begin's `down_seconds` says how long they already were), if they have not lifted by then.
    /// gesturectl keeps the time; the daemon sends nothing while a hold rests.
    case held(seconds: Double)

    public var name: String {
        switch self {
        case .begin: return "begin"
        case .end: return "end"
        case .threshold: return "threshold"
        case .held: return "held_seconds"
        }
    }
}

/// Where on the screen a tap or hold must be (`region`, `region_mm`): the fingers' centre at the event
/// that fires the binding, with x from the left and y from the top of the screen as the user sees it.
public enum BindingRegion: Equatable, Sendable {
    /// Fractions of the screen's width and height, 0 to 1.
    case normalized(x: ClosedRange<Double>, y: ClosedRange<Double>)
    /// Millimetres.
    case millimetres(x: ClosedRange<Double>, y: ClosedRange<Double>)

    public func contains(_ e: GestureEvent) -> Bool {
        switch self {
        case .normalized(let x, let y): return x.contains(e.position.x) && y.contains(e.position.y)
        case .millimetres(let x, let y): return x.contains(e.positionMM.x) && y.contains(e.positionMM.y)
        }
    }

    var isMillimetres: Bool {
        if case .millimetres = self { return true }
        return false
    }

    var described: String {
        switch self {
        case .normalized(let x, let y): return "region x \(formatNumber(x.lowerBound))-\(formatNumber(x.upperBound)), y \(formatNumber(y.lowerBound))-\(formatNumber(y.upperBound))"
        case .millimetres(let x, let y):
            return "region x \(formatNumber(x.lowerBound))-\(formatNumber(x.upperBound)) mm, y \(formatNumber(y.lowerBound))-\(formatNumber(y.upperBound)) mm"
        }
    }
}

/// What an `on = "threshold"` binding waits for.
public enum BindingThreshold: Equatable, Sendable {
    /// Edge swipes: `progress` at or past the value (0...1).
    case progress(Double)
    /// Any gesture: the fingers' centroid moved at least this far from where they landed, millimetres.
    case distanceMM(Double)
    /// Pinches: `scale` at or past the value: at or above it when it is above 1, at or below it when below.
    case scale(Double)

    /// Whether `event` has passed the threshold.
    public func isPassed(by event: GestureEvent) -> Bool {
        switch self {
        case .progress(let p): return (event.progress ?? 0) >= p
        case .distanceMM(let d): return event.translationMM.length >= d
        case .scale(let s):
            guard let scale = event.scale else { return false }
            return s >= 1 ? scale >= s : scale <= s
        }
    }
}

/// A binding's condition on one field its gesture's kind declares (EventFields.swift), written under the
/// field's key: `edge = "left"`, `taps = 2`, `edge_position = [0, 0.5]`. What a key accepts follows from the
/// field's declaration (`EventField.BindingMatch`).
public struct FieldCondition: Equatable, Sendable {
    public enum Accepted: Equatable, Sendable {
        case edges(Set<Edge>)
        case directions(Set<SwipeDirection>)
        case integer(Int)
        case range(ClosedRange<Double>)
        case flag(Bool)
    }

    public var field: EventField
    public var accepted: Accepted

    public init(field: EventField, accepted: Accepted) {
        self.field = field
        self.accepted = accepted
    }

    /// Whether the event's value passes; an event without the field never does.
    public func accepts(_ value: EventFieldValue?) -> Bool {
        switch (accepted, value) {
        case (.edges(let set), .edge(let v)?): return set.contains(v)
        case (.directions(let set), .direction(let v)?): return set.contains(v)
        case (.integer(let n), .integer(let v)?): return n == v
        case (.range(let r), .number(let v)?): return r.contains(v)
        case (.range(let r), .integer(let v)?): return r.contains(Double(v))
        case (.flag(let b), .flag(let v)?): return b == v
        default: return false
        }
    }

    /// For `--check`: "edge left|right", "edge_position 0-0.5", "2 taps".
    var described: String {
        switch accepted {
        case .edges(let set): return "\(field.name) " + set.map(\.rawValue).sorted().joined(separator: "|")
        case .directions(let set): return "\(field.name) " + set.map(\.rawValue).sorted().joined(separator: "|")
        case .integer(let n):
            if case .count(let singular, let plural) = field.text { return "\(n)\(n == 1 ? singular : plural)" }
            return "\(field.name) \(n)"
        case .range(let r): return "\(field.name) \(formatNumber(r.lowerBound))-\(formatNumber(r.upperBound))"
        case .flag(let b): return "\(field.name) \(b)"
        }
    }
}

/// What a binding does: runs a command, or types keys.
public enum BindingCommand: Equatable, Sendable {
    /// `command = ["prog", "arg", ...]`: executed directly (PATH is searched for the program), no shell.
    case argv([String])
    /// `shell = "..."`: run by `/bin/sh -c`.
    case shell(String)
    /// `keys = "alt+Left"` or a list of chords: typed into the focused app through the compositor's
    /// virtual keyboard, in order; no process is started.
    case keys([KeyChord])

    /// The argument vector to execute; empty for keys, which start no process.
    public var arguments: [String] {
        switch self {
        case .argv(let a): return a
        case .shell(let s): return ["/bin/sh", "-c", s]
        case .keys: return []
        }
    }

    public var described: String {
        switch self {
        case .argv(let a): return a.map { $0.contains(" ") || $0.isEmpty ? quoted($0) : escapingControlCharacters($0) }.joined(separator: " ")
        case .shell(let s): return "sh -c \(quoted(s))"
        case .keys(let chords): return "keys " + chords.map { escapingControlCharacters($0.described) }.joined(separator: ", ")
        }
    }

    /// The chords, when the binding types keys.
    public var chords: [KeyChord]? {
        if case .keys(let c) = self { return c }
        return nil
    }
}

/// What happens when a binding fires while its previous command still runs.
public enum OverlapPolicy: String, CaseIterable, Equatable, Sendable {
    /// The new firing is dropped (with a log line). The default: a gesture made twice by mistake does not
    /// open two keyboards.
    case skip
    /// The new command starts anyway, beside the running one.
    case parallel
    /// The new command starts when the running one (and those queued before it) exit.
    case queue
}

/// Which `end` events an `on = "end"` binding accepts.
public enum CommittedRequirement: String, Equatable, Sendable {
    case committed, notCommitted = "not-committed", any
}

/// One `[[binding]]` section.
public struct Binding: Equatable, Sendable {
    /// 1-based position among the file's bindings.
    public var index: Int
    public var location: ConfigLocation
    public var name: String?

    public var kinds: Set<GestureKind>?
    public var fingers: ClosedRange<Int>?
    /// Conditions on the fields the gesture's kind declares, in the file's order.
    public var fieldConditions: [FieldCondition] = []
    /// The kinds the file was read against: gestured's (`GestureKind.allCases`), or more (a kind added from
    /// outside, docs/architecture.md).
    public var knownKinds: [GestureKind] = GestureKind.allCases
    /// Where a tap or hold must be.
    public var region: BindingRegion?
    /// Glob on the device's name or id.
    public var device: String?
    /// Globs on the focused app's app_id (`app`); nil matches whatever is focused, or nothing.
    public var apps: [String]?
    public var committed: CommittedRequirement = .committed
    public var trigger: BindingTrigger = .end

    public var command: BindingCommand
    public var ifRunning: OverlapPolicy = .skip
    /// Firings allowed within any one second; more are dropped with a log line.
    public var maxPerSecond: Int = Binding.defaultMaxPerSecond

    public static let defaultMaxPerSecond = 10

    public init(index: Int, location: ConfigLocation, command: BindingCommand) {
        self.index = index
        self.location = location
        self.command = command
    }

    /// The condition on `field`, if the binding has one.
    public func condition(on field: EventField) -> FieldCondition.Accepted? {
        fieldConditions.first { $0.field == field }?.accepted
    }

    /// The edges the condition on `field` (an edge field: `edge`, `start_edge`) accepts, if it has one.
    private func edgeCondition(on field: EventField) -> Set<Edge>? {
        if case .edges(let set)? = condition(on: field) { return set }
        return nil
    }

    /// The edges an edge swipe must come from (`edge`).
    public var edges: Set<Edge>? { edgeCondition(on: EventFields.edge) }
    /// Where along its edge (`edge_position`).
    public var edgePosition: ClosedRange<Double>? {
        if case .range(let r)? = condition(on: EventFields.edgePosition) { return r }
        return nil
    }
    /// The edge zone a pan started in (`start_edge`).
    public var startEdges: Set<Edge>? { edgeCondition(on: EventFields.startEdge) }
    /// The direction a pan ended in (`direction`).
    public var directions: Set<SwipeDirection>? {
        if case .directions(let set)? = condition(on: EventFields.direction) { return set }
        return nil
    }
    /// The taps of a tap (`taps`).
    public var taps: Int? {
        if case .integer(let n)? = condition(on: EventFields.taps) { return n }
        return nil
    }

    /// How log lines name it: its `name`, else "binding N (file:line)".
    public var label: String {
        if let name { return name }
        return "binding \(index) (\(location))"
    }

    /// The kinds of gesture this binding can match: its `gesture` key, else what its other keys imply (a
    /// field's key only the kinds that declare the field: `edge` and `edge_position` edge swipes, `taps`
    /// taps, `direction` and `start_edge` pans), else every kind.
    public var possibleKinds: Set<GestureKind> {
        if let kinds { return kinds }
        var implied = Set(knownKinds)
        for c in fieldConditions { implied = implied.filter { $0.declares(c.field) } }
        if region != nil { implied.formIntersection([.tap, .hold]) }
        if case .held = trigger { implied.formIntersection([.hold]) }
        if case .threshold(.progress) = trigger { implied.formIntersection([.edgeSwipe]) }
        if case .threshold(.scale) = trigger { implied.formIntersection([.pinch]) }
        return implied
    }

    /// Whether the binding can match an app touch: a gesture whose kind's audience (`KindAudience`, its
    /// descriptor's) may be the seat's for the fingers and edges the binding takes, which the daemon sends
    /// only to clients that may see it. A gesture with `start_edge` landed in an edge zone, so it is public.
    public var mayMatchAppTouches: Bool {
        possibleKinds.contains { kind in
            switch kind.descriptor.audience {
            case .everyone: return false
            case .seat: return true
            case .byLanding:
                guard fingers?.contains(1) ?? true else { return false }
                return !(startEdges != nil && kind.declares(EventFields.startEdge))
            }
        }
    }

    /// What a client that may not see app touches (`access` denied) should know about this binding: a
    /// `region` binding cannot match (its taps and holds come only to those who may see app touches,
    /// unless they land in an edge zone), another one-finger binding matches only touches that land in an
    /// edge zone. Nil when app touches come, or the binding does not need them.
    public func appTouchNote(_ access: AppTouchAccess) -> String? {
        guard !access.isGranted, mayMatchAppTouches else { return nil }
        let why = access.description
        if region != nil {
            return "\(escapingControlCharacters(label)) cannot match: its region's taps and holds are app touches, "
                + "which the daemon does not send this user (\(why))"
        }
        return "\(escapingControlCharacters(label)) matches only one-finger touches that land in an edge zone: "
            + "the others are app touches, which the daemon does not send this user (\(why))"
    }

    /// Whether the device, by name or id, is one this binding accepts.
    public func acceptsDevice(id: String?, name: String?) -> Bool {
        guard let device else { return true }
        let glob = Glob(device, pathname: false)
        return (id.map(glob.matches) ?? false) || (name.map(glob.matches) ?? false)
    }

    /// Whether the focused app is one this binding accepts. A binding with `app` never matches when the
    /// focused app is unknown (no compositor, or one without wlr-foreign-toplevel-management) or when
    /// nothing is focused.
    public func acceptsApp(_ app: FocusedApp) -> Bool {
        guard let apps else { return true }
        guard case .app(let id) = app else { return false }
        return apps.contains { Glob($0, pathname: false).matches(id) }
    }

    /// Whether the event's fields match this binding (the phase is the matcher's business). Fields the
    /// event does not carry never match a binding that asks for them.
    public func matchesFields(of e: GestureEvent, deviceID: String?, deviceName: String?, app: FocusedApp = .unknown) -> Bool {
        guard acceptsApp(app) else { return false }
        guard possibleKinds.contains(e.kind) else { return false }
        if let fingers, !fingers.contains(e.fingers) { return false }
        for c in fieldConditions where !c.accepts(e[c.field]) { return false }
        if let region, !region.contains(e) { return false }
        return acceptsDevice(id: deviceID, name: deviceName)
    }

    /// One line for `--check` and the log: what it matches and what it runs.
    public var summary: String {
        var parts: [String] = []
        let possible = possibleKinds
        parts.append(
            possible.count == knownKinds.count
                ? "any gesture" : possible.map(\.rawValue).sorted().joined(separator: "|"))
        if let fingers { parts.append(fingers.lowerBound == fingers.upperBound ? "\(fingers.lowerBound) finger\(fingers.lowerBound == 1 ? "" : "s")" : "\(fingers.lowerBound)-\(fingers.upperBound) fingers") }
        for c in fieldConditions { parts.append(c.described) }
        if let region { parts.append(region.described) }
        if let device { parts.append("device \(quoted(device))") }
        if let apps { parts.append("app " + apps.map(quoted).joined(separator: "|")) }
        switch trigger {
        case .begin: parts.append("on begin")
        case .end: parts.append("on end" + (committed == .committed ? "" : " (\(committed.rawValue))"))
        case .threshold(.progress(let p)): parts.append("at progress \(formatNumber(p))")
        case .threshold(.distanceMM(let d)): parts.append("at \(formatNumber(d)) mm")
        case .threshold(.scale(let s)): parts.append("at scale \(formatNumber(s))")
        case .held(let seconds): parts.append("held \(formatNumber(seconds)) s from the landing")
        }
        // What the file says is shown escaped, each value where it is put in (names and arguments quoted or
        // escaped, backslashes too): a name or an argument cannot drive the terminal, start a line or read
        // as another.
        return escapingControlCharacters(label) + ": " + parts.joined(separator: ", ") + " -> " + command.described
    }
}

/// A loaded bindings file.
public struct BindingsFile: Equatable, Sendable {
    public var path: String
    public var bindings: [Binding]

    public init(path: String, bindings: [Binding]) {
        self.path = path
        self.bindings = bindings
    }

    /// Where `gesturectl bind` looks without `--bindings`: $XDG_CONFIG_HOME/gestured/bindings.toml when
    /// XDG_CONFIG_HOME is set to an absolute path, else ~/.config/gestured/bindings.toml.
    public static func defaultPath(environment: [String: String]) -> String? {
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") { return xdg + "/gestured/bindings.toml" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.config/gestured/bindings.toml" }
        return nil
    }

    /// Reads a bindings file. `keyNames` checks the key names of `keys` (gesturectl passes libxkbcommon's);
    /// without it only their syntax is checked.
    /// `example` is where the example bindings file is installed, for the hint when the file is missing.
    /// `kinds`: the kinds a binding may name, whose fields are keys (gestured's; a test adds its own).
    public static func load(
        path: String, keyNames: (any KeyNameChecking)? = nil, example: String? = nil, kinds: [GestureKind] = GestureKind.allCases
    ) throws(ConfigError) -> BindingsFile {
        let tree = try TOMLDocument.read(path: path, describingFileError: { $0.replacingConfiguration(example: example) })
        return try BindingsDecoder.decode(tree, fileName: path, keyNames: keyNames, kinds: kinds)
    }

    public static func parse(
        text: String, fileName: String, keyNames: (any KeyNameChecking)? = nil, kinds: [GestureKind] = GestureKind.allCases
    ) throws(ConfigError) -> BindingsFile {
        try BindingsDecoder.decode(try TOMLDocument.parse(text: text, fileName: fileName), fileName: fileName, keyNames: keyNames, kinds: kinds)
    }

    /// The bindings with `app`, which match only with a compositor that says which app is focused.
    public var appBindings: [Binding] { bindings.filter { $0.apps != nil } }

    /// The bindings with `keys`, which need the compositor's virtual keyboard.
    public var keyBindings: [Binding] { bindings.filter { $0.command.chords != nil } }

    /// The narrowest subscription that still delivers every event a binding can fire on: only the kinds
    /// (and, for edge swipes, the edges) some binding can match, finger counts when every binding names
    /// them, and updates only when a threshold binding needs them.
    public var subscriptionFilter: SubscriptionFilter {
        var filter = SubscriptionFilter(updates: false)
        var kinds = Set<GestureKind>()
        var edges = Set<Edge>()
        var everyEdge = false
        var fingers = Set<Int>()
        var everyFingerCount = false
        for b in bindings {
            let possible = b.possibleKinds
            kinds.formUnion(possible)
            if possible.contains(where: { $0.declares(EventFields.edge) }) {
                if let e = b.edges { edges.formUnion(e) } else { everyEdge = true }
            }
            if let f = b.fingers { fingers.formUnion(f) } else { everyFingerCount = true }
            if case .threshold = b.trigger { filter.updates = true }
        }
        filter.kinds = kinds.count == GestureKind.allCases.count ? nil : kinds
        filter.edges = everyEdge || !kinds.contains(where: { $0.declares(EventFields.edge) }) ? nil : edges
        filter.fingers = everyFingerCount ? nil : fingers
        filter.appTouches = needsAppTouches
        return filter
    }

    /// The notes for the bindings that need app touches when `access` says none come (empty when they
    /// come, or no binding needs them).
    public func appTouchNotes(_ access: AppTouchAccess) -> [String] {
        bindings.compactMap { $0.appTouchNote(access) }
    }

    /// Whether some binding can match an app touch (the subscription asks for them then).
    public var needsAppTouches: Bool { bindings.contains(where: \.mayMatchAppTouches) }

    /// `gesturectl bind --check`'s report.
    public var summary: String {
        var lines = ["\(escapingControlCharacters(path)): OK, \(bindings.count) binding\(bindings.count == 1 ? "" : "s")"]
        for b in bindings { lines.append("  " + b.summary) }
        return lines.joined(separator: "\n")
    }
}

extension String {
    /// ConfigFile's messages speak of "the configuration"; here it is the bindings file.
    fileprivate func replacingConfiguration(example: String?) -> String {
        var s = self
        let copy = example.map { "copy the example bindings file, \($0), there" }
            ?? "copy the example bindings file (bindings.toml in gestured's documentation, /usr/share/doc/gestured or /usr/local/share/doc/gestured) there"
        for (from, to) in [
            ("; check the path, or install the default config/gestured.toml there", "; check the path, or \(copy)"),
            ("the daemon's user needs read permission", "your user needs read permission"),
            ("the configuration file", "the bindings file"),
            ("the configuration", "the bindings file"),
        ] {
            s = s.replacingEvery(from, with: to)
        }
        return s
    }

    /// Every `target` replaced with `replacement`, compared byte by byte (UTF-8). Not the standard
    /// library's `replacing(_:with:)`: that is _StringProcessing's, which the daemon does not link
    /// (docs/architecture.md, "Memory").
    fileprivate func replacingEvery(_ target: String, with replacement: String) -> String {
        let bytes = Array(utf8)
        let needle = Array(target.utf8)
        guard !needle.isEmpty else { return self }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if i + needle.count <= bytes.count && bytes[i..<(i + needle.count)].elementsEqual(needle) {
                result += replacement.utf8
                i += needle.count
            } else {
                result.append(bytes[i])
                i += 1
            }
        }
        return String(decoding: result, as: UTF8.self)
    }
}

