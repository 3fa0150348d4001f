import GestureVocabulary

/// Edge swipe (UIScreenEdgePanGestureRecognizer): every finger lands in the zone of one enabled edge and
/// the fingers move inward within the angle tolerance; with corners on, fingers landing in the zones of
/// two sides that move along their corner's diagonal swipe from the corner. Its thresholds ([recognizer.
/// edge_swipe]), begin test, what its events carry and when it commits; docs/gestures.md gives the reasons
/// for each threshold.
public struct EdgeSwipeRule: ConfigurableRule, Equatable {
    public var enabled: Bool = true
    /// Fewest and most fingers an edge swipe may have (every finger must land in the same edge's zone).
    public var minFingers: Int = 1
    public var maxFingers: Int = 1
    /// Progress (fraction of the screen along the swipe axis) at which a release commits.
    public var commitProgress: Double = 0.5
    /// Inward travel at which a release while still moving inward commits whatever the screen's size, and
    /// at which a corner swipe's progress reaches 1: 25 mm. A swipe a person means (a thumb's stroke on a phone, 35–50 mm; a hand's
    /// on a 32-inch monitor) passes it on any panel, where half the screen is 68 mm on a phone and 200 mm
    /// on a 27-inch monitor; a twitch or a touch that slips while resting by the bezel (10–15 mm) does not.
    public var commitDistanceMM: Double = 25
    /// Inward release velocity that commits whatever the progress; the same speed outward cancels.
    public var flingVelocityMMPerSecond: Double = 200
    /// Fingers landing in the zones of two sides and moving inward along the corner's diagonal (within
    /// 45°) swipe from the corner ("top-left", ...). On: corner swipes are common bindings (Sxmo's), and a
    /// swipe along one side's inward axis still goes to that side.
    public var corners: Bool = true
    /// With passthrough, touches that land in an edge zone are held back from applications until the edge
    /// swipe is decided; if it is still undecided this long after the landing (the finger has not moved
    /// past the slop), the touch is delivered and its edge swipe fails. 0.12 s: long enough for a finger
    /// that starts a swipe at once to pass the 3 mm slop (60 mm/s suffices at 0.05 s), short enough that
    /// a press by the edge reaches the application about as late as a typical display frame or two.
    public var withholdMaxSeconds: Double = 0.12

    public init() {}

    // MARK: Configuration

    public static let configTable = "edge_swipe"

    public static let settingKeys: [RuleSetting<EdgeSwipeRule>] =
        [
            .flag("enabled", "enabled", \.enabled),
            .integer("min_fingers", "minFingers", 1...10, "fingers", \.minFingers),
            .integer("max_fingers", "maxFingers", 1...10, "fingers", \.maxFingers),
            .number("commit_progress", "commitProgress", 0.05...1, "of the screen", \.commitProgress),
            .number("commit_distance_mm", "commitDistanceMM", 1...500, "mm", \.commitDistanceMM),
            .number(
                "fling_velocity_mm_per_s", "flingVelocityMMPerSecond", 10...10000, "mm/s", \.flingVelocityMMPerSecond),
            .flag("corners", "corners", \.corners),
            .number("withhold_max_seconds", "withholdMaxSeconds", 0.02...0.15, "s", \.withholdMaxSeconds),
        ]

    /// The edge zones are every rule's context (RecognizerSettings.edgeZones), set from this table.
    public static var contextKeys: [RuleSetting<RecognizerSettings>] { EdgeZones.settingKeys }
    public static var contextShorthandKeys: [RuleSetting<RecognizerSettings>] { EdgeZones.shorthandKeys }

    // MARK: The rule

    public var kind: GestureKind { .edgeSwipe }

    /// It applies when every finger landed in the zone of an enabled side, with a finger count it allows;
    /// with passthrough, those touches are held back until it decides, at most `withholdMaxSeconds`.
    public func attemptStarted(_ attempt: AttemptFacts, fingers: FingerSet, context: RecognizerContext) -> RuleInterest {
        guard !candidates(fingers, context: context).isEmpty else { return .doesNotApply }
        guard context.settings.withholdsTouches else { return .applies }
        return RuleInterest(
            applies: true, deadlineMicroseconds: fingers.groupLandingTime + Int64(withholdMaxSeconds * 1_000_000),
            withholdsTouches: true)
    }

    /// Begins towards the first candidate side the centroid moves inward from, within the angle
    /// tolerance; else, with corners on, towards a corner both of whose sides are candidates when it moves
    /// along that corner's inward diagonal within 45°; fails when it moves any other way (along the edge,
    /// or out), and when the withhold limit passed first.
    public func evaluate(_ occasion: Occasion, _ attempt: AttemptFacts, fingers: FingerSet, context: RecognizerContext) -> Verdict {
        switch occasion {
        case .deadline: return .fails("no movement within the withhold limit")
        case .lifted: return .doesNotApply
        case .moved:
            guard fingers.maximumMoveMM >= context.settings.slopMM else { return .doesNotApply }
            return direction(fingers, context: context) == nil ? .fails("not moving inward") : .begins
        }
    }

    /// The edge or corner the fingers move inward from, if any.
    func direction(_ fingers: FingerSet, context: RecognizerContext) -> Edge? {
        let edges = candidates(fingers, context: context)
        guard !edges.isEmpty else { return nil }
        let move = fingers.centroidMoveMM
        let length = move.length
        guard length > 0 else { return nil }
        for edge in Edge.sides where edges.contains(edge) {
            let dir = EdgeZones.inward(edge)
            let along = move.x * dir.x + move.y * dir.y
            if along > 0 && along >= context.cosAngleTolerance * length { return edge }
        }
        if corners {
            for corner in Edge.corners where edges.contains(corner) {
                let dir = EdgeZones.inward(corner)
                let along = move.x * dir.x + move.y * dir.y
                if along > 0 && along >= EdgeSwipeRule.cosCornerTolerance * length { return corner }
            }
        }
        return nil
    }

    public func began(_ e: inout GestureEvent, _ attempt: AttemptFacts, fingers: FingerSet, context: RecognizerContext) {
        guard let edge = direction(fingers, context: context) else { return }
        e.edge = edge
        e.edgePosition = EdgeSwipeRule.landingPosition(edge, fingers)
    }

    /// A side's progress is the fraction of the screen travelled inward; a corner's is its travel along
    /// the diagonal over `commitDistanceMM` (a corner has no one screen length to be a fraction of).
    public func update(_ e: inout GestureEvent, _ start: GestureStart, fingers: FingerSet, context: RecognizerContext) {
        guard let edge = e.edge else { return }
        if edge.isCorner {
            e.progress = min(max(EdgeSwipeRule.inwardTravelMM(edge, e) / commitDistanceMM, 0), 1)
        } else {
            e.progress = EdgeSwipeRule.progress(edge, translation: e.translation)
        }
    }

    /// Below this inward speed at the release (the velocity over `velocity_window_seconds`), a side swipe
    /// is released at rest: 20 mm/s. A finger resting on glass jitters at a few mm/s at most, and a
    /// person's slowest deliberate pull (1 mm a frame at 60 Hz is 60 mm/s; a slow 56 mm pull over 1.6 s is
    /// 35 mm/s) is well above it.
    public static let restSpeedMMPerSecond = 20.0

    /// Commits when flung inward. Otherwise, unless flung back outward: along a side, when released past
    /// `commitProgress` of the screen, or released while still moving inward having travelled
    /// `commitDistanceMM` (whatever the screen's size); a pull that came to rest short of
    /// `commitProgress` is abandoned, as an interactive transition released at rest short of half way is
    /// (UIKit's). A corner, whose progress is its travel over `commitDistanceMM`, commits at progress 1.
    public func decideCommit(_ e: inout GestureEvent, context: RecognizerContext) {
        guard let edge = e.edge else { return }
        let v = e.velocityMMPerSecond
        let dir = EdgeZones.inward(edge)
        let inwardVelocity = v.x * dir.x + v.y * dir.y
        let fling = flingVelocityMMPerSecond
        let travelled = EdgeSwipeRule.inwardTravelMM(edge, e) >= commitDistanceMM
        if inwardVelocity >= fling {
            e.committed = true
        } else if inwardVelocity <= -fling {
            e.committed = false
        } else if edge.isCorner {
            e.committed = travelled
        } else {
            let pastProgress = (e.progress ?? 0) >= commitProgress
            let movingInward = inwardVelocity >= EdgeSwipeRule.restSpeedMMPerSecond
            e.committed = pastProgress || (travelled && movingInward)
        }
    }

    /// How far the fingers have moved inward from the edge (along a corner's diagonal), millimetres.
    static func inwardTravelMM(_ edge: Edge, _ e: GestureEvent) -> Double {
        let dir = EdgeZones.inward(edge)
        return e.translationMM.x * dir.x + e.translationMM.y * dir.y
    }

    /// The fling of its commit rule (an edge swipe begins at once, never held back while the hand lands).
    public var flingThresholdMMPerSecond: Double? { flingVelocityMMPerSecond }

    /// Edge swipes own their touches: an application never sees a touch that became one.
    public func claims(fingers: Int) -> Bool { true }

    public func beginReason(_ e: GestureEvent) -> String { "moved inward from the \(e.edge?.rawValue ?? "?") edge" }

    // MARK: Geometry

    /// The sides still possible for an edge swipe: the zones every finger landed in, if an edge swipe with
    /// this many fingers is allowed.
    func candidates(_ fingers: FingerSet, context: RecognizerContext) -> EdgeSet {
        guard enabled, fingers.count >= minFingers, fingers.count <= maxFingers else { return EdgeSet() }
        return context.zonesLandedIn(fingers)
    }

    /// The sides an edge swipe may begin from for these fingers: its candidates.
    public func startEdges(_ fingers: FingerSet, context: RecognizerContext) -> EdgeSet { candidates(fingers, context: context) }

    /// cos 45°: a corner swipe moves inward along the corner's diagonal within 45° (physical).
    static let cosCornerTolerance = 0.7071067811865476

    /// Where the fingers landed along the edge, 0...1: from the left along top, bottom and the corners
    /// (their horizontal side), from the top along left and right; on the screen as the user sees it.
    static func landingPosition(_ edge: Edge, _ fingers: FingerSet) -> Double {
        let p = fingers.baselineCentroidN
        let along: Double
        switch edge {
        case .left, .right: along = p.y
        case .top, .bottom, .topLeft, .topRight, .bottomLeft, .bottomRight: along = p.x
        }
        return min(max(along, 0), 1)
    }

    /// Fraction of the screen travelled inward from a side, 0...1 (for a corner, the mean of its two sides').
    public static func progress(_ edge: Edge, translation t: Vector2) -> Double {
        let p: Double
        switch edge {
        case .left: p = t.x
        case .right: p = -t.x
        case .top: p = t.y
        case .bottom: p = -t.y
        case .topLeft, .topRight, .bottomLeft, .bottomRight:
            let (h, v) = edge.sidesOfCorner!
            return (progress(h, translation: t) + progress(v, translation: t)) / 2
        }
        return min(max(p, 0), 1)
    }
}

extension RecognizerSettings {
    /// The edge swipe's rule in `rules`, with its thresholds ([recognizer.edge_swipe]).
    public var edgeSwipe: EdgeSwipeRule {
        get { rules[EdgeSwipeRule.self] ?? EdgeSwipeRule() }
        set { rules[EdgeSwipeRule.self] = newValue }
    }
}
