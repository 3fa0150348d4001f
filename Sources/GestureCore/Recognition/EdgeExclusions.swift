import GestureVocabulary

// Parts of the edges where no edge zone is in force (issue 29): an app keeps them. The daemon works out
// which apply to a device (configured ones matching the focused app, and clients' `exclude` requests)
// when the focus or a request changes, and gives the engine the result (`GestureEngine.setExclusions`);
// a frame reads one flag when there are none, and a few intervals when there are.

/// One excluded part of an edge: a part of a side, or a whole corner.
public struct EdgeExclusion: Equatable, Hashable, Sendable {
    public var edge: Edge
    /// The part along the side, 0...1, as a binding's `edge_position` measures it: from the top along left
    /// and right, from the left along top and bottom, on the screen as the user sees it. A corner is
    /// excluded whole (where its two sides' zones meet); its range is 0...1.
    public var from: Double
    public var to: Double
    /// Where it came from, as `gesturectl devices` says it ("gestured.toml:12:1", "client 3 (uid 1000, …)"),
    /// so an explanation can name who keeps that part of the edge; empty when nobody said.
    public var source: String

    public init(edge: Edge, from: Double = 0, to: Double = 1, source: String = "") {
        self.edge = edge
        self.source = source
        self.from = edge.isCorner ? 0 : min(max(min(from, to), 0), 1)
        self.to = edge.isCorner ? 1 : min(max(max(from, to), 0), 1)
    }

    /// Its length along the edge, millimetres, on a screen of `screenSizeMM`: a side's part of that side's
    /// length; a corner's, the width of the zone it cuts into each side (the larger of the two).
    public func lengthMM(screenSizeMM: (width: Double, height: Double), zones: EdgeZones) -> Double {
        switch edge {
        case .left, .right: return (to - from) * screenSizeMM.height
        case .top, .bottom: return (to - from) * screenSizeMM.width
        case .topLeft, .topRight, .bottomLeft, .bottomRight:
            let (h, v) = edge.sidesOfCorner!
            return max(zones[h].widthMM, zones[v].widthMM)
        }
    }
}

/// The exclusions in force on one device, kept by side for the recognizer.
public struct EdgeExclusions: Equatable, Sendable {
    /// The exclusions as given (for `devices` and tests).
    public private(set) var all: [EdgeExclusion] = []
    /// Whether there are none: all a frame reads then.
    public private(set) var isEmpty = true
    private var left: [ClosedRange<Double>] = []
    private var right: [ClosedRange<Double>] = []
    private var top: [ClosedRange<Double>] = []
    private var bottom: [ClosedRange<Double>] = []
    private var corners = EdgeSet()

    public init() {}

    public init(_ exclusions: [EdgeExclusion]) {
        all = exclusions
        isEmpty = exclusions.isEmpty
        for e in exclusions {
            let range = e.from...e.to
            switch e.edge {
            case .left: left.append(range)
            case .right: right.append(range)
            case .top: top.append(range)
            case .bottom: bottom.append(range)
            case .topLeft, .topRight, .bottomLeft, .bottomRight:
                let (h, v) = e.edge.sidesOfCorner!
                corners.insert(h)
                corners.insert(v)
                cornerList.append(e.edge)
            }
        }
    }

    private var cornerList: [Edge] = []

    private func ranges(_ side: Edge) -> [ClosedRange<Double>] {
        switch side {
        case .left: return left
        case .right: return right
        case .top: return top
        case .bottom: return bottom
        case .topLeft, .topRight, .bottomLeft, .bottomRight: return []
        }
    }

    /// Whether a point at `p` (millimetres) inside `side`'s zone lies in an excluded part of it: in an
    /// excluded range of the side, or in an excluded corner (inside the zone of the corner's other side too).
    func excludes(_ side: Edge, _ p: Vector2, zones: EdgeZones, screenSizeMM: (width: Double, height: Double)) -> Bool {
        let along: Double
        switch side {
        case .left, .right: along = screenSizeMM.height > 0 ? p.y / screenSizeMM.height : 0
        case .top, .bottom, .topLeft, .topRight, .bottomLeft, .bottomRight: along = screenSizeMM.width > 0 ? p.x / screenSizeMM.width : 0
        }
        for range in ranges(side) where range.contains(along) { return true }
        guard corners.contains(side) else { return false }
        for corner in cornerList {
            let (h, v) = corner.sidesOfCorner!
            guard h == side || v == side else { continue }
            let other = h == side ? v : h
            let zone = zones[other]
            if zone.enabled, EdgeZones.distanceFromEdge(other, p, screenSizeMM: screenSizeMM) <= zone.widthMM { return true }
        }
        return false
    }
}
