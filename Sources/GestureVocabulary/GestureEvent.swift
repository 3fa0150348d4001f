// The words gestured and its clients share: gesture events, their kinds and phases, edges and directions.
// No recognizer here: a client links this, the wire encoding (GestureProtocol) and nothing else.

/// A point or vector with two components.
public struct Vector2: Equatable, Sendable {
    public var x: Double
    public var y: Double
    public init(_ x: Double, _ y: Double) { self.x = x; self.y = y }
    public static let zero = Vector2(0, 0)

    @inlinable public static func + (a: Vector2, b: Vector2) -> Vector2 { Vector2(a.x + b.x, a.y + b.y) }
    @inlinable public static func - (a: Vector2, b: Vector2) -> Vector2 { Vector2(a.x - b.x, a.y - b.y) }
    @inlinable public static func * (a: Vector2, s: Double) -> Vector2 { Vector2(a.x * s, a.y * s) }
    @inlinable public static func / (a: Vector2, s: Double) -> Vector2 { Vector2(a.x / s, a.y / s) }
    @inlinable public var length: Double { (x * x + y * y).squareRoot() }
}

/// A kind of gesture, named on the wire by `rawValue` ("edge-swipe"). The kinds gestured recognizes are
/// `allCases`, the one list every other list of kinds is checked against (the subscription filter, the
/// bindings file, `gesturectl monitor --kinds`, the plot's colours, the completions, the man pages, the docs
/// and the Python client; a test fails when one of them misses a kind).
///
/// A struct rather than an enum so that a gesture kind can be added by writing its rule alone
/// (docs/architecture.md, "Adding a gesture kind"): `GestureKind("tap-and-drag")` names a kind the
/// recognizer was given a rule for; `init?(rawValue:)` accepts only the kinds in `allCases`, as a client or
/// a configuration reading a name must.
///
/// A kind declares the fields its events carry beyond the common ones (`fields`, EventFields.swift);
/// everything that writes, filters, matches or lists events follows them.
public struct GestureKind: RawRepresentable, CaseIterable, Hashable, CustomStringConvertible, @unchecked Sendable {
    /// The wire name. A static string, so that a gesture event holds no reference and copies as plain
    /// bytes (an event is copied for every frame of a running gesture).
    public let name: StaticString
    /// Its declaration, never freed and not reference-counted here, for the same reason. (Unchecked
    /// Sendable: the descriptor is immutable and lives as long as the process.)
    @usableFromInline let declaration: Unmanaged<KindDescriptor>

    /// A kind named `name`, known or not, with no fields of its own, whose gestures go only to the seat's
    /// audience (`KindAudience.seat`: a kind is private unless it is declared public).
    public init(_ name: StaticString) {
        self.name = name
        declaration = .passUnretained(KindDescriptor.bare)
    }

    /// A kind named `name` whose events carry `fields` (docs/architecture.md, "Adding a gesture kind") and go
    /// to `audience` (private, the seat's, unless declared otherwise). Its declaration is kept for the life of
    /// the process: declare a kind once, as a `static let`.
    public init(_ name: StaticString, fields: [EventField], audience: KindAudience = .seat) {
        self.name = name
        declaration = .passRetained(KindDescriptor(name: name, fields: fields, audience: audience))
    }

    /// What the kind declares: its fields, by place.
    @inlinable public var descriptor: KindDescriptor { declaration.takeUnretainedValue() }

    /// The fields its events carry beyond the common ones, in the order they are written.
    public var fields: [EventField] { descriptor.fields }

    /// Whether its events carry `field`.
    public func declares(_ field: EventField) -> Bool { descriptor.fields.contains(field) }

    /// One of the kinds gestured recognizes (`allCases`); nil for any other name.
    public init?(rawValue: String) {
        guard let known = GestureKind.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = known
    }

    public var rawValue: String { name.description }
    public var description: String { name.description }

    public static func == (a: GestureKind, b: GestureKind) -> Bool {
        a.name.withUTF8Buffer { x in b.name.withUTF8Buffer { y in x.elementsEqual(y) } }
    }

    public func hash(into hasher: inout Hasher) {
        name.withUTF8Buffer { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// An edge swipe: fingers landing in an edge zone (or a corner) and moving inward. Only a system layer
    /// makes it: public.
    public static let edgeSwipe = GestureKind(
        "edge-swipe", fields: [EventFields.edge, EventFields.edgePosition, EventFields.progress], audience: .everyone)
    /// A pan (and swipe): 1...N fingers moving together. One finger away from the edges is an app's input
    /// (swipe typing, a stroke): public only by where it landed.
    public static let pan = GestureKind("pan", fields: [EventFields.startEdge, EventFields.direction], audience: .byLanding)
    /// A pinch with rotation: two or more fingers moving apart, together or around. Public.
    public static let pinch = GestureKind(
        "pinch", fields: [EventFields.scale, EventFields.rotation, EventFields.spanMM], audience: .everyone)
    /// 1–5 fingers landing and lifting without moving; a sequence of taps is one gesture (`taps`). One
    /// finger away from the edges is a key press: public only by where it landed.
    public static let tap = GestureKind("tap", fields: [EventFields.taps], audience: .byLanding)
    /// Fingers that stay still for the hold time (a long press); moving afterwards drags. Public only by
    /// where it landed.
    public static let hold = GestureKind("hold", fields: [EventFields.downSeconds], audience: .byLanding)

    /// Every kind gestured recognizes, in the order the docs list them.
    public static let allCases: [GestureKind] = [.edgeSwipe, .pan, .pinch, .tap, .hold]
}

/// Who may receive a gesture's events, decided where its touches landed (docs/protocol.md, "Who may set
/// and see what"): fixed at its `begin`, for all its events (a touch that would change it does not continue
/// the gesture).
public enum GestureAudience: Equatable, Sendable {
    /// Every client of the socket: a gesture only a system layer makes.
    case everyone
    /// The app's input: only clients that may see the app touches of the device's seat (its user, root,
    /// the daemon's own user and those the configuration names).
    case seat
}

/// What a kind declares of its gestures' audience. A kind is private (`seat`) unless declared otherwise.
public enum KindAudience: Equatable, Sendable {
    /// Always public (edge swipes, pinches).
    case everyone
    /// Public when it has two or more fingers, or when every touch of it landed in an edge zone or a corner
    /// in force; otherwise the app's (taps, holds, pans).
    case byLanding
    /// Always the seat's audience.
    case seat

    /// The audience of a gesture of `fingers` fingers whose touches landed in an edge zone or corner
    /// (`landedInEdgeZone`) or not.
    public func resolve(fingers: Int, landedInEdgeZone: Bool) -> GestureAudience {
        switch self {
        case .everyone: return .everyone
        case .seat: return .seat
        case .byLanding: return fingers >= 2 || landedInEdgeZone ? .everyone : .seat
        }
    }
}

public enum GesturePhase: String, CaseIterable, Sendable {
    case begin, update, end, cancel
}

/// One event of a continuous gesture. Every field a client needs to drive an animation is on every
/// `begin`/`update`/`end`; docs/protocol.md documents each field and its unit.
public struct GestureEvent: Equatable, Sendable {
    public var kind: GestureKind
    public var phase: GesturePhase
    /// Same for all events of one gesture.
    public var id: UInt64
    /// Timestamp of the input frame that caused the event, microseconds.
    public var timeMicroseconds: Int64
    public var fingers: Int

    /// Edge swipes: the edge (or corner) the swipe started from.
    public var edge: Edge?
    /// Edge swipes: where the fingers landed along the edge, 0...1 (from the left for top, bottom and the
    /// corners, from the top for left and right), on the screen as the user sees it.
    public var edgePosition: Double?
    /// Pans that began in an edge zone (and were not edge swipes): that edge, or the corner.
    public var startEdge: Edge?
    /// Taps: the number of taps so far in the sequence (1 for a single tap).
    public var taps: Int?
    /// `end` only: whether the gesture completed (passed its commit threshold or was flung).
    public var committed: Bool?
    /// Pan `end` only: the swipe direction (4 or 8 of them, as configured), nil when the movement was
    /// off-axis beyond the tolerance or did not commit.
    public var direction: SwipeDirection?

    /// Centroid of the fingers, normalised to the screen ([0,1]², origin top-left).
    public var position: Vector2
    /// Centroid of the fingers in millimetres from the screen's top-left corner.
    public var positionMM: Vector2
    /// Movement of the centroid since the fingers landed, normalised to the screen size.
    public var translation: Vector2
    /// Movement of the centroid since the fingers landed, in millimetres.
    public var translationMM: Vector2
    /// Velocity of the centroid, millimetres per second.
    public var velocityMMPerSecond: Vector2
    /// Edge swipes: fraction of the screen travelled inward, 0...1.
    public var progress: Double?
    /// Pinches: current span / span at begin.
    public var scale: Double?
    /// Pinches: rotation since begin in degrees, cumulative, clockwise positive as seen on screen.
    public var rotationDegrees: Double?
    /// Pinches: mean distance of the fingers from their centroid, millimetres.
    public var spanMM: Double?
    /// The fields of a kind added from outside gestured, in the slots its declaration names
    /// (`EventFieldStorage.extra`); read and set through `event[field]`.
    public var extraFields = ExtraFieldValues()

    public init(
        kind: GestureKind, phase: GesturePhase, id: UInt64, timeMicroseconds: Int64, fingers: Int,
        edge: Edge? = nil, edgePosition: Double? = nil, startEdge: Edge? = nil, taps: Int? = nil,
        committed: Bool? = nil, direction: SwipeDirection? = nil,
        position: Vector2 = .zero, positionMM: Vector2 = .zero, translation: Vector2 = .zero,
        translationMM: Vector2 = .zero, velocityMMPerSecond: Vector2 = .zero, progress: Double? = nil,
        scale: Double? = nil, rotationDegrees: Double? = nil, spanMM: Double? = nil
    ) {
        self.kind = kind
        self.phase = phase
        self.id = id
        self.timeMicroseconds = timeMicroseconds
        self.fingers = fingers
        self.edge = edge
        self.edgePosition = edgePosition
        self.startEdge = startEdge
        self.taps = taps
        self.committed = committed
        self.direction = direction
        self.position = position
        self.positionMM = positionMM
        self.translation = translation
        self.translationMM = translationMM
        self.velocityMMPerSecond = velocityMMPerSecond
        self.progress = progress
        self.scale = scale
        self.rotationDegrees = rotationDegrees
        self.spanMM = spanMM
    }
}


/// A screen edge or corner, as the user sees the screen (after the device's rotation is applied).
public enum Edge: String, CaseIterable, Sendable, Hashable {
    case left, right, top, bottom
    case topLeft = "top-left", topRight = "top-right", bottomLeft = "bottom-left", bottomRight = "bottom-right"

    /// The four sides, each with its own zone.
    public static let sides: [Edge] = [.left, .right, .top, .bottom]
    /// The four corners, where two sides' zones meet.
    public static let corners: [Edge] = [.topLeft, .topRight, .bottomLeft, .bottomRight]

    public var isCorner: Bool { sidesOfCorner != nil }

    /// The two sides that meet at a corner (horizontal side first); nil for a side.
    public var sidesOfCorner: (Edge, Edge)? {
        switch self {
        case .left, .right, .top, .bottom: return nil
        case .topLeft: return (.top, .left)
        case .topRight: return (.top, .right)
        case .bottomLeft: return (.bottom, .left)
        case .bottomRight: return (.bottom, .right)
        }
    }

    /// The corner where two sides meet; nil when they do not (left and right, or the same side).
    public static func corner(_ a: Edge, _ b: Edge) -> Edge? {
        corners.first { c in
            guard let (h, v) = c.sidesOfCorner else { return false }
            return (h == a && v == b) || (h == b && v == a)
        }
    }
}

/// The direction a pan ended in, as the user sees the screen: four, or eight with the diagonals.
public enum SwipeDirection: String, CaseIterable, Sendable {
    case up, down, left, right
    case upLeft = "up-left", upRight = "up-right", downLeft = "down-left", downRight = "down-right"
}

