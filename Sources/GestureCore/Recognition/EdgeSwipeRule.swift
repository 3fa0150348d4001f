import GestureVocabulary

/// Edge swipe (UIScreenEdgePanGestureRecognizer): every finger lands in the zone of one enabled edge and
/// the fingers move inward within the angle tolerance. Its begin test, what its events carry and when it
/// commits; docs/gestures.md gives the reasons for each threshold.
enum EdgeSwipeRule {
    /// A small set of edges.
    struct EdgeSet: Equatable {
        var bits: UInt8 = 0
        static func bit(_ e: Edge) -> UInt8 {
            switch e {
            case .left: return 1
            case .right: return 2
            case .top: return 4
            case .bottom: return 8
            }
        }
        func contains(_ e: Edge) -> Bool { bits & EdgeSet.bit(e) != 0 }
        mutating func insert(_ e: Edge) { bits |= EdgeSet.bit(e) }
        var isEmpty: Bool { bits == 0 }
    }

    /// The edges whose zone every finger landed in, if an edge swipe with this many fingers is allowed:
    /// the edges still possible for these fingers.
    static func candidates(_ fingers: FingerSet, context: RecognizerContext) -> EdgeSet {
        var set = EdgeSet()
        let es = context.settings.edgeSwipe
        guard es.enabled, fingers.count >= es.minFingers, fingers.count <= es.maxFingers else { return set }
        for edge in Edge.allCases {
            let zone = es.zone(edge)
            guard zone.enabled else { continue }
            let inside = fingers.fingers.allSatisfy { f in
                distanceFromEdge(edge, f.baselineMM, screenSizeMM: context.screenSizeMM) <= zone.widthMM
            }
            if inside { set.insert(edge) }
        }
        return set
    }

    /// Begins towards the first candidate edge the centroid moves inward from; fails when it moves any
    /// other way (along the edge, or out).
    static func evaluate(_ edges: EdgeSet, _ fingers: FingerSet, context: RecognizerContext) -> Verdict {
        guard !edges.isEmpty else { return .doesNotApply }
        let move = fingers.centroidMoveMM
        for edge in Edge.allCases where edges.contains(edge) {
            let dir = inward(edge)
            let along = move.x * dir.x + move.y * dir.y
            if along > 0 && along >= context.cosAngleTolerance * move.length && move.length > 0 {
                return .begins(.edgeSwipe(edge))
            }
        }
        return .fails
    }

    static func snapshot(_ edge: Edge, _ e: inout GestureEvent) {
        e.edge = edge
        e.progress = progress(edge, translation: e.translation)
    }

    /// Commits when flung inward, or when released past the commit progress unless flung back outward.
    static func decideCommit(_ edge: Edge, _ e: inout GestureEvent, context: RecognizerContext) {
        let v = e.velocityMMPerSecond
        let dir = inward(edge)
        let inwardVelocity = v.x * dir.x + v.y * dir.y
        let es = context.settings.edgeSwipe
        let fling = es.flingVelocityMMPerSecond
        e.committed = inwardVelocity >= fling || ((e.progress ?? 0) >= es.commitProgress && inwardVelocity > -fling)
    }

    static func distanceFromEdge(_ edge: Edge, _ p: Vector2, screenSizeMM: (width: Double, height: Double)) -> Double {
        switch edge {
        case .left: return p.x
        case .right: return screenSizeMM.width - p.x
        case .top: return p.y
        case .bottom: return screenSizeMM.height - p.y
        }
    }

    /// Unit vector pointing from the edge into the screen.
    static func inward(_ edge: Edge) -> Vector2 {
        switch edge {
        case .left: return Vector2(1, 0)
        case .right: return Vector2(-1, 0)
        case .top: return Vector2(0, 1)
        case .bottom: return Vector2(0, -1)
        }
    }

    /// Fraction of the screen travelled inward, 0...1.
    static func progress(_ edge: Edge, translation t: Vector2) -> Double {
        let p: Double
        switch edge {
        case .left: p = t.x
        case .right: p = -t.x
        case .top: p = t.y
        case .bottom: p = -t.y
        }
        return min(max(p, 0), 1)
    }
}
