import GestureVocabulary

/// Tap (UITapGestureRecognizer with a number of taps and touches): 1–5 fingers land and lift within
/// `maxDurationSeconds` without any moving past the slop. Taps of the same finger count landing near the
/// first within `multiTapIntervalSeconds` of the previous lift make one sequence: `begin` when the first
/// tap is complete, `update` for each further tap, `end` when the interval passes with no further tap or
/// `maxTaps` is reached, always committed. Its thresholds ([recognizer.tap]); docs/gestures.md gives the
/// reasons for each threshold.
public struct TapRule: ConfigurableRule, Equatable {
    public var enabled: Bool = true
    public var minFingers: Int = 1
    public var maxFingers: Int = 5
    /// Longest time from the first finger landing to the last lifting: a longer press is not a tap.
    public var maxDurationSeconds: Double = 0.4
    /// Longest time from one tap's last lift to the next tap's first landing for the two to be one
    /// sequence (a double tap).
    public var multiTapIntervalSeconds: Double = 0.3
    /// Farthest a further tap may land from the sequence's first tap, millimetres.
    public var multiTapDistanceMM: Double = 15
    /// Taps after which a sequence ends at once (2: double taps end without waiting).
    public var maxTaps: Int = 2

    public init() {}

    // MARK: Configuration

    public static let configTable = "tap"

    public static let settingKeys: [RuleSetting<TapRule>] = [
        .flag("enabled", "enabled", \.enabled),
        .integer("min_fingers", "minFingers", 1...10, "fingers", \.minFingers),
        .integer("max_fingers", "maxFingers", 1...10, "fingers", \.maxFingers),
        .number("max_duration_seconds", "maxDurationSeconds", 0.05...2, "s", \.maxDurationSeconds),
        .number("multi_tap_interval_seconds", "multiTapIntervalSeconds", 0.05...2, "s", \.multiTapIntervalSeconds),
        .number("multi_tap_distance_mm", "multiTapDistanceMM", 1...100, "mm", \.multiTapDistanceMM),
        .integer("max_taps", "maxTaps", 1...10, "taps", \.maxTaps),
    ]

    // MARK: The rule

    public var kind: GestureKind { .tap }

    public func attemptStarted(_ attempt: AttemptFacts, fingers: FingerSet, context: RecognizerContext) -> RuleInterest {
        switch attempt.hand.stillness {
        case .still, .rolled: return enabled ? .applies : .doesNotApply
        case .moved, .unknown: return .doesNotApply
        }
    }

    /// A tap is decided at the lift: every finger of the hand lifted within the tap time, none having
    /// moved past the slop from where it landed, or past twice the slop when the recognizer asks at the
    /// lift (no gesture began: a finger that rolled as it pressed, `Stillness.rolled`).
    public func evaluate(_ occasion: Occasion, _ attempt: AttemptFacts, fingers: FingerSet, context: RecognizerContext) -> Verdict {
        let hand = attempt.hand
        switch hand.stillness {
        case .moved, .unknown: return .fails("a finger moved")
        case .still, .rolled: break
        }
        switch occasion {
        case .moved, .deadline: return .doesNotApply
        case .lifted:
            guard hand.mostFingers >= minFingers && hand.mostFingers <= maxFingers else { return .fails("finger count") }
            guard Double(attempt.timeMicroseconds - hand.firstLandingMicroseconds) <= maxDurationSeconds * 1_000_000 else {
                return .fails("down longer than the tap time")
            }
            return .begins
        }
    }

    /// A tap reports where the most fingers of the hand landed, with no movement.
    public func began(_ e: inout GestureEvent, _ attempt: AttemptFacts, fingers: FingerSet, context: RecognizerContext) {
        let hand = attempt.hand
        e.fingers = hand.mostFingers
        e.taps = 1
        e.position = hand.landingAtMostN
        e.positionMM = hand.landingAtMostMM
        e.translation = .zero
        e.translationMM = .zero
        e.velocityMMPerSecond = .zero
    }

    /// A tap always happened.
    public func decideCommit(_ e: inout GestureEvent, context: RecognizerContext) { e.committed = true }

    /// The sequence ends at `maxTaps`; before that it waits the multi-tap interval for a further tap.
    public func afterLift(_ e: GestureEvent, context: RecognizerContext) -> AfterLift {
        (e.taps ?? 1) >= maxTaps ? .end : .waitForNextTouch(untilMicroseconds: e.timeMicroseconds + Int64(multiTapIntervalSeconds * 1_000_000))
    }

    /// A further tap continues the sequence when it has as many fingers and lands near its first tap.
    public func continues(_ waiting: GestureEvent, start: GestureStart, _ attempt: AttemptFacts, context: RecognizerContext) -> Bool {
        waiting.fingers == attempt.hand.mostFingers && (attempt.hand.landingAtMostMM - start.positionMM).length <= multiTapDistanceMM
    }

    /// One more tap, reported where it landed.
    public func continued(_ e: inout GestureEvent, _ attempt: AttemptFacts, context: RecognizerContext) {
        e.taps = (e.taps ?? 1) + 1
        e.position = attempt.hand.landingAtMostN
        e.positionMM = attempt.hand.landingAtMostMM
    }

    public func beginReason(_ e: GestureEvent) -> String { "fingers lifted within the tap time without moving" }
}

extension RecognizerSettings {
    /// The tap's rule in `rules`, with its thresholds ([recognizer.tap]).
    public var tap: TapRule {
        get { rules[TapRule.self] ?? TapRule() }
        set { rules[TapRule.self] = newValue }
    }
}
