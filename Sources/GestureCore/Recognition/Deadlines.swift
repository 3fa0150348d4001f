/// What a recognizer deadline is for. Any state may arm any kind; leaving a state disarms them all, so
/// a deadline only ever fires in the state that armed it.
@usableFromInline
enum DeadlineKind: Int, CaseIterable, CustomStringConvertible, Sendable {
    /// The running gesture's fingers stopped moving: report an update with zero velocity once the
    /// velocity window has passed with no movement.
    case velocityStop
    /// Fingers that stayed still since the last landing have been down for the hold time: a hold.
    case hold
    /// A tap sequence has waited the multi-tap interval for a further tap: it ends.
    case multiTap
    /// The landing window has passed since the last finger landed: a gesture held back while the hand
    /// was landing begins.
    case landingSettled
    /// Touches held back from applications (passthrough) for the longest allowed with no decision: they
    /// are delivered and their edge swipe fails.
    case withholdLimit

    @usableFromInline var description: String {
        switch self {
        case .velocityStop: return "velocity-stop"
        case .hold: return "hold"
        case .multiTap: return "multi-tap"
        case .landingSettled: return "landing-settled"
        case .withholdLimit: return "withhold-limit"
        }
    }
}

/// The recognizer's timers: at most one deadline per kind, in event-clock microseconds. The recognizer
/// has no clock: whoever drives it (the engine) fires a deadline when input or the daemon's timer
/// reaches its time, and an idle recognizer has none armed, so an idle daemon never wakes.
@usableFromInline
struct Deadlines: Sendable {
    private var times = [Int64?](repeating: nil, count: DeadlineKind.allCases.count)
    /// The earliest armed deadline, kept current by every change (read before every event).
    @usableFromInline private(set) var earliest: (kind: DeadlineKind, time: Int64)?

    mutating func arm(_ kind: DeadlineKind, at time: Int64) {
        times[kind.rawValue] = time
        findEarliest()
    }

    mutating func disarm(_ kind: DeadlineKind) {
        guard times[kind.rawValue] != nil else { return }
        times[kind.rawValue] = nil
        findEarliest()
    }

    mutating func disarmAll() {
        guard earliest != nil else { return }
        for i in times.indices { times[i] = nil }
        earliest = nil
    }

    func time(of kind: DeadlineKind) -> Int64? { times[kind.rawValue] }

    /// The first kind wins a tie.
    private mutating func findEarliest() {
        earliest = nil
        for (i, t) in times.enumerated() {
            if let t, t < (earliest?.time ?? .max), let kind = DeadlineKind(rawValue: i) { earliest = (kind, t) }
        }
    }
}
