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
    /// A pen of the panel came into proximity (`GestureEngine.penProximity`): what runs is cancelled and
    /// touches held back go to applications as they are.
    case penArrived(atMicroseconds: Int64)
}

/// Recognizes gestures from touch frames of one device, one state machine for every kind.
///
/// Each kind is a rule (`GestureRule`, Recognition/*Rule.swift) asked, in the arbitration order
/// (their order in `RecognizerSettings.rules`), whether its gesture begins: when the fingers move, when every
/// finger lifted, and at a time the rule asked for. So for one set of fingers at most one gesture begins.
/// Every input goes through `handle`, a `switch (state, input)` with every pair named; every change of state
/// goes through `transition(to:_:)`, which also disarms the deadlines the new state does not own.
/// docs/architecture.md draws the states; docs/gestures.md gives the rules and every threshold.
@usableFromInline
struct GestureRecognizer: Sendable {
    /// A gesture that began: running, or waiting for a further touch. Its last event is the recognizer's
    /// `event` (kept outside the state, so that a frame updates it in place rather than copying it out of
    /// the state and back).
    struct ActiveGesture: Sendable {
        /// Its rule's index in the arbitration order.
        var rule: Int
        var id: UInt64
        /// Where the fingers were when it began.
        var start: GestureStart
        /// Who receives its events, decided where its touches landed (fixed at its begin: a touch whose
        /// landing would change it does not continue it).
        var audience: GestureAudience
    }

    /// What comes before an attempt's fingers.
    enum Preceding: Sendable {
        /// Nothing: no gesture waits for them.
        case nothing
        /// A gesture that began when the fingers of an earlier touch lifted waits for this touch to continue
        /// it (a tap sequence waiting for its next tap).
        case waiting(ActiveGesture)
    }

    /// Fingers down with nothing recognized yet.
    struct Attempt: Sendable {
        var hand: Hand
        /// Rules that cannot begin for these fingers (they are not asked again).
        var failed: RuleMask
        var preceding: Preceding
    }

    /// A gesture that would have begun while the hand was still landing: it begins when the landing window
    /// has passed, when flung, or at the lift, counting its scale and rotation from when it would have
    /// begun.
    struct HeldBack: Sendable {
        var rule: Int
        var start: GestureStart
    }

    enum State: Sendable {
        /// Nothing recognized or pending. Fingers down, if any, rest: they take part in nothing until
        /// they lift.
        case idle
        /// Fingers down, nothing recognized yet.
        case possible(Attempt)
        /// Fingers down, a gesture would begin but the hand may still be landing.
        case heldBack(Attempt, HeldBack)
        /// A gesture is running.
        case active(ActiveGesture)
        /// Every finger lifted after a gesture that began at the lift: it waits for a further touch.
        case waitingForTouch(ActiveGesture)

        /// Whether a deadline may stay armed in this state.
        func owns(_ kind: DeadlineKind) -> Bool {
            switch (self, kind) {
            case (.active, .velocityStop), (.heldBack, .landingSettled), (.waitingForTouch, .nextTouch): return true
            case (.possible, .rule), (.heldBack, .rule): return true
            case (.idle, _), (.possible, _), (.heldBack, _), (.active, _), (.waitingForTouch, _): return false
            }
        }

        /// Whether `other` is the same case (whatever its data).
        func isSameCase(as other: State) -> Bool {
            switch (self, other) {
            case (.idle, .idle), (.possible, .possible), (.heldBack, .heldBack), (.active, .active),
                (.waitingForTouch, .waitingForTouch):
                return true
            case (.idle, _), (.possible, _), (.heldBack, _), (.active, _), (.waitingForTouch, _): return false
            }
        }
    }

    private(set) var context: RecognizerContext

    /// The parts of the edges that are no edge zone from now on (`EdgeExclusions`). Touches already down
    /// are judged against them from the next frame: an attempt by an edge whose zone went stops being an
    /// edge swipe's candidate (and, with passthrough, is released at the latest at the withhold limit).
    mutating func setExclusions(_ exclusions: EdgeExclusions) { context.exclusions = exclusions }
    var settings: RecognizerSettings { context.settings }
    private var rules: [any GestureRule] { context.rules }
    private(set) var state: State = .idle
    private var fingers: FingerSet
    @usableFromInline private(set) var deadlines: Deadlines
    /// The last event of the gesture that began (the running one, or the one waiting for a further touch
    /// while a new touch is judged), reused by `update`, `end` and `cancel` (the lift frame has no new
    /// positions). Meaningful in the states that hold an `ActiveGesture`.
    private var event = GestureEvent(kind: .pan, phase: .cancel, id: 0, timeMicroseconds: 0, fingers: 0)
    /// Touches held back from applications (passthrough only).
    private var withheld: [UInt64] = []
    /// Whether the running gesture's updates are made (`GestureEngine.reportsUpdates`). Off, a frame only
    /// follows the fingers, and the event is brought up to date when the gesture ends or is cancelled: the
    /// same end, without the work of updates no one takes.
    var reportsUpdates = true
    /// The frame time up to which `event` is behind the fingers (updates were off), nil when it is not.
    private var eventBehindSince: Int64?
    /// Trace lines (transitions and decisions) are built and emitted only while this is on.
    var tracing = false
    /// Reasons (`Reason`, with the numbers each rule measured) are made and emitted as `.reason` only while
    /// this is on (`GestureEngine.explaining`); off, no rule is asked why.
    var explaining = false
    /// The rules of the current attempt that have given their reason already (kept only while explaining).
    private var reasonGiven = RuleMask()

    init(settings: RecognizerSettings, screenSizeMM: (width: Double, height: Double)) {
        context = RecognizerContext(settings: settings, screenSizeMM: screenSizeMM)
        fingers = FingerSet(velocityWindowSeconds: settings.velocityWindowSeconds)
        deadlines = Deadlines(rules: context.rules.count)
    }

    /// The earliest armed deadline, in event-clock microseconds.
    @inlinable var nextDeadlineMicroseconds: Int64? { deadlines.earliest?.time }

    private var landingWindowMicroseconds: Int64 { Int64(settings.fingerLandingWindowSeconds * 1_000_000) }

    // MARK: - Input

    /// Classifies a frame against the fingers followed and handles it.
    mutating func handle(_ frame: TouchFrame, _ out: inout Outputs) {
        let change = fingers.change(in: frame)
        handle(change.isEmpty ? .moved : .fingersChanged(change), frame: frame, &out)
    }

    /// Fires every deadline due by `time`, earliest first; `frame` is the latest frame.
    mutating func fireDeadlines(upTo time: Int64, frame: TouchFrame, _ out: inout Outputs) {
        while let (kind, due) = deadlines.earliest, due <= time {
            deadlines.disarm(kind)
            handle(.deadline(kind, atMicroseconds: due), frame: frame, &out)
        }
    }

    /// One input, with the latest frame (the one the input comes from, for `fingersChanged` and `moved`).
    mutating func handle(_ input: RecognizerInput, frame: TouchFrame, _ out: inout Outputs) {
        switch (state, input) {
        // Idle: fingers landing start an attempt; resting fingers do nothing.
        case (.idle, .fingersChanged(let change)):
            if change.added > 0 { startAttempt(frame, landing: true, hand: nil, preceding: .nothing, &out) }
        case (.idle, .moved):
            break
        case (.idle, .dropped), (.idle, .cancelled), (.idle, .penArrived):
            interrupt(input, frame: frame, &out)
        case (.idle, .deadline(let kind, _)):
            bug("deadline \(kind) fired while idle", &out)

        // Possible: nothing recognized yet.
        case (.possible(let attempt), .fingersChanged(let change)):
            attemptFingersChanged(attempt, heldBack: nil, change, frame, &out)
        case (.possible(let attempt), .moved):
            fingersMoved(attempt, heldBack: nil, frame, &out)
        case (.possible(let attempt), .deadline(.rule(let index), let time)):
            ruleDeadline(index, attempt, heldBack: nil, time: time, &out)
        case (.possible, .deadline(let kind, _)):
            bug("deadline \(kind) fired while possible", &out)
        case (.possible, .dropped), (.possible, .cancelled), (.possible, .penArrived):
            interrupt(input, frame: frame, &out)

        // Held back: a gesture would begin, but the hand may still be landing.
        case (.heldBack(let attempt, let heldBack), .fingersChanged(let change)):
            attemptFingersChanged(attempt, heldBack: heldBack, change, frame, &out)
        case (.heldBack(let attempt, let heldBack), .moved):
            fingersMoved(attempt, heldBack: heldBack, frame, &out)
        case (.heldBack(let attempt, let heldBack), .deadline(.landingSettled, let time)):
            // The hand has landed: the gesture held back begins now (if it still would).
            decide(.moved, attempt, heldBack: heldBack, time: time, settled: true, &out)
        case (.heldBack(let attempt, let heldBack), .deadline(.rule(let index), let time)):
            ruleDeadline(index, attempt, heldBack: heldBack, time: time, &out)
        case (.heldBack, .deadline(let kind, _)):
            bug("deadline \(kind) fired while a gesture was held back", &out)
        case (.heldBack, .dropped), (.heldBack, .cancelled), (.heldBack, .penArrived):
            interrupt(input, frame: frame, &out)

        // Active: a gesture runs.
        case (.active(let active), .fingersChanged(let change)):
            gestureFingersChanged(active, change, frame, &out)
        case (.active(let active), .moved):
            guard fingers.track(frame, onlyIfMoved: true) else { return }  // a pressure-only frame
            let time = frame.timeMicroseconds
            guard reportsUpdates else {
                // No one takes updates: the event is brought up to this frame only when it ends.
                eventBehindSince = time
                deadlines.disarm(.velocityStop)
                return
            }
            snapshot(active, phase: .update, time: time)
            armVelocityStop(after: event, time: time)
            out.events.append(.gesture(event))
        case (.active, .deadline(.velocityStop, let time)):
            // The fingers stopped: velocity zero from now on (reported when updates are).
            event.phase = .update
            event.timeMicroseconds = time
            event.velocityMMPerSecond = .zero
            event.committed = nil
            if reportsUpdates { out.events.append(.gesture(event)) }
        case (.active, .deadline(let kind, _)):
            bug("deadline \(kind) fired while a gesture runs", &out)
        case (.active, .dropped), (.active, .cancelled), (.active, .penArrived):
            interrupt(input, frame: frame, &out)

        // Waiting for a further touch (a tap sequence between taps).
        case (.waitingForTouch(let waiting), .fingersChanged(let change)):
            if change.added > 0 { startAttempt(frame, landing: true, hand: nil, preceding: .waiting(waiting), &out) }
        case (.waitingForTouch, .moved):
            break  // only resting fingers are down
        case (.waitingForTouch(let waiting), .deadline(.nextTouch, let time)):
            out.events.append(.gesture(ending(waiting, time: time, following: false, &out)))
            transition(to: .idle, "no further touch -> end", &out)
        case (.waitingForTouch, .deadline(let kind, _)):
            bug("deadline \(kind) fired while a gesture waited for a further touch", &out)
        case (.waitingForTouch, .dropped), (.waitingForTouch, .cancelled), (.waitingForTouch, .penArrived):
            interrupt(input, frame: frame, &out)
        }
    }

    /// While a pen of the panel is in proximity or has just left: nothing is recognized, every finger down
    /// rests (a new one too) and nothing is held back, so touches reach applications as they come.
    mutating func suppress(_ frame: TouchFrame) {
        _ = fingers.change(in: frame)  // forgets resting fingers that lifted
        fingers.restAll(frame)
    }

    /// The serials of the fingers followed (the attempt's, or the running gesture's).
    var followedSerials: [UInt64] { fingers.serials }

    /// Whether nothing is recognized or pending (no attempt, no gesture running or waiting).
    var isIdle: Bool {
        if case .idle = state { return true }
        return false
    }

    /// Nothing begins until every finger now down has lifted (used after a reconfiguration).
    mutating func waitForLift(_ frame: TouchFrame, _ out: inout Outputs) {
        fingers.restAll(frame)
        transition(to: .idle, "the fingers down rest until they lift", &out)
    }

    // MARK: - Transitions

    /// Every change of state goes through here: the deadlines the new state does not own are disarmed,
    /// and a change of phase (or any change given a reason) is traced ("possible -> fingers moved together
    /// -> pan #3").
    private mutating func transition(to newState: State, _ reason: @autoclosure () -> String?, _ out: inout Outputs) {
        let samePhase = state.isSameCase(as: newState)
        if tracing, let why = reason() ?? (samePhase ? nil : "") {
            out.events.append(.trace("\(name(of: state)) -> \(why) -> \(name(of: newState))"))
        }
        if !samePhase { deadlines.disarm(unless: newState.owns) }
        state = newState
    }

    private func trace(_ message: @autoclosure () -> String, _ out: inout Outputs) {
        if tracing { out.events.append(.trace(message())) }
    }

    /// An input the state cannot receive: a bug in gestured, reported rather than ignored.
    private func bug(_ message: String, _ out: inout Outputs) {
        out.events.append(.warning(CoreWarning(timeMicroseconds: 0, message: "internal error in the recognizer: \(message); please report it")))
    }

    private func name(of s: State) -> String {
        switch s {
        case .idle: return "idle"
        case .possible: return "possible"
        case .heldBack(_, let h): return "possible (\(rules[h.rule].kind) held back)"
        case .active(let a): return "\(rules[a.rule].kind) #\(a.id)"
        case .waitingForTouch(let a): return "\(rules[a.rule].kind) #\(a.id) waiting for a further touch"
        }
    }

    // MARK: - Attempts

    /// What rules see of an attempt at `time`.
    private func facts(_ attempt: Attempt, time: Int64) -> AttemptFacts {
        let waiting: WaitingGesture?
        switch attempt.preceding {
        case .nothing: waiting = nil
        case .waiting(let g): waiting = WaitingGesture(kind: rules[g.rule].kind, id: g.id, fingers: event.fingers, taps: event.taps)
        }
        return AttemptFacts(hand: attempt.hand, timeMicroseconds: time, waiting: waiting)
    }

    /// A new attempt with the fingers of `frame` that do not rest. `landing`: a finger landed (the group's
    /// landing time moves, and the hold time starts again). `hand`: the hand the attempt continues as its
    /// fingers land or lift (nil: a new hand). `preceding`: a gesture waiting for this touch.
    private mutating func startAttempt(
        _ frame: TouchFrame, landing: Bool, hand continuing: Hand?, preceding: Preceding,
        why reason: @autoclosure () -> String = "", _ out: inout Outputs
    ) {
        let time = frame.timeMicroseconds
        if landing { fingers.groupLandingTime = time }
        fingers.rebaseline(frame)
        let n = fingers.count
        let landed = fingers.landingCentroid
        var hand: Hand
        if var h = continuing, h.stillness == .still || h.stillness == .rolled {
            // The same hand, still (or rolled): its tap or hold goes on, with the most fingers it has had.
            if n >= h.mostFingers {
                h.mostFingers = n
                h.landingAtMostN = landed.n
                h.landingAtMostMM = landed.mm
            }
            hand = h
        } else if landing {
            // A new hand, or one that moved and gained a finger: stillness counts from this landing.
            hand = Hand(
                firstLandingMicroseconds: time, mostFingers: n, landingAtMostN: landed.n, landingAtMostMM: landed.mm,
                stillness: .still)
        } else {
            // Fingers lifted or were lost, none landed: what remains is judged by motion alone.
            hand =
                continuing
                ?? Hand(
                    firstLandingMicroseconds: time, mostFingers: n, landingAtMostN: landed.n, landingAtMostMM: landed.mm,
                    stillness: .unknown)
        }
        hand.stillness = judged(hand.stillness)
        var attempt = Attempt(hand: hand, failed: RuleMask(), preceding: preceding)
        if explaining { reasonGiven = RuleMask() }
        // What each rule makes of the new fingers.
        let facts = facts(attempt, time: time)
        var withholds = false
        var ruleDeadlines: [(Int, Int64)] = []
        for i in rules.indices {
            let interest = rules[i].attemptStarted(facts, fingers: fingers, context: context)
            guard interest.applies else {
                attempt.failed.insert(i)
                continue
            }
            if let deadline = interest.deadlineMicroseconds { ruleDeadlines.append((i, deadline)) }
            if interest.withholdsTouches { withholds = true }
        }
        // The previous attempt's deadlines are not this one's.
        deadlines.disarm { if case .rule = $0 { return false } else { return true } }
        transition(to: .possible(attempt), "\(reason())\(n) finger\(n == 1 ? "" : "s") down", &out)
        for (i, deadline) in ruleDeadlines { deadlines.arm(.rule(i), at: deadline) }
        if settings.withholdsTouches { syncWithheld(wanted: withholds ? fingers.serials : [], &out) }
    }

    /// Fingers landed, lifted or were lost before anything was recognized.
    private mutating func attemptFingersChanged(
        _ attempt: Attempt, heldBack: HeldBack?, _ change: FingerSet.Change, _ frame: TouchFrame, _ out: inout Outputs
    ) {
        let time = frame.timeMicroseconds
        let remaining = frame.contacts.count(where: { !fingers.isResting($0.serial) })
        if change.lifted > 0 || change.lost > 0 {
            if let heldBack, change.lost == 0 {
                var attempt = attempt
                // Every finger lifted before the held-back gesture began, and a gesture decided at the lift
                // takes the touch: a tap whose finger rolled a little past the slop (`Stillness.rolled`).
                if remaining == 0, let winner = arbitrate(.lifted, &attempt, time: time, &out) {
                    syncWithheld(wanted: [], &out)
                    beganAtLift(winner, attempt, time: time, &out)
                    return
                }
                // A gesture waited for the hand to land and the fingers are lifting: it happened (a flick
                // or a quick swipe); it begins and ends now.
                if let winner = arbitrate(.moved, &attempt, time: time, &out) {
                    endPreceding(attempt, time: time, successor: winner, &out)
                    begin(winner, heldBack: heldBack, attempt, time: time, &out)
                    if case .active(let active) = state { gestureFingersChanged(active, change, frame, &out) }
                    return
                }
            }
            if remaining == 0 {
                // Every finger lifted with nothing recognized: a gesture decided at the lift (a tap), or
                // nothing.
                syncWithheld(wanted: [], &out)
                var attempt = attempt
                if change.lost > 0 { attempt.hand.stillness = .unknown }
                if change.lost == 0, let winner = arbitrate(.lifted, &attempt, time: time, &out) {
                    beganAtLift(winner, attempt, time: time, &out)
                } else {
                    if explaining {
                        if change.lost > 0 { emit(Reason(kind: nil, cause: .palm), landingAt: fingers.landingCentroid.mm, time: time, &out) }
                        explainAttemptEnd(attempt, .lifted, winner: nil, time: time, &out)
                    }
                    endPreceding(attempt, time: time, &out)
                    transition(
                        to: .idle, change.lost > 0 ? "finger lost (palm)" : "all fingers lifted before any gesture", &out)
                }
                return
            }
            // Some lifted, some remain: go on with the ones down (a hand lifting finger by finger). A palm
            // ends the hand: what remains starts over.
            startAttempt(
                frame, landing: change.added > 0, hand: change.lost == 0 ? attempt.hand : nil,
                preceding: attempt.preceding, why: "fingers changed: ", &out)
            return
        }
        // Fingers landed.
        if time - fingers.groupLandingTime <= landingWindowMicroseconds {
            // The same hand still landing: start over with all its fingers.
            startAttempt(frame, landing: true, hand: attempt.hand, preceding: attempt.preceding, why: "fingers changed: ", &out)
        } else {
            // Later fingers: the ones down rest (a gripping thumb) and the new ones are recognized alone.
            if explaining { explainAttemptEnd(attempt, .moved, winner: nil, time: time, &out) }
            endPreceding(attempt, time: time, &out)
            restFollowed(&out)
            startAttempt(frame, landing: true, hand: nil, preceding: .nothing, why: "fingers down rest; ", &out)
        }
    }

    /// The attempt's fingers moved.
    private mutating func fingersMoved(_ attempt: Attempt, heldBack: HeldBack?, _ frame: TouchFrame, _ out: inout Outputs) {
        fingers.track(frame)
        var attempt = attempt
        attempt.hand.stillness = judged(attempt.hand.stillness)
        decide(.moved, attempt, heldBack: heldBack, time: frame.timeMicroseconds, settled: false, &out)
    }

    /// The hand's stillness now that its fingers moved: past the slop it rolled, past twice the slop
    /// (`rollLimitMM`) it moved; moved stays moved.
    @inline(__always)
    private func judged(_ stillness: Stillness) -> Stillness {
        switch stillness {
        case .still:
            guard fingers.anyMovedFromLanding(beyond: settings.slopMM) else { return .still }
            return fingers.anyMovedFromLanding(beyond: settings.rollLimitMM) ? .moved : .rolled
        case .rolled:
            return fingers.anyMovedFromLanding(beyond: settings.rollLimitMM) ? .moved : .rolled
        case .moved, .unknown:
            return stillness
        }
    }

    /// The time rule `index` asked for has come: only that rule is asked.
    private mutating func ruleDeadline(_ index: Int, _ attempt: Attempt, heldBack: HeldBack?, time: Int64, _ out: inout Outputs) {
        var attempt = attempt
        switch rules[index].evaluate(.deadline, facts(attempt, time: time), fingers: fingers, context: context) {
        case .begins:
            endPreceding(attempt, time: time, successor: index, &out)
            begin(index, heldBack: nil, attempt, time: time, &out)
        case .fails(let reason):
            fail(index, reason, .deadline, &attempt, time: time, &out)
            stay(attempt, heldBack: heldBack, &out)
        case .waits, .doesNotApply:
            break
        }
    }

    /// Asks the rules about `occasion`, in the arbitration order, and returns the first that begins unless
    /// an earlier one waits. Every rule not failed yet is asked (a later one still fails on this motion,
    /// even after one that waits); failures are kept in the attempt.
    private mutating func arbitrate(_ occasion: Occasion, _ attempt: inout Attempt, time: Int64, _ out: inout Outputs) -> Int? {
        var winner: Int?
        var blocked = false
        let facts = facts(attempt, time: time)
        for i in rules.indices where !attempt.failed.contains(i) {
            switch rules[i].evaluate(occasion, facts, fingers: fingers, context: context) {
            case .begins:
                if !blocked && winner == nil { winner = i }
            case .waits:
                if winner == nil { blocked = true }
            case .fails(let reason):
                fail(i, reason, occasion, &attempt, time: time, &out)
            case .doesNotApply:
                break
            }
        }
        return winner
    }

    /// Rule `index` cannot begin for these fingers: it is not asked again, its deadline is disarmed, and
    /// touches held back for it are delivered unless another rule still holds them.
    private mutating func fail(
        _ index: Int, _ reason: StaticString, _ occasion: Occasion, _ attempt: inout Attempt, time: Int64, _ out: inout Outputs
    ) {
        attempt.failed.insert(index)
        deadlines.disarm(.rule(index))
        if tracing || explaining {
            // The rule's reason with its numbers; the verdict's words when it has none.
            let explained = explainRule(index, occasion, attempt, time: time, &out)
            if !explained { trace("\(rules[index].kind) failed: \(reason)", &out) }
        }
        guard settings.withholdsTouches, !withheld.isEmpty else { return }
        let facts = facts(attempt, time: 0)
        let stillWithheld = rules.indices.contains { i in
            !attempt.failed.contains(i) && rules[i].attemptStarted(facts, fingers: fingers, context: context).withholdsTouches
        }
        if !stillWithheld { syncWithheld(wanted: [], &out) }
    }

    /// The attempt's data changed, its phase did not.
    private mutating func stay(_ attempt: Attempt, heldBack: HeldBack?, _ out: inout Outputs) {
        if let heldBack {
            transition(to: .heldBack(attempt, heldBack), nil, &out)
        } else {
            transition(to: .possible(attempt), nil, &out)
        }
    }

    /// Decides, on `occasion`, which gesture begins (if any). A gesture that could still gain fingers
    /// while the hand is landing is held back (unless `settled`, or flung).
    private mutating func decide(
        _ occasion: Occasion, _ attempt: Attempt, heldBack: HeldBack?, time: Int64, settled: Bool, _ out: inout Outputs
    ) {
        var attempt = attempt
        guard let winner = arbitrate(occasion, &attempt, time: time, &out) else {
            transition(to: .possible(attempt), heldBack == nil ? nil : "it no longer begins", &out)
            return
        }
        let rule = rules[winner]
        if !settled && rule.mayStillGainFingers(fingers.count) && time - fingers.groupLandingTime < landingWindowMicroseconds
            && fingers.velocityMMPerSecond(at: time).length < (rule.flingThresholdMMPerSecond ?? .infinity)
        {
            if let heldBack, heldBack.rule == winner {
                transition(to: .heldBack(attempt, heldBack), nil, &out)
            } else {
                let held = HeldBack(rule: winner, start: currentStart(positionMM: .zero))
                transition(to: .heldBack(attempt, held), "the hand may still be landing", &out)
                deadlines.arm(.landingSettled, at: fingers.groupLandingTime + landingWindowMicroseconds)
            }
            return
        }
        endPreceding(attempt, time: time, successor: winner, &out)
        begin(winner, heldBack: heldBack, attempt, time: time, &out)
    }

    /// Where the fingers are now, as a gesture's start.
    private func currentStart(positionMM: Vector2) -> GestureStart {
        GestureStart(spanMM: fingers.spanMM, rotationDegrees: fingers.rotationSinceBaselineDegrees, positionMM: positionMM)
    }

    /// The event a gesture of rule `index` begins with, at `time`.
    private func beginEvent(_ index: Int, _ attempt: Attempt, start: GestureStart, time: Int64, _ out: inout Outputs) -> GestureEvent {
        let rule = rules[index]
        var e = GestureEvent(kind: rule.kind, phase: .begin, id: out.ids.take(), timeMicroseconds: time, fingers: fingers.count)
        setFingerFields(&e, time: time)
        rule.began(&e, facts(attempt, time: time), fingers: fingers, context: context)
        rule.update(&e, start, fingers: fingers, context: context)
        return e
    }

    /// Begins rule `index`'s gesture; one held back while the hand landed counts its scale and rotation
    /// from when it would have begun.
    private mutating func begin(_ index: Int, heldBack: HeldBack?, _ attempt: Attempt, time: Int64, _ out: inout Outputs) {
        if explaining { explainAttemptEnd(attempt, .moved, winner: index, time: time, &out) }
        var start = currentStart(positionMM: .zero)
        if let heldBack, heldBack.rule == index { start = heldBack.start }
        let e = beginEvent(index, attempt, start: start, time: time, &out)
        start.positionMM = e.positionMM
        event = e
        let active = ActiveGesture(rule: index, id: e.id, start: start, audience: audience(of: e, attempt))
        let reason = rules[index].beginReason(e)
        transition(to: .active(active), reason, &out)
        armVelocityStop(after: e, time: time)
        if settings.withholdsTouches {
            if rules[index].claims(fingers: e.fingers) {
                let serials = fingers.serials
                withheld.removeAll { serials.contains($0) }
                syncWithheld(wanted: [], &out)
                out.touches.append(.claim(serials))
                trace("touches claim(\(serials))", &out)
            } else {
                syncWithheld(wanted: [], &out)
            }
        }
        out.events.append(.audience(active.audience))
        out.events.append(.gesture(e))
    }

    /// Who receives the gesture that begins with `e` for the attempt's fingers: what its kind declares,
    /// given its finger count and whether its touch landed in an edge zone or corner in force
    /// (`KindAudience.byLanding`). The fingers' landing, never where the event is now: a hold may have crept
    /// out of the zone within the slop, a tap sequence's later taps land elsewhere.
    private func audience(of e: GestureEvent, _ attempt: Attempt) -> GestureAudience {
        e.kind.descriptor.audience.resolve(fingers: e.fingers, landedInEdgeZone: landedInEdgeZone(attempt))
    }

    /// Whether the attempt's hand landed in an edge zone or corner in force (the parts apps keep taken out).
    private func landedInEdgeZone(_ attempt: Attempt) -> Bool {
        !settings.edgeZones.zones(at: attempt.hand.landingAtMostMM, screenSizeMM: context.screenSizeMM, excluding: context.exclusions)
            .isEmpty
    }

    /// Every finger lifted and rule `index`'s gesture happened (a tap): it continues the gesture waiting
    /// for this touch, or that one ends and this one begins; then it ends, or waits for a further touch.
    private mutating func beganAtLift(_ index: Int, _ attempt: Attempt, time: Int64, _ out: inout Outputs) {
        let rule = rules[index]
        if explaining { explainAttemptEnd(attempt, .lifted, winner: index, time: time, &out) }
        let gesture: ActiveGesture
        if case .waiting(let waiting) = attempt.preceding, waiting.rule == index,
            rule.continues(event, start: waiting.start, facts(attempt, time: time), context: context),
            continuesAudience(waiting, attempt)
        {
            event.phase = .update
            event.timeMicroseconds = time
            rule.continued(&event, facts(attempt, time: time), context: context)
            gesture = waiting
        } else {
            endPreceding(attempt, time: time, successor: index, &out)
            event = beginEvent(index, attempt, start: currentStart(positionMM: .zero), time: time, &out)
            gesture = ActiveGesture(
                rule: index, id: event.id, start: currentStart(positionMM: event.positionMM), audience: audience(of: event, attempt))
            out.events.append(.audience(gesture.audience))
        }
        out.events.append(.gesture(event))
        switch rule.afterLift(event, context: context) {
        case .end:
            out.events.append(.gesture(ending(gesture, time: time, following: false, &out)))
            let reason = "\(rule.beginReason(event)) -> \(rule.kind) #\(gesture.id) ends"
            transition(to: .idle, reason, &out)
        case .waitForNextTouch(let until):
            let reason = rule.beginReason(event)
            transition(to: .waitingForTouch(gesture), reason, &out)
            deadlines.arm(.nextTouch, at: until)
        }
    }

    /// Whether the attempt's touch keeps the audience of the gesture `waiting` for it: a touch that landed
    /// elsewhere (an app's key after a tap in the edge zone, or the reverse) never continues it, so no
    /// event of a public gesture carries a private touch's position or count (docs/protocol.md).
    private func continuesAudience(_ waiting: ActiveGesture, _ attempt: Attempt) -> Bool {
        rules[waiting.rule].kind.descriptor.audience.resolve(fingers: event.fingers, landedInEdgeZone: landedInEdgeZone(attempt))
            == waiting.audience
    }

    /// A gesture waiting for the attempt's touch ends before something else happens, or is cancelled when
    /// the gesture of rule `successor` that begins takes its place.
    private func endPreceding(_ attempt: Attempt, time: Int64, successor: Int? = nil, _ out: inout Outputs) {
        guard case .waiting(let waiting) = attempt.preceding else { return }
        if let successor, rules[successor].supersedes(event) {
            out.events.append(.gesture(terminal(waiting, phase: .cancel, time: time)))
            trace("\(event.kind) #\(waiting.id) is cancelled: a \(rules[successor].kind) takes its place", &out)
        } else {
            out.events.append(.gesture(ending(waiting, time: time, following: false, &out)))
            trace("\(event.kind) #\(waiting.id) ends: the next touch does not continue it", &out)
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

    // MARK: - Reasons

    /// Asks rule `index` why its gesture does not begin on `occasion` and reports it: a trace line while
    /// tracing, a `.reason` while explaining. Returns whether the rule gave a reason.
    private mutating func explainRule(_ index: Int, _ occasion: Occasion, _ attempt: Attempt, time: Int64, _ out: inout Outputs) -> Bool {
        guard var reason = rules[index].explainNotBegun(occasion, facts(attempt, time: time), fingers: fingers, context: context) else {
            return false
        }
        reason.kind = rules[index].kind
        reasonGiven.insert(index)
        emit(reason, landingAt: fingers.landingCentroid.mm, time: time, &out)
        return true
    }

    /// The attempt ends (rule `winner`'s gesture begins, or nothing does): every other rule that has not
    /// given its reason yet says why its gesture did not begin; one with nothing against it was beaten by
    /// the winner (the arbitration order).
    private mutating func explainAttemptEnd(_ attempt: Attempt, _ occasion: Occasion, winner: Int?, time: Int64, _ out: inout Outputs) {
        for i in rules.indices where i != winner && !reasonGiven.contains(i) {
            if explainRule(i, occasion, attempt, time: time, &out) { continue }
            guard let winner else { continue }
            reasonGiven.insert(i)
            emit(
                Reason(kind: rules[i].kind, cause: .anotherKindBegan, other: rules[winner].kind), landingAt: fingers.landingCentroid.mm,
                time: time, &out)
        }
    }

    /// Where the fingers of `active` landed: their landing centroid while they are followed, else where
    /// it began.
    private func landingMM(of active: ActiveGesture) -> Vector2 { fingers.isEmpty ? active.start.positionMM : fingers.landingCentroid.mm }

    /// Why running gesture `active` was cancelled.
    private func cancelReason(_ active: ActiveGesture, _ cause: ReasonCause, _ measurements: [Measurement]) -> Reason {
        Reason(kind: rules[active.rule].kind, cause: cause, measurements: measurements, gestureID: active.id)
    }

    /// Reports a reason, with where the fingers landed and when: a trace line while tracing, a `.reason`
    /// output while explaining.
    private func emit(_ reason: Reason, landingAt positionMM: Vector2?, time: Int64, _ out: inout Outputs) {
        var reason = reason
        reason.timeMicroseconds = time
        if let positionMM { reason.landing = context.landing(at: positionMM) }
        if tracing { out.events.append(.trace(reason.description)) }
        if explaining { out.events.append(.reason(reason)) }
    }

    // MARK: - Running gestures

    /// Fingers landed, lifted or were lost while a gesture runs.
    private mutating func gestureFingersChanged(
        _ active: ActiveGesture, _ change: FingerSet.Change, _ frame: TouchFrame, _ out: inout Outputs
    ) {
        let time = frame.timeMicroseconds
        catchUp(active, at: time)
        if change.added > 0 && change.lost == 0 && change.lifted == 0 && time - fingers.groupLandingTime <= landingWindowMicroseconds {
            // A finger that joins just after the others: the gesture with the wrong finger count is
            // cancelled and recognition restarts with all of them.
            out.events.append(.gesture(terminal(active, phase: .cancel, time: time)))
            if explaining {
                let joined = Double(time - fingers.groupLandingTime) / 1_000_000
                let window = Measurement(.downSeconds, joined, key: "finger_landing_window_seconds", setting: settings.fingerLandingWindowSeconds)
                emit(cancelReason(active, .fingerAdded, [window]), landingAt: landingMM(of: active), time: time, &out)
            }
            startAttempt(
                frame, landing: true, hand: nil, preceding: .nothing, why: "a finger joined within the landing window -> cancel; ", &out)
            return
        }
        if change.lost > 0 || change.added > 0 {
            out.events.append(.gesture(terminal(active, phase: .cancel, time: time)))
            if (tracing || explaining) && change.lost > 0 {
                out.events.append(.stopped(GestureStop(reason: .palm, kind: rules[active.rule].kind, id: active.id, timeMicroseconds: time)))
            } else if explaining {
                emit(cancelReason(active, .fingerAdded, []), landingAt: landingMM(of: active), time: time, &out)
            }
        } else {
            out.events.append(.gesture(ending(active, time: time, following: true, &out)))
        }
        // The gesture's fingers still down rest; fingers that landed now start an attempt of their own.
        fingers.keepOnly(frame)
        restFollowed(&out)
        let reason = change.lost > 0 ? "finger lost (palm) -> cancel" : change.lifted > 0 ? "fingers lifted -> end" : "finger added -> cancel"
        if change.added > 0 {
            startAttempt(frame, landing: true, hand: nil, preceding: .nothing, why: "\(reason); new ", &out)
        } else {
            transition(to: .idle, reason, &out)
        }
    }

    /// Events dropped or the daemon cancels: what runs is cancelled, touches held back are claimed, and
    /// every finger down rests.
    private mutating func interrupt(_ input: RecognizerInput, frame: TouchFrame, _ out: inout Outputs) {
        let time: Int64
        switch input {
        case .dropped(let t), .cancelled(let t), .penArrived(let t): time = t
        case .fingersChanged, .moved, .deadline: time = frame.timeMicroseconds
        }
        var stopped: (kind: GestureKind, id: UInt64)? = nil
        switch state {
        case .idle: break
        case .possible(let attempt), .heldBack(let attempt, _):
            if case .waiting(let waiting) = attempt.preceding {
                out.events.append(.gesture(terminal(waiting, phase: .cancel, time: time)))
            }
        case .active(let active):
            catchUp(active, at: time)
            out.events.append(.gesture(terminal(active, phase: .cancel, time: time)))
            stopped = (rules[active.rule].kind, active.id)
        case .waitingForTouch(let waiting):
            out.events.append(.gesture(terminal(waiting, phase: .cancel, time: time)))
            stopped = (rules[waiting.rule].kind, waiting.id)
        }
        if case .penArrived = input {
            // The hand that writes: its touches go to applications as the panel reports them.
            syncWithheld(wanted: [], &out)
            var stoppedSomething = true
            if case .idle = state { stoppedSomething = false }
            if (tracing || explaining) && stoppedSomething {
                // What the pen stopped: the gesture that ran, or an attempt nothing had begun for (no kind).
                out.events.append(.stopped(GestureStop(reason: .penInProximity, kind: stopped?.kind, id: stopped?.id, timeMicroseconds: time)))
            }
        } else {
            claimWithheld(&out)
            if explaining, let stopped {
                let cause: ReasonCause
                if case .dropped = input { cause = .eventsDropped } else { cause = .cancelledByDaemon }
                emit(
                    Reason(kind: stopped.kind, cause: cause, gestureID: stopped.id),
                    landingAt: fingers.isEmpty ? nil : fingers.landingCentroid.mm, time: time, &out)
            }
        }
        fingers.restAll(frame)
        if case .idle = state { return }
        switch input {
        case .dropped: transition(to: .idle, "events dropped -> cancel", &out)
        case .penArrived: transition(to: .idle, "pen in proximity -> cancel", &out)
        case .cancelled, .fingersChanged, .moved, .deadline: transition(to: .idle, "cancelled by the daemon", &out)
        }
    }

    /// The fingers followed rest; touches still held back are delivered.
    private mutating func restFollowed(_ out: inout Outputs) {
        fingers.restFollowed()
        syncWithheld(wanted: [], &out)
    }

    /// Touches held back are claimed (passthrough): a gesture that might have owned them was cancelled
    /// (events dropped, the screen turned, the configuration changed, the device going), so they never
    /// reach applications; their fingers rest until they lift.
    private mutating func claimWithheld(_ out: inout Outputs) {
        guard settings.withholdsTouches, !withheld.isEmpty else { return }
        out.touches.append(.claim(withheld))
        trace("touches claim(\(withheld))", &out)
        withheld = []
    }

    /// Holds back exactly `wanted` (passthrough): releases the touches held back that are not wanted,
    /// withholds the wanted ones not held back yet.
    private mutating func syncWithheld(wanted: [UInt64], _ out: inout Outputs) {
        guard settings.withholdsTouches else { return }
        let released = withheld.filter { !wanted.contains($0) }
        let added = wanted.filter { !withheld.contains($0) }
        if !released.isEmpty {
            out.touches.append(.release(released))
            trace("touches release(\(released))", &out)
        }
        if !added.isEmpty {
            out.touches.append(.withhold(added))
            trace("touches withhold(\(added))", &out)
        }
        withheld = wanted
    }

    // MARK: - Events

    /// The fields every kind's events share, from the fingers: their centroid, its movement since the
    /// baseline and its velocity.
    private func setFingerFields(_ e: inout GestureEvent, time: Int64) {
        let c = fingers.centroidN
        let cMM = fingers.centroidMM
        e.position = c
        e.positionMM = cMM
        e.translation = c - fingers.baselineCentroidN
        e.translationMM = cMM - fingers.baselineCentroidMM
        e.velocityMMPerSecond = fingers.velocityMMPerSecond(at: time)
    }

    /// The running gesture's event for the fingers now.
    private mutating func snapshot(_ active: ActiveGesture, phase: GesturePhase, time: Int64) {
        // Built in a local: passing `&event` beside the recognizer's other properties would make the
        // compiler copy the whole recognizer to keep the accesses apart.
        var e = event
        e.phase = phase
        e.timeMicroseconds = time
        setFingerFields(&e, time: time)
        rules[active.rule].update(&e, active.start, fingers: fingers, context: context)
        event = e
        eventBehindSince = nil
    }

    /// Brings the running gesture's event up to `time`, when updates were off at the last frames its
    /// fingers moved in (`reportsUpdates`): exactly what those frames' updates would have left, the update
    /// of the last one and, when the fingers have not moved for the velocity window since, the zero
    /// velocity its velocity-stop would have set. So an end or a cancel carries the same values whether or
    /// not updates were made.
    private mutating func catchUp(_ active: ActiveGesture, at time: Int64) {
        guard let movedAt = eventBehindSince else { return }
        snapshot(active, phase: .update, time: movedAt)
        if time >= movedAt + fingers.velocity.windowMicroseconds { event.velocityMMPerSecond = .zero }
    }

    /// The `end` event: last reported values, whether it commits, and, for a gesture whose fingers are
    /// `following` (not one waiting for a further touch), the velocity at release.
    private func ending(_ active: ActiveGesture, time: Int64, following: Bool, _ out: inout Outputs) -> GestureEvent {
        var e = event
        e.phase = .end
        e.timeMicroseconds = time
        if following { e.velocityMMPerSecond = fingers.velocityMMPerSecond(at: time) }
        rules[active.rule].decideCommit(&e, context: context)
        if tracing || explaining, var reason = rules[active.rule].explainEnd(e, context: context) {
            reason.gestureID = e.id
            emit(reason, landingAt: landingMM(of: active), time: time, &out)
        }
        return e
    }

    private func terminal(_ active: ActiveGesture, phase: GesturePhase, time: Int64) -> GestureEvent {
        var e = event
        e.phase = phase
        e.timeMicroseconds = time
        e.committed = nil
        e.direction = nil
        return e
    }
}

/// A set of rules by their index in the arbitration order.
struct RuleMask: Sendable, Equatable {
    private var bits: UInt64 = 0
    func contains(_ i: Int) -> Bool { i < 64 && bits & (1 << UInt64(i)) != 0 }
    mutating func insert(_ i: Int) { if i < 64 { bits |= 1 << UInt64(i) } }
}

/// Where the recognizer writes: events for clients and the log, touch decisions for passthrough, and the
/// ids of gestures that begin.
struct Outputs {
    var events: [EngineEvent]
    var touches: [TouchDecision]
    let ids: GestureIDSource
}
