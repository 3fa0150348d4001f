import GestureCore
import GestureVocabulary
import Testing

/// The recognizer arbitrates a kind it was given as a rule (TapAndDragRule), against its own kinds, in the
/// order the settings name.
@Suite struct AddedKindTests {
    /// Settings with the tap-and-drag rule named before pans (a three-finger drag after a three-finger
    /// tap is a tap-and-drag, never a pan).
    static var withTapAndDrag: RecognizerSettings {
        var settings = RecognizerSettings()
        settings.rules.insert(TapAndDragRule(), before: .pan)
        return settings
    }

    /// Three fingers tap at 1 s; three fingers land again `gapSeconds` after the lift, 40 mm from the
    /// bottom, and drag 30 mm up.
    static func tapThenDrag(tapFingers: Int = 3, dragFingers: Int = 3, gapSeconds: Double = 0.15) -> [InputEvent] {
        var s = Script()
        s.land(tapFingers, atMM: (50, 80))
        s.frames(5)
        s.lift(tapFingers)
        s.wait(seconds: gapSeconds)
        s.land(dragFingers, atMM: (50, 120))
        for _ in 0..<15 { s.move(dragFingers, byMM: (0, -2)) }
        s.lift(dragFingers)
        return s.events
    }

    static func gestures(_ events: [InputEvent], settings: RecognizerSettings) throws -> [GestureEvent] {
        try RecordingReplay.gestures(of: events, device: Script.panel, settings: settings).gestures
    }

    static func phases(_ gestures: [GestureEvent]) -> [String] {
        gestures.filter { $0.phase != .update }.map { "\($0.kind):\($0.phase)" }
    }

    @Test func aTapThenADragOfThreeFingersIsATapAndDrag() throws {
        let g = try Self.gestures(Self.tapThenDrag(), settings: Self.withTapAndDrag)
        // The tap begins at its lift; the second touch's drag takes its place: the tap is cancelled.
        #expect(Self.phases(g) == ["tap:begin", "tap:cancel", "tap-and-drag:begin", "tap-and-drag:end"])
        let end = try #require(g.last)
        #expect(end.fingers == 3 && end.committed == true)
        #expect(end.translationMM.y < -25)
        #expect(g.filter { $0.kind == TapAndDragRule.kind }.allSatisfy { $0.id == end.id })
    }

    /// Without a tap before it, a three-finger drag is a pan: the rule does not apply.
    @Test func aDragAloneIsAPan() throws {
        var s = Script()
        s.land(3, atMM: (50, 120))
        for _ in 0..<15 { s.move(3, byMM: (0, -2)) }
        s.lift(3)
        let g = try Self.gestures(s.events, settings: Self.withTapAndDrag)
        #expect(Self.phases(g) == ["pan:begin", "pan:end"])
    }

    /// A one-finger tap before a three-finger drag is no tap-and-drag: the tap ends on its own, then a pan.
    @Test func aTapOfOtherFingersEndsAndThePanBegins() throws {
        let g = try Self.gestures(Self.tapThenDrag(tapFingers: 1), settings: Self.withTapAndDrag)
        #expect(Self.phases(g) == ["tap:begin", "tap:end", "pan:begin", "pan:end"])
        #expect(g[1].committed == true && g[1].taps == 1)
    }

    /// After the multi-tap interval the tap is over: the drag is a pan.
    @Test func aDragAfterTheTapIsOverIsAPan() throws {
        let g = try Self.gestures(Self.tapThenDrag(gapSeconds: 0.5), settings: Self.withTapAndDrag)
        #expect(Self.phases(g) == ["tap:begin", "tap:end", "pan:begin", "pan:end"])
    }

    /// The order decides: put after pans, the pan claims the drag first.
    @Test func theArbitrationOrderDecides() throws {
        var settings = RecognizerSettings()
        settings.rules.insert(TapAndDragRule(), after: .pan)
        #expect(settings.rules.kinds == [.edgeSwipe, .pinch, .pan, TapAndDragRule.kind, .hold, .tap])
        let g = try Self.gestures(Self.tapThenDrag(), settings: settings)
        #expect(Self.phases(g) == ["tap:begin", "tap:end", "pan:begin", "pan:end"])
    }

    /// A rule that is not in the settings' rules takes no part.
    @Test func aRuleNotInTheRulesTakesNoPart() throws {
        let settings = RecognizerSettings()
        let g = try Self.gestures(Self.tapThenDrag(), settings: settings)
        #expect(!g.contains { $0.kind == TapAndDragRule.kind })
    }

    /// Its events go on the wire like any kind's, by its name.
    @Test func theKindIsItsOwn() {
        #expect(TapAndDragRule.kind.rawValue == "tap-and-drag")
        #expect(GestureKind(rawValue: "tap-and-drag") == nil)  // not one of gestured's own kinds
        #expect(!GestureKind.allCases.contains(TapAndDragRule.kind))
    }
}

/// Writes a panel's evdev events: fingers landing, moving and lifting together, one frame (SYN_REPORT)
/// every 10 ms, on a 100 × 160 mm panel at 10 units/mm.
struct Script {
    static let panel = DeviceDescription(
        name: "Toy Panel", properties: [INPUT_PROP.direct],
        axes: [
            ABS.mtSlot: AxisInfo(minimum: 0, maximum: 9),
            ABS.mtPositionX: AxisInfo(minimum: 0, maximum: 1000, resolution: 10),
            ABS.mtPositionY: AxisInfo(minimum: 0, maximum: 1600, resolution: 10),
            ABS.mtTrackingID: AxisInfo(minimum: 0, maximum: 65535),
        ],
        keys: [BTN.touch])

    private(set) var events: [InputEvent] = []
    private var time: Int64 = 1_000_000
    private var trackingID: Int32 = 1
    private var positions: [(x: Double, y: Double)] = []

    private mutating func emit(_ type: UInt16, _ code: UInt16, _ value: Int32) {
        events.append(InputEvent(timeMicroseconds: time, type: type, code: code, value: value))
    }

    private mutating func frame() {
        emit(EV.syn, SYN.report, 0)
        time += 10_000
    }

    /// `n` fingers land 10 mm apart around `atMM`.
    mutating func land(_ n: Int, atMM p: (x: Double, y: Double)) {
        positions = (0..<n).map { (p.x + Double($0 - n / 2) * 10, p.y) }
        for (slot, position) in positions.enumerated() {
            emit(EV.abs, ABS.mtSlot, Int32(slot))
            emit(EV.abs, ABS.mtTrackingID, trackingID)
            trackingID += 1
            emit(EV.abs, ABS.mtPositionX, Int32(position.x * 10))
            emit(EV.abs, ABS.mtPositionY, Int32(position.y * 10))
        }
        frame()
    }

    mutating func move(_ n: Int, byMM d: (x: Double, y: Double)) {
        for slot in 0..<n {
            positions[slot].x += d.x
            positions[slot].y += d.y
            emit(EV.abs, ABS.mtSlot, Int32(slot))
            emit(EV.abs, ABS.mtPositionX, Int32(positions[slot].x * 10))
            emit(EV.abs, ABS.mtPositionY, Int32(positions[slot].y * 10))
        }
        frame()
    }

    mutating func frames(_ count: Int) {
        for _ in 0..<count { frame() }
    }

    mutating func lift(_ n: Int) {
        for slot in 0..<n {
            emit(EV.abs, ABS.mtSlot, Int32(slot))
            emit(EV.abs, ABS.mtTrackingID, -1)
        }
        frame()
    }

    mutating func wait(seconds: Double) { time += Int64(seconds * 1_000_000) }
}
