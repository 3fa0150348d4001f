import GestureVocabulary

/// What the recognizer's rules make of a measured touch sequence under given settings, read from the
/// measurements alone (live, where the daemon gives measurements rather than the raw events; a
/// recording is checked exactly by replaying it, TuneRecording.outcomes). The tests of the proposal
/// hold the two to each other on the tuner's recordings.
public struct TunePrediction: Sendable {
    public var settings: RecognizerSettings
    public var screenSizeMM: (width: Double, height: Double)

    public init(settings: RecognizerSettings, screenSizeMM: (width: Double, height: Double)) {
        self.settings = settings
        self.screenSizeMM = screenSizeMM
    }

    /// The edge swipe it would be, if any: the first side (in `Edge.sides` order) whose zone it landed in
    /// and whose inward direction its move at the slop is within the angle tolerance of.
    public func edgeSwipe(_ m: TouchMeasurement) -> Edge? {
        let rule = settings.edgeSwipe
        guard rule.enabled, m.fingers >= rule.minFingers, m.fingers <= rule.maxFingers else { return nil }
        guard m.maximumMoveMM >= settings.slopMM else { return nil }
        for edge in Edge.sides {
            let zone = settings.edgeZones[edge]
            guard zone.enabled, m.landingDistanceMM[edge] <= zone.widthMM, let angle = m.angleFromInwardDegrees(edge) else { continue }
            if angle <= settings.angleToleranceDegrees { return edge }
        }
        return nil
    }

    /// Whether an edge swipe from `edge` with these measurements commits at its release
    /// (EdgeSwipeRule.decideCommit's rule, on the measured travel and release velocity).
    public func commits(_ m: TouchMeasurement, from edge: Edge) -> Bool {
        let rule = settings.edgeSwipe
        let velocity = m.inwardVelocityMMPerSecond(edge)
        if velocity >= rule.flingVelocityMMPerSecond { return true }
        if velocity <= -rule.flingVelocityMMPerSecond { return false }
        let travel = m.inwardTravelMM(edge)
        let pastProgress = progress(m, from: edge) >= rule.commitProgress
        return pastProgress || (travel >= rule.commitDistanceMM && velocity >= EdgeSwipeRule.restSpeedMMPerSecond)
    }

    /// The fraction of the screen travelled inward from a side, 0...1.
    public func progress(_ m: TouchMeasurement, from edge: Edge) -> Double {
        let length = edge == .left || edge == .right ? screenSizeMM.width : screenSizeMM.height
        guard length > 0 else { return 0 }
        return min(max(m.inwardTravelMM(edge) / length, 0), 1)
    }

    /// What the sequence would become: an edge swipe (committed or not), a tap (still, short, fingers the
    /// tap allows; or rolled past the slop by less than twice it and lifted while a pan still waited for
    /// the hand to land: `Stillness.rolled`), another gesture when it moved (a pan, as far as measurements
    /// tell), else nothing.
    public func outcome(_ m: TouchMeasurement) -> TuneOutcome {
        if let edge = edgeSwipe(m) { return .edgeSwipe(edge, committed: commits(m, from: edge)) }
        let rolled =
            m.maximumMoveMM < settings.rollLimitMM && m.durationSeconds < settings.fingerLandingWindowSeconds
            && settings.pan.mayStillGainFingers(m.fingers)
        if m.maximumMoveMM < settings.slopMM || rolled {
            let tap = settings.tap
            if tap.enabled, m.fingers >= tap.minFingers, m.fingers <= tap.maxFingers, m.durationSeconds <= tap.maxDurationSeconds {
                return .tap
            }
            return .nothing
        }
        return .other(.pan)
    }
}

/// What became of one attempt, against what it was meant to be, with the numbers that decided: the
/// line `gesturectl tune` shows as the attempt comes.
public enum TuneAttemptReport: Equatable, Sendable {
    case swipeCommitted(Edge)
    /// An edge swipe from the edge that did not commit, and the reason the edge swipe gave.
    case swipeNotCommitted(Edge, Reason?)
    /// No edge swipe from the edge: the edge swipe's reason (the recognizer's, with its numbers), and
    /// what the touch became instead.
    case swipeNotRecognized(Edge, Reason?, became: TuneOutcome)
    case tap
    /// Not a tap: the tap's reason, and what it became.
    case notATap(Reason?, became: TuneOutcome)
    case scrollKept
    /// Scrolling that became an edge swipe: where it landed and how it moved, by that edge.
    case scrollBecameEdgeSwipe(Edge, landedMM: Double, degrees: Double?)

    public var fulfilled: Bool {
        switch self {
        case .swipeCommitted, .tap, .scrollKept: return true
        default: return false
        }
    }
}

extension TunePrediction {
    /// The report of an attempt whose outcome is `outcome`, with the reasons the recognizer gave for its
    /// touch sequence (its Explanation's, from a replay or the daemon's stream).
    public func report(_ attempt: TuneAttempt, _ outcome: TuneOutcome, reasons: [Reason]) -> TuneAttemptReport {
        let m = attempt.measurement
        func reason(_ kind: GestureKind) -> Reason? { reasons.first { $0.kind == kind } }
        switch (attempt.intent, outcome) {
        case (.edgeSwipe(let edge), .edgeSwipe(let got, true)) where got == edge: return .swipeCommitted(edge)
        case (.edgeSwipe(let edge), .edgeSwipe(let got, false)) where got == edge: return .swipeNotCommitted(edge, reason(.edgeSwipe))
        case (.edgeSwipe(let edge), _): return .swipeNotRecognized(edge, reason(.edgeSwipe), became: outcome)
        case (.tap, .tap): return .tap
        case (.tap, _): return .notATap(reason(.tap), became: outcome)
        case (.scroll, .edgeSwipe(let edge, _)):
            return .scrollBecameEdgeSwipe(edge, landedMM: m.landingDistanceMM[edge], degrees: m.angleFromInwardDegrees(edge))
        case (.scroll, _): return .scrollKept
        }
    }
}

extension TuneOutcome: CustomStringConvertible {
    public var description: String {
        switch self {
        case .edgeSwipe(let edge, let committed): return "a\(committed ? " committed" : "n uncommitted") \(edge.rawValue) edge swipe"
        case .tap: return "a tap"
        case .other(let kind): return "a \(kind.rawValue)"
        case .nothing: return "nothing"
        }
    }
}

extension TuneAttemptReport: CustomStringConvertible {
    public var description: String {
        switch self {
        case .swipeCommitted(let edge): return "\(edge.rawValue) edge swipe, committed ✓"
        case .swipeNotCommitted(let edge, let reason):
            return "\(edge.rawValue) edge swipe, \(reason?.text ?? "not committed") ✗"
        case .swipeNotRecognized(_, let reason, let became):
            let it = became == .nothing ? "" : "; it became \(became)"
            if let reason { return "not recognized: \(reason.text)\(it) ✗" }
            return "not recognized: it became \(became) ✗"
        case .tap: return "tap ✓"
        case .notATap(let reason, let became):
            return "not a tap: \(reason?.text ?? "it was no tap"); it became \(became) ✗"
        case .scrollKept: return "scrolling, no edge swipe ✓"
        case .scrollBecameEdgeSwipe(let edge, let landed, let degrees):
            let angle = degrees.map { " and moved \(TuneNumber.whole($0))° from inward" } ?? ""
            return "scrolling, but it became a \(edge.rawValue) edge swipe: landed \(TuneNumber.mm(landed)) mm from the \(edge.rawValue) edge\(angle) ✗"
        }
    }
}
