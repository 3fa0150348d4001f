import GestureConfig
import GestureCore
import GestureProtocol
import GestureVocabulary
import Glibc
import SystemCalls
import Testing
import TouchForwarding

@testable import GestureDaemon

/// Touch that points in the daemon: a scripted panel in passthrough with a virtual pointer that records
/// what is written to it, in order with the copy's writes. The decisions themselves are TouchPointerTests';
/// here, that the device makes, drives, releases and retires its pointer as the daemon's events come.
@Suite struct DevicePointerTests {
    static func settings(mode: PointerMode = .longPress, sections: [PointerSection] = []) -> DeviceSettings {
        var settings = DeviceSettings(passthrough: true)
        settings.pointerMode = mode
        settings.pointerSections = sections
        return settings
    }

    static func runtime(
        _ source: ScriptedPanel, delivery: RecordingDelivery, settings: DeviceSettings, retiring: RetiringCopies = RetiringCopies()
    ) throws -> DeviceRuntime {
        let engine = try GestureEngine(device: source.description, settings: settings.recognizer, geometry: settings.geometry)
        let info = DeviceInfo(
            id: source.name, name: source.description.name, vendorProduct: source.description.vendorProduct, path: source.path,
            source: .evdev, slots: 10)
        let runtime = DeviceRuntime(
            token: 1, info: info, source: source, paths: [source.path], settings: settings, engine: engine,
            delivery: delivery, retiringCopies: retiring)
        runtime.switchPassthrough(.opened)
        return runtime
    }

    /// The pointer's events frame by frame.
    static func frames(_ pointer: RecordingCopy?) -> [String] { TouchPointer.frames(pointer?.events ?? []) }

    @Test func thePointerComesWithPassthroughWhenAskedAndGoesWhenNoLonger() throws {
        let log = ServiceLog()
        // A runtime holds its delivery unowned: kept to the end of the test.
        let delivery = RecordingDelivery(log: log)
        defer { withExtendedLifetime(delivery) {} }
        let source = ScriptedPanel("event5", log: log, pollDescriptor: 5)
        let retiring = RetiringCopies()
        let runtime = try Self.runtime(source, delivery: delivery, settings: Self.settings(), retiring: retiring)
        #expect(source.pointers.count == 1)
        #expect(runtime.info.pointerPath == "/dev/input/event98" && runtime.info.pointerMode == .longPress)
        // A reload that asks for touch alone retires it (kept for the compositor to read its release).
        runtime.reload(Self.settings(mode: .touch), monotonicNow: 1_000_000)
        #expect(runtime.info.pointerPath == nil && runtime.info.pointerMode == nil && retiring.count == 1)
        // A [[pointer]] section asking for more, for some app, makes it again, touch while another app is
        // focused.
        runtime.reload(Self.settings(mode: .touch, sections: [PointerSection(apps: ["remmina"], mode: .mouse)]), monotonicNow: 2_000_000)
        #expect(source.pointers.count == 2 && runtime.info.pointerMode == .touch)
        runtime.info.focusedApp = "remmina"
        runtime.refreshPointer()
        #expect(runtime.info.pointerMode == .mouse)
        // Without passthrough, none.
        let plain = ScriptedPanel("event6", log: log, pollDescriptor: 6)
        var off = Self.settings()
        off.passthrough = false
        let other = try Self.runtime(plain, delivery: delivery, settings: off)
        #expect(plain.pointers.isEmpty && other.info.pointerPath == nil)
    }

    /// A long press at the hold's deadline (the loop's timer): the app's touch is cancelled on the copy,
    /// written first, then the click is written to the pointer where the finger is.
    @Test func aLongPressCancelsTheAppsTouchThenClicks() throws {
        let log = ServiceLog()
        // A runtime holds its delivery unowned: kept to the end of the test.
        let delivery = RecordingDelivery(log: log)
        defer { withExtendedLifetime(delivery) {} }
        let source = ScriptedPanel("event5", log: log, pollDescriptor: 5)
        let runtime = try Self.runtime(source, delivery: delivery, settings: Self.settings())
        source.land(at: 1_000_000, x: 420, y: 730)
        _ = runtime.pump(now: 0)
        let deadline = try #require(runtime.engine.nextDeadlineMicroseconds)
        #expect(deadline == 1_500_000)
        log.entries.removeAll()
        _ = runtime.serveDue(now: deadline)
        let writes = log.entries.filter { $0.hasSuffix(" write") }
        #expect(writes == ["copy write", "pointer write"])
        let copy = try #require(source.copies.first)
        #expect(copy.events.contains { $0.code == ABS.mtToolType && $0.value == MTTool.palm })
        #expect(copy.events.last { $0.code == ABS.mtTrackingID }?.value == -1)
        #expect(Self.frames(source.pointers.first) == ["move 420 730", "right 1", "right 0"])
        #expect(log.entries.contains("event5 hold begin"))
        // The lift reaches nobody.
        let copyWrites = copy.written.count
        source.lift(at: 1_800_000)
        _ = runtime.pump(now: 0)
        #expect(copy.written.count == copyWrites)
        #expect(Self.frames(source.pointers.first).count == 3)
    }

    /// Leaving the app mid-drag (the focus changes) releases the button where the finger is; the rest of
    /// the touch stays the pointer's and moves nothing.
    @Test func leavingTheAppMidDragReleasesTheButtonWhereTheFingerIs() throws {
        let log = ServiceLog()
        // A runtime holds its delivery unowned: kept to the end of the test.
        let delivery = RecordingDelivery(log: log)
        defer { withExtendedLifetime(delivery) {} }
        let source = ScriptedPanel("event5", log: log, pollDescriptor: 5)
        let runtime = try Self.runtime(
            source, delivery: delivery, settings: Self.settings(mode: .touch, sections: [PointerSection(apps: ["remmina"], mode: .mouse)]))
        runtime.info.focusedApp = "remmina"
        runtime.refreshPointer()
        source.land(at: 1_000_000, x: 300, y: 400)
        _ = runtime.pump(now: 0)
        for (i, x) in [320, 360, 400].enumerated() {
            source.move(at: 1_010_000 + Int64(i) * 10_000, x: Int32(x), y: 400)
            _ = runtime.pump(now: 0)
        }
        #expect(Self.frames(source.pointers.first).contains("left 1"))
        #expect(source.copies.first?.written.isEmpty == true)  // the app never saw the touch
        runtime.info.focusedApp = "org.gnome.Maps"
        runtime.refreshPointer()
        #expect(runtime.info.pointerMode == .touch)
        #expect(Self.frames(source.pointers.first).suffix(2) == ["move 400 400", "left 0"])
        let count = source.pointers.first?.events.count
        source.move(at: 1_100_000, x: 500, y: 500)
        _ = runtime.pump(now: 0)
        source.lift(at: 1_200_000)
        _ = runtime.pump(now: 0)
        #expect(source.pointers.first?.events.count == count)
        #expect(source.copies.first?.written.isEmpty == true)
    }

    /// Whatever ends the pointer's work mid-drag leaves no button down: the screen turned (the daemon's
    /// cancellation), the device unplugged, passthrough turned off by a reload.
    @Test(arguments: ["turn", "unplug", "reload-off"])
    func nothingStaysPressed(how: String) throws {
        let log = ServiceLog()
        // A runtime holds its delivery unowned: kept to the end of the test.
        let delivery = RecordingDelivery(log: log)
        defer { withExtendedLifetime(delivery) {} }
        let source = ScriptedPanel("event5", log: log, pollDescriptor: 5)
        let retiring = RetiringCopies()
        let runtime = try Self.runtime(source, delivery: delivery, settings: Self.settings(mode: .mouse), retiring: retiring)
        source.land(at: 1_000_000, x: 300, y: 400)
        _ = runtime.pump(now: 0)
        source.move(at: 1_010_000, x: 400, y: 400)
        _ = runtime.pump(now: 0)
        #expect(runtime.passthrough.forwarding?.pointer.link?.pointer.hasButtonDown == true)
        switch how {
        case "turn": runtime.cancelPointer()
        case "unplug": runtime.close(.unplugged, monotonicNow: 1_100_000)
        default:
            runtime.reload(DeviceSettings(passthrough: false), monotonicNow: 1_100_000)
            // Off waits for the lift; the pointer goes with the copy then.
            source.lift(at: 1_200_000)
            _ = runtime.pump(now: 0)
        }
        #expect(Self.frames(source.pointers.first).last == "left 0")
        if how != "turn" {
            #expect(retiring.count == 2, "the copy and the pointer retire together")
            #expect(runtime.info.pointerPath == nil)
        }
    }

    @Test func aPointerThatCannotBeWrittenGoesAndTouchGoesOn() throws {
        let log = ServiceLog()
        // A runtime holds its delivery unowned: kept to the end of the test.
        let delivery = RecordingDelivery(log: log)
        defer { withExtendedLifetime(delivery) {} }
        let source = ScriptedPanel("event5", log: log, pollDescriptor: 5)
        let runtime = try Self.runtime(source, delivery: delivery, settings: Self.settings(mode: .mouse))
        source.pointers.first?.failsWrites = true
        source.land(at: 1_000_000)
        _ = runtime.pump(now: 0)
        guard case .failed = runtime.passthrough.forwarding?.pointer else {
            Issue.record("the pointer is \(String(describing: runtime.passthrough.forwarding?.pointer))")
            return
        }
        #expect(DeviceRuntimeTests.isOn(runtime.passthrough) && runtime.info.pointerPath == nil)
        // A focus change does not try again; a reload does.
        runtime.refreshPointer()
        #expect(source.pointers.count == 1)
        source.lift(at: 1_100_000)
        _ = runtime.pump(now: 0)
        runtime.reload(Self.settings(mode: .mouse), monotonicNow: 1_200_000)
        #expect(source.pointers.count == 2 && runtime.info.pointerPath != nil)
    }

    @Test func aPointerThatCannotBeMadeLeavesTouchAlone() throws {
        let log = ServiceLog()
        // A runtime holds its delivery unowned: kept to the end of the test.
        let delivery = RecordingDelivery(log: log)
        defer { withExtendedLifetime(delivery) {} }
        let source = ScriptedPanel("event5", log: log, pollDescriptor: 5)
        source.pointerError = SystemError(errno: EACCES, operation: "open", path: VirtualTouchscreen.uinputPath)
        let runtime = try Self.runtime(source, delivery: delivery, settings: Self.settings(mode: .mouse))
        #expect(DeviceRuntimeTests.isOn(runtime.passthrough) && runtime.info.pointerPath == nil)
        source.land(at: 1_000_000)
        _ = runtime.pump(now: 0)
        #expect(source.copies.first?.written.isEmpty == false)  // a touch, as without a pointer
    }

    /// Two fingers land 15 mm apart at (x, y) (device units, 10 a millimetre), scroll `byY` units in
    /// `steps` frames 10 ms apart from `time`, and lift 10 ms after the last; returns the lift's time.
    static func twoFingerScroll(_ source: ScriptedPanel, at time: Int64, x: Int32, y: Int32, byY: Int32, steps: Int) -> Int64 {
        func abs(_ code: UInt16, _ value: Int32, _ t: Int64) -> InputEvent {
            InputEvent(timeMicroseconds: t, type: EV.abs, code: code, value: value)
        }
        func report(_ t: Int64) -> InputEvent { InputEvent(timeMicroseconds: t, type: EV.syn, code: SYN.report, value: 0) }
        var t = time
        for slot: Int32 in 0...1 {
            source.pending += [
                abs(ABS.mtSlot, slot, t), abs(ABS.mtTrackingID, 7 + slot, t), abs(ABS.mtPositionX, x + slot * 150, t),
                abs(ABS.mtPositionY, y, t),
            ]
        }
        source.pending += [InputEvent(timeMicroseconds: t, type: EV.key, code: BTN.touch, value: 1), report(t)]
        for step in 1...steps {
            t += 10_000
            let at = y + byY * Int32(step) / Int32(steps)
            source.pending += [abs(ABS.mtSlot, 0, t), abs(ABS.mtPositionY, at, t), abs(ABS.mtSlot, 1, t), abs(ABS.mtPositionY, at, t), report(t)]
        }
        t += 10_000
        source.pending += [
            abs(ABS.mtSlot, 0, t), abs(ABS.mtTrackingID, -1, t), abs(ABS.mtSlot, 1, t), abs(ABS.mtTrackingID, -1, t),
            InputEvent(timeMicroseconds: t, type: EV.key, code: BTN.touch, value: 0), report(t),
        ]
        source.clock = t
        return t
    }

    /// The wheel events written to the pointer.
    static func wheelTicks(_ pointer: RecordingCopy?) -> [InputEvent] {
        (pointer?.events ?? []).filter { $0.type == EV.rel && $0.code == REL.wheelHiRes }
    }

    /// A device in mouse mode with `pointer_fling`, after a fast two-finger scroll upwards has lifted (read
    /// in one pump); the delivery is returned to be kept alive (a runtime holds it unowned).
    static func flungScroll() throws -> (ScriptedPanel, DeviceRuntime, RecordingDelivery, lift: Int64) {
        let log = ServiceLog()
        let delivery = RecordingDelivery(log: log)
        let source = ScriptedPanel("event5", log: log, pollDescriptor: 5)
        var settings = Self.settings(mode: .mouse)
        settings.pointerFling = true
        let runtime = try Self.runtime(source, delivery: delivery, settings: settings)
        let lift = Self.twoFingerScroll(source, at: 1_000_000, x: 300, y: 1000, byY: -400, steps: 8)
        _ = runtime.pump(now: 0)
        return (source, runtime, delivery, lift)
    }

    /// A fling goes on after the lift by the loop's timer alone: the device's wake-up is each tick's, the
    /// ticks are written as they come due, and once the fling stops the device needs no wake-up.
    @Test func aFlingIsDrivenByTheDevicesWakeUpsToItsStop() throws {
        let (source, runtime, delivery, lift) = try Self.flungScroll()
        defer { withExtendedLifetime(delivery) {} }
        let atLift = Self.wheelTicks(source.pointers.first).count
        #expect(atLift > 0, "the scroll itself turned the wheel")
        #expect(runtime.pointerWakeMicroseconds == lift + PointerSettings.flingTickMicroseconds)
        #expect(runtime.nextWakeMicroseconds == runtime.pointerWakeMicroseconds)
        var wakes = 0
        while let wake = runtime.nextWakeMicroseconds, wakes < 1000 {
            source.clock = wake
            _ = runtime.serveDue(now: wake)
            wakes += 1
        }
        let ticks = Self.wheelTicks(source.pointers.first).dropFirst(atLift)
        #expect(ticks.count > 10 && ticks.count == wakes, "\(ticks.count) ticks in \(wakes) wake-ups")
        #expect(ticks.first?.timeMicroseconds == lift + PointerSettings.flingTickMicroseconds)
        #expect(runtime.nextWakeMicroseconds == nil)
    }

    /// A fling stopped by what ends the pointer (the screen turned, passthrough turned off, the device
    /// unplugged) leaves no wake-up behind: the loop would otherwise be woken at once, for ever.
    @Test(arguments: ["turn", "reload-off", "unplug"])
    func aStoppedFlingLeavesNoWakeUp(how: String) throws {
        let (source, runtime, delivery, lift) = try Self.flungScroll()
        defer { withExtendedLifetime(delivery) {} }
        let tick = lift + PointerSettings.flingTickMicroseconds
        source.clock = tick
        _ = runtime.serveDue(now: tick)
        #expect(runtime.pointerWakeMicroseconds == tick + PointerSettings.flingTickMicroseconds, "flinging")
        switch how {
        case "turn": runtime.cancelPointer()
        case "unplug": runtime.close(.unplugged, monotonicNow: tick + 1_000)
        default: runtime.reload(DeviceSettings(passthrough: false), monotonicNow: tick + 1_000)
        }
        #expect(runtime.pointerWakeMicroseconds == nil)
        #expect(runtime.nextWakeMicroseconds == nil)
    }

    /// Hold claims the policy gives the device keep its holds from the pointer.
    @Test func aClaimedHoldIsNoClick() throws {
        let log = ServiceLog()
        // A runtime holds its delivery unowned: kept to the end of the test.
        let delivery = RecordingDelivery(log: log)
        defer { withExtendedLifetime(delivery) {} }
        let source = ScriptedPanel("event5", log: log, pollDescriptor: 5)
        let runtime = try Self.runtime(source, delivery: delivery, settings: Self.settings())
        runtime.holdClaims = [.normalized(x: 0...1, y: 0...1)]
        runtime.refreshPointer()
        source.land(at: 1_000_000)
        _ = runtime.pump(now: 0)
        _ = runtime.serveDue(now: 1_500_000)
        #expect(log.entries.contains("event5 hold begin"))
        #expect(source.pointers.first?.written.isEmpty == true)
    }
}
