import GestureVocabulary

/// Runs a recording through an engine exactly as the daemon sees a device live: the engine fires its
/// deadlines as the events' times pass them, and the end of the recording is like the device going away
/// after the last deadline (a gesture still in flight is cancelled).
public struct RecordingReplay {
    public private(set) var engine: GestureEngine

    public init(engine: GestureEngine) { self.engine = engine }

    /// What a step of the replay decided about touches, for a driver that forwards them (passthrough's
    /// `TouchForwarder`, in the TouchForwarding module).
    public enum TouchStep {
        /// `event` was fed; `decisions` are the touch decisions made at it (a pen's that came just before
        /// included), and `engine` is the engine after it (for `contactSerial(inSlot:)`).
        case event(InputEvent, decisions: [TouchDecision], engine: GestureEngine)
        /// The recording ended at `time` and everything was cancelled, with these decisions.
        case end(atMicroseconds: Int64, decisions: [TouchDecision])
    }

    /// Feeds every event, calling `emit` with what each event produced (and the engine's device warnings
    /// first, when it has any).
    ///
    /// `pen`: the panel's pens' proximity changes on the recording's clock (`PenChange.changes`), each fed to
    /// the engine before the first event stamped at or after it, as the daemon reads a pen beside its panel.
    public mutating func run(_ events: [InputEvent], pen: [PenChange] = [], emit: (_ outputs: [EngineEvent]) -> Void) {
        replay(events, pen: pen, reportingTouches: false, touches: { _ in }, emit: emit)
    }

    /// `run(_:pen:emit:)`, calling `touches` with the touch decisions of each step (empty unless the
    /// engine has `withholdsTouches` on), for a driver that forwards them.
    public mutating func run(
        _ events: [InputEvent], pen: [PenChange] = [], touches: (TouchStep) -> Void, emit: (_ outputs: [EngineEvent]) -> Void
    ) {
        replay(events, pen: pen, reportingTouches: true, touches: touches, emit: emit)
    }

    /// The replay itself; a step (which carries a copy of the engine) is built only when `reportingTouches`.
    private mutating func replay(
        _ events: [InputEvent], pen: [PenChange], reportingTouches: Bool, touches: (TouchStep) -> Void,
        emit: (_ outputs: [EngineEvent]) -> Void
    ) {
        var out = EngineOutput()
        out.events.reserveCapacity(8)
        if !engine.deviceWarnings.isEmpty { emit(engine.deviceWarnings.map(EngineEvent.warning)) }
        var nextPen = 0
        for event in events {
            while nextPen < pen.count && pen[nextPen].timeMicroseconds <= event.timeMicroseconds {
                engine.penProximity(pen[nextPen].inProximity, atMicroseconds: pen[nextPen].timeMicroseconds, into: &out)
                nextPen += 1
            }
            engine.process(event, into: &out)
            if reportingTouches { touches(.event(event, decisions: out.touches, engine: engine)) }
            out.touches.removeAll(keepingCapacity: true)
            if !out.events.isEmpty {
                emit(out.events)
                out.events.removeAll(keepingCapacity: true)
            }
        }
        guard let last = events.last else { return }
        let end = max(last.timeMicroseconds, engine.nextDeadlineMicroseconds ?? last.timeMicroseconds)
        engine.cancelAll(atMicroseconds: end, into: &out)
        if reportingTouches { touches(.end(atMicroseconds: end, decisions: out.touches)) }
        if out.events.contains(where: { if case .gesture(let e) = $0 { return e.phase == .cancel } else { return false } }) {
            out.events.append(
                .warning(
                    CoreWarning(
                        timeMicroseconds: last.timeMicroseconds,
                        message: "the recording ends with a gesture in flight; it is cancelled")))
        }
        if !out.events.isEmpty { emit(out.events) }
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
                case .trace, .stopped, .explanation, .reason, .audience: break
                }
            }
        }
        return (gestures, warnings)
    }
}
