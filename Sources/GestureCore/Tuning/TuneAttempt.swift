import GestureVocabulary
import PlainText

// `gesturectl tune`'s model: what the user was asked for, what was measured of each touch sequence they
// made for it, and what became of it. Pure: the measurements come from a recording (TuneRecording) or
// from what the daemon says of a live touch; the proposal (TuneProposal) reads only them.

/// What the user was asked for in one step of the tuning session.
public enum TuneIntent: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// A swipe inward from this side.
    case edgeSwipe(Edge)
    /// A tap of one finger, anywhere.
    case tap
    /// Ordinary scrolling in the middle of the screen: never an edge swipe.
    case scroll

    public var description: String {
        switch self {
        case .edgeSwipe(let edge): return "\(edge.rawValue) edge swipe"
        case .tap: return "tap"
        case .scroll: return "scrolling"
        }
    }
}

extension TouchMeasurement {
    /// How far off the side's inward direction the move at the slop pointed, degrees (0...180); nil when
    /// the fingers never moved past the slop.
    public func angleFromInwardDegrees(_ edge: Edge) -> Double? {
        guard let move = moveAtSlopMM, move.length > 0 else { return nil }
        let d = EdgeZones.inward(edge)
        let along = move.x * d.x + move.y * d.y
        let across = move.x * d.y - move.y * d.x
        return Angles.atan2(across < 0 ? -across : across, along) * Angles.degreesPerRadian
    }

    /// The travel inward from the side at the release, millimetres (negative: outward).
    public func inwardTravelMM(_ edge: Edge) -> Double {
        let d = EdgeZones.inward(edge)
        return travelMM.x * d.x + travelMM.y * d.y
    }

    /// The release velocity inward from the side, mm/s (negative: outward).
    public func inwardVelocityMMPerSecond(_ edge: Edge) -> Double {
        let d = EdgeZones.inward(edge)
        return releaseVelocityMMPerSecond.x * d.x + releaseVelocityMMPerSecond.y * d.y
    }

    public var durationSeconds: Double { Double(endMicroseconds - startMicroseconds) / 1_000_000 }
}

/// What a touch sequence became.
public enum TuneOutcome: Equatable, Sendable {
    /// An edge swipe from this edge or corner, committed or not.
    case edgeSwipe(Edge, committed: Bool)
    /// A tap.
    case tap
    /// Another gesture (a pan, a pinch, a hold).
    case other(GestureKind)
    /// No gesture at all.
    case nothing

    /// Whether it is what `intent` asked for: an edge swipe from that side, committed; a tap; for
    /// scrolling, anything but an edge swipe.
    public func fulfils(_ intent: TuneIntent) -> Bool {
        switch (intent, self) {
        case (.edgeSwipe(let wanted), .edgeSwipe(let edge, let committed)): return wanted == edge && committed
        case (.edgeSwipe, _): return false
        case (.tap, .tap): return true
        case (.tap, _): return false
        case (.scroll, .edgeSwipe): return false
        case (.scroll, _): return true
        }
    }
}

extension TuneIntent {
    /// Most a swipe may point off inward and still be an attempt at one: the angle tolerance's own limit
    /// (angle_tolerance_degrees goes up to 45°).
    public static let attemptAngleLimitDegrees = 45.0

    /// Why `touch` cannot be an attempt at what this step asks for, so that it is left out (not counted,
    /// the step waits for another); nil when it can be. An edge swipe from a side: one that became it, a
    /// near miss of it, or a touch that landed within twice the side's zone and moved inward within 45°;
    /// not a touch that landed farther in, did not move, or moved elsewhere. A tap: one that became a tap,
    /// or that was shorter than a hold and moved less than a pan commits. Scrolling: any touch.
    public func leftOut(_ touch: TuneTouch, settings: RecognizerSettings) -> String? {
        let m = touch.measurement
        switch self {
        case .edgeSwipe(let edge):
            if case .edgeSwipe(let got, _) = touch.outcome, got == edge { return nil }
            if touch.reasons.contains(where: { $0.cause == .nearMiss && $0.edge == edge }) { return nil }
            let zone = settings.edgeZones[edge]
            let landed = m.landingDistanceMM[edge]
            if landed > 2 * zone.widthMM {
                return "it landed \(TuneNumber.mm(landed)) mm from the \(edge.rawValue) edge, more than twice its zone "
                    + "(\(zone.widthKey.key(edge)) \(formatNumber(zone.widthMM)))"
            }
            guard let angle = m.angleFromInwardDegrees(edge) else {
                return "it did not move past the slop (slop_mm \(formatNumber(settings.slopMM)))"
            }
            if angle > TuneIntent.attemptAngleLimitDegrees {
                return "it moved \(TuneNumber.whole(angle))° from inward of the \(edge.rawValue) edge, more than any angle_tolerance_degrees allows "
                    + "(\(TuneNumber.whole(TuneIntent.attemptAngleLimitDegrees))°)"
            }
            return nil
        case .tap:
            if touch.outcome == .tap { return nil }
            let hold = settings.hold.holdSeconds
            if m.durationSeconds >= hold {
                return "it was down \(TuneNumber.hundredths(m.durationSeconds)) s, a hold (hold.hold_seconds \(formatNumber(hold)))"
            }
            let commit = settings.pan.commitDistanceMM
            if m.maximumMoveMM >= commit {
                return "it moved \(TuneNumber.mm(m.maximumMoveMM)) mm, a swipe (pan.commit_distance_mm \(formatNumber(commit)))"
            }
            return nil
        case .scroll:
            return nil
        }
    }
}

/// One touch sequence the user made for a step: what they were asked for, its number in that step
/// (1-based) and what was measured.
public struct TuneAttempt: Equatable, Sendable {
    public var intent: TuneIntent
    public var number: Int
    public var measurement: TouchMeasurement

    public init(intent: TuneIntent, number: Int, measurement: TouchMeasurement) {
        self.intent = intent
        self.number = number
        self.measurement = measurement
    }
}

/// Numbers as the tuner prints them, as the explanations do (NumberText): millimetres to a tenth,
/// degrees whole, fractions and seconds to a hundredth.
enum TuneNumber {
    static func mm(_ v: Double) -> String { NumberText.fixed(v, decimals: 1) }
    static func whole(_ v: Double) -> String { NumberText.fixed(v, decimals: 0) }
    static func hundredths(_ v: Double) -> String { NumberText.fixed(v, decimals: 2) }
}
