import GestureVocabulary

/// The fingers the recognizer follows for the current attempt at recognition, and what their group did
/// since its baseline: where each landed, where it is, the centroid's path (velocity), the spread of the
/// fingers (span) and their turn around the centroid (rotation). Fingers down that take part in nothing
/// (left from an ended or failed gesture, or gripping while other fingers landed later) are resting:
/// they are not followed, and frames are classified without them, until they lift.
///
/// The baseline is set when the attempt starts (fingers landed, or the set of fingers changed before
/// anything was recognized); translation, scale and rotation count from it.
public struct FingerSet: Sendable {
    public struct Finger: Sendable {
        public var serial: UInt64
        /// When the finger landed, microseconds (event clock).
        public var landingTime: Int64
        /// Where it landed (kept across new baselines: taps and holds measure stillness from here).
        public var landingN: Vector2
        public var landingMM: Vector2
        /// Where it was when the current attempt started.
        public var baselineMM: Vector2
        public var currentN: Vector2
        public var currentMM: Vector2
        /// Angle around the fingers' centroid at the previous frame, degrees (pinch rotation).
        var lastAngleDegrees: Double = 0
    }

    /// How the fingers of a frame differ from the ones followed.
    struct Change: Equatable, Sendable {
        /// Fingers in the frame that are not followed.
        var added = 0
        /// Followed fingers that lifted.
        var lifted = 0
        /// Followed fingers lost without a lift (they turned into palms), and palms that landed beside
        /// followed fingers (a palm joining a gesture cancels it, as a finger of it turning into one does).
        var lost = 0
        var isEmpty: Bool { added == 0 && lifted == 0 && lost == 0 }
    }

    /// Every method that changes them brings `centroidN` and `centroidMM` up to date.
    public private(set) var fingers: [Finger] = []
    /// Fingers down that take part in nothing until they lift.
    private(set) var resting: [UInt64] = []
    private(set) var velocity: VelocityTracker
    /// Cumulative rotation of the fingers around their centroid since the baseline, degrees.
    public private(set) var rotationSinceBaselineDegrees: Double = 0
    public private(set) var spanAtBaselineMM: Double = 0
    public private(set) var baselineCentroidN = Vector2.zero
    public private(set) var baselineCentroidMM = Vector2.zero
    /// When the latest finger of the group landed (a finger joining just after it restarts recognition).
    public internal(set) var groupLandingTime: Int64 = 0

    init(velocityWindowSeconds: Double) {
        velocity = VelocityTracker(windowSeconds: velocityWindowSeconds)
        fingers.reserveCapacity(10)
    }

    public var count: Int { fingers.count }
    public var isEmpty: Bool { fingers.isEmpty }

    public func follows(_ serial: UInt64) -> Bool { fingers.contains { $0.serial == serial } }
    public func isResting(_ serial: UInt64) -> Bool { !resting.isEmpty && resting.contains(serial) }

    /// The serials of the fingers followed.
    public var serials: [UInt64] { fingers.map(\.serial) }

    /// Compares the frame's fingers with the ones followed (resting fingers count for nothing); forgets
    /// resting fingers that left.
    mutating func change(in frame: TouchFrame) -> Change {
        var change = Change()
        for serial in frame.lifted where follows(serial) { change.lifted += 1 }
        // A contact the frame reports lost that is neither followed nor resting landed as a palm in it.
        for serial in frame.lost where follows(serial) || (!fingers.isEmpty && !isResting(serial)) { change.lost += 1 }
        var known = 0
        for c in frame.contacts where follows(c.serial) || isResting(c.serial) { known += 1 }
        change.added = frame.contacts.count - known
        if !resting.isEmpty && (!frame.lifted.isEmpty || !frame.lost.isEmpty) {
            resting.removeAll { serial in frame.lifted.contains(serial) || frame.lost.contains(serial) }
        }
        return change
    }

    /// Follows exactly the frame's fingers that are not resting, with a new baseline at their positions.
    mutating func rebaseline(_ frame: TouchFrame) {
        let time = frame.timeMicroseconds
        let previous = fingers
        fingers.removeAll(keepingCapacity: true)
        for c in frame.contacts where !isResting(c.serial) {
            if let old = previous.first(where: { $0.serial == c.serial }) {
                fingers.append(
                    Finger(
                        serial: c.serial, landingTime: old.landingTime, landingN: old.landingN, landingMM: old.landingMM,
                        baselineMM: c.positionMM, currentN: c.position, currentMM: c.positionMM))
            } else {
                fingers.append(
                    Finger(
                        serial: c.serial, landingTime: time, landingN: c.position, landingMM: c.positionMM,
                        baselineMM: c.positionMM, currentN: c.position, currentMM: c.positionMM))
            }
        }
        updateCentroid()
        baselineCentroidN = centroidN
        baselineCentroidMM = centroidMM
        spanAtBaselineMM = spanMM
        rotationSinceBaselineDegrees = 0
        let c = centroidMM
        for i in fingers.indices { fingers[i].lastAngleDegrees = Angles.degrees(of: fingers[i].currentMM - c) }
        velocity.reset()
        velocity.add(time: time, position: baselineCentroidMM)
    }

    /// Takes the followed fingers' new positions and adds the frame to the group's motion; false (and
    /// nothing recorded) when `onlyIfMoved` and no finger moved (a pressure-only frame).
    @discardableResult
    mutating func track(_ frame: TouchFrame, onlyIfMoved: Bool = false) -> Bool {
        var moved = false
        fingers.withUnsafeMutableBufferPointer { followed in
            for c in frame.contacts {
                for i in followed.indices where followed[i].serial == c.serial {
                    if followed[i].currentMM != c.positionMM { moved = true }
                    followed[i].currentN = c.position
                    followed[i].currentMM = c.positionMM
                }
            }
        }
        updateCentroid()
        if onlyIfMoved && !moved { return false }
        velocity.add(time: frame.timeMicroseconds, position: centroidMM)
        trackRotation()
        return moved
    }

    /// Stops following fingers that are no longer down (after a gesture ended), so later frames can tell
    /// the remaining ones from new ones.
    mutating func keepOnly(_ frame: TouchFrame) {
        fingers.removeAll { f in !frame.contacts.contains { $0.serial == f.serial } }
        updateCentroid()
    }

    /// Every finger down in `frame` rests: the ones followed and any other; nothing is followed.
    mutating func restAll(_ frame: TouchFrame) {
        fingers.removeAll(keepingCapacity: true)
        updateCentroid()
        for c in frame.contacts where !isResting(c.serial) { resting.append(c.serial) }
    }

    /// The fingers followed rest (they stay down but take part in nothing); nothing is followed.
    mutating func restFollowed() {
        for f in fingers { resting.append(f.serial) }
        fingers.removeAll(keepingCapacity: true)
        updateCentroid()
    }

    /// Whether any finger followed is farther than `distanceMM` from where it landed.
    public func anyMovedFromLanding(beyond distanceMM: Double) -> Bool {
        fingers.contains { ($0.currentMM - $0.landingMM).length >= distanceMM }
    }

    /// Centroid of the followed fingers' landing positions.
    public var landingCentroid: (n: Vector2, mm: Vector2) {
        var n = Vector2.zero
        var mm = Vector2.zero
        for f in fingers {
            n = n + f.landingN
            mm = mm + f.landingMM
        }
        let k = Double(max(fingers.count, 1))
        return (n / k, mm / k)
    }

    // MARK: The group's geometry

    /// The centroid of the followed fingers, normalised and in millimetres (zero with no finger): kept
    /// current by every change of `fingers`, as most frames read it several times.
    public private(set) var centroidN = Vector2.zero
    public private(set) var centroidMM = Vector2.zero

    private mutating func updateCentroid() {
        var n = Vector2.zero
        var mm = Vector2.zero
        for f in fingers {
            n = n + f.currentN
            mm = mm + f.currentMM
        }
        if !fingers.isEmpty {
            n = n / Double(fingers.count)
            mm = mm / Double(fingers.count)
        }
        centroidN = n
        centroidMM = mm
    }

    /// Movement of the centroid since the baseline, millimetres.
    public var centroidMoveMM: Vector2 { centroidMM - baselineCentroidMM }

    /// The farthest any finger moved from its baseline, millimetres.
    public var maximumMoveMM: Double {
        var m = 0.0
        for f in fingers { m = max(m, (f.currentMM - f.baselineMM).length) }
        return m
    }

    /// Mean over the fingers of the part of their movement not shared with the centroid, millimetres:
    /// large when fingers move apart, together or around; near zero when they move as one.
    public var differentialMoveMM: Double {
        guard !fingers.isEmpty else { return 0 }
        let common = centroidMoveMM
        var d = 0.0
        for f in fingers { d += ((f.currentMM - f.baselineMM) - common).length }
        return d / Double(fingers.count)
    }

    /// Mean distance of the fingers from their centroid, millimetres.
    public var spanMM: Double {
        guard fingers.count >= 2 else { return 0 }
        let c = centroidMM
        var s = 0.0
        for f in fingers { s += (f.currentMM - c).length }
        return s / Double(fingers.count)
    }

    public func velocityMMPerSecond(at time: Int64) -> Vector2 { velocity.velocity(at: time) }

    /// Adds the fingers' mean turn around their centroid since the last frame to the cumulative rotation.
    private mutating func trackRotation() {
        guard fingers.count >= 2 else { return }
        let c = centroidMM
        var sum = 0.0
        fingers.withUnsafeMutableBufferPointer { followed in
            for i in followed.indices {
                let angle = Angles.degrees(of: followed[i].currentMM - c)
                sum += Angles.wrapDegrees(angle - followed[i].lastAngleDegrees)
                followed[i].lastAngleDegrees = angle
            }
        }
        rotationSinceBaselineDegrees += sum / Double(fingers.count)
    }
}
