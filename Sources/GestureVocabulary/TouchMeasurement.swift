// What was measured of one touch sequence, the numbers the tuner (`gesturectl tune`) reads: from a
// recording (GestureCore's TuneRecording) or from the daemon's explanation stream, where each
// Explanation carries the measurements of its touch sequences (`Explanation.touches`, made only while
// the engine explains). Here, in the vocabulary, because daemon and clients both speak it.

/// A distance from each of the four sides (a corner's is the larger of its two sides').
public struct SideDistances: Equatable, Sendable {
    public var left: Double
    public var right: Double
    public var top: Double
    public var bottom: Double

    public init(left: Double, right: Double, top: Double, bottom: Double) {
        self.left = left
        self.right = right
        self.top = top
        self.bottom = bottom
    }

    public subscript(edge: Edge) -> Double {
        switch edge {
        case .left: return left
        case .right: return right
        case .top: return top
        case .bottom: return bottom
        case .topLeft, .topRight, .bottomLeft, .bottomRight:
            let (h, v) = edge.sidesOfCorner!
            return max(self[h], self[v])
        }
    }
}

/// What was measured of one touch sequence (from the first finger down to the last finger up), in
/// millimetres on the screen as the user sees it: the values the recognizer's rules hold against their
/// settings.
public struct TouchMeasurement: Equatable, Sendable {
    /// The most fingers down at once.
    public var fingers: Int
    public var startMicroseconds: Int64
    public var endMicroseconds: Int64
    /// How far from each side the fingers landed: the farthest finger's distance, as the edge zone's test
    /// takes it (every finger must land in the zone).
    public var landingDistanceMM: SideDistances
    /// The fingers' centroid's move from where they landed at the frame a finger first passed the slop
    /// `measuredAtSlopMM` (the move whose direction decides an edge swipe); nil when none moved that far.
    public var moveAtSlopMM: Vector2?
    /// The slop in force when the move was measured.
    public var measuredAtSlopMM: Double
    /// The centroid's move from the landing at the last frame before the lift.
    public var travelMM: Vector2
    /// The centroid's velocity at the lift, over the velocity window.
    public var releaseVelocityMMPerSecond: Vector2
    /// The farthest any finger moved from where it landed.
    public var maximumMoveMM: Double

    public init(
        fingers: Int, startMicroseconds: Int64, endMicroseconds: Int64, landingDistanceMM: SideDistances, moveAtSlopMM: Vector2?,
        measuredAtSlopMM: Double, travelMM: Vector2, releaseVelocityMMPerSecond: Vector2, maximumMoveMM: Double
    ) {
        self.fingers = fingers
        self.startMicroseconds = startMicroseconds
        self.endMicroseconds = endMicroseconds
        self.landingDistanceMM = landingDistanceMM
        self.moveAtSlopMM = moveAtSlopMM
        self.measuredAtSlopMM = measuredAtSlopMM
        self.travelMM = travelMM
        self.releaseVelocityMMPerSecond = releaseVelocityMMPerSecond
        self.maximumMoveMM = maximumMoveMM
    }
}
