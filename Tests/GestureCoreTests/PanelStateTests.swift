import GestureVocabulary
import Testing

@testable import GestureCore
import TouchForwarding

/// A panel gestured starts reading late (a restart, a device opened with fingers on it): the kernel sends
/// only what changes, so the engine and the forwarder start from the panel's state, not from nothing.
@Suite struct PanelStateTests {
    /// Slot 3 current, a contact down in it at (20, 80) mm; slot 0 empty, last at (50, 50) mm.
    static let fingerDownInSlot3 = PanelState(
        currentSlot: 3,
        slots: [
            [ABS.mtTrackingID: -1, ABS.mtPositionX: 500, ABS.mtPositionY: 500], [ABS.mtTrackingID: -1],
            [ABS.mtTrackingID: -1], [ABS.mtTrackingID: 7, ABS.mtPositionX: 200, ABS.mtPositionY: 800],
        ] + Array(repeating: [ABS.mtTrackingID: -1], count: 6))

    static func event(_ time: Int64, _ type: UInt16, _ code: UInt16, _ value: Int32) -> InputEvent {
        InputEvent(timeMicroseconds: time, type: type, code: code, value: value)
    }

    /// The finger already down moves and lifts with no ABS_MT_SLOT (slot 3 is current): it rests, no
    /// gesture; then a new finger lands in slot 3 (again no ABS_MT_SLOT) and swipes right from where it
    /// lands: a pan from there. Without the panel's state the engine would put both in slot 0.
    @Test func fingersDownAtOpenRestAndTheCurrentSlotIsTheKernels() throws {
        var engine = try GestureEngine(device: TouchScript.phone)
        var out = EngineOutput()
        engine.adopt(Self.fingerDownInSlot3, atMicroseconds: 1_000_000, into: &out)
        #expect(out.gestures.isEmpty)
        #expect(engine.contactSerial(inSlot: 3) != nil && engine.contactSerial(inSlot: 0) == nil)
        var t: Int64 = 1_010_000
        for i in 1...20 {
            engine.process(Self.event(t, EV.abs, ABS.mtPositionX, 200 + Int32(i) * 20), into: &out)
            engine.process(Self.event(t, EV.syn, SYN.report, 0), into: &out)
            t += 10_000
        }
        engine.process(Self.event(t, EV.abs, ABS.mtTrackingID, -1), into: &out)
        engine.process(Self.event(t, EV.syn, SYN.report, 0), into: &out)
        #expect(out.gestures.isEmpty, "a finger down before gestured read the panel took part in a gesture")
        t += 100_000
        engine.process(Self.event(t, EV.abs, ABS.mtTrackingID, 8), into: &out)
        engine.process(Self.event(t, EV.abs, ABS.mtPositionX, 300), into: &out)
        engine.process(Self.event(t, EV.abs, ABS.mtPositionY, 600), into: &out)
        engine.process(Self.event(t, EV.syn, SYN.report, 0), into: &out)
        for i in 1...30 {
            t += 10_000
            engine.process(Self.event(t, EV.abs, ABS.mtPositionX, 300 + Int32(i) * 10), into: &out)
            engine.process(Self.event(t, EV.syn, SYN.report, 0), into: &out)
        }
        t += 10_000
        engine.process(Self.event(t, EV.abs, ABS.mtTrackingID, -1), into: &out)
        engine.process(Self.event(t, EV.syn, SYN.report, 0), into: &out)
        let pan = out.gestures.filter { $0.kind == .pan }
        #expect(pan.first?.phase == .begin && pan.last?.phase == .end)
        #expect(abs(pan.last!.positionMM.x - 60) < 0.01 && abs(pan.last!.positionMM.y - 60) < 0.01)
        #expect(pan.last?.direction == .right)
    }

    /// A contact landing in a slot with the same position the slot had before gets no position events
    /// from the kernel: its position is the slot's, from the panel's state.
    @Test func aContactLandingWhereTheSlotWasKeepsThatPosition() throws {
        var state = Self.fingerDownInSlot3
        state.slots[3][ABS.mtTrackingID] = -1
        state.currentSlot = 0
        var engine = try GestureEngine(device: TouchScript.phone)
        var out = EngineOutput()
        engine.adopt(state, atMicroseconds: 1_000_000, into: &out)
        engine.process(Self.event(1_010_000, EV.abs, ABS.mtTrackingID, 9), into: &out)  // slot 0, at (500, 500)
        engine.process(Self.event(1_010_000, EV.syn, SYN.report, 0), into: &out)
        engine.process(Self.event(1_600_000, EV.abs, ABS.mtPositionY, 501), into: &out)  // holds past the hold time
        engine.process(Self.event(1_600_000, EV.syn, SYN.report, 0), into: &out)
        let hold = try #require(out.gestures.first)
        #expect(hold.kind == .hold)
        #expect(abs(hold.positionMM.x - 50) < 0.01 && abs(hold.positionMM.y - 50) < 0.1)
    }

    /// A forwarder started on a panel whose current slot is 3 writes the panel's next frame (which names
    /// no slot) to slot 3 of the copy, with the slot's values the kernel did not send again.
    @Test func aForwarderStartsFromThePanelsState() throws {
        var state = Self.fingerDownInSlot3
        state.slots[3][ABS.mtTrackingID] = -1
        var forwarder = try TouchForwarder(device: TouchScript.phone, panel: state)
        var out: [InputEvent] = []
        let landing = [
            Self.event(1_000_000, EV.abs, ABS.mtTrackingID, 12), Self.event(1_000_000, EV.abs, ABS.mtPositionY, 810),
            Self.event(1_000_000, EV.syn, SYN.report, 0),
        ]
        for e in landing { forwarder.process(e, decisions: [], serial: { $0 == 3 ? 1 : nil }, into: &out) }
        let frames = TouchForwarderTests.read(out, device: TouchForwarder.virtualDescription(of: TouchScript.phone))
        #expect(frames.last?.down.count == 1)
        #expect(out.contains { $0.code == ABS.mtSlot && $0.value == 3 })
        #expect(out.contains { $0.code == ABS.mtPositionX && $0.value == 200 })  // from the state: not sent again
        #expect(out.contains { $0.code == ABS.mtPositionY && $0.value == 810 })
        forwarder.finish(atMicroseconds: 2_000_000, into: &out)
        #expect(!forwarder.hasContactsDown)
    }
}
