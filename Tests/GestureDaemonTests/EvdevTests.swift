import CLibevdev
import Foundation
import GestureCore
import SystemCalls
import Testing

@testable import GestureDaemon

/// Builds a libevdev handle with no file descriptor behind it (`libevdev_new` plus enabled codes), the way
/// a device's capabilities look after `libevdev_new_from_fd`.
private final class VirtualEvdev {
    let handle: OpaquePointer

    init(name: String, bus: Int32 = 0x18, vendor: Int32 = 0x04f3, product: Int32 = 0x2d4a, version: Int32 = 0x100) {
        handle = libevdev_new()!
        libevdev_set_name(handle, name)
        libevdev_set_id_bustype(handle, bus)
        libevdev_set_id_vendor(handle, vendor)
        libevdev_set_id_product(handle, product)
        libevdev_set_id_version(handle, version)
    }

    deinit { libevdev_free(handle) }

    /// The description `EvdevDevice` would build, with the handle kept alive for the call.
    func describe() -> DeviceDescription {
        withExtendedLifetime(self) { EvdevDescription.describe(handle) }
    }

    func property(_ property: Int32) {
        #expect(libevdev_enable_property(handle, UInt32(property)) == 0)
    }

    func axis(_ code: Int32, _ minimum: Int32, _ maximum: Int32, fuzz: Int32 = 0, resolution: Int32 = 0) {
        var info = input_absinfo(value: 0, minimum: minimum, maximum: maximum, fuzz: fuzz, flat: 0, resolution: resolution)
        #expect(libevdev_enable_event_code(handle, UInt32(EV_ABS), UInt32(code), &info) == 0)
    }

    func key(_ code: Int32) {
        #expect(libevdev_enable_event_code(handle, UInt32(EV_KEY), UInt32(code), nil) == 0)
    }

    /// A ten-finger protocol-B touchscreen, like most phones and tablets.
    static func touchscreen(direct: Bool = true) -> VirtualEvdev {
        let device = VirtualEvdev(name: "Elan Touchscreen")
        if direct { device.property(INPUT_PROP_DIRECT) }
        device.axis(ABS_X, 0, 1919, resolution: 12)
        device.axis(ABS_Y, 0, 1079, resolution: 12)
        device.axis(ABS_MT_SLOT, 0, 9)
        device.axis(ABS_MT_POSITION_X, 0, 1919, fuzz: 2, resolution: 12)
        device.axis(ABS_MT_POSITION_Y, 0, 1079, fuzz: 2, resolution: 12)
        device.axis(ABS_MT_TRACKING_ID, 0, 65535)
        device.key(BTN_TOUCH)
        return device
    }

    /// A clickpad: pointer and buttonpad properties, finger-count tool keys.
    static func touchpad() -> VirtualEvdev {
        let device = VirtualEvdev(name: "SYNA Touchpad", bus: 0x18, vendor: 0x06cb, product: 0xcd7d)
        device.property(INPUT_PROP_POINTER)
        device.property(INPUT_PROP_BUTTONPAD)
        device.axis(ABS_X, 0, 1200, resolution: 12)
        device.axis(ABS_Y, 0, 700, resolution: 12)
        device.axis(ABS_MT_SLOT, 0, 4)
        device.axis(ABS_MT_POSITION_X, 0, 1200, resolution: 12)
        device.axis(ABS_MT_POSITION_Y, 0, 700, resolution: 12)
        device.axis(ABS_MT_TRACKING_ID, 0, 65535)
        for key in [BTN_LEFT, BTN_TOUCH, BTN_TOOL_FINGER, BTN_TOOL_DOUBLETAP] { device.key(key) }
        return device
    }
}

@Suite struct EvdevDescriptionTests {
    @Test func describesATouchscreenFromLibevdev() {
        let device = VirtualEvdev.touchscreen()
        let description = device.describe()
        #expect(description == DeviceDescription(
            name: "Elan Touchscreen", busType: 0x18, vendor: 0x04f3, product: 0x2d4a, version: 0x100,
            properties: [INPUT_PROP.direct],
            axes: [
                ABS.x: AxisInfo(minimum: 0, maximum: 1919, resolution: 12),
                ABS.y: AxisInfo(minimum: 0, maximum: 1079, resolution: 12),
                ABS.mtSlot: AxisInfo(minimum: 0, maximum: 9),
                ABS.mtPositionX: AxisInfo(minimum: 0, maximum: 1919, fuzz: 2, resolution: 12),
                ABS.mtPositionY: AxisInfo(minimum: 0, maximum: 1079, fuzz: 2, resolution: 12),
                ABS.mtTrackingID: AxisInfo(minimum: 0, maximum: 65535),
            ],
            keys: [BTN.touch]))
        #expect(description.touchProtocol == .multitouchSlots(slotCount: 10))
        #expect(description.isDirect)
        #expect(description.vendorProduct == "04f3:2d4a")
        #expect(EvdevTouchCheck.refusalReason(description, udevTouchscreen: false) == nil)
    }

    @Test func describesEveryKeyAndHighCodes() {
        let device = VirtualEvdev(name: "keys")
        device.key(KEY_ESC)
        device.key(KEY_MAX)
        device.axis(ABS_MAX, -5, 5)
        let description = device.describe()
        #expect(description.keys == [UInt16(KEY_ESC), UInt16(KEY_MAX)])
        #expect(description.axes == [UInt16(ABS_MAX): AxisInfo(minimum: -5, maximum: 5)])
        #expect(description.properties.isEmpty)
    }
}

@Suite struct EvdevTouchCheckTests {
    @Test func refusesATouchpadSayingSo() throws {
        let description = VirtualEvdev.touchpad().describe()
        let reason = try #require(EvdevTouchCheck.refusalReason(description, udevTouchscreen: false))
        #expect(reason == .touchpad)
        #expect(reason.description.contains("touchpad") && reason.description.contains("libinput"))
    }

    @Test func acceptsAnIndirectlyDeclaredTouchscreenThatUdevVouchesFor() {
        let description = VirtualEvdev.touchscreen(direct: false).describe()
        #expect(EvdevTouchCheck.refusalReason(description, udevTouchscreen: true) == nil)
        let reason = EvdevTouchCheck.refusalReason(description, udevTouchscreen: false)
        #expect(reason == .notDeclaredDirect)
        #expect(reason?.description.contains("ID_INPUT_TOUCHSCREEN") == true)
    }

    @Test func refusesADeviceWithoutPositionAxesEvenIfTaggedATouchscreen() throws {
        let device = VirtualEvdev(name: "Power Button")
        device.key(KEY_POWER)
        let description = device.describe()
        let reason = try #require(EvdevTouchCheck.refusalReason(description, udevTouchscreen: true))
        #expect(reason == .noPositionAxes)
        #expect(reason.description.contains("no absolute X/Y axes"))
    }

    @Test func refusesAnIndirectPenTablet() throws {
        let device = VirtualEvdev(name: "Wacom Intuos Pen")
        device.axis(ABS_X, 0, 15200, resolution: 100)
        device.axis(ABS_Y, 0, 9500, resolution: 100)
        device.key(BTN_TOOL_PEN)
        device.key(BTN_TOUCH)
        let description = device.describe()
        let reason = try #require(EvdevTouchCheck.refusalReason(description, udevTouchscreen: false))
        #expect(reason == .tablet)
        #expect(reason.description.contains("tablet"))
    }
}

@Suite struct EvdevOpenTests {
    @Test func aMissingNodeIsAnErrorNamingPathAndErrno() {
        let path = "/nonexistent-gestured-test/event0"
        #expect(throws: EvdevError.system(SystemError(errno: ENOENT, operation: "open", path: path))) {
            _ = try EvdevDevice(path: path)
        }
        let error = EvdevError.system(SystemError(errno: ENOENT, operation: "open", path: path))
        #expect(error.description == "open \(path): No such file or directory (errno 2)")
        #expect(error.errno == ENOENT)
        #expect(!error.isPermissionDenied)
    }

    @Test func aRegularFileIsNotAnEvdevDevice() throws {
        let path = NSTemporaryDirectory() + "gestured-not-evdev-\(getpid())"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("hello".utf8)))
        defer { unlink(path) }
        do {
            _ = try EvdevDevice(path: path)
            Issue.record("opening a regular file as an evdev device succeeded")
        } catch {
            guard case .notEvdevDevice(let errorPath, let cause) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(errorPath == path)
            #expect(cause.errno == ENOTTY)
            #expect(cause.operation == "libevdev_new_from_fd")
            #expect(error.description.contains("is not an evdev input device"))
        }
    }

    @Test func aCharacterDeviceThatIsNotEvdevIsRefusedAndItsDescriptorClosed() throws {
        // Other tests run concurrently and open files too, so the check allows for them: a leak would add
        // one descriptor per failed open.
        let attempts = 500
        let before = try openDescriptorCount()
        for _ in 0..<attempts {
            #expect(throws: EvdevError.self) { _ = try EvdevDevice(path: "/dev/null") }
        }
        #expect(try openDescriptorCount() - before < attempts / 5)
    }

    @Test func permissionDeniedTellsTheUserWhatToDo() {
        let error = EvdevError.permissionDenied(
            path: "/dev/input/event4", SystemError(errno: EACCES, operation: "open", path: "/dev/input/event4"))
        #expect(error.isPermissionDenied)
        #expect(error.errno == EACCES)
        #expect(error.description.contains("group 'input'"))
        #expect(error.description.contains("udev rule"))
    }

    @Test func aBusyGrabSaysWhoToStop() {
        let error = EvdevError.grabFailed(
            path: "/dev/input/event4", SystemError(errno: EBUSY, operation: "libevdev_grab", path: "/dev/input/event4"))
        #expect(error.description.contains("another program holds the grab"))
    }

    private func openDescriptorCount() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
    }
}

/// A scripted `libevdev_next_event`: each call pops the next (return code, event) and records the mode.
private struct ScriptedSource {
    var script: [(Int32, InputEvent)]
    var modes: [EvdevReadLoop.Mode] = []

    mutating func next(_ mode: EvdevReadLoop.Mode) -> (Int32, InputEvent) {
        modes.append(mode)
        return script.isEmpty ? (-EAGAIN, InputEvent(timeMicroseconds: 0, type: 0, code: 0, value: 0)) : script.removeFirst()
    }
}

private func ev(_ time: Int64, _ type: UInt16, _ code: UInt16, _ value: Int32) -> InputEvent {
    InputEvent(timeMicroseconds: time, type: type, code: code, value: value)
}

private let none = InputEvent(timeMicroseconds: 0, type: 0, code: 0, value: 0)
private let success = EvdevReadLoop.statusSuccess
private let sync = EvdevReadLoop.statusSync

@Suite struct EvdevReadLoopTests {
    @Test func deliversEventsInOrderUntilTheDeviceIsDrained() throws {
        var source = ScriptedSource(script: [
            (success, ev(10, EV.abs, ABS.mtPositionX, 100)),
            (success, ev(10, EV.syn, SYN.report, 0)),
            (-EAGAIN, none),
            (success, ev(99, EV.abs, ABS.mtPositionX, 999)),  // not read: the loop stopped at EAGAIN
        ])
        var results: [EvdevReadResult] = []
        try EvdevReadLoop.drain(path: "/dev/input/event0", handler: { results.append($0) }, next: { source.next($0) })
        #expect(results == [.event(ev(10, EV.abs, ABS.mtPositionX, 100)), .event(ev(10, EV.syn, SYN.report, 0))])
        #expect(source.modes == [.normal, .normal, .normal])
    }

    @Test func aDropReportsItsTimeThenTheSyncedStateThenNormalEvents() throws {
        var source = ScriptedSource(script: [
            (success, ev(5, EV.abs, ABS.mtSlot, 0)),
            (sync, ev(20, EV.syn, SYN.dropped, 0)),
            (sync, ev(30, EV.abs, ABS.mtTrackingID, -1)),
            (sync, ev(30, EV.key, BTN.touch, 0)),
            (sync, ev(30, EV.syn, SYN.report, 0)),
            (-EAGAIN, none),  // the sync delta is complete
            (success, ev(40, EV.abs, ABS.mtTrackingID, 7)),
            (-EAGAIN, none),  // drained
        ])
        var results: [EvdevReadResult] = []
        try EvdevReadLoop.drain(path: "/dev/input/event0", handler: { results.append($0) }, next: { source.next($0) })
        #expect(results == [
            .event(ev(5, EV.abs, ABS.mtSlot, 0)),
            .dropped(atMicroseconds: 20),
            .event(ev(30, EV.abs, ABS.mtTrackingID, -1)),
            .event(ev(30, EV.key, BTN.touch, 0)),
            .event(ev(30, EV.syn, SYN.report, 0)),
            .event(ev(40, EV.abs, ABS.mtTrackingID, 7)),
        ])
        #expect(source.modes == [.normal, .normal, .sync, .sync, .sync, .sync, .normal, .normal])
    }

    @Test func aResynchronisationForcedByTheCallerStartsInSyncMode() throws {
        var source = ScriptedSource(script: [
            (sync, ev(30, EV.abs, ABS.mtTrackingID, -1)),
            (sync, ev(30, EV.syn, SYN.report, 0)),
            (-EAGAIN, none),  // the sync delta is complete
            (success, ev(40, EV.abs, ABS.mtPositionX, 5)),
            (success, ev(40, EV.syn, SYN.report, 0)),
            (-EAGAIN, none),
        ])
        var results: [EvdevReadResult] = []
        try EvdevReadLoop.drain(
            path: "/dev/input/event0", startingIn: .sync, handler: { results.append($0) }, next: { source.next($0) })
        #expect(results == [
            .event(ev(30, EV.abs, ABS.mtTrackingID, -1)), .event(ev(30, EV.syn, SYN.report, 0)),
            .event(ev(40, EV.abs, ABS.mtPositionX, 5)), .event(ev(40, EV.syn, SYN.report, 0)),
        ])
        #expect(source.modes == [.sync, .sync, .sync, .normal, .normal, .normal])
    }

    @Test func aDropWithAnEmptyDeltaReturnsToNormalMode() throws {
        var source = ScriptedSource(script: [(sync, ev(20, EV.syn, SYN.dropped, 0)), (-EAGAIN, none), (-EAGAIN, none)])
        var results: [EvdevReadResult] = []
        try EvdevReadLoop.drain(path: "/dev/input/event0", handler: { results.append($0) }, next: { source.next($0) })
        #expect(results == [.dropped(atMicroseconds: 20)])
        #expect(source.modes == [.normal, .sync, .normal])
    }

    @Test func enodevMeansTheDeviceWasRemoved() {
        var source = ScriptedSource(script: [(success, ev(1, EV.syn, SYN.report, 0)), (-ENODEV, none)])
        var results: [EvdevReadResult] = []
        #expect(throws: EvdevError.removed(path: "/dev/input/event3")) {
            try EvdevReadLoop.drain(path: "/dev/input/event3", handler: { results.append($0) }, next: { source.next($0) })
        }
        #expect(results == [.event(ev(1, EV.syn, SYN.report, 0))])
    }

    @Test func enodevDuringSyncAlsoMeansRemoved() {
        var source = ScriptedSource(script: [(sync, ev(1, EV.syn, SYN.dropped, 0)), (-ENODEV, none)])
        #expect(throws: EvdevError.removed(path: "/dev/input/event3")) {
            try EvdevReadLoop.drain(path: "/dev/input/event3", handler: { _ in }, next: { source.next($0) })
        }
    }

    @Test func eintrIsRetried() throws {
        var source = ScriptedSource(script: [(-EINTR, none), (success, ev(1, EV.syn, SYN.report, 0)), (-EAGAIN, none)])
        var results: [EvdevReadResult] = []
        try EvdevReadLoop.drain(path: "/dev/input/event0", handler: { results.append($0) }, next: { source.next($0) })
        #expect(results == [.event(ev(1, EV.syn, SYN.report, 0))])
    }

    @Test func otherErrorsCarryErrnoOperationAndPath() {
        var source = ScriptedSource(script: [(-EIO, none)])
        #expect(throws: EvdevError.system(SystemError(errno: EIO, operation: "libevdev_next_event", path: "/dev/input/event1"))) {
            try EvdevReadLoop.drain(path: "/dev/input/event1", handler: { _ in }, next: { source.next($0) })
        }
    }
}

/// Scripted reads of a device node for `EvdevReadLoop.readBatch`: each `read` pops the next batch.
private final class ScriptedNode {
    var reads: [EvdevReadLoop.NodeRead]
    var batches: [[InputEvent]]
    var current: [InputEvent] = []
    var readCalls = 0
    var accepted: [InputEvent] = []
    var resyncs = 0

    init(_ batches: [[InputEvent]], then tail: [EvdevReadLoop.NodeRead] = []) {
        self.batches = batches
        reads = batches.map { .events($0.count) } + tail
    }

    func read(
        capacity: Int, accept: @escaping (InputEvent) -> InputEvent? = { $0 }, resyncEvents: [EvdevReadResult] = [],
        into results: inout [EvdevReadResult]
    ) throws(EvdevError) -> Bool {
        var out: [EvdevReadResult] = []
        defer { results += out }
        return try EvdevReadLoop.readBatch(
            path: "/dev/input/event5", capacity: capacity,
            read: {
                readCalls += 1
                guard !reads.isEmpty else { return .failed(errno: EAGAIN) }
                let next = reads.removeFirst()
                if case .events = next, !batches.isEmpty { current = batches.removeFirst() }
                return next
            },
            event: { current[$0] },
            accept: { event in
                self.accepted.append(event)
                return accept(event)
            },
            resync: {
                self.resyncs += 1
                out += resyncEvents
            },
            handler: { out.append($0) })
    }
}

@Suite struct EvdevReadBatchTests {
    private let frame1 = [ev(10, EV.abs, ABS.mtSlot, 0), ev(10, EV.abs, ABS.mtPositionX, 100), ev(10, EV.syn, SYN.report, 0)]
    private let frame2 = [ev(20, EV.abs, ABS.mtPositionX, 110), ev(20, EV.syn, SYN.report, 0)]

    @Test func oneReadDeliversItsFramesInOrderAndNoSecondReadLooksForMore() throws {
        let node = ScriptedNode([frame1 + frame2])
        var results: [EvdevReadResult] = []
        #expect(try node.read(capacity: 256, into: &results) == false)
        #expect(results == (frame1 + frame2).map { .event($0) })
        #expect(node.readCalls == 1)
    }

    @Test func aReadThatFillsTheBufferAsksToBeCalledAgain() throws {
        let node = ScriptedNode([frame1, frame2])
        var results: [EvdevReadResult] = []
        #expect(try node.read(capacity: frame1.count, into: &results) == true)
        #expect(results == frame1.map { .event($0) })
        #expect(try node.read(capacity: frame1.count, into: &results) == false)
        #expect(results == (frame1 + frame2).map { .event($0) })
        #expect(node.readCalls == 2)
    }

    @Test func anEmptyReadIsNotAnError() throws {
        let node = ScriptedNode([])
        var results: [EvdevReadResult] = []
        #expect(try node.read(capacity: 256, into: &results) == false)
        #expect(results.isEmpty)
    }

    @Test func whatLibevdevWouldNotDeliverIsDroppedAndWhatItChangesIsDeliveredChanged() throws {
        let doubled = ev(10, EV.abs, ABS.mtTrackingID, 8)
        let node = ScriptedNode([[ev(10, EV.abs, ABS.mtSlot, 12), doubled, ev(10, EV.syn, SYN.report, 0)]])
        var results: [EvdevReadResult] = []
        _ = try node.read(
            capacity: 256,
            accept: { event in
                if event == doubled { return nil }
                var capped = event
                if event.code == ABS.mtSlot && event.type == EV.abs { capped.value = 9 }
                return capped
            }, into: &results)
        #expect(results == [.event(ev(10, EV.abs, ABS.mtSlot, 9)), .event(ev(10, EV.syn, SYN.report, 0))])
        #expect(node.accepted.count == 3)
    }

    @Test func aDropReportsItsTimeResynchronisesAndDiscardsTheRestOfTheRead() throws {
        let after = [ev(30, EV.abs, ABS.mtPositionX, 999), ev(30, EV.syn, SYN.report, 0)]
        let node = ScriptedNode([[ev(10, EV.abs, ABS.mtPositionX, 100), ev(25, EV.syn, SYN.dropped, 0)] + after])
        let synced: [EvdevReadResult] = [.event(ev(40, EV.abs, ABS.mtTrackingID, -1)), .event(ev(40, EV.syn, SYN.report, 0))]
        var results: [EvdevReadResult] = []
        #expect(try node.read(capacity: 4, resyncEvents: synced, into: &results) == false)
        #expect(results == [.event(ev(10, EV.abs, ABS.mtPositionX, 100)), .dropped(atMicroseconds: 25)] + synced)
        #expect(node.resyncs == 1)
        // Nothing after the drop reached libevdev's view of the device: the resynchronisation replaces it.
        #expect(node.accepted == [ev(10, EV.abs, ABS.mtPositionX, 100)])
    }

    @Test func readErrorsSayWhatHappened() {
        var results: [EvdevReadResult] = []
        #expect(throws: EvdevError.removed(path: "/dev/input/event5")) {
            try ScriptedNode([], then: [.failed(errno: ENODEV)]).read(capacity: 256, into: &results)
        }
        do {
            _ = try ScriptedNode([], then: [.failed(errno: EIO)]).read(capacity: 256, into: &results)
            Issue.record("an EIO read did not throw")
        } catch {
            guard case .system(let cause) = error else { Issue.record("not a system error: \(error)"); return }
            #expect(cause.errno == EIO)
            #expect(cause.operation == "read")
            #expect(cause.path == "/dev/input/event5")
        }
        #expect(results.isEmpty)
    }
}

/// `EvdevDevice.applyAsLibevdevReads` on a libevdev handle: the events libevdev's own reads deliver, and its
/// view of the device kept as they leave it (what a resynchronisation after SYN_DROPPED compares with).
@Suite struct EvdevStateMirrorTests {
    @Test func eventsUpdateLibevdevsViewOfTheDevice() {
        let device = VirtualEvdev.touchscreen()
        withExtendedLifetime(device) {
            let h = device.handle
            let frame = [
                ev(1, EV.abs, ABS.mtSlot, 3), ev(1, EV.abs, ABS.mtTrackingID, 42), ev(1, EV.abs, ABS.mtPositionX, 700),
                ev(1, EV.key, BTN.touch, 1), ev(1, EV.syn, SYN.report, 0),
            ]
            #expect(frame.map { EvdevDevice.applyAsLibevdevReads($0, to: h) } == frame.map { Optional($0) })
            #expect(libevdev_get_current_slot(h) == 3)
            #expect(libevdev_get_slot_value(h, 3, UInt32(ABS_MT_TRACKING_ID)) == 42)
            #expect(libevdev_get_slot_value(h, 3, UInt32(ABS_MT_POSITION_X)) == 700)
            #expect(libevdev_get_event_value(h, UInt32(EV_KEY), UInt32(BTN_TOUCH)) == 1)
        }
    }

    /// What the engine and the forwarder start from when the daemon opens a panel late: libevdev's view,
    /// the current slot and every slot's values included.
    @Test func thePanelStateIsLibevdevsView() {
        let device = VirtualEvdev.touchscreen()
        withExtendedLifetime(device) {
            let h = device.handle
            for e in [
                ev(1, EV.abs, ABS.mtSlot, 3), ev(1, EV.abs, ABS.mtTrackingID, 42), ev(1, EV.abs, ABS.mtPositionX, 700),
                ev(1, EV.abs, ABS.mtPositionY, 300), ev(1, EV.key, BTN.touch, 1), ev(1, EV.syn, SYN.report, 0),
            ] { _ = EvdevDevice.applyAsLibevdevReads(e, to: h) }
            let state = EvdevDevice.panelState(of: h, description: device.describe())
            #expect(state.currentSlot == 3)
            #expect(state.slots[3][ABS.mtTrackingID] == 42)
            #expect(state.slots[3][ABS.mtPositionX] == 700 && state.slots[3][ABS.mtPositionY] == 300)
            #expect(state.slots[0][ABS.mtTrackingID] == -1)
            #expect(state.touching && state.hasContacts)
        }
    }

    /// Issue 28, item 9: a live device whose ABS_MT_SLOT range is past the cap (a uinput device may declare
    /// 1024 slots, a driver anything) is followed on 256 slots: its description says 256, and the panel's
    /// state is read for 256, not for every slot it declares.
    @Test(arguments: [Int32(1023), Int32.max]) func aLiveDeviceWithTooManySlotsIsFollowedOnTheCap(maximum: Int32) {
        let device = VirtualEvdev(name: "Many Slots")
        device.property(INPUT_PROP_DIRECT)
        var info = input_absinfo(value: 0, minimum: 0, maximum: maximum, fuzz: 0, flat: 0, resolution: 0)
        // libevdev may refuse the range itself; what it keeps is what the daemon would see.
        _ = libevdev_enable_event_code(device.handle, UInt32(EV_ABS), UInt32(ABS_MT_SLOT), &info)
        device.axis(ABS_MT_POSITION_X, 0, 1919)
        device.axis(ABS_MT_POSITION_Y, 0, 1079)
        device.axis(ABS_MT_TRACKING_ID, 0, 65535)
        let description = device.describe()
        if let slot = description.axes[ABS.mtSlot], slot.maximum == maximum {
            #expect(description.touchProtocol == .multitouchSlots(slotCount: FrameAssembler.maximumSlots))
            let state = withExtendedLifetime(device) { EvdevDevice.panelState(of: device.handle, description: description) }
            #expect(state.slots.count == FrameAssembler.maximumSlots)
        }
        if case .multitouchSlots(let count) = description.touchProtocol { #expect(count <= FrameAssembler.maximumSlots) }
    }

    @Test func aTrackingIDThatDoesNotAlternateWithMinusOneIsNotDelivered() {
        let device = VirtualEvdev.touchscreen()
        withExtendedLifetime(device) {
            let h = device.handle
            _ = EvdevDevice.applyAsLibevdevReads(ev(1, EV.abs, ABS.mtSlot, 0), to: h)
            #expect(EvdevDevice.applyAsLibevdevReads(ev(1, EV.abs, ABS.mtTrackingID, 5), to: h) != nil)
            #expect(EvdevDevice.applyAsLibevdevReads(ev(2, EV.abs, ABS.mtTrackingID, 6), to: h) == nil)
            #expect(libevdev_get_slot_value(h, 0, UInt32(ABS_MT_TRACKING_ID)) == 5)
            #expect(EvdevDevice.applyAsLibevdevReads(ev(3, EV.abs, ABS.mtTrackingID, -1), to: h) != nil)
            #expect(EvdevDevice.applyAsLibevdevReads(ev(4, EV.abs, ABS.mtTrackingID, -1), to: h) == nil)
        }
    }

    @Test func aSlotPastTheLastIsCappedAndACodeTheDeviceLacksIsNotDelivered() {
        let device = VirtualEvdev.touchscreen()
        withExtendedLifetime(device) {
            let h = device.handle
            #expect(EvdevDevice.applyAsLibevdevReads(ev(1, EV.abs, ABS.mtSlot, 17), to: h) == ev(1, EV.abs, ABS.mtSlot, 9))
            #expect(libevdev_get_current_slot(h) == 9)
            // ABS_MT_PRESSURE is not one of this panel's axes.
            #expect(EvdevDevice.applyAsLibevdevReads(ev(1, EV.abs, ABS.mtPressure, 30), to: h) == nil)
            #expect(EvdevDevice.applyAsLibevdevReads(ev(1, EV.msc, MSC.timestamp, 30), to: h) == nil)
            #expect(EvdevDevice.applyAsLibevdevReads(ev(1, EV.syn, SYN.report, 0), to: h) == ev(1, EV.syn, SYN.report, 0))
        }
    }
}

/// Issue 22 item 8: a device's name is the device's to choose (a USB descriptor); in the journal line that
/// reports it, a newline in it cannot start a line of its own.
@Test func aDeviceNameCannotForgeAJournalLine() {
    let error = EvdevError.unsupported(path: "/dev/input/event7", name: "panel\n<3>forged\u{1b}[2J", reason: .noPositionAxes)
    #expect(!error.description.contains("\n") && !error.description.contains("\u{1b}"))
    #expect(error.description == "ignoring /dev/input/event7 (\"panel\\u{a}<3>forged\\u{1b}[2J\"): it has no absolute X/Y axes, so it is not a touch device")
}
