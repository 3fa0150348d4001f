import GestureVocabulary

/// A recording made for `gesturectl tune`: its touch sequences (first finger down to last finger up),
/// measured from the frames the engine's own assembler builds, and, for any settings, what the engine
/// makes of each one, exactly (the whole recording replayed, as the daemon would run it).
public struct TuneRecording: Sendable {
    public let device: DeviceDescription
    public let events: [InputEvent]
    public let geometry: GeometrySettings
    /// The screen's size in millimetres, as the engine sees the panel.
    public let screenSizeMM: (width: Double, height: Double)
    /// The engine's account of the panel's size and where it came from.
    public let sizeDescription: String
    /// Each touch sequence's time span, in order.
    public let sequences: [(startMicroseconds: Int64, endMicroseconds: Int64)]

    /// Reads the recording's touch sequences (with `settings`' palm size, as the engine would).
    public init(device: DeviceDescription, events: [InputEvent], settings: RecognizerSettings, geometry: GeometrySettings) throws(UnsupportedDeviceError) {
        let engine = try GestureEngine(device: device, settings: settings, geometry: geometry)
        self.device = device
        self.events = events
        self.geometry = geometry
        screenSizeMM = engine.geometry.screenSizeMM
        sizeDescription = engine.geometry.sizeDescription
        var assembler = FrameAssembler(geometry: engine.geometry, touchProtocol: device.touchProtocol, palmSize: engine.palmSize)
        var spans: [(Int64, Int64)] = []
        var start: Int64? = nil
        for e in events where assembler.process(e) == .frame {
            let frame = assembler.frame
            if start == nil, !frame.contacts.isEmpty { start = frame.timeMicroseconds }
            if let s = start, frame.contacts.isEmpty {
                spans.append((s, frame.timeMicroseconds))
                start = nil
            }
        }
        if let s = start, let last = events.last { spans.append((s, last.timeMicroseconds)) }
        sequences = spans.map { (startMicroseconds: $0.0, endMicroseconds: $0.1) }
    }

    /// Each sequence measured against `settings` (its slop: where the move's direction is read; its
    /// velocity window: the release velocity).
    public func measurements(settings: RecognizerSettings) -> [TouchMeasurement] {
        guard let engine = try? GestureEngine(device: device, settings: settings, geometry: geometry) else { return [] }
        var assembler = FrameAssembler(geometry: engine.geometry, touchProtocol: device.touchProtocol, palmSize: engine.palmSize)
        var result: [TouchMeasurement] = []
        var current: TouchMeter? = nil
        for e in events where assembler.process(e) == .frame {
            let frame = assembler.frame
            if current == nil, !frame.contacts.isEmpty {
                current = TouchMeter(
                    start: frame.timeMicroseconds, slopMM: settings.slopMM, windowSeconds: settings.velocityWindowSeconds,
                    screenSizeMM: screenSizeMM)
            }
            guard current != nil else { continue }
            current!.add(frame)
            if frame.contacts.isEmpty {
                result.append(current!.measurement(end: frame.timeMicroseconds))
                current = nil
            }
        }
        if let meter = current, let last = events.last { result.append(meter.measurement(end: last.timeMicroseconds)) }
        return result
    }

    /// What the engine makes of each sequence under `settings`, replaying the whole recording: the first
    /// gesture that begins during a sequence (a tap begins at its lift), with an edge swipe's commit from
    /// its end; a sequence that continues a tap (a second tap) is a tap.
    public func outcomes(settings: RecognizerSettings) -> [TuneOutcome] { replayed(settings: settings).outcomes }

    /// As `outcomes`, with the reasons the recognizer gave for each sequence (its Explanation's, the
    /// engine explaining as `gesturectl explain` has it).
    public func replayed(settings: RecognizerSettings) -> (outcomes: [TuneOutcome], reasons: [[Reason]]) {
        var outcomes = [TuneOutcome](repeating: .nothing, count: sequences.count)
        var reasons = [[Reason]](repeating: [], count: sequences.count)
        guard var engine = try? GestureEngine(device: device, settings: settings, geometry: geometry) else { return (outcomes, reasons) }
        engine.explaining = true
        var replay = RecordingReplay(engine: engine)
        var began: [UInt64: Int] = [:]
        var decided = [Bool](repeating: false, count: sequences.count)
        let spans = sequences
        func sequence(at time: Int64) -> Int? {
            spans.firstIndex { time >= $0.startMicroseconds && time <= $0.endMicroseconds }
        }
        replay.run(events) { outputs in
            for case .explanation(let x) in outputs {
                if let i = sequence(at: x.startMicroseconds) { reasons[i] += x.reasons }
            }
            for case .gesture(let e) in outputs {
                switch e.phase {
                case .begin:
                    guard let i = sequence(at: e.timeMicroseconds), !decided[i] else { continue }
                    decided[i] = true
                    began[e.id] = i
                    switch e.kind {
                    case .edgeSwipe: outcomes[i] = .edgeSwipe(e.edge ?? .left, committed: false)
                    case .tap: outcomes[i] = .tap
                    default: outcomes[i] = .other(e.kind)
                    }
                case .update:
                    // A further tap of a multi-tap continues the gesture of the one before.
                    guard e.kind == .tap, let i = sequence(at: e.timeMicroseconds), !decided[i] else { continue }
                    decided[i] = true
                    outcomes[i] = .tap
                case .end:
                    guard e.kind == .edgeSwipe, let i = began[e.id], case .edgeSwipe(let edge, _) = outcomes[i] else { continue }
                    outcomes[i] = .edgeSwipe(edge, committed: e.committed == true)
                case .cancel:
                    break
                }
            }
        }
        return (outcomes, reasons)
    }
}
