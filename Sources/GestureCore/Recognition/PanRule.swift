import GestureVocabulary

/// Pan (UIPanGestureRecognizer) with 1...N fingers that move together; its `end` classifies the swipe
/// direction. Its thresholds ([recognizer.pan]), begin test and commit rule; docs/gestures.md gives the
/// reasons for each threshold.
public struct PanRule: ConfigurableRule, Equatable {
    public var enabled: Bool = true
    public var minFingers: Int = 1
    public var maxFingers: Int = 5
    /// Distance of the centroid from where the fingers landed at which a release commits.
    public var commitDistanceMM: Double = 15
    /// Release velocity that commits whatever the distance.
    public var flingVelocityMMPerSecond: Double = 200
    /// The directions a committed pan's `end` is classified into: 4 (up, down, left, right, within the
    /// angle tolerance, else none) or 8 (also up-left, up-right, down-left, down-right; each 45° wide).
    public var directions: Int = 4
    /// With passthrough, pans with `claimMinFingers`...`claimMaxFingers` fingers are system gestures:
    /// when one begins, its touches already delivered to applications are cancelled.
    public var claim: Bool = false
    public var claimMinFingers: Int = 3
    public var claimMaxFingers: Int = 5

    public init() {}

    // MARK: Configuration

    public static let configTable = "pan"

    public static let settingKeys: [RuleSetting<PanRule>] = [
        .flag("enabled", "enabled", \.enabled),
        .integer("min_fingers", "minFingers", 1...10, "fingers", \.minFingers),
        .integer("max_fingers", "maxFingers", 1...10, "fingers", \.maxFingers),
        .number("commit_distance_mm", "commitDistanceMM", 1...500, "mm", \.commitDistanceMM),
        .number("fling_velocity_mm_per_s", "flingVelocityMMPerSecond", 10...10000, "mm/s", \.flingVelocityMMPerSecond),
        .integer("directions", "directions", 4...8, "directions", \.directions),
        .flag("claim", "claim", \.claim),
        .integer("claim_min_fingers", "claimMinFingers", 1...10, "fingers", \.claimMinFingers),
        .integer("claim_max_fingers", "claimMaxFingers", 1...10, "fingers", \.claimMaxFingers),
    ]

    public static var orderedKeys: [OrderedKeys] {
        [OrderedKeys("min_fingers", "max_fingers"), OrderedKeys("claim_min_fingers", "claim_max_fingers")]
    }

    public func problems() -> [(key: String, message: String)] {
        guard directions != 4 && directions != 8 else { return [] }
        return [("directions", "must be 4 (up, down, left, right) or 8 (with the diagonals), not \(directions)")]
    }

    // MARK: The rule

    public var kind: GestureKind { .pan }

    public func attemptStarted(_ attempt: AttemptFacts, fingers: FingerSet, context: RecognizerContext) -> RuleInterest {
        enabled && fingers.count >= minFingers && fingers.count <= maxFingers ? .applies : .doesNotApply
    }

    /// Begins when the fingers' shared motion passed the slop (once any finger did).
    public func evaluate(_ occasion: Occasion, _ attempt: AttemptFacts, fingers: FingerSet, context: RecognizerContext) -> Verdict {
        guard occasion == .moved, fingers.maximumMoveMM >= context.settings.slopMM else { return .doesNotApply }
        return fingers.centroidMoveMM.length >= context.settings.slopMM ? .begins : .waits
    }

    /// A pan that began in an edge zone (and was no edge swipe) says which edge, or which corner.
    public func began(_ e: inout GestureEvent, _ attempt: AttemptFacts, fingers: FingerSet, context: RecognizerContext) {
        e.startEdge = context.zonesLandedIn(fingers).landingEdge
    }

    /// Commits when flung or moved past the commit distance. A committed pan's direction is where it was
    /// flung, when that points along an axis; else where it went overall (a casual swipe whose finger
    /// curls off as it lifts keeps the direction of its stroke); none for a pan that did not commit (it
    /// went nowhere in particular), or whose release and stroke both point off every axis (a diagonal).
    public func decideCommit(_ e: inout GestureEvent, context: RecognizerContext) {
        let v = e.velocityMMPerSecond
        let flung = v.length >= flingVelocityMMPerSecond
        let committed = flung || e.translationMM.length >= commitDistanceMM
        e.committed = committed
        guard committed else {
            e.direction = nil
            return
        }
        e.direction = (flung ? direction(of: v, context: context) : nil) ?? direction(of: e.translationMM, context: context)
    }

    /// A pan with fewer fingers than it may have waits for the hand to finish landing: a hand landing
    /// finger by finger, already moving, looks like a pan with too few fingers.
    public func mayStillGainFingers(_ fingers: Int) -> Bool { fingers < maxFingers }

    public var flingThresholdMMPerSecond: Double? { flingVelocityMMPerSecond }

    public func claims(fingers n: Int) -> Bool { claim && n >= claimMinFingers && n <= claimMaxFingers }

    public func beginReason(_ e: GestureEvent) -> String { "fingers moved together" }

    /// The eight directions by 45° sector, clockwise from right (screen y points down).
    private static let sectors: [SwipeDirection] = [.right, .downRight, .down, .downLeft, .left, .upLeft, .up, .upRight]

    /// With 8 directions, the one whose 45° sector `v` points into; with 4, up/down/left/right when `v`
    /// points along an axis within the angle tolerance, else nil.
    func direction(of v: Vector2, context: RecognizerContext) -> SwipeDirection? {
        let length = v.length
        guard length > 0 else { return nil }
        if directions == 8 {
            // Sectors of 45° centred on the axes and diagonals (screen y points down).
            let sector = Int(((Angles.degrees(of: v) + 360 + 22.5) / 45).rounded(.down)) % 8
            return PanRule.sectors[sector]
        }
        let threshold = context.cosAngleTolerance * length
        if v.x >= threshold { return .right }
        if -v.x >= threshold { return .left }
        if v.y >= threshold { return .down }
        if -v.y >= threshold { return .up }
        return nil
    }
}

extension RecognizerSettings {
    /// The pan's rule in `rules`, with its thresholds ([recognizer.pan]).
    public var pan: PanRule {
        get { rules[PanRule.self] ?? PanRule() }
        set { rules[PanRule.self] = newValue }
    }
}
