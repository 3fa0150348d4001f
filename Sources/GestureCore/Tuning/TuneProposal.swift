import GestureVocabulary
import PlainText

/// How far past the user's own attempts a proposed setting goes, so that the next attempt, a little
/// farther or more slanted than any the user made, still counts, and so that touches the settings must
/// leave alone stay that far outside them.
public struct TuneMargins: Equatable, Sendable {
    /// A zone reaches this far past the farthest landing of its swipes, and stops this far short of any
    /// touch that must not become an edge swipe.
    public var zoneMM: Double = 1
    /// The angle tolerance is this far past the most slanted swipe's angle.
    public var angleDegrees: Double = 5
    /// The commit distance is this far short of the shortest swipe's travel.
    public var commitDistanceMM: Double = 3
    /// The slop is this far past the most a tap moved.
    public var slopMM: Double = 0.5

    public init() {}
}

/// Why the tuner proposes a value.
public enum TuneChangeReason: Equatable, Sendable {
    /// The swipes from `edge` landed up to `farthestMM` from it.
    case swipesLandedFarther(Edge, farthestMM: Double)
    /// The zone of `edge` took touches that must not be edge swipes, landing from `nearestMM` on.
    case zoneTookOtherTouches(Edge, nearestMM: Double)
    /// The swipes moved up to `degrees` off inward.
    case swipesMovedOffInward(degrees: Double)
    /// A narrower tolerance leaves out touches that moved inward as slanted as the swipes would allow.
    case toleranceTookOtherTouches(degrees: Double)
    /// The shortest swipe released while still moving travelled `shortestMM`.
    case swipesTravelledShort(shortestMM: Double)
    /// A tap moved up to `farthestMM`.
    case tapsMoved(farthestMM: Double)
}

extension TuneChangeReason: CustomStringConvertible {
    public var description: String {
        switch self {
        case .swipesLandedFarther(let edge, let d): return "your \(edge.rawValue) edge swipes landed up to \(TuneNumber.mm(d)) mm from the edge"
        case .zoneTookOtherTouches(let edge, let d):
            return "touches that are no edge swipe landed \(TuneNumber.mm(d)) mm from the \(edge.rawValue) edge and moved inward"
        case .swipesMovedOffInward(let a): return "your swipes moved up to \(TuneNumber.whole(a))° from inward"
        case .toleranceTookOtherTouches(let a): return "touches that are no edge swipe moved \(TuneNumber.whole(a))° from inward by an edge"
        case .swipesTravelledShort(let d): return "your shortest swipe released while moving travelled \(TuneNumber.mm(d)) mm"
        case .tapsMoved(let d): return "your taps moved up to \(TuneNumber.mm(d)) mm"
        }
    }
}

/// One setting the tuner proposes: its key relative to [recognizer] (the same key in a [[device]]
/// section), the value in force and the one proposed, and why.
public struct TuneChange: Equatable, Sendable {
    public var key: String
    public var from: Double
    public var to: Double
    public var reason: TuneChangeReason

    public init(key: String, from: Double, to: Double, reason: TuneChangeReason) {
        self.key = key
        self.from = from
        self.to = to
        self.reason = reason
    }
}

/// What the tuner cannot settle with a setting, said instead of a guess.
public enum TuneProblem: Equatable, Sendable {
    /// No zone width and angle tolerance within their ranges takes every swipe from `edge` and leaves
    /// out `other` (an attempt of another step, its number in that step): it landed within the zone the
    /// swipes need (`otherLandedMM` against the swipes' `swipesLandedMM`) and moved inward within the
    /// tolerance they need (`otherDegrees` against `swipesDegrees`).
    case inseparable(Edge, other: TuneIntent, number: Int, otherLandedMM: Double, otherDegrees: Double, swipesLandedMM: Double,
        swipesDegrees: Double)
    /// The value the attempts need is outside the key's validated range.
    case outOfRange(key: String, needed: Double, range: ClosedRange<Double>)
    /// An edge swipe that came to rest before its release short of the commit progress: no commit
    /// distance commits it (only a release while moving, or past `commit_progress`, does).
    case releasedAtRest(Edge, number: Int, travelMM: Double, progress: Double, commitProgress: Double)
    /// A tap moved as far as a swipe: no slop tells them apart.
    case tapsMoveLikeSwipes(tapMovedMM: Double, swipeMovedMM: Double)
    /// The step has no attempts to learn from.
    case noAttempts(TuneIntent)
    /// The edge is off in the settings in force (its `enabled`, or the edge swipe's).
    case edgeDisabled(Edge)
}

extension TuneProblem: CustomStringConvertible {
    public var description: String {
        switch self {
        case .inseparable(let edge, let other, let number, let otherMM, let otherDeg, let swipesMM, let swipesDeg):
            return "no setting separates your \(edge.rawValue) edge swipes from \(other) \(number): it landed "
                + "\(TuneNumber.mm(otherMM)) mm from the \(edge.rawValue) edge and moved \(TuneNumber.whole(otherDeg))° from inward, "
                + "where your swipes landed up to \(TuneNumber.mm(swipesMM)) mm from it and moved up to \(TuneNumber.whole(swipesDeg))°; "
                + "edge_swipe.\(edge.rawValue).zone_mm is left as it is"
        case .outOfRange(let key, let needed, let range):
            return "\(key) would need \(formatNumber(needed)), outside its range \(formatNumber(range.lowerBound)) to \(formatNumber(range.upperBound)); "
                + "the attempts that need it stay unrecognized"
        case .releasedAtRest(let edge, let number, let travel, let progress, let commitProgress):
            return "\(edge.rawValue) edge swipe \(number) came to rest before the release after \(TuneNumber.mm(travel)) mm "
                + "(progress \(TuneNumber.hundredths(progress)), edge_swipe.commit_progress \(formatNumber(commitProgress))): "
                + "a pull released at rest short of commit_progress is abandoned whatever commit_distance_mm says; lift while still moving"
        case .tapsMoveLikeSwipes(let tap, let swipe):
            return "a tap moved \(TuneNumber.mm(tap)) mm, as far as a swipe that moved \(TuneNumber.mm(swipe)) mm: no slop_mm tells them apart; slop_mm is left as it is"
        case .noAttempts(let intent): return "no attempts for \(intent)"
        case .edgeDisabled(let edge):
            return "edge swipes from the \(edge.rawValue) edge are off (edge_swipe.enabled, edge_swipe.\(edge.rawValue).enabled): turn them on first"
        }
    }
}

/// The settings under which every intended attempt is recognized (and an edge swipe committed) and no
/// touch of another step becomes an edge swipe, each with a margin (TuneMargins); a setting the attempts
/// do not need changed is kept. One algorithm for live sessions and recordings: it reads measurements only.
public struct TuneProposal: Equatable, Sendable {
    /// The settings in force, with the changes applied.
    public var settings: RecognizerSettings
    public var changes: [TuneChange]
    public var problems: [TuneProblem]

    /// The edges the session asked for, the attempts, the settings in force, the screen's size.
    public init(
        edges: [Edge], attempts: [TuneAttempt], current: RecognizerSettings, screenSizeMM: (width: Double, height: Double),
        margins: TuneMargins = TuneMargins()
    ) {
        var proposer = Proposer(
            edges: edges, attempts: attempts, settings: current, screenSizeMM: screenSizeMM, margins: margins)
        proposer.run()
        settings = proposer.settings
        changes = proposer.changes
        problems = proposer.problems
    }

    /// The validated range of a numeric [recognizer] key (the configuration decoder's).
    public static func range(of key: String) -> ClosedRange<Double> {
        guard let k = RecognizerSettings.keys.first(where: { $0.key == key }), case .number(let r, _) = k.spec else { return 0...0 }
        return r
    }

    /// `value` up to the next multiple of `step`.
    static func up(_ value: Double, step: Double) -> Double { (value / step).rounded(.up) * step }
    /// `value` down to the multiple of `step` at or below it.
    static func down(_ value: Double, step: Double) -> Double { (value / step).rounded(.down) * step }
}

/// The proposal's steps over mutable state: the angle tolerance (shared by every edge) with the zones,
/// then the slop (taps), then the commit distance (with the settings proposed so far).
private struct Proposer {
    let edges: [Edge]
    let attempts: [TuneAttempt]
    var settings: RecognizerSettings
    let screenSizeMM: (width: Double, height: Double)
    let margins: TuneMargins
    var changes: [TuneChange] = []
    var problems: [TuneProblem] = []

    init(edges: [Edge], attempts: [TuneAttempt], settings: RecognizerSettings, screenSizeMM: (width: Double, height: Double), margins: TuneMargins) {
        self.edges = edges
        self.attempts = attempts
        self.settings = settings
        self.screenSizeMM = screenSizeMM
        self.margins = margins
    }

    func swipes(_ edge: Edge) -> [TuneAttempt] { attempts.filter { $0.intent == .edgeSwipe(edge) } }
    var allSwipes: [TuneAttempt] { attempts.filter { if case .edgeSwipe = $0.intent { return true } else { return false } } }
    var taps: [TuneAttempt] { attempts.filter { $0.intent == .tap } }

    mutating func set(_ key: String, to value: Double, reason: TuneChangeReason) {
        guard let k = RecognizerSettings.keys.first(where: { $0.key == key }), case .number(let old) = k.get(settings) else { return }
        guard old != value else { return }
        k.set(&settings, .number(value))
        if let i = changes.firstIndex(where: { $0.key == key }) {
            changes[i].to = value
            changes[i].reason = reason
            if changes[i].from == value { changes.remove(at: i) }
        } else {
            changes.append(TuneChange(key: key, from: old, to: value, reason: reason))
        }
    }

    mutating func run() {
        for intent in edges.map(TuneIntent.edgeSwipe) + [.tap, .scroll] where !attempts.contains(where: { $0.intent == intent }) {
            problems.append(.noAttempts(intent))
        }
        let rule = settings.edgeSwipe
        for edge in edges where !rule.enabled || !settings.edgeZones[edge].enabled { problems.append(.edgeDisabled(edge)) }
        proposeSlop()
        proposeZonesAndTolerance()
        proposeCommitDistance()
    }

    // MARK: The slop

    /// Every tap stays under the slop, with its margin; every swipe still passes it. Taps that are taps
    /// already (a short one that rolled a little past the slop is) need nothing.
    mutating func proposeSlop() {
        let prediction = TunePrediction(settings: settings, screenSizeMM: screenSizeMM)
        let moves = taps.filter { prediction.outcome($0.measurement) != .tap }.map(\.measurement.maximumMoveMM)
        guard let farthest = moves.max() else { return }
        let key = "slop_mm"
        let range = TuneProposal.range(of: key)
        let needed = TuneProposal.up(farthest + margins.slopMM, step: 0.5)
        guard settings.slopMM < needed else { return }
        if needed > range.upperBound {
            problems.append(.outOfRange(key: key, needed: needed, range: range))
            return
        }
        if let shortest = allSwipes.map(\.measurement.maximumMoveMM).min(), shortest < needed {
            problems.append(.tapsMoveLikeSwipes(tapMovedMM: farthest, swipeMovedMM: shortest))
            return
        }
        set(key, to: max(needed, range.lowerBound), reason: .tapsMoved(farthestMM: farthest))
    }

    // MARK: Zones and the angle tolerance

    /// The touches of other steps that would become edge swipes from `edge` with this zone and tolerance
    /// (each with the margins): moved past the slop, inward from the edge within the tolerance, landed
    /// within the zone.
    func conflicts(_ edge: Edge, zoneMM: Double, toleranceDegrees: Double) -> [(TuneAttempt, Double, Double)] {
        let rule = settings.edgeSwipe
        return attempts.compactMap { a in
            guard a.intent != .edgeSwipe(edge) else { return nil }
            let m = a.measurement
            guard m.fingers >= rule.minFingers, m.fingers <= rule.maxFingers, m.maximumMoveMM >= settings.slopMM,
                let angle = m.angleFromInwardDegrees(edge)
            else { return nil }
            let distance = m.landingDistanceMM[edge]
            guard distance <= zoneMM + margins.zoneMM, angle <= toleranceDegrees + margins.angleDegrees else { return nil }
            return (a, distance, angle)
        }
    }

    mutating func proposeZonesAndTolerance() {
        let toleranceKey = "angle_tolerance_degrees"
        let toleranceRange = TuneProposal.range(of: toleranceKey)
        let current = settings.angleToleranceDegrees
        // The tolerance every swipe needs (from its own edge), with its margin.
        let angles = allSwipes.compactMap { a -> Double? in
            guard case .edgeSwipe(let edge) = a.intent else { return nil }
            return a.measurement.angleFromInwardDegrees(edge)
        }
        var least = current
        if let steepest = angles.max() {
            let needed = TuneProposal.up(steepest + margins.angleDegrees, step: 1)
            if needed > toleranceRange.upperBound { problems.append(.outOfRange(key: toleranceKey, needed: needed, range: toleranceRange)) }
            least = min(max(needed, toleranceRange.lowerBound), toleranceRange.upperBound)
        }
        // Keep the tolerance in force when it suffices, unless only the least one keeps other touches out.
        let keep = current >= least ? current : least
        var chosen = zones(toleranceDegrees: keep)
        var tolerance = keep
        if keep != least, chosen.contains(where: { !$0.conflicts.isEmpty }) {
            let tighter = zones(toleranceDegrees: least)
            if tighter.filter({ !$0.conflicts.isEmpty }).count < chosen.filter({ !$0.conflicts.isEmpty }).count {
                chosen = tighter
                tolerance = least
            }
        }
        if tolerance != current {
            let reason: TuneChangeReason =
                tolerance > current
                ? .swipesMovedOffInward(degrees: angles.max() ?? 0)
                : .toleranceTookOtherTouches(degrees: chosen.flatMap(\.conflictAnglesAtKeep).min() ?? tolerance)
            set(toleranceKey, to: tolerance, reason: reason)
        }
        for z in chosen {
            if let (other, distance, angle) = z.conflicts.first {
                problems.append(
                    .inseparable(
                        z.edge, other: other.intent, number: other.number, otherLandedMM: distance, otherDegrees: angle,
                        swipesLandedMM: z.farthestMM, swipesDegrees: z.steepestDegrees))
                continue
            }
            let key = "edge_swipe.\(z.edge.rawValue).zone_mm"
            guard let width = z.widthMM else {
                let range = TuneProposal.range(of: key)
                problems.append(.outOfRange(key: key, needed: TuneProposal.up(z.farthestMM + margins.zoneMM, step: 0.5), range: range))
                continue
            }
            guard width != settings.edgeZones[z.edge].widthMM else { continue }
            let reason: TuneChangeReason =
                width > settings.edgeZones[z.edge].widthMM
                ? .swipesLandedFarther(z.edge, farthestMM: z.farthestMM)
                : .zoneTookOtherTouches(z.edge, nearestMM: z.nearestOtherMM ?? width)
            set(key, to: width, reason: reason)
        }
    }

    struct ZoneChoice {
        var edge: Edge
        /// The width to set, nil when none in range takes the swipes.
        var widthMM: Double?
        var farthestMM: Double
        var steepestDegrees: Double
        /// The touches the least width still takes.
        var conflicts: [(TuneAttempt, Double, Double)]
        /// The nearest landing of a touch the width in force took.
        var nearestOtherMM: Double?
        var conflictAnglesAtKeep: [Double]
    }

    /// Per edge: the zone in force when it takes every swipe (with the margin) and nothing else, else the
    /// least that takes every swipe; the touches that least one still takes.
    func zones(toleranceDegrees: Double) -> [ZoneChoice] {
        edges.compactMap { edge -> ZoneChoice? in
            let own = swipes(edge)
            guard !own.isEmpty else { return nil }
            let key = "edge_swipe.\(edge.rawValue).zone_mm"
            let range = TuneProposal.range(of: key)
            let farthest = own.map { $0.measurement.landingDistanceMM[edge] }.max() ?? 0
            let steepest = own.compactMap { $0.measurement.angleFromInwardDegrees(edge) }.max() ?? 0
            let needed = TuneProposal.up(farthest + margins.zoneMM, step: 0.5)
            let current = settings.edgeZones[edge].widthMM
            let least = min(max(needed, range.lowerBound), range.upperBound)
            let atCurrent = conflicts(edge, zoneMM: current, toleranceDegrees: toleranceDegrees)
            if current >= needed, atCurrent.isEmpty {
                return ZoneChoice(
                    edge: edge, widthMM: current, farthestMM: farthest, steepestDegrees: steepest, conflicts: [], nearestOtherMM: nil,
                    conflictAnglesAtKeep: [])
            }
            let atLeast = conflicts(edge, zoneMM: least, toleranceDegrees: toleranceDegrees)
            return ZoneChoice(
                edge: edge, widthMM: needed > range.upperBound ? nil : least, farthestMM: farthest, steepestDegrees: steepest,
                conflicts: atLeast, nearestOtherMM: atCurrent.map(\.1).min(), conflictAnglesAtKeep: atCurrent.map(\.2))
        }
    }

    // MARK: The commit distance

    /// Every swipe that begins under the settings proposed so far commits: one released while still
    /// moving inward travelled the commit distance, with its margin.
    mutating func proposeCommitDistance() {
        let key = "edge_swipe.commit_distance_mm"
        let range = TuneProposal.range(of: key)
        let prediction = TunePrediction(settings: settings, screenSizeMM: screenSizeMM)
        var shortest: Double? = nil
        for a in allSwipes {
            guard case .edgeSwipe(let edge) = a.intent, prediction.edgeSwipe(a.measurement) == edge else { continue }
            let m = a.measurement
            let rule = settings.edgeSwipe
            let velocity = m.inwardVelocityMMPerSecond(edge)
            if velocity >= rule.flingVelocityMMPerSecond || prediction.progress(m, from: edge) >= rule.commitProgress { continue }
            guard velocity >= EdgeSwipeRule.restSpeedMMPerSecond, velocity > -rule.flingVelocityMMPerSecond else {
                problems.append(
                    .releasedAtRest(
                        edge, number: a.number, travelMM: m.inwardTravelMM(edge), progress: prediction.progress(m, from: edge),
                        commitProgress: rule.commitProgress))
                continue
            }
            shortest = min(shortest ?? .infinity, m.inwardTravelMM(edge))
        }
        guard let shortest else { return }
        let needed = TuneProposal.down(shortest - margins.commitDistanceMM, step: 0.5)
        guard settings.edgeSwipe.commitDistanceMM > needed else { return }
        if needed < range.lowerBound {
            problems.append(.outOfRange(key: key, needed: needed, range: range))
            return
        }
        set(key, to: needed, reason: .swipesTravelledShort(shortestMM: shortest))
    }
}
