import GestureCore

extension RecordingReplay {
    /// `run(_:pen:emit:)` with passthrough: the events the virtual device would receive are appended to
    /// `written` (the forwarder's output; the engine should have `withholdsTouches` on). At the end, what
    /// the virtual device still has down is cancelled, as when the device goes away. A nil `forwarder`
    /// forwards nothing.
    public mutating func run(
        _ events: [InputEvent], pen: [PenChange] = [], forwarder: inout TouchForwarder?, written: inout [InputEvent],
        emit: (_ outputs: [EngineEvent]) -> Void
    ) {
        guard forwarder != nil else {
            run(events, pen: pen, emit: emit)
            return
        }
        run(
            events, pen: pen,
            touches: { step in
                switch step {
                case .event(let event, let decisions, let engine):
                    forwarder!.process(event, decisions: decisions, serial: { engine.contactSerial(inSlot: $0) }, into: &written)
                case .end(let time, let decisions):
                    forwarder!.apply(decisions, atMicroseconds: time, into: &written)
                    forwarder!.finish(atMicroseconds: time, into: &written)
                }
            }, emit: emit)
    }
}
