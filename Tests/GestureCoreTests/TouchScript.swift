import GestureCore
import GestureVocabulary

/// A small DSL that writes the evdev events a touchscreen would send: fingers land, move, wait and lift,
/// in millimetres on a test panel, and every step ends with SYN_REPORT like a real frame.
struct TouchScript {
    /// A 100 × 160 mm panel at 10 units/mm (a large phone), protocol B with 10 slots.
    static let phone = DeviceDescription(
        name: "Test Panel", busType: 0x18, vendor: 0x1234, product: 0x5678,
        properties: [INPUT_PROP.direct],
        axes: [
            ABS.mtSlot: AxisInfo(minimum: 0, maximum: 9),
            ABS.mtPositionX: AxisInfo(minimum: 0, maximum: 1000, resolution: 10),
            ABS.mtPositionY: AxisInfo(minimum: 0, maximum: 1600, resolution: 10),
            ABS.mtTrackingID: AxisInfo(minimum: 0, maximum: 65535),
            ABS.mtToolType: AxisInfo(minimum: 0, maximum: 2),
            ABS.x: AxisInfo(minimum: 0, maximum: 1000, resolution: 10),
            ABS.y: AxisInfo(minimum: 0, maximum: 1600, resolution: 10),
        ],
        keys: [BTN.touch])

    var device: DeviceDescription
    /// Units per millimetre used to turn the script's millimetres into device units (x, and y when the
    /// panel's axes differ).
    var unitsPerMM: Double = 10
    var unitsPerMMY: Double? = nil
    private(set) var events: [InputEvent] = []
    private(set) var time: Int64 = 1_000_000
    /// Time between frames, microseconds (100 Hz).
    var frameInterval: Int64 = 10_000
    private var nextTrackingID: Int32 = 100
    private var positions: [Int: (Double, Double)] = [:]
    private var currentSlot = -1

    init(device: DeviceDescription = TouchScript.phone) { self.device = device }

    private mutating func emit(_ type: UInt16, _ code: UInt16, _ value: Int32) {
        events.append(InputEvent(timeMicroseconds: time, type: type, code: code, value: value))
    }

    private mutating func slot(_ s: Int) {
        if s != currentSlot {
            emit(EV.abs, ABS.mtSlot, Int32(s))
            currentSlot = s
        }
    }

    private mutating func position(_ finger: Int, _ x: Double, _ y: Double) {
        let old = positions[finger]
        let ky = unitsPerMMY ?? unitsPerMM
        let ux = Int32((x * unitsPerMM).rounded())
        let uy = Int32((y * ky).rounded())
        if old == nil || Int32((old!.0 * unitsPerMM).rounded()) != ux { slot(finger); emit(EV.abs, ABS.mtPositionX, ux) }
        if old == nil || Int32((old!.1 * ky).rounded()) != uy { slot(finger); emit(EV.abs, ABS.mtPositionY, uy) }
        positions[finger] = (x, y)
    }

    /// Ends the frame (SYN_REPORT) and advances time by one frame interval.
    mutating func frame() {
        emit(EV.syn, SYN.report, 0)
        time += frameInterval
    }

    /// Finger `finger` (its slot) lands at (x, y) mm, in the current frame.
    mutating func down(_ finger: Int, _ x: Double, _ y: Double, tool: Int32? = nil) {
        slot(finger)
        emit(EV.abs, ABS.mtTrackingID, nextTrackingID)
        nextTrackingID += 1
        if let tool { emit(EV.abs, ABS.mtToolType, tool) }
        positions[finger] = nil
        position(finger, x, y)
    }

    mutating func move(_ finger: Int, _ x: Double, _ y: Double) { position(finger, x, y) }

    mutating func tool(_ finger: Int, _ tool: Int32) {
        slot(finger)
        emit(EV.abs, ABS.mtToolType, tool)
    }

    mutating func up(_ finger: Int) {
        slot(finger)
        emit(EV.abs, ABS.mtTrackingID, -1)
        positions[finger] = nil
    }

    /// Moves the given fingers by (dx, dy) mm each, in `steps` frames.
    mutating func drag(_ fingers: [Int], by dx: Double, _ dy: Double, steps: Int = 10) {
        let starts = fingers.map { positions[$0]! }
        for step in 1...steps {
            let f = Double(step) / Double(steps)
            for (i, finger) in fingers.enumerated() { move(finger, starts[i].0 + dx * f, starts[i].1 + dy * f) }
            frame()
        }
    }

    /// Moves each finger along its own path: `to(finger, fraction)` gives the position.
    mutating func animate(_ fingers: [Int], steps: Int, _ to: (Int, Double) -> (Double, Double)) {
        for step in 1...steps {
            let f = Double(step) / Double(steps)
            for finger in fingers {
                let p = to(finger, f)
                move(finger, p.0, p.1)
            }
            frame()
        }
    }

    /// Time passes with no events.
    mutating func wait(_ seconds: Double) { time += Int64(seconds * 1_000_000) }

    /// Appends a raw event (for malformed input).
    mutating func raw(_ type: UInt16, _ code: UInt16, _ value: Int32) { emit(type, code, value) }

    /// Runs the events through an engine, returning the gesture events.
    func run(
        settings: RecognizerSettings = RecognizerSettings(), geometry: GeometrySettings = GeometrySettings()
    ) throws -> [GestureEvent] {
        var engine = try GestureEngine(device: device, settings: settings, geometry: geometry)
        var out = EngineOutput()
        engine.process(events, into: &out)
        return out.gestures
    }
}

extension Array where Element == GestureEvent {
    /// "kind:phase" for each event, updates collapsed, for compact assertions.
    var phases: [String] {
        var result: [String] = []
        for e in self {
            let s = "\(e.kind.rawValue):\(e.phase.rawValue)"
            if e.phase == .update, result.last == s { continue }
            result.append(s)
        }
        return result
    }

    var ends: [GestureEvent] { filter { $0.phase == .end || $0.phase == .cancel } }
}
