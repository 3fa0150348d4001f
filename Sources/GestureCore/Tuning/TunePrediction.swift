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
    /// tap allows), another gesture when it moved (a pan, as far as measurements tell), else nothing.
    public func outcome(_ m: TouchMeasurement) -> TuneOutcome {
        if let edge = edgeSwipe(m) { return .edgeSwipe(edge, committed: commits(m, from: edge)) }
        if m.maximumMoveMM < settings.slopMM {
            let tap = settings.tap
            if tap.enabled, m.fingers >= tap.minFingers, m.fingers <= tap.maxFingers, m.durationSeconds <= tap.maxDurationSeconds {
                return .tap
            }
            return .nothing
        }
        return .other(.pan)
    }

    /// The first reason, in the recognizer's order, that the sequence is not a committed edge swipe from
    /// `edge`; nil when it is one.
    public func miss(_ m: TouchMeasurement, from edge: Edge) -> TuneMiss? {
        let rule = settings.edgeSwipe
        let zone = settings.edgeZones[edge]
        guard rule.enabled, zone.enabled, m.fingers >= rule.minFingers, m.fingers <= rule.maxFingers else { return .notEnabled(edge) }
        if m.landingDistanceMM[edge] > zone.widthMM {
            return .landedOutsideZone(edge, distanceMM: m.landingDistanceMM[edge], zoneMM: zone.widthMM)
        }
        guard m.maximumMoveMM >= settings.slopMM, let angle = m.angleFromInwardDegrees(edge) else {
            return .didNotMove(maximumMoveMM: m.maximumMoveMM, slopMM: settings.slopMM)
        }
        if angle > settings.angleToleranceDegrees {
            return .movedOffInward(edge, degrees: angle, toleranceDegrees: settings.angleToleranceDegrees)
        }
        if !commits(m, from: edge) {
            return .notCommitted(
                edge, travelMM: m.inwardTravelMM(edge), commitDistanceMM: rule.commitDistanceMM,
                velocityMMPerSecond: m.inwardVelocityMMPerSecond(edge), flingMMPerSecond: rule.flingVelocityMMPerSecond,
                progress: progress(m, from: edge), commitProgress: rule.commitProgress)
        }
        return nil
    }
}

/// What became of one attempt, against what it was meant to be, with the numbers that decided: the
/// line `gesturectl tune` shows as the attempt comes.
public enum TuneAttemptReport: Equatable, Sendable {
    case swipeCommitted(Edge)
    /// An edge swipe from the right edge that did not commit; why, when the measurements tell.
    case swipeNotCommitted(Edge, TuneMiss?)
    /// No edge swipe from the edge: the first reason, when the measurements tell, and what it became.
    case swipeNotRecognized(Edge, TuneMiss?, became: TuneOutcome)
    case tap
    case notATap(movedMM: Double, slopMM: Double, heldSeconds: Double, maxSeconds: Double, became: TuneOutcome)
    case scrollKept
    case scrollBecameEdgeSwipe(Edge, landedMM: Double, degrees: Double?)

    public var fulfilled: Bool {
        switch self {
        case .swipeCommitted, .tap, .scrollKept: return true
        default: return false
        }
    }
}

extension TunePrediction {
    /// The report of an attempt whose outcome is `outcome` (replayed, or predicted).
    public func report(_ attempt: TuneAttempt, _ outcome: TuneOutcome) -> TuneAttemptReport {
        let m = attempt.measurement
        switch (attempt.intent, outcome) {
        case (.edgeSwipe(let edge), .edgeSwipe(let got, true)) where got == edge: return .swipeCommitted(edge)
        case (.edgeSwipe(let edge), .edgeSwipe(let got, false)) where got == edge: return .swipeNotCommitted(edge, miss(m, from: edge))
        case (.edgeSwipe(let edge), _): return .swipeNotRecognized(edge, miss(m, from: edge), became: outcome)
        case (.tap, .tap): return .tap
        case (.tap, _):
            return .notATap(
                movedMM: m.maximumMoveMM, slopMM: settings.slopMM, heldSeconds: m.durationSeconds, maxSeconds: settings.tap.maxDurationSeconds,
                became: outcome)
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
        case .swipeNotCommitted(let edge, let miss):
            if let miss, case .notCommitted = miss { return "\(edge.rawValue) edge swipe, \(miss) ✗" }
            return "\(edge.rawValue) edge swipe, not committed ✗"
        case .swipeNotRecognized(_, let miss, let became):
            let it = became == .nothing ? "" : "; it became \(became)"
            if let miss { return "not recognized: \(miss)\(it) ✗" }
            return "not recognized: it became \(became) ✗"
        case .tap: return "tap ✓"
        case .notATap(let moved, let slop, let held, let maxSeconds, let became):
            return "not a tap: moved \(TuneMiss.mm(moved)) mm (slop_mm \(formatNumber(slop))), held \(TuneMiss.hundredths(held)) s "
                + "(tap.max_duration_seconds \(formatNumber(maxSeconds))); it became \(became) ✗"
        case .scrollKept: return "scrolling, no edge swipe ✓"
        case .scrollBecameEdgeSwipe(let edge, let landed, let degrees):
            let angle = degrees.map { " and moved \(TuneMiss.whole($0))° from inward" } ?? ""
            return "scrolling, but it became a \(edge.rawValue) edge swipe: landed \(TuneMiss.mm(landed)) mm from the \(edge.rawValue) edge\(angle) ✗"
        }
    }
}
