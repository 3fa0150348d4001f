import GestureConfig
import GestureProtocol
import GestureVocabulary

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
