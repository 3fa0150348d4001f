import GestureCore
import GestureProtocol
import GestureVocabulary

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

    public var name: String {
        switch self {
        case .begin: return "begin"
        case .end: return "end"
        case .threshold: return "threshold"
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
        case .argv(let a): return a.map { $0.contains(" ") || $0.isEmpty ? quoted($0) : $0 }.joined(separator: " ")
        case .shell(let s): return "sh -c \(quoted(s))"
        case .keys(let chords): return "keys " + chords.map(\.described).joined(separator: ", ")
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
    public var edges: Set<Edge>?
    public var edgePosition: ClosedRange<Double>?
    public var startEdges: Set<Edge>?
    public var directions: Set<SwipeDirection>?
    public var taps: Int?
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

    /// How log lines name it: its `name`, else "binding N (file:line)".
    public var label: String {
        if let name { return name }
        return "binding \(index) (\(location))"
    }

    /// The kinds of gesture this binding can match: its `gesture` key, else what its other keys imply
    /// (`edge` and `edge_position` exist only on edge swipes, `taps` on taps, `direction` and `start_edge`
    /// on pans), else every kind.
    public var possibleKinds: Set<GestureKind> {
        if let kinds { return kinds }
        var implied = Set(GestureKind.allCases)
        if edges != nil || edgePosition != nil { implied.formIntersection([.edgeSwipe]) }
        if taps != nil { implied.formIntersection([.tap]) }
        if directions != nil || startEdges != nil { implied.formIntersection([.pan]) }
        if case .threshold(.progress) = trigger { implied.formIntersection([.edgeSwipe]) }
        if case .threshold(.scale) = trigger { implied.formIntersection([.pinch]) }
        return implied
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
        if let edges {
            guard let edge = e.edge, edges.contains(edge) else { return false }
        }
        if let edgePosition {
            guard let p = e.edgePosition, edgePosition.contains(p) else { return false }
        }
        if let startEdges {
            guard let s = e.startEdge, startEdges.contains(s) else { return false }
        }
        if let directions {
            guard let d = e.direction, directions.contains(d) else { return false }
        }
        if let taps {
            guard e.taps == taps else { return false }
        }
        return acceptsDevice(id: deviceID, name: deviceName)
    }

    /// One line for `--check` and the log: what it matches and what it runs.
    public var summary: String {
        var parts: [String] = []
        let possible = possibleKinds
        parts.append(
            possible.count == GestureKind.allCases.count
                ? "any gesture" : possible.map(\.rawValue).sorted().joined(separator: "|"))
        if let fingers { parts.append(fingers.lowerBound == fingers.upperBound ? "\(fingers.lowerBound) finger\(fingers.lowerBound == 1 ? "" : "s")" : "\(fingers.lowerBound)-\(fingers.upperBound) fingers") }
        if let edges { parts.append("edge " + edges.map(\.rawValue).sorted().joined(separator: "|")) }
        if let edgePosition { parts.append("edge_position \(formatNumber(edgePosition.lowerBound))-\(formatNumber(edgePosition.upperBound))") }
        if let startEdges { parts.append("start_edge " + startEdges.map(\.rawValue).sorted().joined(separator: "|")) }
        if let directions { parts.append("direction " + directions.map(\.rawValue).sorted().joined(separator: "|")) }
        if let taps { parts.append("\(taps) tap\(taps == 1 ? "" : "s")") }
        if let device { parts.append("device \(quoted(device))") }
        if let apps { parts.append("app " + apps.map(quoted).joined(separator: "|")) }
        switch trigger {
        case .begin: parts.append("on begin")
        case .end: parts.append("on end" + (committed == .committed ? "" : " (\(committed.rawValue))"))
        case .threshold(.progress(let p)): parts.append("at progress \(formatNumber(p))")
        case .threshold(.distanceMM(let d)): parts.append("at \(formatNumber(d)) mm")
        case .threshold(.scale(let s)): parts.append("at scale \(formatNumber(s))")
        }
        return "\(label): " + parts.joined(separator: ", ") + " -> " + command.described
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
    public static func load(path: String, keyNames: (any KeyNameChecking)? = nil) throws(ConfigError) -> BindingsFile {
        let tree = try TOMLDocument.read(path: path, describingFileError: { $0.replacingConfiguration() })
        return try BindingsDecoder.decode(tree, fileName: path, keyNames: keyNames)
    }

    public static func parse(text: String, fileName: String, keyNames: (any KeyNameChecking)? = nil) throws(ConfigError) -> BindingsFile {
        try BindingsDecoder.decode(try TOMLDocument.parse(text: text, fileName: fileName), fileName: fileName, keyNames: keyNames)
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
            if possible.contains(.edgeSwipe) {
                if let e = b.edges { edges.formUnion(e) } else { everyEdge = true }
            }
            if let f = b.fingers { fingers.formUnion(f) } else { everyFingerCount = true }
            if case .threshold = b.trigger { filter.updates = true }
        }
        filter.kinds = kinds.count == GestureKind.allCases.count ? nil : kinds
        filter.edges = everyEdge || !kinds.contains(.edgeSwipe) ? nil : edges
        filter.fingers = everyFingerCount ? nil : fingers
        return filter
    }

    /// `gesturectl bind --check`'s report.
    public var summary: String {
        var lines = ["\(path): OK, \(bindings.count) binding\(bindings.count == 1 ? "" : "s")"]
        for b in bindings { lines.append("  " + b.summary) }
        return lines.joined(separator: "\n")
    }
}

extension String {
    /// ConfigFile's messages speak of "the configuration"; here it is the bindings file.
    fileprivate func replacingConfiguration() -> String {
        var s = self
        for (from, to) in [
            ("; check the path, or install the default config/gestured.toml there",
             "; check the path, or copy the example bindings file (config/bindings.toml) there"),
            ("the daemon's user needs read permission", "your user needs read permission"),
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

/// The keys of a [[binding]] section, in the order docs/bindings.md lists them.
let bindingKeys = [
    "name", "gesture", "fingers", "edge", "edge_position", "start_edge", "direction", "taps", "device", "committed",
    "app", "on", "progress", "distance_mm", "scale", "command", "shell", "keys", "if_running", "max_per_second",
]

extension BindingsDecoder {
    /// Chords one binding types at most.
    static let maximumChords = 32
}

/// Turns the TOML tree into bindings, collecting every problem.
struct BindingsDecoder {
    let file: String
    let keyNames: (any KeyNameChecking)?
    private(set) var diagnostics: [ConfigDiagnostic] = []

    static func decode(_ root: TOMLValue, fileName: String, keyNames: (any KeyNameChecking)?) throws(ConfigError) -> BindingsFile {
        var decoder = BindingsDecoder(file: fileName, keyNames: keyNames)
        let bindings = decoder.decodeRoot(root)
        if !decoder.diagnostics.isEmpty {
            let sorted = decoder.diagnostics.enumerated().sorted { a, b in
                let pa = (a.element.location.line ?? 0, a.element.location.column ?? 0)
                let pb = (b.element.location.line ?? 0, b.element.location.column ?? 0)
                return pa != pb ? pa < pb : a.offset < b.offset
            }
            throw ConfigError(diagnostics: sorted.map(\.element))
        }
        return BindingsFile(path: fileName, bindings: bindings)
    }

    private mutating func error(_ position: SourcePosition, _ keyPath: String?, _ message: String) {
        diagnostics.append(ConfigDiagnostic(location: ConfigLocation(file: file, position), keyPath: keyPath, message: message))
    }

    private mutating func decodeRoot(_ root: TOMLValue) -> [Binding] {
        guard case .table(let members) = root.kind else { return [] }
        var bindings: [Binding] = []
        for member in members {
            guard member.key == "binding" else {
                let suggestion = closest(to: member.key, among: ["binding"])
                let where_ = bindingKeys.contains(member.key) ? "; \(member.key) belongs in a [[binding]] section" : suggestion.map { "; did you mean [[\($0)]]?" } ?? "; a bindings file has only [[binding]] sections"
                error(member.keyPosition, member.key, "unknown \(isTable(member.value) ? "table" : "key") at the top level\(where_)")
                continue
            }
            guard case .array(let elements) = member.value.kind else {
                error(member.keyPosition, "binding", "bindings are an array of tables: write [[binding]], not [binding]")
                continue
            }
            for element in elements {
                if let b = decodeBinding(element, index: bindings.count + 1) { bindings.append(b) } else {
                    bindings.append(Binding(index: bindings.count + 1, location: ConfigLocation(file: file, element.position), command: .argv([])))
                }
            }
        }
        return bindings
    }

    private func isTable(_ v: TOMLValue) -> Bool {
        if case .table = v.kind { return true }
        return false
    }

    /// A string or an array of strings, each one of `allowed` (by raw value).
    private mutating func names<T: RawRepresentable & Hashable>(
        _ member: TOMLMember, path: String, what: String, allowed: [T]
    ) -> Set<T>? where T.RawValue == String {
        var items: [(String, SourcePosition)] = []
        switch member.value.kind {
        case .string(let s): items = [(s, member.keyPosition)]
        case .array(let elements) where !elements.isEmpty:
            for e in elements {
                guard case .string(let s) = e.kind else {
                    error(e.position, path, "expected \(what) names as strings, got \(e.described)")
                    return nil
                }
                items.append((s, e.position))
            }
        default:
            error(member.keyPosition, path, "expected \(what) (a string, or an array of them), got \(member.value.described)")
            return nil
        }
        var set = Set<T>()
        let names = allowed.map(\.rawValue)
        for (s, position) in items {
            if let value = T(rawValue: s) {
                set.insert(value)
            } else if let suggestion = closestName(s, among: names) {
                error(position, path, "\(quoted(s)) is not \(what); did you mean \(quoted(suggestion))?")
            } else {
                error(position, path, "\(quoted(s)) is not \(what); one of: \(names.joined(separator: ", "))")
            }
        }
        return set
    }

    /// Like `closest`, but for values spelt with hyphens ("edge-swipe", "top-left").
    private func closestName(_ s: String, among names: [String]) -> String? {
        let underscored = names.map { String($0.map { $0 == "-" ? "_" : $0 }) }
        guard let hit = closest(to: s, among: underscored), let i = underscored.firstIndex(of: hit) else { return nil }
        return names[i]
    }

    private func number(_ v: TOMLValue) -> Double? {
        switch v.kind {
        case .integer(let i): return Double(i)
        case .float(let d): return d.isFinite ? d : nil
        default: return nil
        }
    }

    private mutating func decodeBinding(_ element: TOMLValue, index: Int) -> Binding? {
        let prefix = "binding[\(index)]"
        guard case .table(let members) = element.kind else {
            error(element.position, prefix, "expected a [[binding]] table, got \(element.described)")
            return nil
        }
        let errorsBefore = diagnostics.count
        var b = Binding(index: index, location: ConfigLocation(file: file, element.position), command: .argv([]))
        var positions: [String: SourcePosition] = [:]
        var command: BindingCommand?
        var on: String?
        var thresholds: [(String, BindingThreshold)] = []
        var committedSet = false
        for member in members {
            let path = "\(prefix).\(member.key)"
            positions[member.key] = member.keyPosition
            let v = member.value
            switch member.key {
            case "name":
                guard case .string(let s) = v.kind, !s.isEmpty else {
                    error(member.keyPosition, path, "expected a non-empty string (how log lines name the binding), got \(v.described)")
                    continue
                }
                b.name = s
            case "gesture":
                b.kinds = names(member, path: path, what: "a gesture kind", allowed: GestureKind.allCases)
            case "edge":
                b.edges = names(member, path: path, what: "an edge or corner", allowed: Edge.allCases)
            case "start_edge":
                b.startEdges = names(member, path: path, what: "an edge or corner", allowed: Edge.allCases)
            case "direction":
                b.directions = names(member, path: path, what: "a direction", allowed: SwipeDirection.allCases)
            case "fingers":
                switch v.kind {
                case .integer(let i) where (1...20).contains(i):
                    b.fingers = Int(i)...Int(i)
                case .array(let e) where e.count == 2:
                    if case .integer(let lo) = e[0].kind, case .integer(let hi) = e[1].kind, (1...20).contains(lo), (1...20).contains(hi), lo <= hi {
                        b.fingers = Int(lo)...Int(hi)
                    } else {
                        error(member.keyPosition, path, "a range of finger counts is [min, max] with 1 <= min <= max <= 20, got [\(e[0].described), \(e[1].described)]")
                    }
                default:
                    error(member.keyPosition, path, "expected a finger count from 1 to 20, or a range [min, max] such as [2, 3], got \(v.described)")
                }
            case "edge_position":
                if case .array(let e) = v.kind, e.count == 2, let lo = number(e[0]), let hi = number(e[1]), 0 <= lo, lo <= hi, hi <= 1 {
                    b.edgePosition = lo...hi
                } else {
                    error(member.keyPosition, path, "expected a range [from, to] with 0 <= from <= to <= 1 (0 is the left or top end of the edge), got \(v.described)")
                }
            case "taps":
                if case .integer(let i) = v.kind, (1...10).contains(i) {
                    b.taps = Int(i)
                } else {
                    error(member.keyPosition, path, "expected a number of taps from 1 to 10, got \(v.described)")
                }
            case "device":
                guard case .string(let s) = v.kind, !s.isEmpty else {
                    error(member.keyPosition, path, "expected a glob on the device's name or id (see `gesturectl devices`), got \(v.described)")
                    continue
                }
                if let problem = Glob.problem(in: s) {
                    error(member.keyPosition, path, "is not a valid glob: \(problem)")
                } else {
                    b.device = s
                }
            case "app":
                var globs: [(String, SourcePosition)] = []
                switch v.kind {
                case .string(let s): globs = [(s, member.keyPosition)]
                case .array(let elements) where !elements.isEmpty:
                    for e in elements {
                        if case .string(let s) = e.kind { globs.append((s, e.position)) } else {
                            error(e.position, path, "expected app_id globs as strings, got \(e.described)")
                        }
                    }
                default:
                    error(member.keyPosition, path, "expected a glob on the focused app's app_id (such as \"firefox\" or \"org.gnome.*\"), or a list of them, got \(v.described)")
                }
                var apps: [String] = []
                for (glob, position) in globs {
                    if glob.isEmpty {
                        error(position, path, "an empty glob matches no app_id")
                    } else if let problem = Glob.problem(in: glob) {
                        error(position, path, "\(quoted(glob)) is not a valid glob: \(problem)")
                    } else {
                        apps.append(glob)
                    }
                }
                if !apps.isEmpty && apps.count == globs.count { b.apps = apps }
            case "keys":
                var texts: [(String, SourcePosition)] = []
                switch v.kind {
                case .string(let s): texts = [(s, member.keyPosition)]
                case .array(let elements) where !elements.isEmpty && elements.count <= BindingsDecoder.maximumChords:
                    for e in elements {
                        if case .string(let s) = e.kind { texts.append((s, e.position)) } else {
                            error(e.position, path, "expected chords such as \"alt+Left\" as strings, got \(e.described)")
                        }
                    }
                case .array(let elements) where elements.count > BindingsDecoder.maximumChords:
                    error(member.keyPosition, path, "at most \(BindingsDecoder.maximumChords) chords are typed by one binding, got \(elements.count)")
                default:
                    error(member.keyPosition, path, "expected a chord such as \"alt+Left\", \"super+2\" or \"XF86Back\", or a list of them typed in order, got \(v.described)")
                }
                var chords: [KeyChord] = []
                for (text, position) in texts {
                    switch KeyChord.parse(text) {
                    case .failure(let problem):
                        error(position, path, problem.message)
                    case .success(let chord):
                        if let keyNames, !keyNames.isKnown(chord.key) {
                            let hint = keyNames.suggestion(for: chord.key).map { "; did you mean \(quoted($0))?" } ?? ""
                            error(position, path, "\(quoted(chord.key)) is not an xkb key name (keysym)\(hint)")
                        } else {
                            chords.append(chord)
                        }
                    }
                }
                if !chords.isEmpty && chords.count == texts.count { command = .keys(chords) }
            case "committed":
                committedSet = true
                switch v.kind {
                case .boolean(let flag): b.committed = flag ? .committed : .notCommitted
                case .string("any"): b.committed = .any
                default:
                    error(member.keyPosition, path, "expected true, false or \"any\", got \(v.described)")
                }
            case "on":
                guard case .string(let s) = v.kind, ["begin", "end", "threshold"].contains(s) else {
                    let hint: String
                    if case .string(let s) = v.kind, let c = closest(to: s, among: ["begin", "end", "threshold"]) {
                        hint = "; did you mean \(quoted(c))?"
                    } else {
                        hint = ""
                    }
                    error(member.keyPosition, path, "expected \"end\" (the default), \"begin\" or \"threshold\", got \(v.described)\(hint)")
                    continue
                }
                on = s
            case "progress":
                if let d = number(v), d > 0, d <= 1 { thresholds.append((member.key, .progress(d))) } else {
                    error(member.keyPosition, path, "expected a fraction of the screen above 0 and at most 1, got \(v.described)")
                }
            case "distance_mm":
                if let d = number(v), d > 0, d <= 2000 { thresholds.append((member.key, .distanceMM(d))) } else {
                    error(member.keyPosition, path, "expected a distance above 0 and at most 2000 (mm), got \(v.described)")
                }
            case "scale":
                if let d = number(v), d > 0, d != 1, d <= 100 { thresholds.append((member.key, .scale(d))) } else {
                    error(member.keyPosition, path, "expected a pinch scale above 0 other than 1 (above 1 spreads, below 1 pinches in), got \(v.described)")
                }
            case "command":
                switch v.kind {
                case .array(let elements) where !elements.isEmpty:
                    var argv: [String] = []
                    for e in elements {
                        if case .string(let s) = e.kind { argv.append(s) } else {
                            error(e.position, path, "expected the program and its arguments as strings, got \(e.described)")
                        }
                    }
                    if argv.count == elements.count {
                        if argv[0].isEmpty {
                            error(member.keyPosition, path, "the program name (the first element) is empty")
                        } else {
                            command = .argv(argv)
                        }
                    }
                case .string(let s):
                    error(
                        member.keyPosition, path,
                        "a string is run by a shell: write shell = \(quoted(s)), or command = [\(s.split(separator: " ").map { quoted(String($0)) }.joined(separator: ", "))] to run it without one")
                default:
                    error(member.keyPosition, path, "expected the program and its arguments, such as [\"notify-send\", \"swiped\"], got \(v.described)")
                }
            case "shell":
                if case .string(let s) = v.kind, !s.isEmpty { command = .shell(s) } else {
                    error(member.keyPosition, path, "expected a shell command line (run by /bin/sh -c), got \(v.described)")
                }
            case "if_running":
                if case .string(let s) = v.kind, let p = OverlapPolicy(rawValue: s) { b.ifRunning = p } else {
                    error(member.keyPosition, path, "expected \"skip\" (the default), \"parallel\" or \"queue\", got \(v.described)")
                }
            case "max_per_second":
                if case .integer(let i) = v.kind, (1...1000).contains(i) { b.maxPerSecond = Int(i) } else {
                    error(member.keyPosition, path, "expected a whole number of firings from 1 to 1000, got \(v.described)")
                }
            default:
                if let c = closest(to: member.key, among: bindingKeys) {
                    error(member.keyPosition, path, "unknown key in a [[binding]] section; did you mean \(c)?")
                } else {
                    error(member.keyPosition, path, "unknown key in a [[binding]] section; allowed here: \(bindingKeys.joined(separator: ", "))")
                }
            }
        }
        // Whole-section rules.
        // In the order written: the second is the one in excess.
        let actions = ["command", "shell", "keys"].filter { positions[$0] != nil }.sorted {
            let (a, b) = (positions[$0]!, positions[$1]!)
            return (a.line, a.column) < (b.line, b.column)
        }
        if actions.count > 1 {
            error(
                positions[actions[1]]!, "\(prefix).\(actions[1])",
                "a binding has one of command (run directly), shell (run by /bin/sh -c) or keys (typed), not \(actions[0]) and \(actions[1])")
        } else if actions.isEmpty {
            error(element.position, prefix, "has nothing to do: add command = [\"program\", \"arg\"], shell = \"command line\" or keys = \"alt+Left\"")
        }
        if let command { b.command = command }
        switch on ?? (thresholds.isEmpty ? "end" : "threshold") {
        case "begin": b.trigger = .begin
        case "end": b.trigger = .end
        default:
            if thresholds.count == 1 {
                b.trigger = .threshold(thresholds[0].1)
            } else if thresholds.isEmpty {
                error(positions["on"] ?? element.position, "\(prefix).on", "on = \"threshold\" needs the value to pass: progress, distance_mm or scale")
            } else {
                error(positions[thresholds[1].0] ?? element.position, "\(prefix).\(thresholds[1].0)", "a threshold binding waits for one value; it already has \(thresholds[0].0)")
            }
        }
        if on != nil, on != "threshold", let (key, _) = thresholds.first {
            error(positions[key]!, "\(prefix).\(key)", "\(key) is a threshold: it needs on = \"threshold\" (this binding fires on \(on!))")
        }
        if committedSet, b.trigger != .end {
            error(positions["committed"]!, "\(prefix).committed", "only an end is committed or not; this binding fires on \(b.trigger.name)")
        }
        if b.directions != nil, b.trigger != .end {
            error(positions["direction"]!, "\(prefix).direction", "a pan's direction is known at its end only; this binding fires on \(b.trigger.name)")
        }
        if b.taps != nil, case .threshold = b.trigger {
            error(positions["taps"]!, "\(prefix).taps", "taps do not move: a threshold binding never fires for them")
        }
        // Keys that cannot all hold at once: the binding would never fire.
        if let kinds = b.kinds {
            let requirements: [(String, GestureKind)] = [
                ("edge", .edgeSwipe), ("edge_position", .edgeSwipe), ("taps", .tap), ("direction", .pan), ("start_edge", .pan),
            ]
            for (key, kind) in requirements where positions[key] != nil && !kinds.contains(kind) {
                error(positions[key]!, "\(prefix).\(key)", "only \(kind.rawValue) gestures have \(key); this binding is for \(kinds.map(\.rawValue).sorted().joined(separator: ", "))")
            }
        }
        if b.possibleKinds.isEmpty, diagnostics.count == errorsBefore {
            error(element.position, prefix, "no gesture has all of these keys (edge and edge_position are on edge swipes, taps on taps, direction and start_edge on pans): it would never fire")
        }
        return diagnostics.count == errorsBefore ? b : nil
    }
}
