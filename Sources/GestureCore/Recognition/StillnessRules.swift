import GestureVocabulary

/// Tap (UITapGestureRecognizer with a number of taps and touches): 1–5 fingers land and lift within
/// `maxDurationSeconds` without any moving past the slop. Taps of the same finger count landing near the
/// first within `multiTapIntervalSeconds` of the previous lift make one sequence: `begin` when the first
/// tap is complete, `update` for each further tap, `end` when the interval passes with no further tap or
/// `maxTaps` is reached, always committed. docs/gestures.md gives the reasons for each threshold.
enum TapRule {
    /// What a tap in progress has been so far (across the restarts of the attempt as the fingers of one
    /// hand land and lift).
    struct Candidate {
        /// When the first finger landed.
        var firstLanding: Int64
        /// Most fingers down at once.
        var fingers: Int
        /// Where the fingers landed (their landing centroid when the most were down).
        var positionN: Vector2
        var positionMM: Vector2
    }

    /// A sequence of taps that has begun.
    struct Sequence {
        var id: UInt64
        var taps: Int
        var fingers: Int
        /// Where the first tap landed: further taps must land near it.
        var firstPositionMM: Vector2
        /// The latest tap's position, reported by the sequence's events.
        var positionN: Vector2
        var positionMM: Vector2
    }

    /// Whether the fingers that lifted at `time` made a tap.
    static func isTap(_ c: Candidate, at time: Int64, context: RecognizerContext) -> Bool {
        let tap = context.settings.tap
        return tap.enabled && c.fingers >= tap.minFingers && c.fingers <= tap.maxFingers
            && Double(time - c.firstLanding) <= tap.maxDurationSeconds * 1_000_000
    }

    /// Whether a tap continues `sequence` (same fingers, near its first tap) rather than starting another.
    static func continues(_ sequence: Sequence, with c: Candidate, context: RecognizerContext) -> Bool {
        sequence.fingers == c.fingers
            && (c.positionMM - sequence.firstPositionMM).length <= context.settings.tap.multiTapDistanceMM
    }

    /// An event of the sequence: its position, no movement, `taps` so far; `end` is always committed.
    static func event(_ s: Sequence, phase: GesturePhase, time: Int64) -> GestureEvent {
        GestureEvent(
            kind: .tap, phase: phase, id: s.id, timeMicroseconds: time, fingers: s.fingers, taps: s.taps,
            committed: phase == .end ? true : nil, position: s.positionN, positionMM: s.positionMM)
    }
}

/// Hold (UILongPressGestureRecognizer): fingers that stay within the slop of where they landed for
/// `holdSeconds` after the last one landed begin a hold; moving afterwards updates it (hold and drag);
/// the first lift ends it, committed. docs/gestures.md gives the reasons for each threshold.
enum HoldRule {
    /// Whether `fingers` fingers that stayed still make a hold.
    static func applies(fingers: Int, context: RecognizerContext) -> Bool {
        let hold = context.settings.hold
        return hold.enabled && fingers >= hold.minFingers && fingers <= hold.maxFingers
    }
}
