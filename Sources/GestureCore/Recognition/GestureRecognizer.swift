import GestureVocabulary

/// What happens to the recognizer, one input at a time. Frames are classified against the fingers it
/// follows, so the state machine sees "fingers changed" or "the same fingers moved"; the frame itself is
/// passed beside the input (the latest frame, whatever the input), so no input copies it.
enum RecognizerInput {
    /// Fingers landed, lifted or were lost (palms) in the frame; its contacts are the fingers down now.
    case fingersChanged(FingerSet.Change)
    /// The fingers followed are the fingers down in the frame; they may have moved.
    case moved
    /// A deadline armed earlier has come.
    case deadline(DeadlineKind, atMicroseconds: Int64)
    /// Events were lost (SYN_DROPPED): the fingers' state during the gap is unknown.
    case dropped(atMicroseconds: Int64)
    /// The daemon cancels what runs: the device goes away or the configuration changed.
    case cancelled(atMicroseconds: Int64)
}

/// Recognizes edge swipes, pans and pinches from touch frames of one device.
///
/// One state machine arbitrates between the gesture kinds so that for one set of fingers at most one
/// gesture begins (Candidate.arbitrationOrder). Every input goes through `handle`, a `switch (state,
/// input)` with every pair named; every change of state goes through `transition(to:_:)`, which also
/// disarms the deadlines of the state left. docs/architecture.md draws the states; docs/gestures.md
/// gives the rules and every threshold.
struct GestureRecognizer {
    /// A gesture that is running.
    struct ActiveGesture {
        var kind: ActiveKind
        var id: UInt64
        var fingers: Int
        /// Cumulative rotation since the baseline when the gesture began: pinch rotation counts from here.
        var rotationAtBeginDegrees: Double
        /// Last values reported, reused by `end` and `cancel` (the lift frame has no new positions).
        var last: GestureEvent
    }

    enum State {
        /// No fingers down.
        case idle
        /// Fingers down, nothing recognized yet. `edges` are the edges still possible for an edge swipe.
        case possible(edges: EdgeSwipeRule.EdgeSet)
        /// A gesture is running.
        case active(ActiveGesture)
        /// A gesture ended or was cancelled, or recognition failed: nothing begins until every finger
        /// has lifted.
        case waitingForLift
    }

    let context: RecognizerContext
    var settings: RecognizerSettings { context.settings }
    private(set) var state: State = .idle
    private var fingers: FingerSet
    private(set) var deadlines = Deadlines()
    /// Trace lines (transitions and decisions) are built and emitted only while this is on.
    var tracing = false

    init(settings: RecognizerSettings, screenSizeMM: (width: Double, height: Double)) {
        context = RecognizerContext(settings: settings, screenSizeMM: screenSizeMM)
        fingers = FingerSet(velocityWindowSeconds: settings.velocityWindowSeconds)
    }

    /// The earliest armed deadline, in event-clock microseconds.
    var nextDeadlineMicroseconds: Int64? { deadlines.earliest?.time }

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
        // Idle: fingers landing start an attempt.
        case (.idle, .fingersChanged), (.idle, .moved):
            if !frame.contacts.isEmpty { startAttempt(frame, landing: true, into: &out) }
        case (.idle, .dropped), (.idle, .cancelled):
            break
        case (.idle, .deadline(let kind, _)):
            bug("deadline \(kind) fired while idle", into: &out)

        // Possible: nothing recognized yet.
        case (.possible, .fingersChanged(let change)):
            // The set of fingers changed before anything was recognized: start over with the fingers now
            // down (fingers rarely land or lift in the same frame).
            if frame.contacts.isEmpty {
                transition(to: .idle, "all fingers lifted before any gesture", into: &out)
            } else {
                startAttempt(frame, landing: change.added > 0, "fingers changed: ", into: &out)
            }
        case (.possible(let edges), .moved):
            fingers.track(frame)
            recognize(edges: edges, time: frame.timeMicroseconds, ids: ids, into: &out)
        case (.possible, .dropped), (.possible, .cancelled):
            interrupt(input, into: &out)
        case (.possible, .deadline(let kind, _)):
            bug("deadline \(kind) fired while possible", into: &out)

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
        case (.active(let active), .dropped(let time)), (.active(let active), .cancelled(let time)):
            out.append(.gesture(terminal(active, phase: .cancel, time: time)))
            interrupt(input, into: &out)

        // Waiting for lift: a gesture ended or recognition failed.
        case (.waitingForLift, .fingersChanged), (.waitingForLift, .moved):
            if frame.contacts.isEmpty { transition(to: .idle, "all fingers lifted", into: &out) }
            fingers.removeAll()
        case (.waitingForLift, .dropped), (.waitingForLift, .cancelled):
            interrupt(input, into: &out)
        case (.waitingForLift, .deadline(let kind, _)):
            bug("deadline \(kind) fired while waiting for lift", into: &out)
        }
    }

    /// Nothing begins until every finger now down has lifted (used after a reconfiguration).
    mutating func waitForLift(into out: inout [EngineOutput]) {
        fingers.removeAll()
        transition(to: .waitingForLift, "waiting for the fingers down to lift", into: &out)
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
        case .possible: return "possible"
        case .active(let a): return "\(a.last.kind.rawValue) #\(a.id)"
        case .waitingForLift: return "waiting-for-lift"
        }
    }

    // MARK: - Recognition

    /// A new attempt with the fingers of `frame` (landed, or the set changed before anything began).
    private mutating func startAttempt(
        _ frame: TouchFrame, landing: Bool, _ reason: @autoclosure () -> String = "", into out: inout [EngineOutput]
    ) {
        if landing { fingers.groupLandingTime = frame.timeMicroseconds }
        fingers.rebaseline(frame)
        let n = fingers.count
        transition(
            to: .possible(edges: EdgeSwipeRule.candidates(landedIn: EdgeSwipeRule.zonesLandedIn(fingers, context: context), fingers: n, context: context)),
            "\(reason())\(n) finger\(n == 1 ? "" : "s") down", into: &out)
    }

    /// Decides, once a finger has moved past the slop, which gesture begins (if any), asking the kinds in
    /// their arbitration order.
    private mutating func recognize(edges: EdgeSwipeRule.EdgeSet, time: Int64, ids: GestureIDSource, into out: inout [EngineOutput]) {
        var edges = edges
        guard fingers.maximumMoveMM >= settings.slopMM else {
            state = .possible(edges: edges)
            return
        }
        for candidate in Candidate.arbitrationOrder {
            let verdict: Verdict
            switch candidate {
            case .edgeSwipe: verdict = EdgeSwipeRule.evaluate(edges, fingers, context: context)
            case .pinch: verdict = PinchRule.evaluate(fingers, context: context)
            case .pan: verdict = PanRule.evaluate(fingers, context: context)
            }
            switch verdict {
            case .begins(let kind):
                begin(kind, time: time, ids: ids, into: &out)
                return
            case .waits:
                state = .possible(edges: edges)
                return
            case .fails:
                if candidate == .edgeSwipe {
                    edges = EdgeSwipeRule.EdgeSet()
                    trace("edge swipe failed: not moving inward", into: &out)
                }
            case .doesNotApply:
                break
            }
        }
        state = .possible(edges: edges)
    }

    private mutating func begin(_ kind: ActiveKind, time: Int64, ids: GestureIDSource, into out: inout [EngineOutput]) {
        let id = ids.take()
        let placeholder = GestureEvent(kind: kind.gestureKind, phase: .begin, id: id, timeMicroseconds: time, fingers: fingers.count)
        var active = ActiveGesture(
            kind: kind, id: id, fingers: fingers.count, rotationAtBeginDegrees: fingers.rotationSinceBaselineDegrees,
            last: placeholder)
        active.last = snapshot(active, phase: .begin, time: time)
        transition(to: .active(active), GestureRecognizer.beginReason(kind), into: &out)
        armVelocityStop(after: active.last, time: time)
        out.append(.gesture(active.last))
    }

    private static func beginReason(_ kind: ActiveKind) -> String {
        switch kind {
        case .edgeSwipe(let edge, _): return "moved inward from the \(edge.rawValue) edge"
        case .pan: return "fingers moved together"
        case .pinch: return "fingers moved apart or around"
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

    /// Fingers landed, lifted or were lost while a gesture runs.
    private mutating func gestureFingersChanged(
        _ active: ActiveGesture, _ change: FingerSet.Change, _ frame: TouchFrame, into out: inout [EngineOutput]
    ) {
        let time = frame.timeMicroseconds
        if change.added > 0 && change.lost == 0 && change.lifted == 0
            && time - fingers.groupLandingTime <= Int64(settings.fingerLandingWindowSeconds * 1_000_000)
        {
            // A finger that joins just after the others (fingers rarely land together): the gesture with
            // the wrong finger count is cancelled and recognition restarts with all of them.
            out.append(.gesture(terminal(active, phase: .cancel, time: time)))
            startAttempt(frame, landing: true, "a finger joined within the landing window -> cancel; ", into: &out)
            return
        }
        if change.lost > 0 || change.added > 0 {
            out.append(.gesture(terminal(active, phase: .cancel, time: time)))
            transition(
                to: frame.contacts.isEmpty ? .idle : .waitingForLift,
                change.lost > 0 ? "finger lost (palm) -> cancel" : "finger added -> cancel", into: &out)
            fingers.keepOnly(frame)
            return
        }
        // Lifted.
        out.append(.gesture(ending(active, time: time)))
        fingers.keepOnly(frame)
        if frame.contacts.isEmpty {
            transition(to: .idle, "fingers lifted -> end", into: &out)
        } else if fingers.isEmpty {
            // Every finger of the gesture lifted and new ones landed in the same frame.
            startAttempt(frame, landing: true, "fingers lifted -> end; new ", into: &out)
        } else {
            transition(to: .waitingForLift, "first finger lifted -> end", into: &out)
        }
    }

    /// Events dropped or the daemon cancels: nothing begins until every finger has lifted.
    private mutating func interrupt(_ input: RecognizerInput, into out: inout [EngineOutput]) {
        fingers.removeAll()
        let reason: String
        if case .dropped = input { reason = "events dropped -> cancel" } else { reason = "cancelled by the daemon" }
        transition(to: .waitingForLift, reason, into: &out)
    }

    // MARK: - Events

    /// The event for the current state of the fingers.
    private func snapshot(_ active: ActiveGesture, phase: GesturePhase, time: Int64) -> GestureEvent {
        let c = fingers.centroidN
        let cMM = fingers.centroidMM
        var e = GestureEvent(
            kind: active.kind.gestureKind, phase: phase, id: active.id, timeMicroseconds: time, fingers: active.fingers,
            position: c, positionMM: cMM, translation: c - fingers.baselineCentroidN,
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
