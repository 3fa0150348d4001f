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
    /// "edge_swipe.left.zone_mm", "slop_mm", "hold.hold_seconds".
    public var key: String
    /// The setting's value in force.
    public var setting: Double

    public init(_ quantity: Quantity, _ value: Double, key: String, setting: Double) {
        self.quantity = quantity
        self.value = value
        self.key = key
        self.setting = setting
    }

    /// "6.2 mm (edge_swipe.left.zone_mm 5)".
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

    /// "edge-swipe: landed 6.2 mm from the left edge (edge_swipe.left.zone_mm 5)".
    public var description: String {
        let subject: String
        switch (kind, gestureID) {
        case (let k?, let id?): subject = "\(k) #\(id)"
        case (let k?, nil): subject = k.description
        case (nil, _): subject = "the touch"
        }
        return "\(subject): \(text)"
    }

    /// The clause of the causes `text` and `decisiveText` say alike, with `setting(i)` the i-th
    /// measurement's setting as the form writes it (" (slop_mm 3)", " (slop_mm is 3)"); nil for the others.
    func sharedClause(_ setting: (Int) -> String) -> String? {
        let edgeName = edge?.rawValue ?? "?"
        func v(_ i: Int) -> String { i < measurements.count ? measurements[i].quantity.format(measurements[i].value) : "?" }
        switch cause {
        case .fingerCount:
            // A count, written as one; a value read from outside may be anything (no Int conversion to trap on).
            let n = measurements.first?.value ?? 0
            return "\(NumberText.fixed(n, decimals: 0)) finger\(n == 1 ? "" : "s")\(setting(0))"
        case .notInward: return "moved \(v(0)) from inward of the \(edgeName) edge\(setting(0))"
        case .didNotMove, .moved: return "moved \(v(0))\(setting(0))"
        case .downTooLong: return "down \(v(0))\(setting(0))"
        case .liftedTooSoon: return "lifted after \(v(0))\(setting(0))"
        case .notTogether: return "the fingers moved apart: their centroid moved \(v(0))\(setting(0))"
        case .movedTogether: return "the fingers moved together: differential \(v(0)) of the shared motion\(setting(0))"
        case .offAxis: return "no direction: moved \(v(0)) off the nearest axis\(setting(0))"
        case .disabled, .outsideZone, .nearMiss, .excluded, .withholdExpired, .movedInward, .tooLittleSpread, .anotherKindBegan,
            .stillnessUnknown, .notCommitted, .flungBack, .palm, .penInProximity, .fingerAdded, .eventsDropped, .cancelledByDaemon:
            return nil
        }
    }

    /// The reason without its subject: "landed 6.2 mm from the left edge (edge_swipe.left.zone_mm 5)".
    public var text: String {
        let edgeName = edge?.rawValue ?? "?"
        // The i-th measurement's value, and its setting in parentheses.
        func v(_ i: Int) -> String { i < measurements.count ? measurements[i].quantity.format(measurements[i].value) : "?" }
        func s(_ i: Int) -> String { i < measurements.count ? "(\(measurements[i].key) \(NumberText.setting(measurements[i].setting)))" : "" }
        func all() -> String { measurements.map(\.description).joined(separator: ", ") }
        switch cause {
        case .fingerCount, .notInward, .didNotMove, .moved, .downTooLong, .liftedTooSoon, .notTogether, .movedTogether, .offAxis:
            return sharedClause { i in i < measurements.count ? " " + s(i) : "" } ?? ""
        case .disabled: return "switched off (\(measurements.first.map { "\($0.key) false" } ?? "enabled = false"))"
        case .outsideZone: return "landed \(v(0)) from the \(edgeName) edge \(s(0))"
        case .nearMiss:
            return "near miss, did not start: landed \(v(0)) from the \(edgeName) edge \(s(0)) and moved inward, \(v(1)) from inward \(s(1))"
        case .excluded:
            let range = excludedRange.map {
                "from \(NumberText.fixed($0.lowerBound, decimals: 2)) to \(NumberText.fixed($0.upperBound, decimals: 2)) of the \(edgeName) edge"
            } ?? "on the \(edgeName) edge"
            let source = exclusionSource.map { ", set by \($0)" } ?? ""
            return "edge swipes are excluded here (exclusion \(range)\(source))"
        case .withholdExpired: return "did not move in time: moved \(v(0)) \(s(0)) in \(v(1)) \(s(1))"
        case .movedInward:
            let key = measurements.first.map { ", more than half of \($0.key) (\(NumberText.setting($0.setting)))" } ?? ""
            return "moved \(v(0)) inward from the \(edgeName) edge\(key)"
        case .tooLittleSpread: return "span changed \(v(0)) \(s(0)), rotated \(v(1)) \(s(1))"
        case .anotherKindBegan: return "\(other?.description ?? "another gesture") began first"
        case .stillnessUnknown: return "a finger was lost (palm): stillness unknown"
        case .notCommitted: return "not committed: " + ExplanationText.commitText(measurements)
        case .flungBack: return "not committed: flung back outward at \(v(0)) \(s(0))"
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

        /// "committed", "not committed", "cancelled", "still running".
        public var words: String {
            switch self {
            case .committed: return "committed"
            case .notCommitted: return "not committed"
            case .cancelled: return "cancelled"
            case .running: return "still running"
            }
        }
    }
    public var kind: GestureKind
    public var id: UInt64
    public var fingers: Int
    public var edge: Edge?
    public var direction: SwipeDirection?
    public var taps: Int?
    public var outcome: Outcome
    /// It began before explaining started (a live `explain` started while it ran): its outcome is known,
    /// where its fingers landed is not.
    public var beganBeforeExplaining: Bool

    public init(
        kind: GestureKind, id: UInt64, fingers: Int, edge: Edge? = nil, direction: SwipeDirection? = nil, taps: Int? = nil, outcome: Outcome,
        beganBeforeExplaining: Bool = false
    ) {
        self.kind = kind
        self.id = id
        self.fingers = fingers
        self.edge = edge
        self.direction = direction
        self.taps = taps
        self.outcome = outcome
        self.beganBeforeExplaining = beganBeforeExplaining
    }

    /// "edge-swipe #3 from the left, committed".
    public var description: String {
        var s = "\(kind) #\(id)"
        if let edge { s += " from the \(edge.rawValue)" }
        s += ", \(fingers) finger\(fingers == 1 ? "" : "s")"
        if let taps { s += ", \(taps) tap\(taps == 1 ? "" : "s")" }
        if let direction { s += ", \(direction.rawValue)" }
        s += ", " + outcome.words
        if beganBeforeExplaining { s += " (began before explaining started)" }
        return s
    }
}

/// What an explanation leaves out. One explanation lists at most `Explanation.listLimit` fingers,
/// gestures and touches and `Explanation.reasonLimit` reasons, the first ones of the sequence; the rest
/// are counted here (a finger resting while another taps makes one sequence of any length: issue 36).
public struct Unlisted: Equatable, Sendable {
    /// Fingers that landed after the listed ones.
    public var fingers: Int
    /// The gestures after the listed ones, counted by kind and outcome (in the order each pair first came).
    public var gestures: [GestureTally]
    /// Touches measured after the listed ones.
    public var touches: Int
    /// Reasons kept after the listed ones (palms, further gestures' endings).
    public var reasons: Int

    public init(fingers: Int = 0, gestures: [GestureTally] = [], touches: Int = 0, reasons: Int = 0) {
        self.fingers = fingers
        self.gestures = gestures
        self.touches = touches
        self.reasons = reasons
    }

    /// Nothing was left out.
    public var isEmpty: Bool { fingers == 0 && gestures.isEmpty && touches == 0 && reasons == 0 }

    /// How many gestures were left out.
    public var gestureCount: Int { gestures.reduce(0) { $0 + $1.count } }

    /// Counts one more gesture of `kind` that ended with `outcome`.
    public mutating func count(_ kind: GestureKind, _ outcome: ExplainedGesture.Outcome, by n: Int = 1) {
        if let i = gestures.firstIndex(where: { $0.kind == kind && $0.outcome == outcome }) {
            gestures[i].count += n
        } else {
            gestures.append(GestureTally(kind: kind, outcome: outcome, count: n))
        }
    }
}

/// Gestures of one kind that ended one way, counted (`Unlisted.gestures`).
public struct GestureTally: Equatable, Sendable {
    public var kind: GestureKind
    public var outcome: ExplainedGesture.Outcome
    public var count: Int

    public init(kind: GestureKind, outcome: ExplainedGesture.Outcome, count: Int) {
        self.kind = kind
        self.outcome = outcome
        self.count = count
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
    /// Fingers that were already down when the sequence began and landed before explaining started (a
    /// live `explain` started while they were down): where they landed is not known, so they are not in
    /// `fingers`, and no touch they took part in is measured.
    public var fingersAlreadyDown: Int
    /// What the lists leave out (`listLimit`, `reasonLimit`).
    public var unlisted: Unlisted

    /// The most fingers, gestures and touches one explanation lists; the rest are counted (`unlisted`).
    /// A touch sequence of a hand has at most ten fingers and a few gestures; a longer one (a finger resting
    /// while another taps) is summarised. With `reasonLimit`, a line stays under 32 KiB whatever the
    /// sequence, half the smallest `client_buffer_bytes` (64 KiB), so no explanation drops its client.
    public static let listLimit = 16
    /// The most reasons one explanation lists.
    public static let reasonLimit = 20

    public init(
        startMicroseconds: Int64, endMicroseconds: Int64, fingers: [Landing] = [], gestures: [ExplainedGesture] = [], reasons: [Reason] = [],
        touches: [TouchMeasurement] = [], fingersAlreadyDown: Int = 0, unlisted: Unlisted = Unlisted()
    ) {
        self.startMicroseconds = startMicroseconds
        self.endMicroseconds = endMicroseconds
        self.fingers = fingers
        self.gestures = gestures
        self.reasons = reasons
        self.touches = touches
        self.fingersAlreadyDown = fingersAlreadyDown
        self.unlisted = unlisted
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

    /// Every finger of the sequence: the listed landings, those left out, those already down.
    public var fingerCount: Int { fingers.count + unlisted.fingers + fingersAlreadyDown }

    /// "touch at 0.000 s to 0.928 s, 1 finger": when (relative to `origin`) and how many fingers.
    func heading(relativeToMicroseconds origin: Int64) -> String {
        let start = NumberText.fixed(Double(startMicroseconds - origin) / 1_000_000, decimals: 3)
        let end = NumberText.fixed(Double(endMicroseconds - origin) / 1_000_000, decimals: 3)
        let n = fingerCount
        return "touch at \(start) s to \(end) s, \(String(n)) finger\(n == 1 ? "" : "s")"
    }

    /// The block `gesturectl explain --all` prints: every landing, every gesture and every reason kept;
    /// times relative to `origin`.
    public func text(relativeToMicroseconds origin: Int64 = 0) -> String {
        var lines = [heading(relativeToMicroseconds: origin) + ":"]
        if fingersAlreadyDown > 0 {
            lines.append(
                "  \(String(fingersAlreadyDown)) finger\(fingersAlreadyDown == 1 ? " was" : "s were") already down when explaining "
                    + "started: where \(fingersAlreadyDown == 1 ? "it" : "they") landed is not known")
        }
        for (i, f) in fingers.enumerated() { lines.append("  finger \(fingersAlreadyDown + i + 1) landed \(f.description)") }
        if unlisted.fingers > 0 { lines.append("  and \(String(unlisted.fingers)) more finger\(unlisted.fingers == 1 ? "" : "s") (not listed)") }
        if gestures.isEmpty && unlisted.gestures.isEmpty {
            lines.append("  became: nothing")
        } else {
            for g in gestures { lines.append("  became: \(g.description)") }
            if !unlisted.gestures.isEmpty { lines.append("  and then (not listed): " + unlisted.tallyText) }
        }
        for r in reasons { lines.append("  \(r.description)") }
        if unlisted.reasons > 0 { lines.append("  and \(String(unlisted.reasons)) more reason\(unlisted.reasons == 1 ? "" : "s") (not listed)") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The line `gesturectl explain` prints by default: the touch's number, when (relative to `origin`)
    /// and how many fingers, what it became, and the one reason that decided (`decidingReason`), with its
    /// number and key: "touch 2 at 1.204 s, 1 finger: nothing; edge-swipe: near miss: landed 6.2 mm from
    /// the left edge and moved inward (edge_swipe.left.zone_mm is 5)".
    public func line(number: Int, relativeToMicroseconds origin: Int64, focus: ExplanationFocus = ExplanationFocus()) -> String {
        let start = NumberText.fixed(Double(startMicroseconds - origin) / 1_000_000, decimals: 3)
        let n = fingerCount
        var text = "touch \(number) at \(start) s, \(String(n)) finger\(n == 1 ? "" : "s")"
        if fingersAlreadyDown > 0 { text += " (\(String(fingersAlreadyDown)) already down when explaining started)" }
        text += ": " + becameText
        if let r = decidingReason(focus) {
            let subject: String
            switch (r.kind, r.gestureID) {
            case (let k?, nil): subject = "\(k): "
            case (_?, _?), (nil, _): subject = ""
            }
            text += "; " + subject + r.decisiveText
        }
        return text
    }

    /// What the sequence became, in a few words: "nothing", "edge-swipe from the left, committed", "hold,
    /// cancelled; then tap, 2 taps, committed ×3"; gestures beyond three (and beyond the list) counted by
    /// kind and outcome.
    var becameText: String {
        if gestures.isEmpty && unlisted.gestures.isEmpty { return "nothing" }
        var parts: [String] = []
        for g in gestures.prefix(3) { parts.append(g.shortDescription) }
        var rest = Unlisted()
        for g in gestures.dropFirst(3) { rest.count(g.kind, g.outcome) }
        for t in unlisted.gestures { rest.count(t.kind, t.outcome, by: t.count) }
        let listed = parts.joined(separator: "; then ")
        return rest.gestures.isEmpty ? listed : listed + "; and then " + rest.tallyText
    }

    /// The reason that decided what the sequence became, first the one about how its last gesture ended
    /// (not committed, no direction, cancelled); for a sequence that became nothing, the first reason of
    /// the kind that came closest, in this order: a near miss or an exclusion of an edge swipe, a move
    /// that was not inward, the fingers' count, a pinch or pan that the fingers' motion did not make, a
    /// tap down too long, a hold lifted too soon, and only then a touch that landed outside every zone or
    /// did not move. Within `focus`: its kinds' and edges' reasons only. Nil when nothing needs saying (a
    /// committed gesture).
    public func decidingReason(_ focus: ExplanationFocus = ExplanationFocus()) -> Reason? {
        let candidates = reasons.filter { focus.admits($0) }
        if let last = gestures.last(where: { focus.admits($0) }) {
            return candidates.last { $0.gestureID == last.id }
        }
        // A sequence that became something: nothing to say, unless the focus asks why not its kinds or edges.
        guard gestures.isEmpty || !focus.isEmpty else { return nil }
        return candidates.filter { $0.gestureID == nil && (focus.isEmpty || $0.kind != nil) }.min { a, b in a.closeness < b.closeness }
    }
}

/// Which touches and reasons `gesturectl explain` shows (`--kinds`, `--edges`); empty: all.
public struct ExplanationFocus: Equatable, Sendable {
    public var kinds: [GestureKind]
    public var edges: [Edge]

    public init(kinds: [GestureKind] = [], edges: [Edge] = []) {
        self.kinds = kinds
        self.edges = edges
    }

    /// No kinds and no edges: everything.
    public var isEmpty: Bool { kinds.isEmpty && edges.isEmpty }

    /// A reason within the focus: of one of its kinds (or about the touch as a whole), and, with edges,
    /// about one of them.
    public func admits(_ r: Reason) -> Bool {
        if !kinds.isEmpty, let kind = r.kind, !kinds.contains(kind) { return false }
        if !edges.isEmpty { return r.edge.map { edges.contains($0) } ?? false }
        return true
    }

    func admits(_ g: ExplainedGesture) -> Bool {
        if !kinds.isEmpty && !kinds.contains(g.kind) { return false }
        if !edges.isEmpty { return g.edge.map { edges.contains($0) } ?? false }
        return true
    }

    /// How far from an edge, in widths of its zone, a touch that landed outside every zone still came
    /// close to it.
    public static let closeZoneWidths = 4.0

    /// Whether `x` is shown: every touch without a focus; with one, a touch that became a gesture of its
    /// kinds (from its edges), or one whose reason of those kinds (about those edges) says it came close:
    /// anything but no motion at all, motion where stillness was needed, another kind first, or a landing
    /// outside every zone farther than four of its widths. With `--edges`, also a touch that landed in the
    /// zone of one of them.
    public func shows(_ x: Explanation) -> Bool {
        if isEmpty { return true }
        if x.gestures.contains(where: admits) { return true }
        if x.unlisted.gestures.contains(where: { kinds.isEmpty || kinds.contains($0.kind) }) && edges.isEmpty { return true }
        for r in x.reasons where admits(r) && r.kind != nil && r.gestureID == nil {
            switch r.cause {
            case .outsideZone:
                if let m = r.measurements.first, m.value <= ExplanationFocus.closeZoneWidths * m.setting { return true }
            case .didNotMove, .moved, .stillnessUnknown, .anotherKindBegan: continue
            default: return true
            }
        }
        if !edges.isEmpty, kinds.isEmpty || kinds.contains(.edgeSwipe) {
            return x.fingers.contains { f in f.zones.contains { edges.contains($0) } }
        }
        return false
    }
}

extension Unlisted {
    /// "tap, committed ×9 968; hold, cancelled ×1".
    var tallyText: String {
        gestures.map { "\($0.kind), \($0.outcome.words) ×\(String($0.count))" }.joined(separator: "; ")
    }
}

extension ExplainedGesture {
    /// "edge-swipe from the left, committed", "tap, 2 taps, committed", "pan up, committed": without the
    /// id and the finger count (the touch's line says those).
    var shortDescription: String {
        var s = kind.description
        if let edge { s += " from the \(edge.rawValue)" }
        if let direction { s += " \(direction.rawValue)" }
        if let taps, taps > 1 { s += ", \(taps) taps" }
        s += ", " + outcome.words
        if beganBeforeExplaining { s += " (began before explaining started)" }
        return s
    }
}

extension Reason {
    /// How close the touch came to what the reason's kind needs, for choosing the reason that decided
    /// (smaller: closer).
    var closeness: Int {
        switch cause {
        case .nearMiss, .excluded: return 0
        case .notInward, .withholdExpired, .offAxis, .flungBack, .notCommitted: return 1
        case .disabled, .fingerCount: return 2
        case .notTogether, .movedTogether, .tooLittleSpread, .movedInward: return 3
        case .downTooLong, .liftedTooSoon: return 4
        case .palm, .penInProximity, .fingerAdded, .eventsDropped, .cancelledByDaemon, .stillnessUnknown, .anotherKindBegan: return 5
        case .outsideZone, .didNotMove, .moved: return 6
        }
    }

    /// The reason in one clause, with the one number that decided and its key: "landed 12.5 mm from the
    /// top edge (edge_swipe.top.zone_mm is 5)".
    public var decisiveText: String {
        let edgeName = edge?.rawValue ?? "?"
        func v(_ i: Int) -> String { i < measurements.count ? measurements[i].quantity.format(measurements[i].value) : "?" }
        func k(_ i: Int) -> String { i < measurements.count ? " (\(measurements[i].key) is \(NumberText.setting(measurements[i].setting)))" : "" }
        switch cause {
        case .fingerCount, .notInward, .didNotMove, .moved, .downTooLong, .liftedTooSoon, .notTogether, .movedTogether, .offAxis:
            return sharedClause(k) ?? ""
        case .outsideZone: return "landed \(v(0)) from the \(edgeName) edge, outside its zone\(k(0))"
        case .nearMiss: return "near miss: landed \(v(0)) from the \(edgeName) edge, just outside its zone, and moved inward\(k(0))"
        case .withholdExpired: return "did not move past the slop within \(v(1))\(k(1))"
        case .movedInward:
            let half = measurements.first.map { " (half of \($0.key), which is \(NumberText.setting($0.setting)))" } ?? ""
            return "moved \(v(0)) inward from the \(edgeName) edge, more than a hold by an edge may\(half)"
        case .tooLittleSpread: return "span changed \(v(0))\(k(0))"
        // Not committed and cancelled are said by what it became ("pan, not committed"): the reason says why.
        case .notCommitted:
            guard let m = measurements.first else { return "not committed" }
            switch m.quantity {
            case .travel: return "travelled \(v(0))\(k(0))"
            case .scaleChange: return "scale changed by \(v(0))\(k(0))"
            default: return "\(v(0))\(k(0))"
            }
        case .flungBack: return "flung back outward at \(v(0))\(k(0))"
        case .fingerAdded where !measurements.isEmpty: return "a finger joined \(v(0)) after the landing\(k(0))"
        case .palm, .penInProximity, .fingerAdded, .eventsDropped, .cancelledByDaemon:
            let t = text
            return t.hasPrefix("cancelled: ") ? String(t.dropFirst("cancelled: ".count)) : t
        case .disabled, .excluded, .anotherKindBegan, .stillnessUnknown:
            return text
        }
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
