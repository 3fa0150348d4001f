import GestureVocabulary

/// Runs a recording through an engine exactly as the daemon sees a device live: the engine fires its
/// deadlines as the events' times pass them, and the end of the recording is like the device going away
/// after the last deadline (a gesture still in flight is cancelled).
public struct RecordingReplay {
    public private(set) var engine: GestureEngine

    public init(engine: GestureEngine) { self.engine = engine }

    /// Feeds every event, calling `emit` with what each event produced (and the engine's device warnings
    /// first, when it has any).
    public mutating func run(_ events: [InputEvent], emit: (_ outputs: [EngineOutput]) -> Void) {
        var none: TouchForwarder? = nil
        var written: [InputEvent] = []
        run(events, forwarder: &none, written: &written, emit: emit)
    }

    /// As `run(_:emit:)`, with passthrough: the events the virtual device would receive are appended to
    /// `written` (the forwarder's output; the engine should have `withholdsTouches` on). At the end, what
    /// the virtual device still has down is cancelled, as when the device goes away.
    public mutating func run(
        _ events: [InputEvent], forwarder: inout TouchForwarder?, written: inout [InputEvent],
        emit: (_ outputs: [EngineOutput]) -> Void
    ) {
        var out: [EngineOutput] = []
        var touches: [TouchDecision] = []
        out.reserveCapacity(8)
        if !engine.deviceWarnings.isEmpty { emit(engine.deviceWarnings.map(EngineOutput.warning)) }
        for event in events {
            engine.process(event, into: &out, touches: &touches)
            if forwarder != nil {
                let engine = engine
                forwarder!.process(event, decisions: touches, serial: { engine.contactSerial(inSlot: $0) }, into: &written)
            }
            touches.removeAll(keepingCapacity: true)
            if !out.isEmpty {
                emit(out)
                out.removeAll(keepingCapacity: true)
            }
        }
        guard let last = events.last else { return }
        let end = max(last.timeMicroseconds, engine.nextDeadlineMicroseconds ?? last.timeMicroseconds)
        engine.cancelAll(atMicroseconds: end, into: &out, touches: &touches)
        if forwarder != nil {
            forwarder!.apply(touches, atMicroseconds: end, into: &written)
            forwarder!.finish(atMicroseconds: end, into: &written)
        }
        if out.contains(where: { if case .gesture(let e) = $0 { return e.phase == .cancel } else { return false } }) {
            out.append(
                .warning(
                    CoreWarning(
                        timeMicroseconds: last.timeMicroseconds,
                        message: "the recording ends with a gesture in flight; it is cancelled")))
        }
        if !out.isEmpty { emit(out) }
    }

    /// Convenience: all gesture events and warnings of a whole recording.
    public static func gestures(
        of events: [InputEvent], device: DeviceDescription, settings: RecognizerSettings = RecognizerSettings(),
        geometry: GeometrySettings = GeometrySettings()
    ) throws(UnsupportedDeviceError) -> (gestures: [GestureEvent], warnings: [CoreWarning]) {
        var replay = RecordingReplay(engine: try GestureEngine(device: device, settings: settings, geometry: geometry))
        var gestures: [GestureEvent] = []
        var warnings: [CoreWarning] = []
        replay.run(events) { outputs in
            for o in outputs {
                switch o {
                case .gesture(let e): gestures.append(e)
                case .warning(let w): warnings.append(w)
                case .trace, .stopped, .explanation, .reason: break
                }
            }
        }
        return (gestures, warnings)
    }
}
