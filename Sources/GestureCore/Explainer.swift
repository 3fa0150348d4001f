import GestureVocabulary

/// Gathers one touch sequence into an `Explanation` while the engine explains (`GestureEngine.explaining`):
/// where each finger landed (from the frames), what the touch became (from the gesture events) and the
/// reasons the recognizer gave (its `.reason` outputs, taken out of the outputs here; drivers see only the
/// finished `.explanation`). A sequence ends when no finger is down and the recognizer waits for nothing
/// (a tap sequence's end comes after its last lift), or when the engine cancels everything.
struct Explainer: Sendable {
    private var current: Explanation?
    /// Serials of the fingers landed in the current sequence.
    private var known: [UInt64] = []
    /// The touch being measured (`Explanation.touches`), from its first finger down to its last finger up.
    private var meter: TouchMeter?

    /// Takes what the engine produced from `start` on, with the frame it was produced for: reasons (and
    /// the stops of palms and the pen, kept in the outputs only while tracing) into the explanation,
    /// gestures noted, new fingers' landings, and, when `newFrame` (the frame was just completed, not a
    /// deadline passing at the same frame), the frame measured; appends the explanation when the sequence
    /// is over.
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
                note(e)
            case .reason(let r):
                self[openAt: r.timeMicroseconds].reasons.append(r)
                keep = false
            case .stopped(let stop):
                let cause: ReasonCause
                switch stop.reason {
                case .palm: cause = .palm
                case .penInProximity: cause = .penInProximity
                }
                // Where the touch landed: its first finger's landing (a stop carries no position).
                var explanation = self[openAt: stop.timeMicroseconds]
                explanation.reasons.append(
                    Reason(
                        kind: stop.kind, cause: cause, gestureID: stop.id, landing: explanation.fingers.first,
                        timeMicroseconds: stop.timeMicroseconds))
                current = explanation
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
        for contact in frame.contacts where !known.contains(contact.serial) {
            known.append(contact.serial)
            self[openAt: frame.timeMicroseconds].fingers.append(context.landing(at: contact.positionMM))
        }
        if newFrame { measure(frame, context: context) }
        if current != nil && frame.contacts.isEmpty && idle { finish(at: frame.timeMicroseconds, into: &out) }
    }

    /// Ends the sequence open now (the engine cancels everything: the device goes, the recording ended),
    /// appending its explanation.
    mutating func finish(at time: Int64, into out: inout [EngineEvent]) {
        guard var explanation = current else { return }
        if let meter {
            explanation.touches.append(meter.measurement(end: time))
            self.meter = nil
        }
        explanation.endMicroseconds = max(explanation.endMicroseconds, time)
        explanation.reasons = Explainer.chosen(explanation.reasons, gestures: explanation.gestures)
        out.append(.explanation(explanation))
        current = nil
        known.removeAll()
    }

    /// Measures a frame into the touch open now (one begins with a frame with fingers); a frame without
    /// fingers ends it, its measurement added to the explanation.
    private mutating func measure(_ frame: TouchFrame, context: RecognizerContext) {
        if meter == nil {
            guard !frame.contacts.isEmpty else { return }
            meter = TouchMeter(
                start: frame.timeMicroseconds, slopMM: context.settings.slopMM, windowSeconds: context.settings.velocityWindowSeconds,
                screenSizeMM: context.screenSizeMM)
        }
        meter!.add(frame)
        if frame.contacts.isEmpty {
            self[openAt: frame.timeMicroseconds].touches.append(meter!.measurement(end: frame.timeMicroseconds))
            meter = nil
        }
    }

    /// The sequence's explanation, begun at `time` when none is open.
    private subscript(openAt time: Int64) -> Explanation {
        get { current ?? Explanation(startMicroseconds: time, endMicroseconds: time) }
        set { current = newValue }
    }

    private mutating func note(_ e: GestureEvent) {
        var explanation = self[openAt: e.timeMicroseconds]
        explanation.endMicroseconds = max(explanation.endMicroseconds, e.timeMicroseconds)
        let index = explanation.gestures.firstIndex { $0.id == e.id }
        switch (e.phase, index) {
        case (.begin, nil):
            explanation.gestures.append(ExplainedGesture(kind: e.kind, id: e.id, fingers: e.fingers, edge: e.edge ?? e.startEdge, taps: e.taps, outcome: .running))
        case (.begin, _?):
            break
        case (.update, let i?):
            explanation.gestures[i].taps = e.taps
        case (.end, let i?):
            explanation.gestures[i].taps = e.taps
            explanation.gestures[i].direction = e.direction
            explanation.gestures[i].outcome = e.committed == true ? .committed : .notCommitted
        case (.cancel, let i?):
            explanation.gestures[i].outcome = .cancelled
        case (.update, nil), (.end, nil), (.cancel, nil):
            // A gesture that began before explaining was turned on.
            break
        }
        current = explanation
    }

    /// The reasons an explanation keeps: every one about a gesture that began (why it ended as it did), and
    /// for each kind that did not begin in the sequence, its first reason (its near miss, if it had one);
    /// reasons about the touch as a whole (a palm) stay.
    static func chosen(_ reasons: [Reason], gestures: [ExplainedGesture]) -> [Reason] {
        var kept: [Reason] = []
        var kinds: [GestureKind] = []
        for r in reasons {
            guard r.gestureID == nil, let kind = r.kind else {
                kept.append(r)
                continue
            }
            if gestures.contains(where: { $0.kind == kind }) { continue }
            if kinds.contains(kind) {
                // A near miss says more than the kind's earlier reason (landed outside the zone).
                if r.isNearMiss, let j = kept.firstIndex(where: { $0.kind == kind && $0.gestureID == nil }), !kept[j].isNearMiss {
                    kept[j] = r
                }
                continue
            }
            kinds.append(kind)
            kept.append(r)
        }
        return kept
    }
}
