/// Recognizes edge swipes, pans and pinches from touch frames of one device.
///
/// One state machine arbitrates between the three recognizers, so that for one set of fingers at most one
/// gesture begins: an edge swipe has priority over pan for fingers that land in an edge zone (pan waits for
/// it to fail), and two or more fingers become a pinch or a pan depending on whether their motion differs
/// between fingers or is shared. docs/gestures.md describes the rules and every threshold.
public struct GestureRecognizer: Sendable {
    /// A finger the recognizer follows.
    struct Finger {
        var serial: UInt64
        /// Where it was when the current attempt at recognition started (landing, or a re-baseline when the
        /// set of fingers changed before anything was recognized).
        var baselineMM: Vector2
        var currentN: Vector2
        var currentMM: Vector2
        /// Angle around the fingers' centroid at the previous frame, degrees (pinch rotation).
        var lastAngleDegrees: Double = 0
    }

    enum ActiveKind: Equatable {
        case edgeSwipe(Edge)
        case pan
        case pinch(spanAtBeginMM: Double)
    }

    /// What the recognizer reports while a gesture runs: the values of its last event.
    struct ActiveGesture {
        var kind: ActiveKind
        var id: UInt64
        var fingers: Int
        /// Cumulative rotation since the baseline when the gesture began: pinch rotation counts from here.
        var rotationAtBeginDegrees: Double = 0
        /// Last values reported, reused by `end` and `cancel` (the lift frame has no new positions).
        var last: GestureEvent
        /// Time of the last movement, for the zero-velocity deadline.
        var lastMoveTime: Int64
        /// True once an update carried a non-zero velocity that has not been followed by a stop.
        var velocityReported: Bool
    }

    enum State {
        /// No fingers down.
        case idle
        /// Fingers down, nothing recognized yet. `edges` are the edges whose zone every finger landed in,
        /// still possible for an edge swipe.
        case possible(edges: EdgeSet)
        /// A gesture is running.
        case active(ActiveGesture)
        /// A gesture ended or was cancelled, or recognition failed: nothing begins until every finger
        /// has lifted.
        case waitingForLift
    }

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

    public private(set) var settings: RecognizerSettings
    let screenSizeMM: (width: Double, height: Double)
    private(set) var state: State = .idle
    private var fingers: [Finger] = []
    private var velocity: VelocityTracker
    /// Cumulative rotation of the fingers around their centroid since the baseline, degrees.
    private var rotationSinceBaselineDegrees: Double = 0
    private var spanAtBaselineMM: Double = 0
    private var baselineCentroidN = Vector2.zero
    private var baselineCentroidMM = Vector2.zero
    /// When the latest finger of the current group landed: a finger that joins within
    /// `fingerLandingWindowSeconds` of it restarts recognition instead of failing it.
    private var groupLandingTime: Int64 = 0
    private let cosAngleTolerance: Double

    /// The id the next gesture gets; the daemon may set it so ids are unique across devices.
    public var nextGestureID: UInt64 = 1
    /// Transitions, for debug logging: "possible -> slop passed -> pan(3)". Off unless enabled.
    public var traceTransitions = false
    public var transitions: [String] = []

    public init(settings: RecognizerSettings, screenSizeMM: (width: Double, height: Double)) {
        self.settings = settings
        self.screenSizeMM = screenSizeMM
        velocity = VelocityTracker(windowSeconds: settings.velocityWindowSeconds)
        cosAngleTolerance = GestureRecognizer.cosine(degrees: settings.angleToleranceDegrees)
        fingers.reserveCapacity(10)
    }

    /// cos(x) for the angle tolerance, from the libm-free atan2 by bisection (runs once per engine).
    static func cosine(degrees: Double) -> Double {
        let clamped = min(max(degrees, 0), 180)
        // Find the unit vector whose angle is `clamped`: bisection on x in [-1, 1].
        var lo = -1.0
        var hi = 1.0
        for _ in 0..<60 {
            let mid = (lo + hi) / 2
            let angle = Angles.degrees(of: Vector2(mid, (max(0, 1 - mid * mid)).squareRoot()))
            if angle > clamped { lo = mid } else { hi = mid }
        }
        return (lo + hi) / 2
    }

    // MARK: - Input

    /// Handles one frame; gesture events are appended to `out`.
    public mutating func handle(_ frame: TouchFrame, into out: inout [GestureEvent]) {
        let time = frame.timeMicroseconds
        // Deadline first: a frame after a pause reports the stop before the new movement.
        if let deadline = nextDeadlineMicroseconds, time >= deadline { advance(to: time, into: &out) }

        var liftedCount = 0
        var lostCount = 0
        for serial in frame.lifted where fingers.contains(where: { $0.serial == serial }) { liftedCount += 1 }
        for serial in frame.lost where fingers.contains(where: { $0.serial == serial }) { lostCount += 1 }
        let knownStillDown = frame.contacts.reduce(0) { n, c in
            n + (fingers.contains(where: { $0.serial == c.serial }) ? 1 : 0)
        }
        let addedCount = frame.contacts.count - knownStillDown

        switch state {
        case .idle:
            if !frame.contacts.isEmpty {
                groupLandingTime = time
                startPossible(frame)
            }

        case .possible(var edges):
            if liftedCount > 0 || lostCount > 0 || addedCount > 0 {
                // The set of fingers changed before anything was recognized: start over with the fingers
                // now down (fingers rarely land or lift in the same frame).
                if addedCount > 0 { groupLandingTime = time }
                if frame.contacts.isEmpty { transition(to: .idle, "all fingers lifted before any gesture") }
                else { startPossible(frame) }
                return
            }
            _ = updatePositions(frame)
            velocity.add(time: time, position: centroidMM())
            trackRotation()
            if let active = recognize(time: time, edges: &edges) {
                emitBegin(active, into: &out)
            } else {
                state = .possible(edges: edges)
            }

        case .active(var active):
            if addedCount > 0 && lostCount == 0 && liftedCount == 0
                && time - groupLandingTime <= Int64(settings.fingerLandingWindowSeconds * 1_000_000)
            {
                // A finger that joins just after the others (fingers rarely land together): the gesture
                // with the wrong finger count is cancelled and recognition restarts with all of them.
                out.append(terminal(active, phase: .cancel, time: time))
                groupLandingTime = time
                startPossible(frame)
                trace("finger joined within the landing window -> cancel, recognize again")
                return
            }
            if lostCount > 0 || addedCount > 0 {
                out.append(terminal(active, phase: .cancel, time: time))
                transition(
                    to: frame.contacts.isEmpty ? .idle : .waitingForLift,
                    lostCount > 0 ? "finger lost (palm) -> cancel" : "finger added -> cancel")
                syncAfterEnd(frame)
                return
            }
            if liftedCount > 0 {
                out.append(ending(active, time: time))
                syncAfterEnd(frame)
                if frame.contacts.isEmpty {
                    transition(to: .idle, "fingers lifted -> end")
                } else if fingers.isEmpty {
                    // Every finger of the gesture lifted and new ones landed in the same frame.
                    groupLandingTime = time
                    startPossible(frame)
                } else {
                    transition(to: .waitingForLift, "first finger lifted -> end")
                }
                return
            }
            guard updatePositions(frame) else { return }  // nothing moved (pressure-only frame)
            velocity.add(time: time, position: centroidMM())
            trackRotation()
            state = .waitingForLift  // leave the payload unshared while it is mutated
            if let event = update(&active, time: time) { out.append(event) }
            state = .active(active)

        case .waitingForLift:
            if frame.contacts.isEmpty { transition(to: .idle, "all fingers lifted") }
            fingers.removeAll(keepingCapacity: true)
        }
    }

    /// Events were lost (SYN_DROPPED): a gesture in flight is cancelled and nothing begins until every
    /// finger has lifted, since the fingers' state during the gap is unknown.
    public mutating func eventsDropped(at time: Int64, into out: inout [GestureEvent]) {
        interrupt(at: time, into: &out, reason: "events dropped -> cancel")
    }

    /// The device went away or the configuration changed: a gesture in flight is cancelled.
    public mutating func cancelAll(at time: Int64, into out: inout [GestureEvent]) {
        interrupt(at: time, into: &out, reason: "cancelled by the daemon")
    }

    /// Nothing begins until every finger now down has lifted (used after a reconfiguration).
    public mutating func waitForLift() {
        fingers.removeAll(keepingCapacity: true)
        transition(to: .waitingForLift, "waiting for the fingers down to lift")
    }

    private mutating func interrupt(at time: Int64, into out: inout [GestureEvent], reason: String) {
        switch state {
        case .idle:
            return
        case .active(let active):
            out.append(terminal(active, phase: .cancel, time: time))
        case .possible, .waitingForLift:
            break
        }
        fingers.removeAll(keepingCapacity: true)
        transition(to: .waitingForLift, reason)
    }

    /// When the running gesture's fingers have stopped long enough that its velocity is zero, the time at
    /// which to report that (an `update` with zero velocity). Nil when there is nothing to wait for.
    public var nextDeadlineMicroseconds: Int64? {
        guard case .active(let active) = state, active.velocityReported else { return nil }
        return active.lastMoveTime + velocity.windowMicroseconds
    }

    /// Reports what became true by `time` with no new input: fingers that stopped moving.
    public mutating func advance(to time: Int64, into out: inout [GestureEvent]) {
        guard case .active(var active) = state, active.velocityReported,
            time >= active.lastMoveTime + velocity.windowMicroseconds
        else { return }
        active.velocityReported = false
        var event = active.last
        event.phase = .update
        event.timeMicroseconds = active.lastMoveTime + velocity.windowMicroseconds
        event.velocityMMPerSecond = .zero
        event.committed = nil
        active.last = event
        out.append(event)
        state = .active(active)
    }

    // MARK: - Recognition

    private mutating func startPossible(_ frame: TouchFrame) {
        fingers.removeAll(keepingCapacity: true)
        for c in frame.contacts {
            fingers.append(Finger(serial: c.serial, baselineMM: c.positionMM, currentN: c.position, currentMM: c.positionMM))
        }
        baselineCentroidN = centroidN()
        baselineCentroidMM = centroidMM()
        spanAtBaselineMM = spanMM()
        rotationSinceBaselineDegrees = 0
        setAngles()
        velocity.reset()
        velocity.add(time: frame.timeMicroseconds, position: baselineCentroidMM)
        transition(to: .possible(edges: edgeCandidates()), "\(fingers.count) finger(s) down")
    }

    /// The edges whose zone every finger is in, if an edge swipe with this many fingers is allowed.
    private func edgeCandidates() -> EdgeSet {
        var set = EdgeSet()
        let es = settings.edgeSwipe
        guard es.enabled, fingers.count >= es.minFingers, fingers.count <= es.maxFingers else { return set }
        for edge in Edge.allCases {
            let zone = es.zone(edge)
            guard zone.enabled else { continue }
            let inside = fingers.allSatisfy { f in
                distanceFromEdge(edge, f.baselineMM) <= zone.widthMM
            }
            if inside { set.insert(edge) }
        }
        return set
    }

    private func distanceFromEdge(_ edge: Edge, _ p: Vector2) -> Double {
        switch edge {
        case .left: return p.x
        case .right: return screenSizeMM.width - p.x
        case .top: return p.y
        case .bottom: return screenSizeMM.height - p.y
        }
    }

    /// Unit vector pointing from the edge into the screen.
    private static func inward(_ edge: Edge) -> Vector2 {
        switch edge {
        case .left: return Vector2(1, 0)
        case .right: return Vector2(-1, 0)
        case .top: return Vector2(0, 1)
        case .bottom: return Vector2(0, -1)
        }
    }

    /// Decides, once a finger has moved past the slop, which gesture begins (if any).
    private mutating func recognize(time: Int64, edges: inout EdgeSet) -> ActiveGesture? {
        let slop = settings.slopMM
        var maxMove = 0.0
        for f in fingers { maxMove = max(maxMove, (f.currentMM - f.baselineMM).length) }
        guard maxMove >= slop else { return nil }

        let n = fingers.count
        let centroidMove = centroidMM() - baselineCentroidMM

        // 1. Edge swipe: priority for fingers that landed in an edge zone.
        if !edges.isEmpty {
            for edge in Edge.allCases where edges.contains(edge) {
                let along = (centroidMove.x * GestureRecognizer.inward(edge).x + centroidMove.y * GestureRecognizer.inward(edge).y)
                if along > 0 && along >= cosAngleTolerance * centroidMove.length && centroidMove.length > 0 {
                    return makeActive(.edgeSwipe(edge), time: time, reason: "moved inward from the \(edge) edge")
                }
            }
            edges = EdgeSet()
            trace("edge swipe failed: not moving inward")
        }

        // 2. Pinch or pan for two or more fingers: does their motion differ between fingers or is it shared?
        var differential = 0.0
        for f in fingers {
            differential += ((f.currentMM - f.baselineMM) - centroidMove).length
        }
        differential /= Double(n)
        let common = centroidMove.length
        let pinch = settings.pinch
        let pinchLike = n >= 2 && differential >= settings.pinchDifferentialRatio * common
        if pinchLike {
            if pinch.enabled && n >= pinch.minFingers && n <= pinch.maxFingers {
                let spanChange = abs(spanMM() - spanAtBaselineMM)
                if spanChange >= pinch.beginSpanChangeMM || abs(rotationSinceBaselineDegrees) >= pinch.beginRotationDegrees {
                    return makeActive(.pinch(spanAtBeginMM: max(spanMM(), 0.001)), time: time, reason: "fingers moved apart or around")
                }
            }
            return nil
        }
        // 3. Pan.
        let pan = settings.pan
        if pan.enabled && n >= pan.minFingers && n <= pan.maxFingers && common >= slop {
            return makeActive(.pan, time: time, reason: "fingers moved together")
        }
        return nil
    }

    private mutating func makeActive(_ kind: ActiveKind, time: Int64, reason: String) -> ActiveGesture {
        let id = nextGestureID
        nextGestureID &+= 1
        let placeholder = GestureEvent(kind: .pan, phase: .begin, id: id, timeMicroseconds: time, fingers: fingers.count)
        var active = ActiveGesture(
            kind: kind, id: id, fingers: fingers.count, rotationAtBeginDegrees: rotationSinceBaselineDegrees,
            last: placeholder, lastMoveTime: time, velocityReported: false)
        active.last = snapshot(active, phase: .begin, time: time)
        trace("possible -> \(reason) -> \(active.last.kind.rawValue) #\(id)")
        return active
    }

    private mutating func emitBegin(_ active: ActiveGesture, into out: inout [GestureEvent]) {
        var a = active
        a.velocityReported = a.last.velocityMMPerSecond != .zero
        out.append(a.last)
        state = .active(a)
    }

    private mutating func update(_ active: inout ActiveGesture, time: Int64) -> GestureEvent? {
        let event = snapshot(active, phase: .update, time: time)
        active.last = event
        active.lastMoveTime = time
        active.velocityReported = event.velocityMMPerSecond != .zero
        return event
    }

    /// The event for the current state of the fingers.
    private func snapshot(_ active: ActiveGesture, phase: GesturePhase, time: Int64) -> GestureEvent {
        let c = centroidN()
        let cMM = centroidMM()
        var e = GestureEvent(
            kind: .pan, phase: phase, id: active.id, timeMicroseconds: time, fingers: active.fingers,
            position: c, positionMM: cMM, translation: c - baselineCentroidN, translationMM: cMM - baselineCentroidMM,
            velocityMMPerSecond: velocity.velocity(at: time))
        switch active.kind {
        case .edgeSwipe(let edge):
            e.kind = .edgeSwipe
            e.edge = edge
            e.progress = progress(edge, translation: e.translation)
        case .pan:
            e.kind = .pan
        case .pinch(let spanAtBegin):
            e.kind = .pinch
            let span = spanMM()
            e.spanMM = span
            e.scale = span / spanAtBegin
            e.rotationDegrees = rotationSinceBaselineDegrees - active.rotationAtBeginDegrees
        }
        return e
    }

    private func progress(_ edge: Edge, translation t: Vector2) -> Double {
        let p: Double
        switch edge {
        case .left: p = t.x
        case .right: p = -t.x
        case .top: p = t.y
        case .bottom: p = -t.y
        }
        return min(max(p, 0), 1)
    }

    /// The `end` event: last reported values, velocity at release, and whether it commits.
    private func ending(_ active: ActiveGesture, time: Int64) -> GestureEvent {
        var e = active.last
        e.phase = .end
        e.timeMicroseconds = time
        let v = velocity.velocity(at: time)
        e.velocityMMPerSecond = v
        switch active.kind {
        case .edgeSwipe(let edge):
            let dir = GestureRecognizer.inward(edge)
            let inwardVelocity = v.x * dir.x + v.y * dir.y
            let fling = settings.edgeSwipe.flingVelocityMMPerSecond
            e.committed = inwardVelocity >= fling
                || ((e.progress ?? 0) >= settings.edgeSwipe.commitProgress && inwardVelocity > -fling)
        case .pan:
            let flung = v.length >= settings.pan.flingVelocityMMPerSecond
            let committed = flung || e.translationMM.length >= settings.pan.commitDistanceMM
            e.committed = committed
            // A swipe's direction: where it was flung, else where it went; none for a pan that did not
            // commit (it went nowhere in particular) or that went off-axis.
            e.direction = committed ? direction(of: flung ? v : e.translationMM) : nil
        case .pinch:
            e.committed = abs(1 - (e.scale ?? 1)) >= settings.pinch.commitScaleChange
                || abs(e.rotationDegrees ?? 0) >= settings.pinch.commitRotationDegrees
        }
        return e
    }

    private func terminal(_ active: ActiveGesture, phase: GesturePhase, time: Int64) -> GestureEvent {
        var e = active.last
        e.phase = phase
        e.timeMicroseconds = time
        e.committed = nil
        e.direction = nil
        return e
    }

    /// up/down/left/right when `v` points along an axis within the angle tolerance, else nil.
    func direction(of v: Vector2) -> SwipeDirection? {
        let length = v.length
        guard length > 0 else { return nil }
        let threshold = cosAngleTolerance * length
        if v.x >= threshold { return .right }
        if -v.x >= threshold { return .left }
        if v.y >= threshold { return .down }
        if -v.y >= threshold { return .up }
        return nil
    }

    // MARK: - Finger bookkeeping

    /// Takes the fingers' new positions; true when any of them moved.
    private mutating func updatePositions(_ frame: TouchFrame) -> Bool {
        var moved = false
        for c in frame.contacts {
            for i in fingers.indices where fingers[i].serial == c.serial {
                if fingers[i].currentMM != c.positionMM { moved = true }
                fingers[i].currentN = c.position
                fingers[i].currentMM = c.positionMM
            }
        }
        return moved
    }

    /// After an end or cancel: follow whichever fingers remain, only so later frames can tell old
    /// fingers from new ones.
    private mutating func syncAfterEnd(_ frame: TouchFrame) {
        fingers.removeAll { f in !frame.contacts.contains(where: { $0.serial == f.serial }) }
    }

    private func centroidN() -> Vector2 {
        var s = Vector2.zero
        for f in fingers { s = s + f.currentN }
        return fingers.isEmpty ? s : s / Double(fingers.count)
    }

    private func centroidMM() -> Vector2 {
        var s = Vector2.zero
        for f in fingers { s = s + f.currentMM }
        return fingers.isEmpty ? s : s / Double(fingers.count)
    }

    /// Mean distance of the fingers from their centroid, millimetres.
    private func spanMM() -> Double {
        guard fingers.count >= 2 else { return 0 }
        let c = centroidMM()
        var s = 0.0
        for f in fingers { s += (f.currentMM - c).length }
        return s / Double(fingers.count)
    }

    private mutating func setAngles() {
        let c = centroidMM()
        for i in fingers.indices { fingers[i].lastAngleDegrees = Angles.degrees(of: fingers[i].currentMM - c) }
    }

    /// Adds the fingers' mean turn around their centroid since the last frame to the cumulative rotation.
    private mutating func trackRotation() {
        guard fingers.count >= 2 else { return }
        let c = centroidMM()
        var sum = 0.0
        for i in fingers.indices {
            let angle = Angles.degrees(of: fingers[i].currentMM - c)
            sum += Angles.wrapDegrees(angle - fingers[i].lastAngleDegrees)
            fingers[i].lastAngleDegrees = angle
        }
        rotationSinceBaselineDegrees += sum / Double(fingers.count)
    }

    private mutating func transition(to newState: State, _ reason: String) {
        if traceTransitions { transitions.append("\(name(of: state)) -> \(reason) -> \(name(of: newState))") }
        state = newState
    }

    private mutating func trace(_ message: String) {
        if traceTransitions { transitions.append(message) }
    }

    private func name(of s: State) -> String {
        switch s {
        case .idle: return "idle"
        case .possible: return "possible"
        case .active(let a): return "\(a.last.kind.rawValue) #\(a.id)"
        case .waitingForLift: return "waiting-for-lift"
        }
    }
}
