#if canImport(Glibc)
import Glibc
#endif
import GestureConfig
import GestureProtocol
import GestureVocabulary
import PlainText

/// Which app has the focus, as the compositor says (`gesturectl bind` asks it through
/// wlr-foreign-toplevel-management-unstable-v1).
public enum FocusedApp: Equatable, Sendable {
    /// Nobody can say: no compositor, or one without the protocol. Bindings with `app` never match.
    case unknown
    /// No toplevel is focused.
    case none
    /// The focused toplevel's app_id.
    case app(String)
}

/// A binding that fired: what to run and with which environment.
public struct BindingFiring: Equatable, Sendable {
    public var binding: Binding
    public var event: GestureEvent
    /// GESTURE_* variables describing the event ("GESTURE_KIND=edge-swipe", ...).
    public var environment: [String]
}

/// Decides which bindings fire for each event of the daemon, in file order: at a gesture's `begin` the
/// first `on = "begin"` binding that matches, at its `end` the first `on = "end"` binding that matches,
/// and at most once per gesture the first `on = "threshold"` binding that matches and whose value the
/// gesture has passed (on its begin, an update or its end). First match wins: write specific bindings
/// before general ones. A cancelled gesture fires nothing more. At a hold's begin the first
/// `held_seconds` binding that matches starts waiting for what is left of its time, counted from the
/// landing (the begin's `down_seconds`): the caller keeps the time (`newWaits`) and asks
/// `heldLongEnough` when it has passed; the hold's end or cancel before then ends the wait.
public struct BindingMatcher {
    public private(set) var bindings: [Binding]
    /// Gestures in flight (device id, gesture id) whose threshold binding has fired.
    private var thresholdFired: Set<GestureKey> = []
    /// Holds whose `held_seconds` binding waits for the time to pass, and the firing it will be.
    private var waiting: [GestureKey: BindingFiring] = [:]
    /// Waits started since `newWaits` was last asked.
    private var started: [(GestureKey, Double)] = []

    /// One gesture of one device.
    public struct GestureKey: Hashable, Sendable {
        public var device: String
        public var id: UInt64

        public init(device: String, id: UInt64) {
            self.device = device
            self.id = id
        }
    }

    /// Holds waited for at most at once (a hold ends or is cancelled; the oldest is dropped past this).
    public static let maximumWaitingHolds = 64

    public init(bindings: [Binding]) {
        self.bindings = bindings
    }

    /// New bindings (a reload); gestures in flight keep their "threshold already fired" state, and holds
    /// waited for still fire the binding they matched.
    public mutating func replace(_ bindings: [Binding]) {
        self.bindings = bindings
    }

    /// The connection to the daemon was lost: no gesture in flight will end, so none is waited for.
    public mutating func forgetGesturesInFlight() {
        thresholdFired.removeAll()
        waiting.removeAll()
        started.removeAll()
    }

    /// The waits started since the last call: each hold and the seconds after which to ask `heldLongEnough`.
    public mutating func newWaits() -> [(hold: GestureKey, seconds: Double)] {
        defer { started.removeAll() }
        return started.filter { waiting[$0.0] != nil }
    }

    /// The time of `hold`'s wait has passed: its firing, unless the hold ended or was cancelled before.
    public mutating func heldLongEnough(_ hold: GestureKey) -> BindingFiring? {
        waiting.removeValue(forKey: hold)
    }

    /// The bindings that fire for `event` (none, one, or a threshold binding and an end binding).
    public mutating func handle(_ event: GestureEvent, deviceID: String?, deviceName: String?, app: FocusedApp = .unknown) -> [BindingFiring] {
        let key = GestureKey(device: deviceID ?? "", id: event.id)
        var firings: [BindingFiring] = []
        func fire(_ b: Binding) {
            firings.append(
                BindingFiring(
                    binding: b, event: event,
                    environment: BindingMatcher.environment(event, deviceID: deviceID, deviceName: deviceName, binding: b, app: app)))
        }
        if event.phase == .cancel {
            thresholdFired.remove(key)
            waiting[key] = nil
            return []
        }
        if !thresholdFired.contains(key) {
            for b in bindings {
                guard case .threshold(let t) = b.trigger, t.isPassed(by: event),
                    b.matchesFields(of: event, deviceID: deviceID, deviceName: deviceName, app: app)
                else { continue }
                fire(b)
                if event.phase != .end { thresholdFired.insert(key) }
                break
            }
        }
        switch event.phase {
        case .begin:
            if let b = bindings.first(where: { $0.trigger == .begin && $0.matchesFields(of: event, deviceID: deviceID, deviceName: deviceName, app: app) }) {
                fire(b)
            }
            if event.kind == .hold, let b = bindings.first(where: { b in
                guard case .held = b.trigger else { return false }
                return b.matchesFields(of: event, deviceID: deviceID, deviceName: deviceName, app: app)
            }), case .held(let seconds) = b.trigger {
                if waiting.count >= Self.maximumWaitingHolds, let oldest = started.first?.0 ?? waiting.keys.first {
                    waiting[oldest] = nil
                }
                waiting[key] = BindingFiring(
                    binding: b, event: event,
                    environment: BindingMatcher.environment(event, deviceID: deviceID, deviceName: deviceName, binding: b, app: app))
                // Counted from the landing: the hold began after the fingers had been down a while already.
                var already = 0.0
                if case .number(let down)? = event[EventFields.downSeconds] { already = max(0, down) }
                started.append((key, max(0, seconds - already)))
            }
        case .end:
            thresholdFired.remove(key)
            waiting[key] = nil
            if let b = bindings.first(where: { b in
                guard b.trigger == .end else { return false }
                switch b.committed {
                case .committed: if event.committed != true { return false }
                case .notCommitted: if event.committed != false { return false }
                case .any: break
                }
                return b.matchesFields(of: event, deviceID: deviceID, deviceName: deviceName, app: app)
            }) {
                fire(b)
            }
        case .update, .cancel:
            break
        }
        return firings
    }

    /// The environment a command gets: the event's fields as GESTURE_* variables (the common ones, then
    /// those its kind declares, `GESTURE_<KEY>`); a field the event does not carry is left out (not set to
    /// an empty string), and so is GESTURE_APP when no app is known to be focused. Numbers are written
    /// with at most 4 decimals.
    public static func environment(
        _ e: GestureEvent, deviceID: String?, deviceName: String?, binding: Binding, app: FocusedApp = .unknown
    ) -> [String] {
        var env = [
            "GESTURE_KIND=\(e.kind.rawValue)",
            "GESTURE_PHASE=\(e.phase.rawValue)",
            "GESTURE_FINGERS=\(e.fingers)",
            "GESTURE_ID=\(e.id)",
            "GESTURE_TIME=\(GestureEventJSON.seconds(e.timeMicroseconds))",
            "GESTURE_X=\(decimal(e.position.x))",
            "GESTURE_Y=\(decimal(e.position.y))",
            "GESTURE_X_MM=\(decimal(e.positionMM.x))",
            "GESTURE_Y_MM=\(decimal(e.positionMM.y))",
            "GESTURE_DX_MM=\(decimal(e.translationMM.x))",
            "GESTURE_DY_MM=\(decimal(e.translationMM.y))",
            "GESTURE_BINDING=\(binding.label)",
        ]
        for field in e.kind.fields where field.inEnvironment {
            guard let value = e[field] else { continue }
            env.append("\(field.environmentName)=\(environmentText(value))")
        }
        if let v = e.committed { env.append("GESTURE_COMMITTED=\(v)") }
        if let deviceID { env.append("GESTURE_DEVICE=\(deviceID)") }
        if let deviceName { env.append("GESTURE_DEVICE_NAME=\(deviceName)") }
        if case .app(let id) = app { env.append("GESTURE_APP=\(id)") }
        return env
    }

    /// A field's value as a variable holds it: names as the wire has them, numbers with `decimal`.
    static func environmentText(_ value: EventFieldValue) -> String {
        switch value {
        case .edge(let v): return v.rawValue
        case .direction(let v): return v.rawValue
        case .integer(let v): return String(v)
        case .number(let v): return decimal(v)
        case .flag(let v): return String(v)
        }
    }

    /// "12.5", "-0.0312", "3": at most 4 decimals, no exponent, no trailing zeros.
    public static func decimal(_ d: Double) -> String {
        guard d.isFinite else { return "0" }
        let scaled = (abs(d) * 10_000).rounded()
        guard scaled < 1e15 else { return String(Int64(d)) }
        let whole = Int64(scaled) / 10_000
        var fraction = Int64(scaled) % 10_000
        let sign = d < 0 && scaled > 0 ? "-" : ""
        if fraction == 0 { return "\(sign)\(whole)" }
        var digits = 4
        while fraction % 10 == 0 { fraction /= 10; digits -= 1 }
        let text = String(fraction)
        return "\(sign)\(whole)." + String(repeating: "0", count: digits - text.count) + text
    }
}

/// Why a gesture's end fired no binding: the binding that came closest (the fewest keys that did not
/// match, a binding for another kind of gesture farthest of all; the first in the file among equals) and the first of its keys that did not, with the value
/// (`gesturectl bind --verbose`).
public struct BindingMiss: Equatable, Sendable {
    public var binding: Binding
    /// The key that did not match ("direction").
    public var key: String
    /// "direction is none: moved 35° off down"
    public var explanation: String

    /// The log line: "binding 2 (bindings.toml:7:1): direction is none: moved 35° off down".
    public var line: String { "\(escapingControlCharacters(binding.label)): \(explanation)" }
}

extension BindingMatcher {
    /// For an `end` that fired nothing: the `on = "end"` binding that came closest, and why it did not
    /// match; nil when there is no such binding, or for other phases.
    public func nearestMiss(for e: GestureEvent, deviceID: String?, deviceName: String?, app: FocusedApp = .unknown) -> BindingMiss? {
        guard e.phase == .end else { return nil }
        var best: (misses: Int, miss: BindingMiss)?
        for b in bindings where b.trigger == .end {
            let misses = b.mismatches(e, deviceID: deviceID, deviceName: deviceName, app: app)
            guard let first = misses.first else { continue }
            // Another kind of gesture is further than any number of keys of the right kind.
            let distance = misses.count + (first.key == "gesture" ? 100 : 0)
            if best == nil || distance < best!.misses {
                best = (distance, BindingMiss(binding: b, key: first.key, explanation: first.text))
            }
        }
        guard var miss = best?.miss else { return nil }
        if best!.misses >= 100 {
            miss.explanation = "no on = \"end\" binding is for \(e.kind.rawValue) gestures (the closest is for \(miss.binding.possibleKinds.map(\.rawValue).sorted().joined(separator: " or ")))"
        }
        return miss
    }
}

extension Binding {
    /// The keys of this binding that `e` does not match, in the order the file's keys are listed, each
    /// with what the event had.
    func mismatches(_ e: GestureEvent, deviceID: String?, deviceName: String?, app: FocusedApp) -> [(key: String, text: String)] {
        var out: [(String, String)] = []
        if !possibleKinds.contains(e.kind) {
            out.append(("gesture", "gesture is \(e.kind.rawValue), not \(possibleKinds.map(\.rawValue).sorted().joined(separator: " or "))"))
        }
        if let fingers, !fingers.contains(e.fingers) {
            let wanted = fingers.lowerBound == fingers.upperBound ? "\(fingers.lowerBound)" : "\(fingers.lowerBound)-\(fingers.upperBound)"
            out.append(("fingers", "fingers is \(e.fingers), not \(wanted)"))
        }
        for c in fieldConditions where !c.accepts(e[c.field]) {
            out.append((c.field.name, Binding.explainField(c, e)))
        }
        switch committed {
        case .committed where e.committed != true:
            out.append(("committed", "did not commit (the daemon's commit rules, docs/gestures.md); committed = \"any\" fires anyway"))
        case .notCommitted where e.committed != false:
            out.append(("committed", "committed, and this binding wants committed = false"))
        default: break
        }
        if let region, !region.contains(e) {
            out.append((
                region.isMillimetres ? "region_mm" : "region",
                "at (\(formatNumber((e.position.x * 1000).rounded() / 1000)), \(formatNumber((e.position.y * 1000).rounded() / 1000))), "
                    + "\(formatNumber(e.positionMM.x.rounded())) × \(formatNumber(e.positionMM.y.rounded())) mm: outside \(region.described)"))
        }
        if !acceptsDevice(id: deviceID, name: deviceName) {
            out.append(("device", "device is \(quoted(deviceName ?? deviceID ?? "unknown")), not \(quoted(device ?? ""))"))
        }
        if !acceptsApp(app) {
            let focused: String
            switch app {
            case .unknown: focused = "unknown (no compositor says which app is focused)"
            case .none: focused = "none"
            case .app(let id): focused = quoted(id)
            }
            out.append(("app", "the focused app is \(focused)"))
        }
        return out
    }

    /// "direction is none: moved 35° off down", "edge is top", "taps is 1".
    static func explainField(_ c: FieldCondition, _ e: GestureEvent) -> String {
        guard let value = e[c.field] else {
            if c.field == EventFields.direction {
                let t = e.translationMM
                guard e.committed == true else { return "direction is none: the pan did not commit" }
                // The nearest of the four directions, and how far off it the movement went.
                let degrees = atan2Degrees(t.y, t.x)
                let directions: [(SwipeDirection, Double)] = [(.right, 0), (.down, 90), (.left, 180), (.up, -90)]
                let nearest = directions.min { angleBetween(degrees, $0.1) < angleBetween(degrees, $1.1) }!
                let off = Int(angleBetween(degrees, nearest.1).rounded())
                return "direction is none: moved \(off)° off \(nearest.0.rawValue), beyond the daemon's pan.angle_tolerance_degrees"
            }
            return "\(c.field.name) is not set on \(e.kind.rawValue) gestures"
        }
        return "\(c.field.name) is \(GestureEventText.words(value, decimals: 2))"
    }

    private static func angleBetween(_ a: Double, _ b: Double) -> Double {
        var d = abs(a - b).truncatingRemainder(dividingBy: 360)
        if d > 180 { d = 360 - d }
        return d
    }

    /// The angle of (x, y), y pointing down, in degrees from the right, -180...180.
    private static func atan2Degrees(_ y: Double, _ x: Double) -> Double {
        atan2(y, x) * 180 / Double.pi
    }
}

/// `gesturectl bind --check --replay`: the bindings over a recording's gestures, offline, in the
/// recording's own time (a `held_seconds` wait passes with the events' clock, not the wall's): what would
/// fire and when, and, for each end that fired nothing, the binding that came closest and why.
public enum BindingRehearsal {
    public enum Outcome: Equatable, Sendable {
        case fires(BindingFiring)
        /// An end that fired nothing, with the binding that came closest (nil: no `on = "end"` binding).
        case missed(GestureEvent, BindingMiss?)
    }

    public struct Entry: Equatable, Sendable {
        /// When, on the recording's clock, microseconds.
        public var timeMicroseconds: Int64
        public var outcome: Outcome
    }

    /// The outcomes of `gestures` (one device's, in order) for `bindings`. The focused app is unknown
    /// offline, so bindings with `app` never match.
    public static func run(_ gestures: [GestureEvent], bindings: [Binding], deviceID: String?, deviceName: String?) -> [Entry] {
        var matcher = BindingMatcher(bindings: bindings)
        var waits: [(hold: BindingMatcher.GestureKey, dueMicroseconds: Int64)] = []
        var entries: [Entry] = []
        // Gestures that fired a binding already (a hold's held_seconds): their end is no miss.
        var fired = Set<BindingMatcher.GestureKey>()
        func serveWaits(upTo time: Int64) {
            waits.sort { $0.dueMicroseconds < $1.dueMicroseconds }
            while let first = waits.first, first.dueMicroseconds <= time {
                waits.removeFirst()
                if let firing = matcher.heldLongEnough(first.hold) {
                    fired.insert(first.hold)
                    entries.append(Entry(timeMicroseconds: first.dueMicroseconds, outcome: .fires(firing)))
                }
            }
        }
        for e in gestures {
            serveWaits(upTo: e.timeMicroseconds)
            let firings = matcher.handle(e, deviceID: deviceID, deviceName: deviceName)
            for (hold, seconds) in matcher.newWaits() {
                waits.append((hold, e.timeMicroseconds + Int64((seconds * 1_000_000).rounded())))
            }
            let key = BindingMatcher.GestureKey(device: deviceID ?? "", id: e.id)
            for f in firings { entries.append(Entry(timeMicroseconds: e.timeMicroseconds, outcome: .fires(f))) }
            if !firings.isEmpty { fired.insert(key) }
            if firings.isEmpty && e.phase == .end && !fired.contains(key) {
                entries.append(
                    Entry(
                        timeMicroseconds: e.timeMicroseconds,
                        outcome: .missed(e, matcher.nearestMiss(for: e, deviceID: deviceID, deviceName: deviceName))))
            }
        }
        serveWaits(upTo: .max)
        return entries
    }
}
