/// What a recognizer deadline is for. Each belongs to the states that arm it (`owner`): leaving them
/// disarms it, so a deadline only ever fires in a state that armed it.
@usableFromInline
enum DeadlineKind: Equatable, CustomStringConvertible, Sendable {
    /// The running gesture's fingers stopped moving: report an update with zero velocity once the
    /// velocity window has passed with no movement (state `active`).
    case velocityStop
    /// The landing window has passed since the last finger landed: a gesture held back while the hand was
    /// landing begins (state `heldBack`).
    case landingSettled
    /// A gesture that began at a lift has waited long enough for a further touch: it ends (state
    /// `waitingForTouch`).
    case nextTouch
    /// The time the rule at this index of the arbitration order asked for (the hold time, the withhold
    /// limit), for the attempt (states `possible` and `heldBack`).
    case rule(Int)

    /// Its place in the table; the first place wins a tie.
    var index: Int {
        switch self {
        case .velocityStop: return 0
        case .landingSettled: return 1
        case .nextTouch: return 2
        case .rule(let i): return 3 + i
        }
    }

    init(index: Int) {
        switch index {
        case 0: self = .velocityStop
        case 1: self = .landingSettled
        case 2: self = .nextTouch
        default: self = .rule(index - 3)
        }
    }

    @usableFromInline var description: String {
        switch self {
        case .velocityStop: return "velocity-stop"
        case .landingSettled: return "landing-settled"
        case .nextTouch: return "next-touch"
        case .rule(let i): return "rule \(i)"
        }
    }
}

/// The recognizer's timers: at most one deadline per kind, in event-clock microseconds. The recognizer
/// has no clock: whoever drives it (the engine) fires a deadline when input or the daemon's timer
/// reaches its time, and an idle recognizer has none armed, so an idle daemon never wakes.
@usableFromInline
struct Deadlines: Sendable {
    private var times: [Int64?]
    /// The earliest armed deadline, kept current by every change (read before every event).
    @usableFromInline private(set) var earliest: (kind: DeadlineKind, time: Int64)?
    /// Its time, Int64.max when none is armed: the test before every event is one compare.
    private(set) var earliestTime = Int64.max

    init(rules: Int) {
        times = [Int64?](repeating: nil, count: 3 + rules)
    }

    mutating func arm(_ kind: DeadlineKind, at time: Int64) {
        times[kind.index] = time
        findEarliest()
    }

    mutating func disarm(_ kind: DeadlineKind) {
        guard times[kind.index] != nil else { return }
        times[kind.index] = nil
        findEarliest()
    }

    /// Disarms every deadline for which `keep` is false.
    mutating func disarm(unless keep: (DeadlineKind) -> Bool) {
        guard earliest != nil else { return }
        var changed = false
        for i in times.indices where times[i] != nil && !keep(DeadlineKind(index: i)) {
            times[i] = nil
            changed = true
        }
        if changed { findEarliest() }
    }

    func time(of kind: DeadlineKind) -> Int64? { times[kind.index] }

    /// The first kind wins a tie.
    private mutating func findEarliest() {
        earliest = nil
        for (i, t) in times.enumerated() {
            if let t, t < (earliest?.time ?? .max) { earliest = (DeadlineKind(index: i), t) }
        }
        earliestTime = earliest?.time ?? .max
    }
}
