import GestureVocabulary

/// What happens to the recognizer, one input at a time. Frames are classified against the fingers it
/// follows, so the state machine sees "fingers changed" or "the same fingers moved"; the frame itself is
/// passed beside the input (the latest frame, whatever the input), so no input copies it.
enum RecognizerInput {
    /// Fingers landed, lifted or were lost (palms) in the frame; resting fingers count for nothing.
    case fingersChanged(FingerSet.Change)
    /// The fingers followed are the fingers down in the frame (besides resting ones); they may have moved.
    case moved
    /// A deadline armed earlier has come.
    case deadline(DeadlineKind, atMicroseconds: Int64)
    /// Events were lost (SYN_DROPPED): the fingers' state during the gap is unknown.
    case dropped(atMicroseconds: Int64)
    /// The daemon cancels what runs: the device goes away or the configuration changed.
    case cancelled(atMicroseconds: Int64)
}

/// Recognizes edge swipes, pans, pinches, taps and holds from touch frames of one device.
///
/// One state machine arbitrates between the gesture kinds so that for one set of fingers at most one
/// gesture begins: motion is claimed in `Candidate.arbitrationOrder` (edge swipe, pinch, pan) once a
/// finger passes the slop; stillness ends in a hold (on its deadline) or a tap (at the lift). Every input
/// goes through `handle`, a `switch (state, input)` with every pair named; every change of state goes
/// through `transition(to:_:)`, which also disarms the deadlines of the state left. docs/architecture.md
/// draws the states; docs/gestures.md gives the rules and every threshold.
@usableFromInline
struct GestureRecognizer: Sendable {
    /// A gesture that is running.
    struct ActiveGesture {
        var kind: ActiveKind
        var id: UInt64
        var fingers: Int
        /// Cumulative rotation since the baseline when the gesture began: pinch rotation counts from here.
        var rotationAtBeginDegrees: Double
        /// Pans that began in an edge zone: that edge or corner.
        var startEdge: Edge?
        /// Last values reported, reused by `end` and `cancel` (the lift frame has no new positions).
        var last: GestureEvent
    }

    /// Fingers down with nothing recognized yet.
    struct Attempt {
        /// Sides still possible for an edge swipe.
        var edges: EdgeSwipeRule.EdgeSet
        /// The zones the fingers landed in (a pan's `start_edge`).
        var landedIn: EdgeSwipeRule.EdgeSet
        /// What a tap would be; nil once it cannot be one (a finger moved past the slop).
        var tap: TapRule.Candidate?
        /// A gesture would have begun, but the hand may still be landing: it begins when the landing
        /// window has passed (deadline), when flung, or at the lift, counting its scale and rotation from
        /// when it would have begun.
        var heldBack: HeldBack?
        /// A tap sequence waiting for this attempt to be its next tap.
        var sequence: TapRule.Sequence?
    }

    /// A gesture that would have begun while the hand was still landing.
    struct HeldBack {
        var kind: ActiveKind
        var rotationDegrees: Double
    }

    enum State {
        /// Nothing recognized or pending. Fingers down, if any, rest: they take part in nothing until
        /// they lift.
        case idle
        /// Fingers down, nothing recognized yet.
        case possible(Attempt)
        /// A gesture is running.
        case active(ActiveGesture)
        /// Every finger lifted after a tap: the sequence waits for a further tap.
        case betweenTaps(TapRule.Sequence)
    }

    let context: RecognizerContext
    var settings: RecognizerSettings { context.settings }
    private(set) var state: State = .idle
    private var fingers: FingerSet
    @usableFromInline private(set) var deadlines = Deadlines()
    /// Touches held back from applications (passthrough only).
    private var withheld: [UInt64] = []
    /// Trace lines (transitions and decisions) are built and emitted only while this is on.
    var tracing = false

    init(settings: RecognizerSettings, screenSizeMM: (width: Double, height: Double)) {
        context = RecognizerContext(settings: settings, screenSizeMM: screenSizeMM)
        fingers = FingerSet(velocityWindowSeconds: settings.velocityWindowSeconds)
    }

    /// The earliest armed deadline, in event-clock microseconds.
    @inlinable var nextDeadlineMicroseconds: Int64? { deadlines.earliest?.time }

    private var landingWindowMicroseconds: Int64 { Int64(settings.fingerLandingWindowSeconds * 1_000_000) }

    // MARK: - Input

    /// Classifies a frame against the fingers followed and handles it.
    mutating func handle(_ frame: TouchFrame, ids: GestureIDSource, into out: inout [EngineOutput]) {
        let change = fingers.change(in: frame)
        handle(change.isEmpty ? .moved : .fingersChanged(change), frame: frame, ids: ids, into: &out)
    }

    /// Fires every deadline due by `time`, earliest first; `frame` is the latest frame.
    mutating func fireDeadlines(upTo time: Int64, frame: TouchFrame, ids: GestureIDSource, into out: inout [EngineOutput]) {
        while let (kind, due) = deadlines.earliest, due <= time {
            deadlines.disarm(kind)
            handle(.deadline(kind, atMicroseconds: due), frame: frame, ids: ids, into: &out)
        }
    }

    /// One input, with the latest frame (the one the input comes from, for `fingersChanged` and `moved`).
    mutating func handle(_ input: RecognizerInput, frame: TouchFrame, ids: GestureIDSource, into out: inout [EngineOutput]) {
        switch (state, input) {
        // Idle: fingers landing start an attempt; resting fingers do nothing.
        case (.idle, .fingersChanged(let change)):
            if change.added > 0 { startAttempt(frame, landing: true, sequence: nil, into: &out) }
        case (.idle, .moved):
            break
        case (.idle, .dropped), (.idle, .cancelled):
            interrupt(input, frame: frame, into: &out)
        case (.idle, .deadline(let kind, _)):
            bug("deadline \(kind) fired while idle", into: &out)

        // Possible: nothing recognized yet.
        case (.possible(let attempt), .fingersChanged(let change)):
            attemptFingersChanged(attempt, change, frame, ids: ids, into: &out)
        case (.possible(var attempt), .moved):
            fingers.track(frame)
            if attempt.tap != nil && fingers.anyMovedFromLanding(beyond: settings.slopMM) {
                attempt.tap = nil
                deadlines.disarm(.hold)
            }
            recognize(attempt, time: frame.timeMicroseconds, settled: false, ids: ids, into: &out)
        case (.possible(let attempt), .deadline(.landingSettled, let time)):
            // The hand has landed: a gesture held back begins now (if it still would).
            recognize(attempt, time: time, settled: true, ids: ids, into: &out)
        case (.possible(let attempt), .deadline(.hold, let time)):
            if attempt.tap != nil && HoldRule.applies(fingers: fingers.count, context: context) {
                endSequence(attempt.sequence, time: time, into: &out)
                begin(.hold, attempt: attempt, time: time, ids: ids, into: &out)
            }
        case (.possible(var attempt), .deadline(.withholdLimit, _)):
            // Still undecided: the touches go to the application and their edge swipe fails.
            attempt.edges = EdgeSwipeRule.EdgeSet()
            state = .possible(attempt)
            trace("edge swipe failed: no movement within the withhold limit", into: &out)
            syncWithheld(wanted: [], into: &out)
        case (.possible, .deadline(let kind, _)):
            bug("deadline \(kind) fired while possible", into: &out)
        case (.possible, .dropped), (.possible, .cancelled):
            interrupt(input, frame: frame, into: &out)

        // Active: a gesture runs.
        case (.active(let active), .fingersChanged(let change)):
            gestureFingersChanged(active, change, frame, into: &out)
        case (.active(var active), .moved):
            guard fingers.track(frame, onlyIfMoved: true) else { return }  // a pressure-only frame
            let time = frame.timeMicroseconds
            active.last = snapshot(active, phase: .update, time: time)
            armVelocityStop(after: active.last, time: time)
            out.append(.gesture(active.last))
            state = .active(active)
        case (.active(var active), .deadline(.velocityStop, let time)):
            // The fingers stopped: velocity zero from now on.
            var event = active.last
            event.phase = .update
            event.timeMicroseconds = time
            event.velocityMMPerSecond = .zero
            event.committed = nil
            active.last = event
            out.append(.gesture(event))
            state = .active(active)
        case (.active, .deadline(let kind, _)):
            bug("deadline \(kind) fired while a gesture runs", into: &out)
        case (.active, .dropped), (.active, .cancelled):
            interrupt(input, frame: frame, into: &out)

        // Between taps: a sequence waits for its next tap.
        case (.betweenTaps(let sequence), .fingersChanged(let change)):
            if change.added > 0 { startAttempt(frame, landing: true, sequence: sequence, into: &out) }
        case (.betweenTaps, .moved):
            break  // only resting fingers are down
        case (.betweenTaps(let sequence), .deadline(.multiTap, let time)):
            out.append(.gesture(TapRule.event(sequence, phase: .end, time: time)))
            transition(to: .idle, "no further tap -> end", into: &out)
        case (.betweenTaps, .deadline(let kind, _)):
            bug("deadline \(kind) fired between taps", into: &out)
        case (.betweenTaps, .dropped), (.betweenTaps, .cancelled):
            interrupt(input, frame: frame, into: &out)
        }
    }

    /// Nothing begins until every finger now down has lifted (used after a reconfiguration).
    mutating func waitForLift(_ frame: TouchFrame, into out: inout [EngineOutput]) {
        fingers.restAll(frame)
        transition(to: .idle, "the fingers down rest until they lift", into: &out)
    }

    // MARK: - Transitions

    /// Every change of state goes through here: the deadlines of the state left are disarmed, and the
    /// transition is traced ("possible -> fingers moved together -> pan #3").
    private mutating func transition(to newState: State, _ reason: @autoclosure () -> String, into out: inout [EngineOutput]) {
        if tracing { out.append(.trace("\(name(of: state)) -> \(reason()) -> \(name(of: newState))")) }
        deadlines.disarmAll()
        state = newState
    }

    private func trace(_ message: @autoclosure () -> String, into out: inout [EngineOutput]) {
        if tracing { out.append(.trace(message())) }
    }

    /// An input the state cannot receive: a bug in gestured, reported rather than ignored.
    private func bug(_ message: String, into out: inout [EngineOutput]) {
        out.append(.warning(CoreWarning(timeMicroseconds: 0, message: "internal error in the recognizer: \(message); please report it")))
    }

    private func name(of s: State) -> String {
        switch s {
        case .idle: return "idle"
        case .possible(let a): return a.heldBack != nil ? "possible (held back)" : "possible"
        case .active(let a): return "\(a.last.kind.rawValue) #\(a.id)"
        case .betweenTaps(let t): return "between taps (\(t.taps) of #\(t.id))"
        }
    }

    // MARK: - Attempts

    /// A new attempt with the fingers of `frame` that do not rest. `landing`: a finger landed (the group's
    /// landing time moves, and the hold time starts again). `sequence`: a tap sequence this attempt may
    /// continue. `tap`: what a tap so far has been, when the attempt restarts as the hand lands or lifts.
    private mutating func startAttempt(
        _ frame: TouchFrame, landing: Bool, sequence: TapRule.Sequence?, tap: TapRule.Candidate? = nil,
        _ reason: @autoclosure () -> String = "", into out: inout [EngineOutput]
    ) {
        let time = frame.timeMicroseconds
        if landing { fingers.groupLandingTime = time }
        fingers.rebaseline(frame)
        let n = fingers.count
        let zones = EdgeSwipeRule.zonesLandedIn(fingers, context: context)
        var attempt = Attempt(
            edges: EdgeSwipeRule.candidates(landedIn: zones, fingers: n, context: context), landedIn: zones,
            tap: nil, sequence: sequence)
        let landed = fingers.landingCentroid
        if var candidate = tap {
            if n >= candidate.fingers {
                candidate.fingers = n
                candidate.positionN = landed.n
                candidate.positionMM = landed.mm
            }
            attempt.tap = candidate
        } else if landing {
            attempt.tap = TapRule.Candidate(firstLanding: time, fingers: n, positionN: landed.n, positionMM: landed.mm)
        }
        if fingers.anyMovedFromLanding(beyond: settings.slopMM) { attempt.tap = nil }
        transition(to: .possible(attempt), "\(reason())\(n) finger\(n == 1 ? "" : "s") down", into: &out)
        if attempt.tap != nil && HoldRule.applies(fingers: n, context: context) {
            deadlines.arm(.hold, at: fingers.groupLandingTime + Int64(settings.hold.holdSeconds * 1_000_000))
        }
        if settings.withholdsTouches {
            if attempt.edges.isEmpty {
                syncWithheld(wanted: [], into: &out)
            } else {
                syncWithheld(wanted: fingers.serials, into: &out)
                deadlines.arm(
                    .withholdLimit, at: fingers.groupLandingTime + Int64(settings.edgeSwipe.withholdMaxSeconds * 1_000_000))
            }
        }
    }

    /// Fingers landed, lifted or were lost before anything was recognized.
    private mutating func attemptFingersChanged(
        _ attempt: Attempt, _ change: FingerSet.Change, _ frame: TouchFrame, ids: GestureIDSource,
        into out: inout [EngineOutput]
    ) {
        let time = frame.timeMicroseconds
        let remaining = frame.contacts.count(where: { !fingers.isResting($0.serial) })
        if change.lifted > 0 || change.lost > 0 {
            if let heldBack = attempt.heldBack, change.lost == 0 {
                // A gesture waited for the hand to land and the fingers are lifting: it happened (a flick
                // or a quick swipe); it begins and ends now.
                if let kind = arbitrate(attempt, time: time).kind {
                    endSequence(attempt.sequence, time: time, into: &out)
                    begin(kind, heldBack: heldBack, attempt: attempt, time: time, ids: ids, into: &out)
                    if case .active(let active) = state { gestureFingersChanged(active, change, frame, into: &out) }
                    return
                }
            }
            if remaining == 0 {
                // Every finger lifted with nothing recognized: a tap, or nothing.
                syncWithheld(wanted: [], into: &out)
                if change.lost == 0, let candidate = attempt.tap, TapRule.isTap(candidate, at: time, context: context) {
                    completeTap(candidate, sequence: attempt.sequence, time: time, ids: ids, into: &out)
                } else {
                    endSequence(attempt.sequence, time: time, into: &out)
                    transition(to: .idle, change.lost > 0 ? "finger lost (palm)" : "all fingers lifted before any gesture", into: &out)
                }
                return
            }
            // Some lifted, some remain: go on with the ones down (a hand lifting finger by finger).
            startAttempt(
                frame, landing: change.added > 0, sequence: attempt.sequence, tap: change.lost == 0 ? attempt.tap : nil,
                "fingers changed: ", into: &out)
            return
        }
        // Fingers landed.
        if time - fingers.groupLandingTime <= landingWindowMicroseconds {
            // The same hand still landing: start over with all its fingers.
            startAttempt(frame, landing: true, sequence: attempt.sequence, tap: attempt.tap, "fingers changed: ", into: &out)
        } else {
            // Later fingers: the ones down rest (a gripping thumb) and the new ones are recognized alone.
            endSequence(attempt.sequence, time: time, into: &out)
            restFollowed(into: &out)
            startAttempt(frame, landing: true, sequence: nil, "fingers down rest; ", into: &out)
        }
    }

    /// The tap that just completed begins a sequence, continues the pending one, or ends it and begins
    /// another.
    private mutating func completeTap(
        _ candidate: TapRule.Candidate, sequence pending: TapRule.Sequence?, time: Int64, ids: GestureIDSource,
        into out: inout [EngineOutput]
    ) {
        var sequence: TapRule.Sequence
        if var continued = pending, TapRule.continues(continued, with: candidate, context: context) {
            continued.taps += 1
            continued.positionN = candidate.positionN
            continued.positionMM = candidate.positionMM
            sequence = continued
            out.append(.gesture(TapRule.event(sequence, phase: .update, time: time)))
        } else {
            endSequence(pending, time: time, into: &out)
            sequence = TapRule.Sequence(
                id: ids.take(), taps: 1, fingers: candidate.fingers, firstPositionMM: candidate.positionMM,
                positionN: candidate.positionN, positionMM: candidate.positionMM)
            out.append(.gesture(TapRule.event(sequence, phase: .begin, time: time)))
        }
        if sequence.taps >= settings.tap.maxTaps {
            out.append(.gesture(TapRule.event(sequence, phase: .end, time: time)))
            transition(to: .idle, "tap \(sequence.taps) of \(sequence.taps) -> end", into: &out)
            return
        }
        transition(to: .betweenTaps(sequence), "fingers lifted within the tap time without moving -> tap", into: &out)
        deadlines.arm(.multiTap, at: time + Int64(settings.tap.multiTapIntervalSeconds * 1_000_000))
    }

    /// A pending tap sequence ends before something else happens.
    private func endSequence(_ sequence: TapRule.Sequence?, time: Int64, into out: inout [EngineOutput]) {
        guard let sequence else { return }
        out.append(.gesture(TapRule.event(sequence, phase: .end, time: time)))
        trace("tap #\(sequence.id) ends: the next touch is no tap of it", into: &out)
    }

    /// What the kinds, asked in their arbitration order, say about the fingers' motion.
    private func arbitrate(_ attempt: Attempt, time: Int64) -> (kind: ActiveKind?, edges: EdgeSwipeRule.EdgeSet, edgeFailed: Bool) {
        var edges = attempt.edges
        var edgeFailed = false
        guard fingers.maximumMoveMM >= settings.slopMM else { return (nil, edges, false) }
        for candidate in Candidate.arbitrationOrder {
            let verdict: Verdict
            switch candidate {
            case .edgeSwipe: verdict = EdgeSwipeRule.evaluate(edges, fingers, context: context)
            case .pinch: verdict = PinchRule.evaluate(fingers, context: context)
            case .pan: verdict = PanRule.evaluate(fingers, context: context)
            }
            switch verdict {
            case .begins(let kind): return (kind, edges, edgeFailed)
            case .waits: return (nil, edges, edgeFailed)
            case .fails:
                if candidate == .edgeSwipe {
                    edges = EdgeSwipeRule.EdgeSet()
                    edgeFailed = true
                }
            case .doesNotApply:
                break
            }
        }
        return (nil, edges, edgeFailed)
    }

    /// Decides, once a finger has moved past the slop, which gesture begins (if any). A pan or pinch that
    /// could still gain fingers while the hand is landing is held back (unless `settled`, or flung).
    private mutating func recognize(
        _ attempt: Attempt, time: Int64, settled: Bool, ids: GestureIDSource, into out: inout [EngineOutput]
    ) {
        var attempt = attempt
        let verdict = arbitrate(attempt, time: time)
        attempt.edges = verdict.edges
        if verdict.edgeFailed {
            trace("edge swipe failed: not moving inward", into: &out)
            if settings.withholdsTouches { syncWithheld(wanted: [], into: &out) }
        }
        guard let kind = verdict.kind else {
            attempt.heldBack = nil
            state = .possible(attempt)
            return
        }
        if !settled && mayStillGainFingers(kind) && time - fingers.groupLandingTime < landingWindowMicroseconds
            && fingers.velocityMMPerSecond(at: time).length < flingVelocity(kind)
        {
            if attempt.heldBack?.kind.gestureKind != kind.gestureKind {
                trace("\(kind.gestureKind.rawValue) held back: the hand may still be landing", into: &out)
                deadlines.arm(.landingSettled, at: fingers.groupLandingTime + landingWindowMicroseconds)
                attempt.heldBack = HeldBack(kind: kind, rotationDegrees: fingers.rotationSinceBaselineDegrees)
            }
            state = .possible(attempt)
            return
        }
        endSequence(attempt.sequence, time: time, into: &out)
        begin(kind, heldBack: attempt.heldBack, attempt: attempt, time: time, ids: ids, into: &out)
    }

    /// Whether the gesture waits for the hand to finish landing: pans that could still gain fingers (a
    /// hand landing one finger after another, already moving, looks like a pan with too few fingers).
    /// Edge swipes begin at once, as before; so do pinches (fingers moving apart or around are already a
    /// deliberate multi-finger gesture, and holding one back would lose its scale and rotation so far).
    private func mayStillGainFingers(_ kind: ActiveKind) -> Bool {
        switch kind {
        case .edgeSwipe, .hold, .pinch: return false
        case .pan: return fingers.count < settings.pan.maxFingers
        }
    }

    private func flingVelocity(_ kind: ActiveKind) -> Double {
        switch kind {
        case .edgeSwipe: return settings.edgeSwipe.flingVelocityMMPerSecond
        case .pan, .pinch, .hold: return settings.pan.flingVelocityMMPerSecond
        }
    }

    /// Begins `kind`; a gesture of the same kind held back while the hand landed keeps the values it
    /// would have begun with (a pinch's span and rotation at begin).
    private mutating func begin(
        _ kind: ActiveKind, heldBack: HeldBack? = nil, attempt: Attempt, time: Int64, ids: GestureIDSource,
        into out: inout [EngineOutput]
    ) {
        var kind = kind
        var rotationAtBegin = fingers.rotationSinceBaselineDegrees
        if let heldBack, heldBack.kind.gestureKind == kind.gestureKind {
            kind = heldBack.kind
            rotationAtBegin = heldBack.rotationDegrees
        }
        let id = ids.take()
        let placeholder = GestureEvent(kind: kind.gestureKind, phase: .begin, id: id, timeMicroseconds: time, fingers: fingers.count)
        var active = ActiveGesture(
            kind: kind, id: id, fingers: fingers.count, rotationAtBeginDegrees: rotationAtBegin,
            startEdge: kind == .pan ? attempt.landedIn.landingEdge : nil, last: placeholder)
        active.last = snapshot(active, phase: .begin, time: time)
        transition(to: .active(active), GestureRecognizer.beginReason(kind), into: &out)
        armVelocityStop(after: active.last, time: time)
        if settings.withholdsTouches {
            if claims(kind) {
                let serials = fingers.serials
                withheld.removeAll { serials.contains($0) }
                syncWithheld(wanted: [], into: &out)
                out.append(.touch(.claim(serials)))
            } else {
                syncWithheld(wanted: [], into: &out)
            }
        }
        out.append(.gesture(active.last))
    }

    private static func beginReason(_ kind: ActiveKind) -> String {
        switch kind {
        case .edgeSwipe(let edge, _): return "moved inward from the \(edge.rawValue) edge"
        case .pan: return "fingers moved together"
        case .pinch: return "fingers moved apart or around"
        case .hold: return "fingers stayed still for the hold time"
        }
    }

    /// Whether a gesture of this kind, with the fingers followed, owns its touches (passthrough).
    private func claims(_ kind: ActiveKind) -> Bool {
        let n = fingers.count
        switch kind {
        case .edgeSwipe: return true
        case .pan: return settings.pan.claim && n >= settings.pan.claimMinFingers && n <= settings.pan.claimMaxFingers
        case .pinch:
            return settings.pinch.claim && n >= settings.pinch.claimMinFingers && n <= settings.pinch.claimMaxFingers
        case .hold: return false
        }
    }

    /// After an event with a non-zero velocity, an update with zero velocity is due when the fingers
    /// stay still for the velocity window.
    private mutating func armVelocityStop(after event: GestureEvent, time: Int64) {
        if event.velocityMMPerSecond != .zero {
            deadlines.arm(.velocityStop, at: time + fingers.velocity.windowMicroseconds)
        } else {
            deadlines.disarm(.velocityStop)
        }
    }

    // MARK: - Running gestures

    /// Fingers landed, lifted or were lost while a gesture runs.
    private mutating func gestureFingersChanged(
        _ active: ActiveGesture, _ change: FingerSet.Change, _ frame: TouchFrame, into out: inout [EngineOutput]
    ) {
        let time = frame.timeMicroseconds
        if change.added > 0 && change.lost == 0 && change.lifted == 0 && time - fingers.groupLandingTime <= landingWindowMicroseconds {
            // A finger that joins just after the others: the gesture with the wrong finger count is
            // cancelled and recognition restarts with all of them.
            out.append(.gesture(terminal(active, phase: .cancel, time: time)))
            startAttempt(frame, landing: true, sequence: nil, "a finger joined within the landing window -> cancel; ", into: &out)
            return
        }
        if change.lost > 0 || change.added > 0 {
            out.append(.gesture(terminal(active, phase: .cancel, time: time)))
        } else {
            out.append(.gesture(ending(active, time: time)))
        }
        // The gesture's fingers still down rest; fingers that landed now start an attempt of their own.
        fingers.keepOnly(frame)
        restFollowed(into: &out)
        let reason = change.lost > 0 ? "finger lost (palm) -> cancel" : change.lifted > 0 ? "fingers lifted -> end" : "finger added -> cancel"
        if change.added > 0 {
            startAttempt(frame, landing: true, sequence: nil, "\(reason); new ", into: &out)
        } else {
            transition(to: .idle, reason, into: &out)
        }
    }

    /// Events dropped or the daemon cancels: what runs is cancelled, and every finger down rests.
    private mutating func interrupt(_ input: RecognizerInput, frame: TouchFrame, into out: inout [EngineOutput]) {
        let time: Int64
        switch input {
        case .dropped(let t), .cancelled(let t): time = t
        case .fingersChanged, .moved, .deadline: time = frame.timeMicroseconds
        }
        switch state {
        case .idle: break
        case .possible(let attempt):
            if let sequence = attempt.sequence { out.append(.gesture(TapRule.event(sequence, phase: .cancel, time: time))) }
        case .active(let active): out.append(.gesture(terminal(active, phase: .cancel, time: time)))
        case .betweenTaps(let sequence): out.append(.gesture(TapRule.event(sequence, phase: .cancel, time: time)))
        }
        syncWithheld(wanted: [], into: &out)
        fingers.restAll(frame)
        if case .idle = state { return }
        if case .dropped = input {
            transition(to: .idle, "events dropped -> cancel", into: &out)
        } else {
            transition(to: .idle, "cancelled by the daemon", into: &out)
        }
    }

    /// The fingers followed rest; touches still held back are delivered.
    private mutating func restFollowed(into out: inout [EngineOutput]) {
        fingers.restFollowed()
        syncWithheld(wanted: [], into: &out)
    }

    /// Holds back exactly `wanted` (passthrough): releases the touches held back that are not wanted,
    /// withholds the wanted ones not held back yet.
    private mutating func syncWithheld(wanted: [UInt64], into out: inout [EngineOutput]) {
        guard settings.withholdsTouches else { return }
        let released = withheld.filter { !wanted.contains($0) }
        let added = wanted.filter { !withheld.contains($0) }
        if !released.isEmpty { out.append(.touch(.release(released))) }
        if !added.isEmpty { out.append(.touch(.withhold(added))) }
        withheld = wanted
    }

    // MARK: - Events

    /// The event for the current state of the fingers.
    private func snapshot(_ active: ActiveGesture, phase: GesturePhase, time: Int64) -> GestureEvent {
        let c = fingers.centroidN
        let cMM = fingers.centroidMM
        var e = GestureEvent(
            kind: active.kind.gestureKind, phase: phase, id: active.id, timeMicroseconds: time, fingers: active.fingers,
            startEdge: active.startEdge, position: c, positionMM: cMM, translation: c - fingers.baselineCentroidN,
            translationMM: cMM - fingers.baselineCentroidMM, velocityMMPerSecond: fingers.velocityMMPerSecond(at: time))
        active.kind.snapshot(&e, fingers: fingers, rotationAtBeginDegrees: active.rotationAtBeginDegrees)
        return e
    }

    /// The `end` event: last reported values, velocity at release, and whether it commits.
    private func ending(_ active: ActiveGesture, time: Int64) -> GestureEvent {
        var e = active.last
        e.phase = .end
        e.timeMicroseconds = time
        e.velocityMMPerSecond = fingers.velocityMMPerSecond(at: time)
        active.kind.decideCommit(&e, context: context)
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
}
