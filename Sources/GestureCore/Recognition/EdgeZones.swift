import GestureVocabulary

// The screen's edge zones: context every rule reads (an edge swipe begins in one, a pan that began in one
// says which, a hold by an edge fails when it is pulled inward), held in RecognizerSettings rather than by
// one rule. Their keys stay in the edge swipe's table ([recognizer.edge_swipe] left.zone_mm, ...), where
// the configuration has always had them.

/// The zone of one screen edge.
public struct EdgeZone: Equatable, Sendable {
    public static let defaultWidthMM: Double = 5

    public var enabled: Bool
    /// Width of the zone measured inward from the edge, in millimetres.
    public var widthMM: Double
    /// Which key set the width in force, so that a reason names the key that decided it.
    public var widthKey: ZoneWidthKey

    public init(enabled: Bool = true, widthMM: Double = EdgeZone.defaultWidthMM, widthKey: ZoneWidthKey = .side) {
        self.enabled = enabled
        self.widthMM = widthMM
        self.widthKey = widthKey
    }
}

/// The key that sets a side's zone width in force: the side's own (`edge_swipe.left.zone_mm`, also for
/// the built-in default, since it wins wherever it is written) or the shorthand for every side
/// (`edge_swipe.zone_mm`), when that was written last for the device and the side's own key was not
/// written beside it.
public enum ZoneWidthKey: Equatable, Sendable {
    case side
    case allSides

    /// The key, relative to [recognizer], for `edge`'s zone.
    public func key(_ edge: Edge) -> String {
        switch self {
        case .side: return "edge_swipe.\(edge.rawValue).zone_mm"
        case .allSides: return "edge_swipe.zone_mm"
        }
    }
}

/// The zones of the four sides, by side. A corner has no zone of its own (it is where two sides' zones
/// meet): its is a disabled zone, and setting it changes nothing. (Four stored zones rather than a
/// dictionary: they are read at every frame of an attempt.)
public struct EdgeZones: Equatable, Sendable {
    public var left = EdgeZone()
    public var right = EdgeZone()
    public var top = EdgeZone()
    public var bottom = EdgeZone()

    public init() {}

    public subscript(edge: Edge) -> EdgeZone {
        get {
            switch edge {
            case .left: return left
            case .right: return right
            case .top: return top
            case .bottom: return bottom
            case .topLeft, .topRight, .bottomLeft, .bottomRight: return EdgeZone(enabled: false)
            }
        }
        set {
            switch edge {
            case .left: left = newValue
            case .right: right = newValue
            case .top: top = newValue
            case .bottom: bottom = newValue
            case .topLeft, .topRight, .bottomLeft, .bottomRight: break
            }
        }
    }

    /// The sides whose zone every finger landed in (zones of enabled sides, whatever any rule allows).
    public func landedIn(_ fingers: FingerSet, screenSizeMM: (width: Double, height: Double)) -> EdgeSet {
        sidesHolding(fingers, screenSizeMM: screenSizeMM) { _, _ in false }
    }

    /// As `landedIn`, with the parts of the edges `exclusions` names taken out of the zones: a finger that
    /// landed in an excluded part is in no zone of that side.
    public func landedIn(
        _ fingers: FingerSet, screenSizeMM: (width: Double, height: Double), excluding exclusions: EdgeExclusions
    ) -> EdgeSet {
        if exclusions.isEmpty { return landedIn(fingers, screenSizeMM: screenSizeMM) }
        return sidesHolding(fingers, screenSizeMM: screenSizeMM) { edge, landing in
            exclusions.excludes(edge, landing, zones: self, screenSizeMM: screenSizeMM)
        }
    }

    /// The enabled sides whose zone holds every finger's landing point, less the points `isExcluded` takes
    /// out of a side's zone (given the side and the point, millimetres): `landedIn`'s one loop.
    private func sidesHolding(
        _ fingers: FingerSet, screenSizeMM: (width: Double, height: Double), isExcluded: (Edge, Vector2) -> Bool
    ) -> EdgeSet {
        var set = EdgeSet()
        for edge in Edge.sides {
            let zone = self[edge]
            guard zone.enabled else { continue }
            let inside = fingers.fingers.allSatisfy { f in
                EdgeZones.distanceFromEdge(edge, f.baselineMM, screenSizeMM: screenSizeMM) <= zone.widthMM
                    && !isExcluded(edge, f.baselineMM)
            }
            if inside { set.insert(edge) }
        }
        return set
    }

    /// The sides in whose zone in force (`exclusions` taken out) the point `p` (millimetres) lies.
    public func zones(at p: Vector2, screenSizeMM: (width: Double, height: Double), excluding exclusions: EdgeExclusions) -> EdgeSet {
        var set = EdgeSet()
        for edge in Edge.sides {
            let zone = self[edge]
            guard zone.enabled, EdgeZones.distanceFromEdge(edge, p, screenSizeMM: screenSizeMM) <= zone.widthMM else { continue }
            if !exclusions.isEmpty, exclusions.excludes(edge, p, zones: self, screenSizeMM: screenSizeMM) { continue }
            set.insert(edge)
        }
        return set
    }

    // MARK: Configuration

    /// Each side's `enabled` and `zone_mm`, keys of the edge swipe's table (relative to it).
    public static let settingKeys: [RuleSetting<RecognizerSettings>] = Edge.sides.flatMap { edge in
        let name = edge.rawValue
        return [
            RuleSetting<RecognizerSettings>(
                key: "\(name).enabled", property: "edgeZones.\(name).enabled", spec: .bool,
                get: { .bool($0.edgeZones[edge].enabled) },
                set: { settings, value in
                    if case .bool(let b) = value { settings.edgeZones[edge].enabled = b }
                }),
            RuleSetting<RecognizerSettings>(
                key: "\(name).zone_mm", property: "edgeZones.\(name).widthMM", spec: .number(0.5...50, unit: "mm"),
                get: { .number($0.edgeZones[edge].widthMM) },
                set: { settings, value in
                    guard case .number(let d) = value else { return }
                    settings.edgeZones[edge].widthMM = d
                    settings.edgeZones[edge].widthKey = .side
                }),
        ]
    }

    /// `zone_mm`: every side's zone at once (a side's own `zone_mm` wins); read back as the left one's.
    public static let shorthandKeys: [RuleSetting<RecognizerSettings>] = [
        RuleSetting(
            key: "zone_mm", property: "edgeZones.*.widthMM", spec: .number(0.5...50, unit: "mm"),
            get: { .number($0.edgeZones.left.widthMM) },
            set: { settings, value in
                guard case .number(let d) = value else { return }
                for edge in Edge.sides {
                    settings.edgeZones[edge].widthMM = d
                    settings.edgeZones[edge].widthKey = .allSides
                }
            })
    ]

    // MARK: Geometry

    /// Distance of `p` (millimetres) from a side; a corner's is the larger of its two sides' distances.
    public static func distanceFromEdge(_ edge: Edge, _ p: Vector2, screenSizeMM: (width: Double, height: Double)) -> Double {
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
    public static func inward(_ edge: Edge) -> Vector2 {
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
}

/// A small set of sides.
public struct EdgeSet: Equatable, Sendable {
    var bits: UInt8 = 0

    public init() {}

    static func bit(_ e: Edge) -> UInt8 {
        switch e {
        case .left: return 1
        case .right: return 2
        case .top: return 4
        case .bottom: return 8
        case .topLeft, .topRight, .bottomLeft, .bottomRight: return 0
        }
    }
    public func contains(_ e: Edge) -> Bool {
        if let (h, v) = e.sidesOfCorner { return contains(h) && contains(v) }
        return bits & EdgeSet.bit(e) != 0
    }
    public mutating func insert(_ e: Edge) { bits |= EdgeSet.bit(e) }
    public mutating func formUnion(_ other: EdgeSet) { bits |= other.bits }
    public var isEmpty: Bool { bits == 0 }

    /// The corner when the set holds the two sides of one, else the side (the first of the sides in
    /// `Edge.sides` order); nil when empty. Names where fingers landed (a pan's `start_edge`).
    public var landingEdge: Edge? {
        for corner in Edge.corners where contains(corner) { return corner }
        return Edge.sides.first { contains($0) }
    }
}
