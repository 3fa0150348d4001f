// Why the recognizer decided what it did (issue 30): each rule, when it fails a candidate or a gesture of
// its kind ends without committing, gives a `Reason` with the numbers it measured and the settings it held
// them against; the engine gathers the reasons of one touch sequence into an `Explanation`. Data, not
// strings: `gesturectl replay --trace`, `gesturectl explain` (a recording, or the daemon's stream), `plot`
// and a tuner read the same values. Here, in the vocabulary, because daemon and clients both speak it.
import PlainText

/// What a rule measured, and the unit it is measured in (the unit of the setting it is held against).
public enum Quantity: String, CaseIterable, Sendable {
    /// How far the fingers landed from an edge (the farthest finger), millimetres.
    case distanceFromEdge = "distance-from-edge"
    /// How far the fingers' motion points from the inward direction of an edge, degrees.
    case angleFromInward = "angle-from-inward"
    /// How far off the nearest axis a pan went, degrees.
    case angleOffAxis = "angle-off-axis"
    /// How far a finger moved from where it landed (the one that moved most), millimetres.
    case movement
    /// How far the fingers' centroid moved, millimetres.
    case centroidMovement = "centroid-movement"
    /// How far a finger moved inward from where it landed by an edge, millimetres.
    case inwardMovement = "inward-movement"
    /// How far the fingers travelled (inward, for an edge swipe), millimetres.
    case travel
    /// Speed at the release (inward, for an edge swipe), millimetres per second.
    case releaseVelocity = "release-velocity"
    /// An edge swipe's progress, a fraction of the screen.
    case progress
    /// Fingers in the gesture.
    case fingers
    /// How long the fingers were down, seconds.
    case downSeconds = "down-seconds"
    /// The part of the fingers' motion that differs between them, over the part they share.
    case differentialRatio = "differential-ratio"
    /// Change of the fingers' span, millimetres.
    case spanChange = "span-change"
    /// Rotation of the fingers, degrees.
    case rotation
    /// |1 - scale| of a pinch.
    case scaleChange = "scale-change"
    /// A setting that is off (1 on, 0 off).
    case enabled

    /// The unit printed after a value ("" for counts and fractions).
    public var unit: String {
        switch self {
        case .distanceFromEdge, .movement, .centroidMovement, .inwardMovement, .travel, .spanChange: return "mm"
        case .angleFromInward, .angleOffAxis, .rotation: return "°"
        case .releaseVelocity: return "mm/s"
        case .downSeconds: return "s"
        case .progress, .fingers, .differentialRatio, .scaleChange, .enabled: return ""
        }
    }

    /// The unit as the protocol names it ("degrees" for °).
    public var unitName: String { unit == "°" ? "degrees" : unit }

    /// Decimals a value is printed with.
    public var decimals: Int {
        switch self {
        case .distanceFromEdge, .movement, .centroidMovement, .inwardMovement, .travel, .spanChange: return 1
        case .angleFromInward, .angleOffAxis, .rotation, .releaseVelocity, .fingers, .enabled: return 0
        case .downSeconds, .progress, .differentialRatio, .scaleChange: return 2
        }
    }

    /// "6.2 mm", "34°", "80 mm/s", "0.42 s", "0.18".
    public func format(_ value: Double) -> String {
        let number = NumberText.fixed(value, decimals: decimals)
        switch unit {
        case "": return number
        case "°": return number + "°"
        default: return number + " " + unit
        }
    }
}

/// One number a decision rested on: what was measured, and the setting it was held against, by the key a
/// user writes in gestured.toml (relative to [recognizer], the same in a [[device]] section) and its value
/// in force.
public struct Measurement: Equatable, Sendable {
    public var quantity: Quantity
    /// The measured value, in the setting's unit.
    public var value: Double
    /// "edge_swipe.zone_mm", "slop_mm", "hold.hold_seconds".
    public var key: String
    /// The setting's value in force.
    public var setting: Double

    public init(_ quantity: Quantity, _ value: Double, key: String, setting: Double) {
        self.quantity = quantity
        self.value = value
        self.key = key
        self.setting = setting
    }

    /// "6.2 mm (edge_swipe.zone_mm 5)".
    public var description: String { "\(quantity.format(value)) (\(key) \(NumberText.setting(setting)))" }
}

/// Where a touch landed: its position and its distance from each side of the screen as the user sees it,
/// and the sides whose edge zone (in force: exclusions taken out) it landed in.
public struct Landing: Equatable, Sendable {
    public var positionMM: Vector2
    public var fromLeftMM: Double
    public var fromRightMM: Double
    public var fromTopMM: Double
    public var fromBottomMM: Double
    /// Sides whose zone it is in, in `Edge.sides` order.
    public var zones: [Edge]

    public init(positionMM: Vector2, screenSizeMM: (width: Double, height: Double), zones: [Edge]) {
        self.positionMM = positionMM
        fromLeftMM = positionMM.x
        fromRightMM = screenSizeMM.width - positionMM.x
        fromTopMM = positionMM.y
        fromBottomMM = screenSizeMM.height - positionMM.y
        self.zones = zones
    }

    public init(positionMM: Vector2, fromLeftMM: Double, fromRightMM: Double, fromTopMM: Double, fromBottomMM: Double, zones: [Edge]) {
        self.positionMM = positionMM
        self.fromLeftMM = fromLeftMM
        self.fromRightMM = fromRightMM
        self.fromTopMM = fromTopMM
        self.fromBottomMM = fromBottomMM
        self.zones = zones
    }

    /// The nearer of left and right, and the nearer of top and bottom, with their distances.
    public var nearestEdges: (horizontal: (edge: Edge, mm: Double), vertical: (edge: Edge, mm: Double)) {
        (fromLeftMM <= fromRightMM ? (.left, fromLeftMM) : (.right, fromRightMM),
         fromTopMM <= fromBottomMM ? (.top, fromTopMM) : (.bottom, fromBottomMM))
    }

    /// "3.1 mm from the left, 80.4 mm from the top (left zone)".
    public var description: String {
        let (h, v) = nearestEdges
        let zoneText = zones.isEmpty ? "no edge zone" : zones.map(\.rawValue).joined(separator: " and ") + " zone"
        return "\(Quantity.distanceFromEdge.format(h.mm)) from the \(h.edge.rawValue), "
            + "\(Quantity.distanceFromEdge.format(v.mm)) from the \(v.edge.rawValue) (\(zoneText))"
    }
}

/// Why a kind did not happen for a touch, or why a gesture ended as it did.
public enum ReasonCause: String, CaseIterable, Sendable {
    /// The kind is switched off (`enabled = false`).
    case disabled
    /// The fingers were more or fewer than the kind allows.
    case fingerCount = "finger-count"
    /// The fingers landed outside every edge zone.
    case outsideZone = "outside-zone"
    /// A near miss: the fingers landed outside the zone, within twice its width, and moved inward.
    case nearMiss = "near-miss"
    /// The fingers landed in a part of the edge an app keeps (an exclusion).
    case excluded
    /// The fingers moved, but not inward (beyond the angle tolerance).
    case notInward = "not-inward"
    /// The fingers did not move past the slop before the withhold limit (passthrough).
    case withholdExpired = "withhold-expired"
    /// The fingers did not move past the slop.
    case didNotMove = "did-not-move"
    /// A finger moved past the slop (a tap or hold needs stillness).
    case moved
    /// A finger moved inward from an edge zone (a hold by the edge).
    case movedInward = "moved-inward"
    /// Down longer than a tap may be.
    case downTooLong = "down-too-long"
    /// Lifted before the hold time.
    case liftedTooSoon = "lifted-too-soon"
    /// The fingers moved apart rather than together (no pan).
    case notTogether = "not-together"
    /// The fingers moved together rather than apart or around (no pinch).
    case movedTogether = "moved-together"
    /// The span and rotation changed too little to begin a pinch.
    case tooLittleSpread = "too-little-spread"
    /// Another kind began first (the arbitration order).
    case anotherKindBegan = "another-kind-began"
    /// Stillness could not be judged (a finger was lost).
    case stillnessUnknown = "stillness-unknown"
    /// A gesture ended without committing.
    case notCommitted = "not-committed"
    /// An edge swipe was flung back outward.
    case flungBack = "flung-back"
    /// A pan committed, but off every axis: no direction.
    case offAxis = "off-axis"
    /// A finger became a palm (MT_TOOL_PALM, or its size reached palm_size_mm).
    case palm
    /// A pen of the panel came into proximity.
    case penInProximity = "pen-in-proximity"
    /// A finger was added to a running gesture.
    case fingerAdded = "finger-added"
    /// The kernel dropped events.
    case eventsDropped = "events-dropped"
    /// The daemon cancelled it (device removed, reload, orientation).
    case cancelledByDaemon = "cancelled-by-daemon"
}

/// One reason: which kind (or gesture) it is about, what happened, the numbers, and where the touch
/// landed. A tuner reads `measurements` (key, value in force, measured value) and `landing`.
public struct Reason: Equatable, Sendable {
    /// The kind that did not happen, or whose gesture ended so; nil for the touch as a whole.
    public var kind: GestureKind?
    /// The gesture, for a reason about one that began.
    public var gestureID: UInt64?
    public var cause: ReasonCause
    /// The edge the reason is about (the edge swiped from, missed, or excluded).
    public var edge: Edge?
    /// The kind that began first (`anotherKindBegan`).
    public var other: GestureKind?
    /// The numbers, first the one that decided.
    public var measurements: [Measurement]
    /// For `excluded`: the excluded part along the edge (0...1).
    public var excludedRange: ClosedRange<Double>?
    /// For `excluded`: who keeps that part ("gestured.toml:12:1" for an [[exclusion]] section, the client's
    /// label for an `exclude` request), as `gesturectl devices` names it; nil when unknown.
    public var exclusionSource: String?
    /// Where the fingers landed (their centroid).
    public var landing: Landing?
    /// When it was decided, microseconds (event clock).
    public var timeMicroseconds: Int64

    public init(
        kind: GestureKind?, cause: ReasonCause, edge: Edge? = nil, measurements: [Measurement] = [],
        gestureID: UInt64? = nil, other: GestureKind? = nil, excludedRange: ClosedRange<Double>? = nil,
        exclusionSource: String? = nil, landing: Landing? = nil, timeMicroseconds: Int64 = 0
    ) {
        self.exclusionSource = exclusionSource
        self.kind = kind
        self.cause = cause
        self.edge = edge
        self.measurements = measurements
        self.gestureID = gestureID
        self.other = other
        self.excludedRange = excludedRange
        self.landing = landing
        self.timeMicroseconds = timeMicroseconds
    }

    /// The measurement of `quantity`, if any.
    public func measurement(_ quantity: Quantity) -> Measurement? { measurements.first { $0.quantity == quantity } }

    /// Whether it is a near miss: an edge swipe that did not start though the touch moved inward just
    /// outside a zone.
    public var isNearMiss: Bool { cause == .nearMiss }

    /// "edge-swipe: landed 6.2 mm from the left edge (edge_swipe.zone_mm 5)".
    public var description: String {
        let subject: String
        switch (kind, gestureID) {
        case (let k?, let id?): subject = "\(k) #\(id)"
        case (let k?, nil): subject = k.description
        case (nil, _): subject = "the touch"
        }
        return "\(subject): \(text)"
    }

    /// The reason without its subject: "landed 6.2 mm from the left edge (edge_swipe.zone_mm 5)".
    public var text: String {
        let edgeName = edge?.rawValue ?? "?"
        // The i-th measurement's value, and its setting in parentheses.
        func v(_ i: Int) -> String { i < measurements.count ? measurements[i].quantity.format(measurements[i].value) : "?" }
        func s(_ i: Int) -> String { i < measurements.count ? "(\(measurements[i].key) \(NumberText.setting(measurements[i].setting)))" : "" }
        func all() -> String { measurements.map(\.description).joined(separator: ", ") }
        switch cause {
        case .disabled: return "switched off (\(measurements.first.map { "\($0.key) false" } ?? "enabled = false"))"
        case .fingerCount:
            // A count, written as one; a value read from outside may be anything (no Int conversion to trap on).
            let n = measurements.first?.value ?? 0
            return "\(NumberText.fixed(n, decimals: 0)) finger\(n == 1 ? "" : "s") \(s(0))"
        case .outsideZone: return "landed \(v(0)) from the \(edgeName) edge \(s(0))"
        case .nearMiss:
            return "near miss, did not start: landed \(v(0)) from the \(edgeName) edge \(s(0)) and moved inward (\(v(1)) from inward \(s(1)))"
        case .excluded:
            let range = excludedRange.map {
                "from \(NumberText.fixed($0.lowerBound, decimals: 2)) to \(NumberText.fixed($0.upperBound, decimals: 2)) of the \(edgeName) edge"
            } ?? "on the \(edgeName) edge"
            let source = exclusionSource.map { ", set by \($0)" } ?? ""
            return "edge swipes are excluded here (exclusion \(range)\(source))"
        case .notInward: return "moved \(v(0)) from inward of the \(edgeName) edge \(s(0))"
        case .withholdExpired: return "did not move in time: moved \(v(0)) \(s(0)) in \(v(1)) \(s(1))"
        case .didNotMove, .moved: return "moved \(v(0)) \(s(0))"
        case .movedInward:
            let key = measurements.first.map { "(half of \($0.key) \(NumberText.setting($0.setting)))" } ?? ""
            return "moved \(v(0)) inward from the \(edgeName) edge \(key)"
        case .downTooLong: return "down \(v(0)) \(s(0))"
        case .liftedTooSoon: return "lifted after \(v(0)) \(s(0))"
        case .notTogether: return "the fingers moved apart: their centroid moved \(v(0)) \(s(0))"
        case .movedTogether: return "the fingers moved together: differential \(v(0)) of the shared motion \(s(0))"
        case .tooLittleSpread: return "span changed \(v(0)) \(s(0)), rotated \(v(1)) \(s(1))"
        case .anotherKindBegan: return "\(other?.description ?? "another gesture") began first"
        case .stillnessUnknown: return "a finger was lost (palm): stillness unknown"
        case .notCommitted: return "not committed: " + ExplanationText.commitText(measurements)
        case .flungBack: return "not committed: flung back outward at \(v(0)) \(s(0))"
        case .offAxis: return "no direction: moved \(v(0)) off the nearest axis \(s(0))"
        case .palm: return "cancelled: a finger became a palm" + (measurements.isEmpty ? "" : " (\(all()))")
        case .penInProximity: return "cancelled: a pen came into proximity"
        case .fingerAdded:
            return measurements.isEmpty ? "cancelled: a finger was added" : "cancelled: a finger joined \(v(0)) after the landing \(s(0))"
        case .eventsDropped: return "cancelled: events were dropped (SYN_DROPPED)"
        case .cancelledByDaemon: return "cancelled by the daemon (device removed, reload, orientation)"
        }
    }
}

/// What a touch sequence became: a gesture, and how it ended.
public struct ExplainedGesture: Equatable, Sendable {
    public enum Outcome: String, Equatable, Sendable {
        case committed
        case notCommitted = "not-committed"
        case cancelled
        /// Still running when the explanation was made (the recording ended).
        case running
    }
    public var kind: GestureKind
    public var id: UInt64
    public var fingers: Int
    public var edge: Edge?
    public var direction: SwipeDirection?
    public var taps: Int?
    public var outcome: Outcome

    public init(kind: GestureKind, id: UInt64, fingers: Int, edge: Edge? = nil, direction: SwipeDirection? = nil, taps: Int? = nil, outcome: Outcome) {
        self.kind = kind
        self.id = id
        self.fingers = fingers
        self.edge = edge
        self.direction = direction
        self.taps = taps
        self.outcome = outcome
    }

    /// "edge-swipe #3 from the left, committed".
    public var description: String {
        var s = "\(kind) #\(id)"
        if let edge { s += " from the \(edge.rawValue)" }
        s += ", \(fingers) finger\(fingers == 1 ? "" : "s")"
        if let taps { s += ", \(taps) tap\(taps == 1 ? "" : "s")" }
        if let direction { s += ", \(direction.rawValue)" }
        switch outcome {
        case .committed: s += ", committed"
        case .notCommitted: s += ", not committed"
        case .cancelled: s += ", cancelled"
        case .running: s += ", still running"
        }
        return s
    }
}

/// One touch sequence explained, from the first finger landing until every finger lifted and nothing waits
/// for a further touch: where each finger landed, what the touch became, and, for every kind that did not
/// happen, its first reason (and the reason of each gesture that ended uncommitted or was cancelled).
public struct Explanation: Equatable, Sendable {
    public var startMicroseconds: Int64
    public var endMicroseconds: Int64
    /// Each finger's landing, in the order they landed.
    public var fingers: [Landing]
    public var gestures: [ExplainedGesture]
    public var reasons: [Reason]
    /// What was measured of each touch (first finger down to last finger up) in the sequence, in order:
    /// more than one when a tap waited for a further tap. Measured against the settings in force (their
    /// slop and velocity window); what `gesturectl tune` reads live.
    public var touches: [TouchMeasurement]

    public init(
        startMicroseconds: Int64, endMicroseconds: Int64, fingers: [Landing] = [], gestures: [ExplainedGesture] = [], reasons: [Reason] = [],
        touches: [TouchMeasurement] = []
    ) {
        self.startMicroseconds = startMicroseconds
        self.endMicroseconds = endMicroseconds
        self.fingers = fingers
        self.gestures = gestures
        self.reasons = reasons
        self.touches = touches
    }

    /// The near misses among the reasons.
    public var nearMisses: [Reason] { reasons.filter(\.isNearMiss) }

    /// The same explanation with every gesture id as `id` maps it: the daemon gives each client the ids it
    /// knows the gestures by (docs/protocol.md, "Gesture events").
    public func renumberingGestures(_ id: (UInt64) -> UInt64) -> Explanation {
        var copy = self
        for i in copy.gestures.indices { copy.gestures[i].id = id(copy.gestures[i].id) }
        for i in copy.reasons.indices { copy.reasons[i].gestureID = copy.reasons[i].gestureID.map(id) }
        return copy
    }

    /// The block `gesturectl explain` prints; times relative to `originMicroseconds`.
    public func text(relativeToMicroseconds origin: Int64 = 0) -> String {
        let start = NumberText.fixed(Double(startMicroseconds - origin) / 1_000_000, decimals: 3)
        let end = NumberText.fixed(Double(endMicroseconds - origin) / 1_000_000, decimals: 3)
        var lines = ["touch at \(start) s to \(end) s, \(fingers.count) finger\(fingers.count == 1 ? "" : "s"):"]
        for (i, f) in fingers.enumerated() { lines.append("  finger \(i + 1) landed \(f.description)") }
        if gestures.isEmpty {
            lines.append("  became: nothing")
        } else {
            for g in gestures { lines.append("  became: \(g.description)") }
        }
        for r in reasons { lines.append("  \(r.description)") }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// The explanations' texts.
enum ExplanationText {
    /// "travelled 21.0 mm (commit_distance_mm 25), released at 80 mm/s (...), progress 0.18 (...)".
    static func commitText(_ measurements: [Measurement]) -> String {
        measurements.map { m in
            switch m.quantity {
            case .travel: return "travelled \(m.description)"
            case .releaseVelocity: return "released at \(m.description)"
            case .progress: return "progress \(m.description)"
            case .scaleChange: return "scale changed by \(m.description)"
            case .rotation: return "rotated \(m.description)"
            default: return m.description
            }
        }.joined(separator: ", ")
    }
}
