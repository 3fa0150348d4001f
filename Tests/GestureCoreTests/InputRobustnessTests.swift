import Testing
@testable import GestureCore
import TouchForwarding

@Suite struct InputRobustnessTests {
    /// A device chooses its own name: a newline or escape in it reaches no message raw (the daemon logs
    /// these, line by line, so a raw newline would forge a journal line).
    @Test func aDeviceNameReachesMessagesEscaped() throws {
        let name = "Panel\nFORGED LINE \u{1b}[2J"
        var noResolution = TouchScript.phone
        noResolution.name = name
        noResolution.axes[ABS.mtPositionX] = AxisInfo(minimum: 0, maximum: 1000)
        noResolution.axes[ABS.mtPositionY] = AxisInfo(minimum: 0, maximum: 1600)
        var engine = try GestureEngine(device: noResolution)
        var out = EngineOutput()
        engine.eventsDropped(atMicroseconds: 1, into: &out)
        let messages = engine.deviceWarnings.map(\.message) + out.warnings.map(\.message)
        #expect(messages.count == 2)

        var protocolA = noResolution
        protocolA.axes[ABS.mtSlot] = nil
        #expect(throws: UnsupportedDeviceError.self) { try GestureEngine(device: protocolA) }
        var refusals: [String] = []
        do { _ = try GestureEngine(device: protocolA) } catch { refusals.append(error.description) }
        var singleTouch = TouchScript.phone
        singleTouch.name = name
        singleTouch.axes = [ABS.x: AxisInfo(minimum: 0, maximum: 100), ABS.y: AxisInfo(minimum: 0, maximum: 100)]
        do { _ = try TouchForwarder(device: singleTouch) } catch { refusals.append(error.description) }
        #expect(refusals.count == 2)

        for message in messages + refusals {
            #expect(!message.contains("\n") && !message.contains("\u{1b}"), "raw in: \(message)")
            #expect(message.contains("Panel\\u{a}FORGED LINE \\u{1b}[2J"), "the name, escaped, in: \(message)")
        }
    }

    @Test func synDroppedCancelsAndDiscardsUntilReport() throws {
        var s = TouchScript()
        s.down(0, 30, 80); s.frame()
        s.drag([0], by: 20, 0)
        s.raw(EV.syn, SYN.dropped, 0)
        s.move(0, 90, 150)  // discarded: part of the broken packet
        s.frame()
        s.drag([0], by: 5, 0)  // the finger is still down: nothing begins again
        s.up(0); s.frame()
        s.down(0, 30, 80); s.frame()  // a new touch works as usual
        s.drag([0], by: 0, 40)
        s.up(0); s.frame()
        var engine = try GestureEngine(device: s.device)
        var out = EngineOutput()
        engine.process(s.events, into: &out)
        #expect(out.gestures.phases == ["pan:begin", "pan:update", "pan:cancel", "pan:begin", "pan:update", "pan:end"])
        let cancel = try #require(out.gestures.first { $0.phase == .cancel })
        #expect(cancel.positionMM.x == 50)  // the discarded 90 mm never showed
        #expect((engine.deviceWarnings + out.warnings).contains { $0.message.contains("SYN_DROPPED") })
        #expect(out.gestures.last?.direction == .down)
    }

    @Test func libevdevResyncCancels() throws {
        var s = TouchScript()
        s.down(0, 30, 80); s.frame()
        s.drag([0], by: 20, 0)
        var engine = try GestureEngine(device: s.device)
        var out = EngineOutput()
        engine.process(s.events, into: &out)
        engine.eventsDropped(atMicroseconds: s.time, into: &out)
        #expect(out.gestures.last?.phase == .cancel)
        #expect(engine.nextDeadlineMicroseconds == nil)
    }

    @Test func valuesOutsideTheAxisRangeAreClamped() throws {
        var s = TouchScript()
        s.down(0, 30, 80); s.frame()
        s.drag([0], by: 40, 0)
        s.move(0, 150, 80); s.frame()  // 1500 units on a 0...1000 axis
        s.up(0); s.frame()
        var engine = try GestureEngine(device: s.device)
        var out = EngineOutput()
        engine.process(s.events, into: &out)
        #expect(out.gestures.last?.position.x == 1)
        #expect(out.gestures.last?.positionMM.x == 100)
        let warnings = (engine.deviceWarnings + out.warnings)
        #expect(warnings.count == 1)
        #expect(warnings[0].message.contains("outside its range 0..1000"))
    }

    @Test func slotsBeyondTheDeclaredCountAreIgnoredWithAWarning() throws {
        var s = TouchScript()
        s.down(0, 30, 80); s.frame()
        s.raw(EV.abs, ABS.mtSlot, 12)
        s.raw(EV.abs, ABS.mtTrackingID, 900)
        s.raw(EV.abs, ABS.mtPositionX, 100)
        s.raw(EV.abs, ABS.mtSlot, 0)
        s.frame()
        s.drag([0], by: 30, 0)
        s.up(0); s.frame()
        var engine = try GestureEngine(device: s.device)
        var out = EngineOutput()
        engine.process(s.events, into: &out)
        #expect(out.gestures.phases == ["pan:begin", "pan:update", "pan:end"])
        #expect(out.gestures.allSatisfy { $0.fingers == 1 })
        #expect((engine.deviceWarnings + out.warnings).contains { $0.message.contains("slot 12 is beyond the 10 slots") })
    }

    /// ABS_MT_SLOT declared over the whole positive Int32 range (a recording can say so): 2^31 slots would
    /// be 120 GB, and the allocation aborted the daemon and `gesturectl replay`. The slots tracked are capped.
    @Test func aHugeDeclaredSlotRangeIsCappedNotAllocated() throws {
        var s = TouchScript()
        // 0...2^31-1: capped with a warning (a range that does not start at 0, Int32.min... among them, is
        // refused: RecordingRobustnessTests).
        s.device.axes[ABS.mtSlot] = AxisInfo(minimum: 0, maximum: Int32.max, fuzz: 0, flat: 0, resolution: 0)
        s.down(0, 30, 80); s.frame()
        s.drag([0], by: 0, 40)
        s.up(0); s.frame()
        s.raw(EV.abs, ABS.mtSlot, Int32(FrameAssembler.maximumSlots))  // past the cap: ignored, with a warning
        s.raw(EV.abs, ABS.mtTrackingID, 7)
        s.frame()
        var engine = try GestureEngine(device: s.device)
        var out = EngineOutput()
        engine.process(s.events, into: &out)
        #expect(out.gestures.phases == ["pan:begin", "pan:update", "pan:end"])
        #expect((engine.deviceWarnings + out.warnings).contains { $0.message.contains("slot \(FrameAssembler.maximumSlots) is beyond") })
        #expect(engine.deviceWarnings.contains { $0.message.contains("declares 2147483648 slots") })
    }

    @Test func palmsAreNotFingers() throws {
        var s = TouchScript()
        s.down(0, 30, 80, tool: MTTool.palm); s.frame()
        s.drag([0], by: 40, 0)
        s.up(0); s.frame()
        #expect(try s.run().isEmpty)
        // A palm resting while a finger swipes: a one-finger pan.
        var t = TouchScript()
        t.down(0, 10, 140, tool: MTTool.palm); t.down(1, 50, 60, tool: MTTool.finger); t.frame()
        t.drag([0, 1], by: 0, 30)
        t.up(1); t.frame()
        t.up(0); t.frame()
        let events = try t.run()
        #expect(events.phases == ["pan:begin", "pan:update", "pan:end"])
        #expect(events.allSatisfy { $0.fingers == 1 })
    }

    @Test func fingerTurningIntoPalmCancels() throws {
        var s = TouchScript()
        s.down(0, 30, 80, tool: MTTool.finger); s.frame()
        s.drag([0], by: 30, 0)
        s.tool(0, MTTool.palm); s.frame()
        s.drag([0], by: 10, 0)
        s.up(0); s.frame()
        #expect(try s.run().phases == ["pan:begin", "pan:update", "pan:cancel"])
    }

    @Test func singleTouchDevice() throws {
        let device = DeviceDescription(
            name: "Single", properties: [INPUT_PROP.direct],
            axes: [ABS.x: AxisInfo(minimum: 0, maximum: 4095), ABS.y: AxisInfo(minimum: 0, maximum: 4095)],
            keys: [BTN.touch])
        var events: [InputEvent] = []
        var t: Int64 = 0
        func add(_ type: UInt16, _ code: UInt16, _ value: Int32) {
            events.append(InputEvent(timeMicroseconds: t, type: type, code: code, value: value))
        }
        add(EV.key, BTN.touch, 1); add(EV.abs, ABS.x, 500); add(EV.abs, ABS.y, 2000); add(EV.syn, SYN.report, 0)
        for i in 1...20 {
            t += 10_000
            add(EV.abs, ABS.x, Int32(500 + i * 100)); add(EV.syn, SYN.report, 0)
        }
        t += 10_000
        add(EV.key, BTN.touch, 0); add(EV.syn, SYN.report, 0)
        var engine = try GestureEngine(device: device)
        #expect(engine.geometry.sizeSource == .assumed)
        var out = EngineOutput()
        engine.process(events, into: &out)
        #expect(out.gestures.phases == ["pan:begin", "pan:update", "pan:end"])
        #expect(out.gestures.last?.direction == .right)
        #expect((engine.deviceWarnings + out.warnings).contains { $0.message.contains("assuming a 350 mm diagonal") })
    }

    @Test func protocolADevicesAreRefusedClearly() {
        let device = DeviceDescription(
            name: "Old Panel",
            axes: [ABS.mtPositionX: AxisInfo(minimum: 0, maximum: 9600), ABS.mtPositionY: AxisInfo(minimum: 0, maximum: 7200)])
        #expect(throws: UnsupportedDeviceError.self) { try GestureEngine(device: device) }
        do {
            _ = try GestureEngine(device: device)
        } catch {
            #expect(error.description.contains("protocol A"))
            #expect(error.description.hasPrefix("Old Panel: "))
        }
    }

    /// Found by fuzz-engine (Fuzz/Regressions/fuzz-engine/inverted-x-axis): an X axis 671744000...2776 put
    /// every touch at x = -671741224 on a screen that is 0...1 wide.
    @Test(arguments: [(671_744_000, 2776), (500, 500), (0, -1)])
    func deviceWithAnEmptyOrInvertedAxisRangeIsRefused(minimum: Int32, maximum: Int32) {
        let device = DeviceDescription(
            name: "Broken Panel",
            axes: [ABS.mtPositionX: AxisInfo(minimum: minimum, maximum: maximum),
                   ABS.mtPositionY: AxisInfo(minimum: 0, maximum: 1569), ABS.mtSlot: AxisInfo(minimum: 0, maximum: 1)])
        #expect {
            _ = try GestureEngine(device: device)
        } throws: { error in
            "\(error)" == "Broken Panel: its X position axis has the empty range \(minimum)...\(maximum) (the maximum "
                + "must be above the minimum); the device description is broken"
        }
    }

    /// Found by fuzz-engine (Fuzz/Regressions/fuzz-engine/contact-without-position): a finger that lands
    /// with no position on an axis whose minimum is above 0 was reported at x < 0, off the screen.
    @Test func aContactWithoutAPositionIsOnTheScreen() throws {
        var device = TouchScript.phone
        device.axes[ABS.mtPositionX] = AxisInfo(minimum: 100, maximum: 1100, resolution: 10)
        device.axes[ABS.mtPositionY] = AxisInfo(minimum: 200, maximum: 1800, resolution: 10)
        var events: [InputEvent] = []
        var t: Int64 = 1_000_000
        func add(_ type: UInt16, _ code: UInt16, _ value: Int32) {
            events.append(InputEvent(timeMicroseconds: t, type: type, code: code, value: value))
        }
        add(EV.abs, ABS.mtSlot, 0)
        add(EV.abs, ABS.mtTrackingID, 7)
        add(EV.syn, SYN.report, 0)
        for step in 1...10 {
            t += 10_000
            add(EV.abs, ABS.mtPositionX, 100 + Int32(step) * 40)
            add(EV.syn, SYN.report, 0)
        }
        add(EV.abs, ABS.mtTrackingID, -1)
        add(EV.syn, SYN.report, 0)
        var engine = try GestureEngine(device: device)
        var outputs = EngineOutput()
        engine.process(events, into: &outputs)
        let out = outputs.gestures
        // It lands at the range's minimum, the left edge, and moves inward: an edge swipe from the left.
        #expect(out.first?.phase == .begin && out.first?.edge == .left)
        #expect(out.last?.phase == .end)
        for e in out {
            #expect((0...1).contains(e.position.x) && (0...1).contains(e.position.y), "\(e.position)")
            #expect(e.positionMM.x >= 0 && e.positionMM.y >= 0)
        }
        #expect(out.last?.translationMM.x ?? 0 > 30)
    }

    @Test func deviceWithoutPositionAxesIsRefused() {
        let device = DeviceDescription(name: "Keyboard", keys: [30, 31])
        #expect(throws: UnsupportedDeviceError.self) { try GestureEngine(device: device) }
    }

    @Test func garbageEventsDoNotCrash() throws {
        var s = TouchScript()
        // Unknown types and codes, negative slots, huge values, a lift of a slot that never landed.
        s.raw(0x1f, 0xffff, Int32.max)
        s.raw(EV.abs, ABS.mtSlot, -5)
        s.raw(EV.abs, ABS.mtPositionX, Int32.min)
        s.raw(EV.abs, ABS.mtSlot, 3)
        s.raw(EV.abs, ABS.mtTrackingID, -1)
        s.raw(EV.syn, 0x7, 0)
        s.frame()
        s.down(0, 30, 80); s.frame()
        s.drag([0], by: 30, 0)
        s.up(0); s.frame()
        #expect(try s.run().phases == ["pan:begin", "pan:update", "pan:end"])
    }

    @Test func reconfigureCancelsAndWaitsForLift() throws {
        var s = TouchScript()
        s.down(0, 30, 80); s.frame()
        s.drag([0], by: 30, 0)
        var engine = try GestureEngine(device: s.device)
        var out = EngineOutput()
        engine.process(s.events, into: &out)
        var settings = RecognizerSettings()
        settings.slopMM = 10
        engine.reconfigure(settings: settings, geometry: GeometrySettings(), atMicroseconds: s.time, into: &out)
        #expect(out.gestures.last?.phase == .cancel)
        #expect(engine.settings.slopMM == 10)
        let before = out.gestures.count
        var t = s
        t.drag([0], by: 30, 0)
        t.up(0); t.frame()
        engine.process(Array(t.events[s.events.count...]), into: &out)
        #expect(out.gestures.count == before)  // the finger that was down when the config changed does nothing
    }
}

@Suite struct HoverTests {
    @Test func hoveringContactsAreNotFingers() throws {
        var s = TouchScript()
        // A finger in range above the glass (ABS_MT_DISTANCE 1) moves across: nothing.
        s.down(0, 30, 80)
        s.raw(EV.abs, ABS.mtDistance, 1)
        s.frame()
        s.drag([0], by: 40, 0)
        // It touches down and drags: a pan that starts where it touched.
        s.raw(EV.abs, ABS.mtDistance, 0)
        s.frame()
        s.drag([0], by: 0, 30)
        // It rises back into hover: the pan ends (a lift, not a cancel) and committed is decided.
        s.raw(EV.abs, ABS.mtDistance, 1)
        s.frame()
        s.drag([0], by: 0, 20)
        s.up(0); s.frame()
        let events = try s.run()
        #expect(events.phases == ["pan:begin", "pan:update", "pan:end"])
        #expect(events.first?.positionMM.x == 70)
        #expect(events.last?.committed == true && events.last?.direction == .down)
        #expect(events.last?.positionMM.y == 110)
    }
}
