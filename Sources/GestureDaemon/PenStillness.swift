/// A pen that says it is near the glass but never moves: a tool key stuck down, a pen left lying on the
/// screen's frame, a forged device. Its proximity would turn the touchscreen's gestures off for good (touch
/// arbitration). A real pen in proximity is never still at the digitizer's resolution: a hand holding it
/// above the glass moves it by some units every second, and its pressure, distance or tilt change with it.
/// So while a pen says it is near, its position is sampled (EVIOCGABS: the kernel's current values, which
/// need no events read) every `intervalMicroseconds`; after `stillChecks` samples in a row that are the
/// same, the pen counts as gone until a sample differs again. Pure: the caller gives the samples and the
/// times (CLOCK_MONOTONIC µs).
struct PenStillness: Equatable {
    /// How often a pen said to be near is sampled: 10 s.
    static let intervalMicroseconds: Int64 = 10_000_000
    /// Samples in a row the same before the pen counts as gone: 3, that is 30 s without any change.
    static let stillChecks = 3

    enum State: Equatable {
        /// The pen says it is away: nothing is sampled.
        case away
        /// Near: the last sample, how many in a row were the same, and when the next is due.
        case near(sample: [Int32], same: Int, nextCheck: Int64)
        /// Near by its keys but still for too long: counts as gone until a sample differs.
        case still(sample: [Int32], nextCheck: Int64)
    }

    /// What a check decided.
    enum Verdict: Equatable {
        /// Still for `stillChecks` samples: the pen counts as gone from now.
        case becameStill
        /// It moved again: near again.
        case movedAgain
    }

    private(set) var state = State.away

    /// Whether the pen counts as near: it says so and has not been still too long.
    var countsAsNear: Bool {
        switch state {
        case .near: return true
        case .away, .still: return false
        }
    }

    /// When the next sample is due (nil while the pen is away).
    var nextCheck: Int64? {
        switch state {
        case .away: return nil
        case .near(_, _, let at), .still(_, let at): return at
        }
    }

    /// The pen's keys say it came near (`sample`: its position now) or went away. Returns whether it counts
    /// as near now when that changed (nil when it did not: a still pen lifted away was already taken as
    /// gone). The keys' state is this value's own (`away` or not), never read from elsewhere, so a batch of
    /// changes read in one go is taken one change at a time.
    @discardableResult
    mutating func proximity(near: Bool, sample: [Int32], now: Int64) -> Bool? {
        let before = countsAsNear
        transition(near ? .near(sample: sample, same: 0, nextCheck: now + PenStillness.intervalMicroseconds) : .away)
        return countsAsNear != before ? countsAsNear : nil
    }

    /// A sample at its time; returns what changed.
    mutating func check(_ sample: [Int32], now: Int64) -> Verdict? {
        let next = now + PenStillness.intervalMicroseconds
        switch state {
        case .away:
            return nil
        case .near(let last, let same, _):
            guard sample == last else {
                transition(.near(sample: sample, same: 0, nextCheck: next))
                return nil
            }
            if same + 1 >= PenStillness.stillChecks {
                transition(.still(sample: sample, nextCheck: next))
                return .becameStill
            }
            transition(.near(sample: sample, same: same + 1, nextCheck: next))
            return nil
        case .still(let last, _):
            guard sample != last else {
                transition(.still(sample: last, nextCheck: next))
                return nil
            }
            transition(.near(sample: sample, same: 0, nextCheck: next))
            return .movedAgain
        }
    }

    private mutating func transition(_ new: State) { state = new }
}
