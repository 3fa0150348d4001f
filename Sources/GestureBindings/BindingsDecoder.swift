import GestureConfig
import GestureVocabulary
import PlainText

// How a bindings file's TOML tree becomes bindings: each key of a [[binding]] section decoded on its own,
// then the rules of the whole section; every problem collected with its file:line:column.

/// The keys of a [[binding]] section that are no event field, in the order docs/bindings.md lists them; the
/// fields' keys (`edge`, `taps`, ...) come from the kinds' declarations and go after `fingers`.
let fixedBindingKeys = [
    "name", "gesture", "fingers", "region", "region_mm",
    "device", "committed", "app", "on", "progress", "distance_mm", "scale", "held_seconds", "command", "shell", "keys",
    "if_running", "max_per_second",
]

/// The fields that bindings match, of `kinds`, each once, in the kinds' order.
func matchableFields(of kinds: [GestureKind]) -> [EventField] {
    var fields: [EventField] = []
    for kind in kinds {
        for f in kind.fields where f.binding != nil && !fields.contains(f) && !fixedBindingKeys.contains(f.name) { fields.append(f) }
    }
    return fields
}

extension BindingsFile {
    /// Every key of a [[binding]] section when bindings may name `kinds`, in the order docs/bindings.md
    /// lists them: the fields' keys after `fingers`.
    public static func keys(for kinds: [GestureKind] = GestureKind.allCases) -> [String] { bindingKeys(for: kinds) }
}

/// Every key of a [[binding]] section for `kinds`.
func bindingKeys(for kinds: [GestureKind]) -> [String] {
    Array(fixedBindingKeys[..<3]) + matchableFields(of: kinds).map(\.name) + fixedBindingKeys[3...]
}

/// How a message names a kind's gestures: "edge swipes".
func plural(_ kind: GestureKind) -> String {
    kind.rawValue.replacingHyphens + "s"
}

extension String {
    fileprivate var replacingHyphens: String { String(map { $0 == "-" ? " " : $0 }) }
}

extension BindingsDecoder {
    /// Chords one binding types at most.
    static let maximumChords = 32
    /// The longest hold a `held_seconds` binding waits for.
    static let maximumHeldSeconds = 600.0
}

/// Turns the TOML tree into bindings, collecting every problem.
struct BindingsDecoder {
    let file: String
    let keyNames: (any KeyNameChecking)?
    /// The kinds a binding may name, and whose fields are keys.
    let kinds: [GestureKind]
    private(set) var diagnostics: [ConfigDiagnostic] = []

    init(file: String, keyNames: (any KeyNameChecking)?, kinds: [GestureKind]) {
        self.file = file
        self.keyNames = keyNames
        self.kinds = kinds
        fields = matchableFields(of: kinds)
        keys = bindingKeys(for: kinds)
    }

    /// The fields of `kinds` that are keys, and every key.
    private let fields: [EventField]
    private let keys: [String]

    static func decode(
        _ root: TOMLValue, fileName: String, keyNames: (any KeyNameChecking)?, kinds: [GestureKind] = GestureKind.allCases
    ) throws(ConfigError) -> BindingsFile {
        var decoder = BindingsDecoder(file: fileName, keyNames: keyNames, kinds: kinds)
        let bindings = decoder.decodeRoot(root)
        if !decoder.diagnostics.isEmpty {
            throw ConfigError.inSourceOrder(decoder.diagnostics)
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
                let where_ = keys.contains(member.key) ? "; \(member.key) belongs in a [[binding]] section" : suggestion.map { "; did you mean [[\($0)]]?" } ?? "; a bindings file has only [[binding]] sections"
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
    /// `hints` say what a word people use for something else means here ("swipe"). Nil when any item is
    /// wrong (each reported).
    private mutating func names<T: RawRepresentable & Hashable>(
        _ member: TOMLMember, path: String, what: String, allowed: [T], hints: [String: String] = [:]
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
        var wrong = false
        for (s, position) in items {
            if let value = allowed.first(where: { $0.rawValue == s }) {
                set.insert(value)
                continue
            }
            wrong = true
            if let hint = hints[s.lowercased()] {
                error(position, path, "\(quoted(s)) is not \(what); \(hint)")
            } else if let suggestion = closestName(s, among: names) {
                error(position, path, "\(quoted(s)) is not \(what); did you mean \(quoted(suggestion))?")
            } else {
                error(position, path, "\(quoted(s)) is not \(what); one of: \(names.joined(separator: ", "))")
            }
        }
        return wrong ? nil : set
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

    /// What a `[[binding]]` section says, gathered key by key before the whole-section rules.
    private struct Section {
        var binding: Binding
        let position: SourcePosition
        let prefix: String
        /// Where each key was written.
        var positions: [String: SourcePosition] = [:]
        var command: BindingCommand?
        var on: String?
        var thresholds: [(String, BindingThreshold)] = []
        var heldSeconds: Double?
        var committedSet = false
    }

    private mutating func decodeBinding(_ element: TOMLValue, index: Int) -> Binding? {
        let prefix = "binding[\(index)]"
        guard case .table(let members) = element.kind else {
            error(element.position, prefix, "expected a [[binding]] table, got \(element.described)")
            return nil
        }
        let errorsBefore = diagnostics.count
        var section = Section(
            binding: Binding(index: index, location: ConfigLocation(file: file, element.position), command: .argv([])),
            position: element.position, prefix: prefix)
        section.binding.knownKinds = kinds
        for member in members {
            section.positions[member.key] = member.keyPosition
            decodeKey(member, path: "\(prefix).\(member.key)", into: &section)
        }
        checkAction(&section)
        decideTrigger(&section)
        checkKinds(section, errorsBefore: errorsBefore)
        return diagnostics.count == errorsBefore ? section.binding : nil
    }

    /// Gestures people call by another name, and what they mean here.
    private static let gestureHints = [
        "swipe": "did you mean \"edge-swipe\" (from an edge of the screen) or \"pan\" (a swipe anywhere, with direction)?",
        "drag": "did you mean \"pan\"?", "long-press": "did you mean \"hold\"?", "longpress": "did you mean \"hold\"?",
        "press": "did you mean \"hold\"?", "zoom": "did you mean \"pinch\"?", "scroll": "did you mean \"pan\"?",
    ]

    private mutating func decodeKey(_ member: TOMLMember, path: String, into section: inout Section) {
        let v = member.value
        switch member.key {
        case "name":
            guard case .string(let s) = v.kind, !s.isEmpty else {
                error(member.keyPosition, path, "expected a non-empty string (how log lines name the binding), got \(v.described)")
                return
            }
            if refusingNUL(s, at: member.keyPosition, path: path, what: "the name (GESTURE_BINDING)") { section.binding.name = s }
        case "gesture":
            section.binding.kinds = names(
                member, path: path, what: "a gesture kind", allowed: kinds, hints: Self.gestureHints)
        case "fingers": section.binding.fingers = decodeFingers(member, path: path)
        case "region", "region_mm":
            if section.binding.region != nil {
                error(member.keyPosition, path, "a binding has one region: region (fractions of the screen) or region_mm, not both")
            } else {
                section.binding.region = decodeRegion(member, path: path, millimetres: member.key == "region_mm")
            }
        case "device":
            guard case .string(let s) = v.kind, !s.isEmpty else {
                error(member.keyPosition, path, "expected a glob on the device's name or id (see `gesturectl devices`), got \(v.described)")
                return
            }
            if let problem = Glob.problem(in: s) {
                error(member.keyPosition, path, "is not a valid glob: \(problem)")
            } else {
                section.binding.device = s
            }
        case "app": section.binding.apps = decodeApps(member, path: path)
        case "keys": if let chords = decodeKeys(member, path: path) { section.command = .keys(chords) }
        case "committed":
            section.committedSet = true
            switch v.kind {
            case .boolean(let flag): section.binding.committed = flag ? .committed : .notCommitted
            case .string("any"): section.binding.committed = .any
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
                return
            }
            section.on = s
        case "progress":
            if let d = number(v), d > 0, d <= 1 { section.thresholds.append((member.key, .progress(d))) } else {
                error(member.keyPosition, path, "expected a fraction of the screen above 0 and at most 1, got \(v.described)")
            }
        case "distance_mm":
            if let d = number(v), d > 0, d <= 2000 { section.thresholds.append((member.key, .distanceMM(d))) } else {
                error(member.keyPosition, path, "expected a distance above 0 and at most 2000 (mm), got \(v.described)")
            }
        case "scale":
            if let d = number(v), d > 0, d != 1, d <= 100 { section.thresholds.append((member.key, .scale(d))) } else {
                error(member.keyPosition, path, "expected a pinch scale above 0 other than 1 (above 1 spreads, below 1 pinches in), got \(v.described)")
            }
        case "held_seconds":
            if let d = number(v), d > 0, d <= BindingsDecoder.maximumHeldSeconds { section.heldSeconds = d } else {
                error(
                    member.keyPosition, path,
                    "expected the seconds the fingers must be down, from the landing, above 0 and at most \(formatNumber(BindingsDecoder.maximumHeldSeconds)), got \(v.described)")
            }
        case "command": if let argv = decodeArgv(member, path: path) { section.command = .argv(argv) }
        case "shell":
            if case .string(let s) = v.kind, !s.isEmpty {
                if refusingNUL(s, at: member.keyPosition, path: path, what: "the command line") { section.command = .shell(s) }
            } else {
                error(member.keyPosition, path, "expected a shell command line (run by /bin/sh -c), got \(v.described)")
            }
        case "if_running":
            if case .string(let s) = v.kind, let p = OverlapPolicy(rawValue: s) { section.binding.ifRunning = p } else {
                error(member.keyPosition, path, "expected \"skip\" (the default), \"parallel\" or \"queue\", got \(v.described)")
            }
        case "max_per_second":
            if case .integer(let i) = v.kind, (1...1000).contains(i) { section.binding.maxPerSecond = Int(i) } else {
                error(member.keyPosition, path, "expected a whole number of firings from 1 to 1000, got \(v.described)")
            }
        default:
            if let field = fields.first(where: { $0.name == member.key }) {
                if let accepted = decodeCondition(member, path: path, on: field) {
                    section.binding.fieldConditions.append(FieldCondition(field: field, accepted: accepted))
                }
            } else if let c = closest(to: member.key, among: keys) {
                error(member.keyPosition, path, "unknown key in a [[binding]] section; did you mean \(c)?")
            } else {
                error(member.keyPosition, path, "unknown key in a [[binding]] section; allowed here: \(keys.joined(separator: ", "))")
            }
        }
    }

    /// A condition on an event field, as the field's declaration says its key is written.
    private mutating func decodeCondition(_ member: TOMLMember, path: String, on field: EventField) -> FieldCondition.Accepted? {
        let v = member.value
        switch field.binding {
        case .edges?:
            return names(member, path: path, what: "an edge or corner", allowed: Edge.allCases).map { .edges($0) }
        case .directions?:
            return names(member, path: path, what: "a direction", allowed: SwipeDirection.allCases).map { .directions($0) }
        case .integer(let range)?:
            if case .integer(let i) = v.kind, i >= range.lowerBound, i <= range.upperBound { return .integer(Int(i)) }
            let what = field.text.countNoun.map { "a number of\($0)" } ?? "a whole number"
            error(member.keyPosition, path, "expected \(what) from \(range.lowerBound) to \(range.upperBound), got \(v.described)")
        case .range(let range)?:
            if case .array(let e) = v.kind, e.count == 2, let lo = number(e[0]), let hi = number(e[1]),
                range.lowerBound <= lo, lo <= hi, hi <= range.upperBound
            {
                return .range(lo...hi)
            }
            let low = formatNumber(range.lowerBound), high = formatNumber(range.upperBound)
            error(member.keyPosition, path, "expected a range [from, to] with \(low) <= from <= to <= \(high) (\(field.meaning)), got \(v.described)")
        case .flag?:
            if case .boolean(let b) = v.kind { return .flag(b) }
            error(member.keyPosition, path, "expected true or false, got \(v.described)")
        case nil:
            break
        }
        return nil
    }

    /// False (with an error) when `s` holds a NUL byte: an argument or variable handed to exec ends at the
    /// first NUL, so what ran would not be what the file says.
    private mutating func refusingNUL(_ s: String, at position: SourcePosition, path: String, what: String) -> Bool {
        guard s.utf8.contains(0) else { return true }
        error(position, path, "\(what) contains a NUL byte (\\u0000), which would cut it short when it runs: \(quoted(s))")
        return false
    }

    private mutating func decodeFingers(_ member: TOMLMember, path: String) -> ClosedRange<Int>? {
        switch member.value.kind {
        case .integer(let i) where (1...20).contains(i):
            return Int(i)...Int(i)
        case .array(let e) where e.count == 2:
            if case .integer(let lo) = e[0].kind, case .integer(let hi) = e[1].kind, (1...20).contains(lo), (1...20).contains(hi), lo <= hi {
                return Int(lo)...Int(hi)
            }
            error(member.keyPosition, path, "a range of finger counts is [min, max] with 1 <= min <= max <= 20, got [\(e[0].described), \(e[1].described)]")
        default:
            error(member.keyPosition, path, "expected a finger count from 1 to 20, or a range [min, max] such as [2, 3], got \(member.value.described)")
        }
        return nil
    }

    /// `region = [x_from, y_from, x_to, y_to]`, fractions of the screen; `region_mm` the same in millimetres.
    private mutating func decodeRegion(_ member: TOMLMember, path: String, millimetres: Bool) -> BindingRegion? {
        let limit = millimetres ? 2000.0 : 1.0
        if case .array(let e) = member.value.kind, e.count == 4 {
            let n = e.compactMap(number)
            if n.count == 4, n.allSatisfy({ 0 <= $0 && $0 <= limit }), n[0] < n[2], n[1] < n[3] {
                return millimetres ? .millimetres(x: n[0]...n[2], y: n[1]...n[3]) : .normalized(x: n[0]...n[2], y: n[1]...n[3])
            }
        }
        let example = millimetres ? "[0, 0, 15, 15] for the top-left 15 mm" : "[0.9, 0, 1, 0.1] for the top-right corner"
        error(
            member.keyPosition, path,
            "expected a rectangle [x_from, y_from, x_to, y_to] with 0 <= from < to <= \(formatNumber(limit))"
                + "\(millimetres ? " (mm from the top-left corner)" : " (fractions of the screen from the top-left corner)"), such as \(example), got \(member.value.described)")
        return nil
    }

    private mutating func decodeApps(_ member: TOMLMember, path: String) -> [String]? {
        var globs: [(String, SourcePosition)] = []
        switch member.value.kind {
        case .string(let s): globs = [(s, member.keyPosition)]
        case .array(let elements) where !elements.isEmpty:
            for e in elements {
                if case .string(let s) = e.kind { globs.append((s, e.position)) } else {
                    error(e.position, path, "expected app_id globs as strings, got \(e.described)")
                }
            }
        default:
            error(member.keyPosition, path, "expected a glob on the focused app's app_id (such as \"firefox\" or \"org.gnome.*\"), or a list of them, got \(member.value.described)")
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
        return !apps.isEmpty && apps.count == globs.count ? apps : nil
    }

    private mutating func decodeKeys(_ member: TOMLMember, path: String) -> [KeyChord]? {
        var texts: [(String, SourcePosition)] = []
        switch member.value.kind {
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
            error(member.keyPosition, path, "expected a chord such as \"alt+Left\", \"super+2\" or \"XF86Back\", or a list of them typed in order, got \(member.value.described)")
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
        return !chords.isEmpty && chords.count == texts.count ? chords : nil
    }

    private mutating func decodeArgv(_ member: TOMLMember, path: String) -> [String]? {
        switch member.value.kind {
        case .array(let elements) where !elements.isEmpty:
            var argv: [String] = []
            var usable = true
            for (i, e) in elements.enumerated() {
                guard case .string(let s) = e.kind else {
                    error(e.position, path, "expected the program and its arguments as strings, got \(e.described)")
                    usable = false
                    continue
                }
                usable = refusingNUL(s, at: e.position, path: path, what: i == 0 ? "the program name" : "argument \(i)") && usable
                argv.append(s)
            }
            guard usable else { return nil }
            if argv[0].isEmpty {
                error(member.keyPosition, path, "the program name (the first element) is empty")
                return nil
            }
            return argv
        case .string(let s):
            error(
                member.keyPosition, path,
                "a string is run by a shell: write shell = \(quoted(s)), or command = [\(s.split(separator: " ").map { quoted(String($0)) }.joined(separator: ", "))] to run it without one")
        default:
            error(member.keyPosition, path, "expected the program and its arguments, such as [\"notify-send\", \"swiped\"], got \(member.value.described)")
        }
        return nil
    }

    // MARK: Whole-section rules

    /// One of command, shell and keys: the second written is the one in excess.
    private mutating func checkAction(_ section: inout Section) {
        let positions = section.positions
        let actions = ["command", "shell", "keys"].filter { positions[$0] != nil }.sorted { positions[$0]! < positions[$1]! }
        if actions.count > 1 {
            error(
                positions[actions[1]]!, "\(section.prefix).\(actions[1])",
                "a binding has one of command (run directly), shell (run by /bin/sh -c) or keys (typed), not \(actions[0]) and \(actions[1])")
        } else if actions.isEmpty {
            error(section.position, section.prefix, "has nothing to do: add command = [\"program\", \"arg\"], shell = \"command line\" or keys = \"alt+Left\"")
        }
        if let command = section.command { section.binding.command = command }
    }

    /// When it fires: `on`, a threshold's value or held_seconds, and the keys that go only with some of them.
    private mutating func decideTrigger(_ section: inout Section) {
        let prefix = section.prefix
        let positions = section.positions
        if let held = section.heldSeconds {
            if let on = section.on {
                error(positions["on"]!, "\(prefix).on", "held_seconds fires while the hold lasts; it goes without on (this binding says on = \(quoted(on)))")
            } else if let (key, _) = section.thresholds.first {
                error(positions[key]!, "\(prefix).\(key)", "\(key) is a threshold; a held_seconds binding waits for time, not for a value")
            } else {
                section.binding.trigger = .held(seconds: held)
            }
        } else {
            let thresholds = section.thresholds
            switch section.on ?? (thresholds.isEmpty ? "end" : "threshold") {
            case "begin": section.binding.trigger = .begin
            case "end": section.binding.trigger = .end
            default:
                if thresholds.count == 1 {
                    section.binding.trigger = .threshold(thresholds[0].1)
                } else if thresholds.isEmpty {
                    error(positions["on"] ?? section.position, "\(prefix).on", "on = \"threshold\" needs the value to pass: progress, distance_mm or scale")
                } else {
                    error(positions[thresholds[1].0] ?? section.position, "\(prefix).\(thresholds[1].0)", "a threshold binding waits for one value; it already has \(thresholds[0].0)")
                }
            }
            if let on = section.on, on != "threshold", let (key, _) = thresholds.first {
                error(positions[key]!, "\(prefix).\(key)", "\(key) is a threshold: it needs on = \"threshold\" (this binding fires on \(on))")
            }
        }
        let b = section.binding
        if section.committedSet, b.trigger != .end {
            error(positions["committed"]!, "\(prefix).committed", "only an end is committed or not; this binding fires on \(b.trigger.name)")
        }
        for c in b.fieldConditions where c.field.place == .atEnd && b.trigger != .end {
            let owner = kinds.first { $0.declares(c.field) }.map { "a \($0.rawValue.replacingHyphens)'s" } ?? "the"
            error(
                positions[c.field.name]!, "\(prefix).\(c.field.name)",
                "\(owner) \(c.field.name) is known at its end only; this binding fires on \(b.trigger.name)")
        }
        if b.taps != nil, case .threshold = b.trigger {
            error(positions["taps"]!, "\(prefix).taps", "taps do not move: a threshold binding never fires for them")
        }
    }

    /// Keys that cannot all hold at once: the binding would never fire.
    private mutating func checkKinds(_ section: Section, errorsBefore: Int) {
        let b = section.binding
        if let named = b.kinds {
            for (key, having) in requirements where section.positions[key] != nil && named.isDisjoint(with: having) {
                let who = having.map(\.rawValue).sorted().joined(separator: " and ")
                error(
                    section.positions[key]!, "\(section.prefix).\(key)",
                    "only \(who) gestures have \(key); this binding is for \(named.map(\.rawValue).sorted().joined(separator: ", "))")
            }
        }
        if b.possibleKinds.isEmpty, diagnostics.count == errorsBefore {
            error(
                section.position, section.prefix,
                "no gesture has all of these keys (\(whichKindsHave)): it would never fire")
        }
    }

    /// Which kinds each key that narrows the kind belongs to: the fields' keys, from the kinds'
    /// declarations, then the keys that are no field.
    private var requirements: [(String, Set<GestureKind>)] {
        fields.map { f in (f.name, Set(kinds.filter { $0.declares(f) })) }
            + [("region", [.tap, .hold]), ("region_mm", [.tap, .hold]), ("held_seconds", [.hold])]
    }

    /// "edge and edge_position are on edge swipes, start_edge and direction on pans, taps on taps, region
    /// on taps and holds, held_seconds on holds".
    private var whichKindsHave: String {
        var groups: [(keys: [String], kinds: [GestureKind])] = []
        for (key, having) in requirements where key != "region_mm" {
            let ordered = kinds.filter(having.contains)
            if let i = groups.firstIndex(where: { $0.kinds == ordered }) { groups[i].keys.append(key) } else { groups.append(([key], ordered)) }
        }
        return groups.enumerated().map { i, g in
            let keys = g.keys.count == 1 ? g.keys[0] : g.keys.dropLast().joined(separator: ", ") + " and " + g.keys.last!
            let verb = i == 0 ? (g.keys.count == 1 ? " is on " : " are on ") : " on "
            return keys + verb + g.kinds.map(plural).joined(separator: " and ")
        }.joined(separator: ", ")
    }
}
