import GestureVocabulary

/// Edge swipe (UIScreenEdgePanGestureRecognizer): every finger lands in the zone of one enabled edge and
/// the fingers move inward within the angle tolerance. Its begin test, what its events carry and when it
/// commits; docs/gestures.md gives the reasons for each threshold.
enum EdgeSwipeRule {
    /// A small set of sides.
    struct EdgeSet: Equatable {
        var bits: UInt8 = 0
        static func bit(_ e: Edge) -> UInt8 {
            switch e {
            case .left: return 1
            case .right: return 2
            case .top: return 4
            case .bottom: return 8
            case .topLeft, .topRight, .bottomLeft, .bottomRight: return 0
            }
        }
        func contains(_ e: Edge) -> Bool {
            if let (h, v) = e.sidesOfCorner { return contains(h) && contains(v) }
            return bits & EdgeSet.bit(e) != 0
        }
        mutating func insert(_ e: Edge) { bits |= EdgeSet.bit(e) }
        var isEmpty: Bool { bits == 0 }

        /// The corner when the set holds the two sides of one, else the side (the first of the sides in
        /// `Edge.sides` order); nil when empty. Names where fingers landed (a pan's `start_edge`).
        var landingEdge: Edge? {
            for corner in Edge.corners where contains(corner) { return corner }
            return Edge.sides.first { contains($0) }
        }
    }

    /// The sides whose zone every finger landed in (zones of enabled sides, whatever the finger count).
    static func zonesLandedIn(_ fingers: FingerSet, context: RecognizerContext) -> EdgeSet {
        var set = EdgeSet()
        let es = context.settings.edgeSwipe
        for edge in Edge.sides {
            let zone = es.zone(edge)
            guard zone.enabled else { continue }
            let inside = fingers.fingers.allSatisfy { f in
                distanceFromEdge(edge, f.baselineMM, screenSizeMM: context.screenSizeMM) <= zone.widthMM
            }
            if inside { set.insert(edge) }
        }
        return set
    }

    /// The sides still possible for an edge swipe: the zones every finger landed in, if an edge swipe with
    /// this many fingers is allowed.
    static func candidates(landedIn zones: EdgeSet, fingers: Int, context: RecognizerContext) -> EdgeSet {
        let es = context.settings.edgeSwipe
        guard es.enabled, fingers >= es.minFingers, fingers <= es.maxFingers else { return EdgeSet() }
        return zones
    }

    /// cos 45°: a corner swipe moves inward along the corner's diagonal within 45° (physical).
    static let cosCornerTolerance = 0.7071067811865476

    /// Begins towards the first candidate side the centroid moves inward from, within the angle
    /// tolerance; else, with corners on, towards a corner both of whose sides are candidates when it moves
    /// along that corner's inward diagonal within 45°; fails when it moves any other way (along the edge,
    /// or out).
    static func evaluate(_ edges: EdgeSet, _ fingers: FingerSet, context: RecognizerContext) -> Verdict {
        guard !edges.isEmpty else { return .doesNotApply }
        let move = fingers.centroidMoveMM
        let length = move.length
        guard length > 0 else { return .fails }
        for edge in Edge.sides where edges.contains(edge) {
            let dir = inward(edge)
            let along = move.x * dir.x + move.y * dir.y
            if along > 0 && along >= context.cosAngleTolerance * length {
                return .begins(.edgeSwipe(edge, landing: landingPosition(edge, fingers)))
            }
        }
        if context.settings.edgeSwipe.corners {
            for corner in Edge.corners where edges.contains(corner) {
                let dir = inward(corner)
                let along = move.x * dir.x + move.y * dir.y
                if along > 0 && along >= cosCornerTolerance * length {
                    return .begins(.edgeSwipe(corner, landing: landingPosition(corner, fingers)))
                }
            }
        }
        return .fails
    }

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

    static func snapshot(_ edge: Edge, landing: Double, _ e: inout GestureEvent) {
        e.edge = edge
        e.edgePosition = landing
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

    /// Distance of `p` (millimetres) from a side; a corner's is the larger of its two sides' distances.
    static func distanceFromEdge(_ edge: Edge, _ p: Vector2, screenSizeMM: (width: Double, height: Double)) -> Double {
        switch edge {
        case .left: return p.x
        case .right: return screenSizeMM.width - p.x
        case .top: return p.y
        case .bottom: return screenSizeMM.height - p.y
        case .topLeft, .topRight, .bottomLeft, .bottomRight:
            let (h, v) = edge.sidesOfCorner!
            return max(distanceFromEdge(h, p, screenSizeMM: screenSizeMM), distanceFromEdge(v, p, screenSizeMM: screenSizeMM))
        }
    }

    /// Unit vector pointing from the edge into the screen; for a corner, along its diagonal.
    static func inward(_ edge: Edge) -> Vector2 {
        let diagonal = 0.7071067811865476
        switch edge {
        case .left: return Vector2(1, 0)
        case .right: return Vector2(-1, 0)
        case .top: return Vector2(0, 1)
        case .bottom: return Vector2(0, -1)
        case .topLeft: return Vector2(diagonal, diagonal)
        case .topRight: return Vector2(-diagonal, diagonal)
        case .bottomLeft: return Vector2(diagonal, -diagonal)
        case .bottomRight: return Vector2(-diagonal, -diagonal)
        }
    }

    /// Fraction of the screen travelled inward, 0...1; for a corner, the mean of its two sides'.
    static func progress(_ edge: Edge, translation t: Vector2) -> Double {
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
