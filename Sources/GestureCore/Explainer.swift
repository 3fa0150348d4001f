import GestureVocabulary

/// Gathers one touch sequence into an `Explanation` while the engine explains (`GestureEngine.explaining`):
/// where each finger landed (from the frames), what the touch became (from the gesture events) and the
/// reasons the recognizer gave (its `.reason` outputs, taken out of the outputs here; drivers see only the
/// finished `.explanation`). A sequence ends when no finger is down and the recognizer waits for nothing
/// (a tap sequence's end comes after its last lift), or when the engine cancels everything.
struct Explainer: Sendable {
    private var current: Explanation?
    /// Contacts with a serial above this one are fingers landing now (the assembler numbers contacts in
    /// the order they land and never reuses a number); the ones at or below it were seen before.
    private var highestSerial: UInt64
    /// Contacts with a serial at or below this one were down before the sequence open now could see them
    /// land: before explaining started, or left down when the previous sequence was cut short
    /// (`finish` from `cancelAll`). They are counted (`Explanation.fingersAlreadyDown`), never given a
    /// landing.
    private var earlierSerial: UInt64
    /// The fingers down before the sequence open now could see them land (serials at or below
    /// `earlierSerial`) seen since the last sequence ended: at most the fingers down when explaining
    /// started.
    private var earlierDown: [UInt64] = []
    /// The touch being measured (`Explanation.touches`), from its first finger down to its last finger up.
    private var meter: TouchMeter?
    /// The touch being measured began with a finger already down: its measurement would be of part of a
    /// touch, so it is dropped.
    private var meterSawEarlierFinger = false
    /// Where each listed gesture is in `current.gestures`, by id.
    private var listedGestures: [UInt64: Int] = [:]
    /// Gestures running beyond the list's limit (counted in `unlisted` when they end), by id: one or two
    /// at a time.
    private var unlistedRunning: [(id: UInt64, kind: GestureKind)] = []
    /// Every kind that began in the sequence, listed or not (their reasons for not beginning are dropped).
    private var kindsBegun: [GestureKind] = []
    /// Where the first reason of each kind that did not begin is in `current.reasons`.
    private var firstReasonOfKind: [(kind: GestureKind, index: Int)] = []

    /// An explainer that starts now, with `frame`'s fingers already down: they landed before it could see
    /// them.
    init(fingersDown frame: TouchFrame? = nil) {
        var highest: UInt64 = 0
        for c in frame?.contacts ?? [] { highest = max(highest, c.serial) }
        highestSerial = highest
        earlierSerial = highest
    }

    /// Takes what the engine produced from `start` on, with the frame it was produced for: reasons (and
    /// the stops of palms and the pen, kept in the outputs only while tracing) into the explanation,
    /// gestures noted, new fingers' landings, and, when `newFrame` (the frame was just completed, not a
    /// deadline passing at the same frame), the frame measured; appends the explanation when the sequence
    /// is over. Linear: each output and each contact costs the same however long the sequence is, and an
    /// explanation holds at most `Explanation.listLimit` of each list.
    mutating func observe(
        _ out: inout [EngineEvent], from start: Int, frame: TouchFrame, newFrame: Bool, idle: Bool, tracing: Bool,
        context: RecognizerContext
    ) {
        var kept = start
        for i in start..<out.count {
            let output = out[i]
            var keep = true
            switch output {
            case .gesture(let e):
                note(e, frame: frame)
            case .reason(let r):
                open(at: r.timeMicroseconds, frame: frame)
                keepReason(r)
                keep = false
            case .stopped(let stop):
                let cause: ReasonCause
                switch stop.reason {
                case .palm: cause = .palm
                case .penInProximity: cause = .penInProximity
                }
                open(at: stop.timeMicroseconds, frame: frame)
                // Where the touch landed: its first finger's landing (a stop carries no position).
                keepReason(
                    Reason(
                        kind: stop.kind, cause: cause, gestureID: stop.id, landing: current?.fingers.first,
                        timeMicroseconds: stop.timeMicroseconds))
                keep = tracing
            case .warning, .trace, .explanation, .audience:
                break
            }
            if keep {
                out[kept] = output
                kept += 1
            }
        }
        if kept < out.count { out.removeSubrange(kept...) }
        for contact in frame.contacts where contact.serial <= earlierSerial && !earlierDown.contains(contact.serial) {
            earlierDown.append(contact.serial)
            if current != nil { current!.fingersAlreadyDown = earlierDown.count }
        }
        for contact in frame.contacts where contact.serial > highestSerial {
            highestSerial = contact.serial
            open(at: frame.timeMicroseconds, frame: frame)
            if current!.fingers.count < Explanation.listLimit {
                current!.fingers.append(context.landing(at: contact.positionMM))
            } else {
                current!.unlisted.fingers += 1
            }
        }
        if newFrame { measure(frame, context: context) }
        if frame.contacts.isEmpty && idle {
            if current != nil {
                finish(at: frame.timeMicroseconds, into: &out)
            } else {
                // Nothing down, nothing open: fingers that were down before are gone.
                earlierSerial = highestSerial
                earlierDown.removeAll()
            }
        }
    }

    /// Ends the sequence open now (the engine cancels everything: the device goes, the recording ended),
    /// appending its explanation. Fingers still down are left out of the next sequence's landings.
    mutating func finish(at time: Int64, into out: inout [EngineEvent]) {
        earlierSerial = highestSerial
        earlierDown.removeAll()
        guard var explanation = current else {
            meter = nil
            return
        }
        current = nil
        if let meter {
            if !meterSawEarlierFinger { add(meter.measurement(end: time), to: &explanation) }
            self.meter = nil
        }
        for running in unlistedRunning { explanation.unlisted.count(running.kind, .running) }
        explanation.endMicroseconds = max(explanation.endMicroseconds, time)
        // A kind's reason for not beginning goes when the kind began later in the sequence.
        if !firstReasonOfKind.isEmpty {
            let begun = kindsBegun
            explanation.reasons.removeAll { r in r.gestureID == nil && r.kind.map { begun.contains($0) } == true }
        }
        out.append(.explanation(explanation))
        listedGestures.removeAll()
        unlistedRunning.removeAll()
        kindsBegun.removeAll()
        firstReasonOfKind.removeAll()
    }

    /// Measures a frame into the touch open now (one begins with a frame with fingers); a frame without
    /// fingers ends it, its measurement added to the explanation.
    private mutating func measure(_ frame: TouchFrame, context: RecognizerContext) {
        if meter == nil {
            guard !frame.contacts.isEmpty else { return }
            meter = TouchMeter(
                start: frame.timeMicroseconds, slopMM: context.settings.slopMM, windowSeconds: context.settings.velocityWindowSeconds,
                screenSizeMM: context.screenSizeMM)
            meterSawEarlierFinger = frame.contacts.contains { $0.serial <= earlierSerial }
        }
        meter!.add(frame)
        if frame.contacts.isEmpty {
            let measurement = meter!.measurement(end: frame.timeMicroseconds)
            meter = nil
            // A touch that began with a finger down before the sequence could see it is not measured.
            guard !meterSawEarlierFinger else { return }
            open(at: frame.timeMicroseconds, frame: frame)
            add(measurement, to: &current!)
        }
    }

    private func add(_ measurement: TouchMeasurement, to explanation: inout Explanation) {
        if explanation.touches.count < Explanation.listLimit {
            explanation.touches.append(measurement)
        } else {
            explanation.unlisted.touches += 1
        }
    }

    /// Opens the sequence's explanation at `time` when none is open, counting the fingers down before it
    /// could see them land (seen in this frame or since the last sequence ended: the finger of a gesture
    /// that began before may have lifted in the frame that ends it).
    private mutating func open(at time: Int64, frame: TouchFrame) {
        guard current == nil else { return }
        var explanation = Explanation(startMicroseconds: time, endMicroseconds: time)
        for c in frame.contacts where c.serial <= earlierSerial && !earlierDown.contains(c.serial) { earlierDown.append(c.serial) }
        explanation.fingersAlreadyDown = earlierDown.count
        current = explanation
    }

    /// Keeps a reason as it comes: every one about a gesture (why it ended as it did; one about a gesture
    /// beyond the list is counted), for each kind that did not begin in the sequence its first reason (its
    /// near miss, if it had one, replaces it; `finish` drops it when the kind began later), and the ones
    /// about the touch as a whole (a palm); at most `Explanation.reasonLimit`.
    private mutating func keepReason(_ r: Reason) {
        if let id = r.gestureID, unlistedRunning.contains(where: { $0.id == id }) {
            current!.unlisted.reasons += 1
            return
        }
        if r.gestureID == nil, let kind = r.kind {
            if kindsBegun.contains(kind) { return }
            if let first = firstReasonOfKind.first(where: { $0.kind == kind }) {
                // A near miss says more than the kind's earlier reason (landed outside the zone).
                if r.isNearMiss, !current!.reasons[first.index].isNearMiss { current!.reasons[first.index] = r }
                return
            }
            guard current!.reasons.count < Explanation.reasonLimit else {
                current!.unlisted.reasons += 1
                return
            }
            firstReasonOfKind.append((kind, current!.reasons.count))
            current!.reasons.append(r)
            return
        }
        guard current!.reasons.count < Explanation.reasonLimit else {
            current!.unlisted.reasons += 1
            return
        }
        current!.reasons.append(r)
    }

    private mutating func note(_ e: GestureEvent, frame: TouchFrame) {
        open(at: e.timeMicroseconds, frame: frame)
        current!.endMicroseconds = max(current!.endMicroseconds, e.timeMicroseconds)
        let index = listedGestures[e.id]
        let unlisted = index == nil ? unlistedRunning.firstIndex { $0.id == e.id } : nil
        switch (e.phase, index, unlisted) {
        case (.begin, nil, nil):
            if !kindsBegun.contains(e.kind) { kindsBegun.append(e.kind) }
            guard current!.gestures.count < Explanation.listLimit else {
                unlistedRunning.append((e.id, e.kind))
                return
            }
            listedGestures[e.id] = current!.gestures.count
            current!.gestures.append(
                ExplainedGesture(kind: e.kind, id: e.id, fingers: e.fingers, edge: e.edge ?? e.startEdge, taps: e.taps, outcome: .running))
        case (.begin, _, _):
            break
        case (.update, let i?, _):
            current!.gestures[i].taps = e.taps
        case (.end, let i?, _):
            current!.gestures[i].taps = e.taps
            current!.gestures[i].direction = e.direction
            current!.gestures[i].outcome = e.committed == true ? .committed : .notCommitted
        case (.cancel, let i?, _):
            current!.gestures[i].outcome = .cancelled
        case (.end, nil, let j?), (.cancel, nil, let j?):
            current!.unlisted.count(unlistedRunning[j].kind, e.phase == .cancel ? .cancelled : e.committed == true ? .committed : .notCommitted)
            unlistedRunning.remove(at: j)
        case (.update, nil, _):
            break
        case (.end, nil, nil), (.cancel, nil, nil):
            // A gesture that began before explaining started: how it ended is known, where it began is not.
            if !kindsBegun.contains(e.kind) { kindsBegun.append(e.kind) }
            let outcome: ExplainedGesture.Outcome = e.phase == .cancel ? .cancelled : e.committed == true ? .committed : .notCommitted
            guard current!.gestures.count < Explanation.listLimit else {
                current!.unlisted.count(e.kind, outcome)
                return
            }
            current!.gestures.append(
                ExplainedGesture(
                    kind: e.kind, id: e.id, fingers: e.fingers, edge: e.edge ?? e.startEdge, direction: e.direction, taps: e.taps,
                    outcome: outcome, beganBeforeExplaining: true))
        }
    }
}
