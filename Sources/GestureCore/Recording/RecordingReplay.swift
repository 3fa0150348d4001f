/// Runs a recording through an engine exactly as the daemon would see it live: deadlines fire at their
/// time before later events, and the end of the recording is like the device going away (a gesture still
/// in flight is cancelled).
public struct RecordingReplay {
    public private(set) var engine: GestureEngine

    public init(engine: GestureEngine) { self.engine = engine }

    /// Feeds every event, calling `emit` after each step with the gesture events, warnings and (when
    /// tracing) recognizer transitions it produced.
    public mutating func run(
        _ events: [InputEvent],
        emit: (_ gestures: [GestureEvent], _ warnings: [CoreWarning], _ transitions: [String]) -> Void
    ) {
        var out: [GestureEvent] = []
        out.reserveCapacity(8)
        func flush() {
            let warnings = engine.takeWarnings()
            let transitions = engine.takeTransitions()
            if !out.isEmpty || !warnings.isEmpty || !transitions.isEmpty { emit(out, warnings, transitions) }
            out.removeAll(keepingCapacity: true)
        }
        flush()
        for event in events {
            if let deadline = engine.nextDeadlineMicroseconds, event.timeMicroseconds >= deadline {
                engine.advance(toMicroseconds: deadline, into: &out)
            }
            engine.process(event, into: &out)
            flush()
        }
        guard let last = events.last else { return }
        if let deadline = engine.nextDeadlineMicroseconds { engine.advance(toMicroseconds: deadline, into: &out) }
        let before = out.count
        engine.cancelAll(atMicroseconds: max(last.timeMicroseconds, out.last?.timeMicroseconds ?? last.timeMicroseconds), into: &out)
        let warnings = out.count > before
            ? [CoreWarning(timeMicroseconds: last.timeMicroseconds,
                message: "the recording ends with a gesture in flight; it is cancelled")]
            : []
        emit(out, engine.takeWarnings() + warnings, engine.takeTransitions())
    }

    /// Convenience: all gesture events and warnings of a whole recording.
    public static func gestures(
        of events: [InputEvent], device: DeviceDescription, settings: RecognizerSettings = RecognizerSettings(),
        geometry: GeometrySettings = GeometrySettings()
    ) throws(UnsupportedDeviceError) -> (gestures: [GestureEvent], warnings: [CoreWarning]) {
        var replay = RecordingReplay(engine: try GestureEngine(device: device, settings: settings, geometry: geometry))
        var gestures: [GestureEvent] = []
        var warnings: [CoreWarning] = []
        replay.run(events) { g, w, _ in
            gestures.append(contentsOf: g)
            warnings.append(contentsOf: w)
        }
        return (gestures, warnings)
    }
}
