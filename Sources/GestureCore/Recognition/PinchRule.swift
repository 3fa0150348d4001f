import GestureVocabulary

/// Pinch with rotation (UIPinchGestureRecognizer + UIRotationGestureRecognizer) on two or more fingers
/// whose motion differs between them. Its thresholds ([recognizer.pinch]), begin test, what its events
/// carry and when it commits; docs/gestures.md gives the reasons for each threshold.
public struct PinchRule: ConfigurableRule, Equatable {
    public var enabled: Bool = true
    public var minFingers: Int = 2
    public var maxFingers: Int = 5
    /// Change of the fingers' mean distance from their centroid that begins a pinch.
    public var beginSpanChangeMM: Double = 3
    /// Rotation of the fingers around their centroid that begins a pinch.
    public var beginRotationDegrees: Double = 10
    /// A release commits when |1 - scale| reaches this ...
    public var commitScaleChange: Double = 0.4
    /// ... or when |rotation| reaches this.
    public var commitRotationDegrees: Double = 45
    /// With passthrough, pinches with `claimMinFingers`...`claimMaxFingers` fingers are system gestures:
    /// when one begins, its touches already delivered to applications are cancelled.
    public var claim: Bool = false
    public var claimMinFingers: Int = 3
    public var claimMaxFingers: Int = 5

    public init() {}

    // MARK: Configuration

    public static let configTable = "pinch"

    public static let settingKeys: [RuleSetting<PinchRule>] = [
        .flag("enabled", "enabled", \.enabled),
        .integer("min_fingers", "minFingers", 2...10, "fingers", \.minFingers),
        .integer("max_fingers", "maxFingers", 2...10, "fingers", \.maxFingers),
        .number("begin_span_change_mm", "beginSpanChangeMM", 0.5...50, "mm", \.beginSpanChangeMM),
        .number("begin_rotation_degrees", "beginRotationDegrees", 1...90, "degrees", \.beginRotationDegrees),
        .number("commit_scale_change", "commitScaleChange", 0.01...5, nil, \.commitScaleChange),
        .number("commit_rotation_degrees", "commitRotationDegrees", 1...360, "degrees", \.commitRotationDegrees),
        .flag("claim", "claim", \.claim),
        .integer("claim_min_fingers", "claimMinFingers", 2...10, "fingers", \.claimMinFingers),
        .integer("claim_max_fingers", "claimMaxFingers", 2...10, "fingers", \.claimMaxFingers),
    ]

    public static var orderedKeys: [OrderedKeys] {
        [OrderedKeys("min_fingers", "max_fingers"), OrderedKeys("claim_min_fingers", "claim_max_fingers")]
    }

    // MARK: The rule

    public var kind: GestureKind { .pinch }

    public func attemptStarted(_ attempt: AttemptFacts, fingers: FingerSet, context: RecognizerContext) -> RuleInterest {
        fingers.count >= 2 ? .applies : .doesNotApply
    }

    /// Two or more fingers are pinch-like when the part of their motion that differs between them is at
    /// least `pinchDifferentialRatio` of the motion they share. A pinch-like motion is never a pan: the
    /// pinch begins once the span or the rotation changed enough (when pinches are allowed), and until
    /// then nothing does.
    public func evaluate(_ occasion: Occasion, _ attempt: AttemptFacts, fingers: FingerSet, context: RecognizerContext) -> Verdict {
        let settings = context.settings
        guard occasion == .moved, fingers.maximumMoveMM >= settings.slopMM,
            fingers.differentialMoveMM >= settings.pinchDifferentialRatio * fingers.centroidMoveMM.length
        else { return .doesNotApply }
        let n = fingers.count
        guard enabled && n >= minFingers && n <= maxFingers else { return .waits }
        let spanChange = abs(fingers.spanMM - fingers.spanAtBaselineMM)
        if spanChange >= beginSpanChangeMM || abs(fingers.rotationSinceBaselineDegrees) >= beginRotationDegrees {
            return .begins
        }
        return .waits
    }

    public func update(_ e: inout GestureEvent, _ start: GestureStart, fingers: FingerSet, context: RecognizerContext) {
        let span = fingers.spanMM
        e.spanMM = span
        e.scale = span / max(start.spanMM, 0.001)
        e.rotationDegrees = fingers.rotationSinceBaselineDegrees - start.rotationDegrees
    }

    /// Commits when the scale or the rotation changed past their commit thresholds.
    public func decideCommit(_ e: inout GestureEvent, context: RecognizerContext) {
        e.committed = abs(1 - (e.scale ?? 1)) >= commitScaleChange || abs(e.rotationDegrees ?? 0) >= commitRotationDegrees
    }

    public func claims(fingers n: Int) -> Bool { claim && n >= claimMinFingers && n <= claimMaxFingers }

    public func beginReason(_ e: GestureEvent) -> String { "fingers moved apart or around" }
}

extension RecognizerSettings {
    /// The pinch's rule in `rules`, with its thresholds ([recognizer.pinch]).
    public var pinch: PinchRule {
        get { rules[PinchRule.self] ?? PinchRule() }
        set { rules[PinchRule.self] = newValue }
    }
}
