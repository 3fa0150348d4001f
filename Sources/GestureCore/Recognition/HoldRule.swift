import GestureVocabulary

/// Hold (UILongPressGestureRecognizer): fingers that stay within the slop of where they landed for
/// `holdSeconds` after the last one landed begin a hold (fingers that landed in an edge zone must not have
/// moved inward by half the slop: that is an edge swipe starting slowly); moving afterwards updates it
/// (hold and drag);
/// the first lift ends it, committed. Its thresholds ([recognizer.hold]); docs/gestures.md gives the
/// reasons for each threshold.
public struct HoldRule: ConfigurableRule, Equatable {
    public var enabled: Bool = true
    public var minFingers: Int = 1
    public var maxFingers: Int = 5
    /// Time the fingers must stay within the slop after the last one landed.
    public var holdSeconds: Double = 0.5

    public init() {}

    // MARK: Configuration

    public static let configTable = "hold"

    public static let settingKeys: [RuleSetting<HoldRule>] = [
        .flag("enabled", "enabled", \.enabled),
        .integer("min_fingers", "minFingers", 1...10, "fingers", \.minFingers),
        .integer("max_fingers", "maxFingers", 1...10, "fingers", \.maxFingers),
        .number("hold_seconds", "holdSeconds", 0.1...5, "s", \.holdSeconds),
    ]

    // MARK: The rule

    public var kind: GestureKind { .hold }

    /// Fingers that landed still, as many as a hold may have, are asked again at the hold time.
    public func attemptStarted(_ attempt: AttemptFacts, fingers: FingerSet, context: RecognizerContext) -> RuleInterest {
        let n = fingers.count
        guard enabled && n >= minFingers && n <= maxFingers && attempt.hand.stillness == .still else { return .doesNotApply }
        return RuleInterest(applies: true, deadlineMicroseconds: fingers.groupLandingTime + Int64(holdSeconds * 1_000_000))
    }

    public func evaluate(_ occasion: Occasion, _ attempt: AttemptFacts, fingers: FingerSet, context: RecognizerContext) -> Verdict {
        guard attempt.hand.stillness == .still else { return .fails("a finger moved") }
        if HoldRule.movedInwardFromAnEdge(fingers, context: context) { return .fails("moved inward from an edge zone") }
        switch occasion {
        case .moved, .lifted: return .doesNotApply
        case .deadline: return .begins
        }
    }

    /// Whether a finger that landed in the zone of a side a gesture may begin from (an edge swipe's) has moved inward
    /// from where it landed by half the slop: a slow pull from the edge (an interactive swipe that starts
    /// from rest) rather than a press. Half the slop still lets a press by the edge (a key of a keyboard's
    /// bottom row, a button by the bezel) roll and jitter as a finger does, and movement along the edge
    /// counts only against the slop.
    static func movedInwardFromAnEdge(_ fingers: FingerSet, context: RecognizerContext) -> Bool {
        let edges = context.startEdges(fingers)
        guard !edges.isEmpty else { return false }
        let limitMM = context.settings.slopMM / 2
        for edge in Edge.sides where edges.contains(edge) {
            let inward = EdgeZones.inward(edge)
            for f in fingers.fingers {
                let moved = f.currentMM - f.landingMM
                if moved.x * inward.x + moved.y * inward.y >= limitMM { return true }
            }
        }
        return false
    }

    /// How long the fingers have been down (`down_seconds`), from the last landing: a hold begins
    /// `holdSeconds` after it, and `gesturectl bind`'s `held_seconds` counts from it.
    public func update(_ e: inout GestureEvent, _ start: GestureStart, fingers: FingerSet, context: RecognizerContext) {
        e[EventFields.downSeconds] = .number(Double(e.timeMicroseconds - fingers.groupLandingTime) / 1_000_000)
    }

    /// A hold that lasted until the lift always happened.
    public func decideCommit(_ e: inout GestureEvent, context: RecognizerContext) { e.committed = true }

    public func beginReason(_ e: GestureEvent) -> String { "fingers stayed still for the hold time" }
}

extension RecognizerSettings {
    /// The hold's rule in `rules`, with its thresholds ([recognizer.hold]).
    public var hold: HoldRule {
        get { rules[HoldRule.self] ?? HoldRule() }
        set { rules[HoldRule.self] = newValue }
    }
}
