import GestureConfig
import GestureCore
import GestureProtocol
import GestureVocabulary
import Glibc
import SystemCalls
import Testing

@testable import GestureDaemon

/// What the scripted devices of these tests did, in order: reads, grabs, copies made, gestures delivered.
final class ServiceLog {
    var entries: [String] = []
}

/// A copy that records what is written to it, or fails to be written to.
final class RecordingCopy: PassthroughCopy {
    var devnode: String? { "/dev/input/event99" }
    var syspath: String? { nil }
    private(set) var written: [[InputEvent]] = []
    var failsWrites = false

    func write(_ events: [InputEvent]) throws(SystemError) {
        if failsWrites { throw SystemError(errno: ENODEV, operation: "write", path: devnode) }
        written.append(events)
    }
}

/// A panel whose reads hand out what the test queues, on a clock the test sets: a live device (with a
/// descriptor to watch) or one woken at `nextWakeMicroseconds` (as a replay is).
final class ScriptedPanel: InputSource {
    static let panel = DeviceDescription(
        name: "Scripted Panel", busType: 0x18, vendor: 0x1234, product: 0x5678,
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

    let name: String
    let log: ServiceLog
    var description: DeviceDescription { ScriptedPanel.panel }
    var source: DeviceSource { .evdev }
    var path: String { "/dev/input/" + name }
    var hotplugNode: String? { nil }
    let pollDescriptor: Int32?
    /// What the next read hands out.
    var pending: [InputEvent] = []
    /// What a read hands out once it is due (CLOCK_MONOTONIC, as a replay's next event).
    private var scheduled: (at: Int64, events: [InputEvent])?
    var nextWakeMicroseconds: Int64? { scheduled?.at }
    /// The event clock "now" (for cancels and reconfigurations).
    var clock: Int64 = 0
    var grabbed = false
    var copyError: SystemError?
    private(set) var copies: [RecordingCopy] = []

    init(_ name: String, log: ServiceLog, pollDescriptor: Int32? = nil) {
        self.name = name
        self.log = log
        self.pollDescriptor = pollDescriptor
    }

    func read(nowMicroseconds: @autoclosure () -> Int64, into reports: inout InputReports) throws(InputSourceEnded) -> Bool {
        log.entries.append("\(name) read")
        if let scheduled, scheduled.at <= nowMicroseconds() {
            pending += scheduled.events
            self.scheduled = nil
        }
        for event in pending { reports.append(event) }
        pending.removeAll()
        return false
    }

    func monotonicMicroseconds(forEventTime eventMicroseconds: Int64) -> Int64 { eventMicroseconds }
    func eventMicroseconds(forMonotonic monotonicMicroseconds: Int64) -> Int64 { clock }

    func setGrab(_ grab: Bool) throws(EvdevError) {
        grabbed = grab
        log.entries.append("\(name) grab \(grab)")
    }

    func makeVirtualCopy() throws(SystemError) -> any PassthroughCopy {
        if let copyError { throw copyError }
        let copy = RecordingCopy()
        copies.append(copy)
        return copy
    }

    var panelState: PanelState? { nil }

    /// Queues a frame at `time`: the finger in slot 0 lands at (x, y) in device units.
    func land(at time: Int64, x: Int32 = 500, y: Int32 = 800) {
        pending += [
            InputEvent(timeMicroseconds: time, type: EV.abs, code: ABS.mtSlot, value: 0),
            InputEvent(timeMicroseconds: time, type: EV.abs, code: ABS.mtTrackingID, value: 7),
            InputEvent(timeMicroseconds: time, type: EV.abs, code: ABS.mtPositionX, value: x),
            InputEvent(timeMicroseconds: time, type: EV.abs, code: ABS.mtPositionY, value: y),
            InputEvent(timeMicroseconds: time, type: EV.key, code: BTN.touch, value: 1),
            InputEvent(timeMicroseconds: time, type: EV.syn, code: SYN.report, value: 0),
        ]
        clock = time
    }

    /// Schedules a frame at `time` in which the finger in slot 0 lands, for the read due then.
    func schedule(landingAt time: Int64) {
        let queued = pending
        pending = []
        land(at: time)
        scheduled = (time, pending)
        pending = queued
    }

    /// Queues a frame at `time`: the finger in slot 0 lifts.
    func lift(at time: Int64) {
        pending += [
            InputEvent(timeMicroseconds: time, type: EV.abs, code: ABS.mtTrackingID, value: -1),
            InputEvent(timeMicroseconds: time, type: EV.key, code: BTN.touch, value: 0),
            InputEvent(timeMicroseconds: time, type: EV.syn, code: SYN.report, value: 0),
        ]
        clock = time
    }
}

/// A delivery that records what a device hands it.
final class RecordingDelivery: DeviceDelivery {
    let log: ServiceLog
    private(set) var notifications: [ServerMessage] = []
    init(log: ServiceLog) { self.log = log }

    func publish(_ event: GestureEvent, audience: GestureAudience, from device: @autoclosure () -> DeviceInfo) {
        log.entries.append("\(device().id) \(event.kind) \(event.phase)")
    }

    func deviceAdded(_ device: PolicyDevice, devices: DeviceRequests) { notifications.append(.deviceAdded(device.info)) }
    func deviceChanged(_ device: PolicyDevice, before: DeviceInfo, devices: DeviceRequests?) {
        if device.info != before { notifications.append(.deviceChanged(device.info)) }
    }
    func deviceRemoved(_ info: DeviceInfo, devices: DeviceRequests) { notifications.append(.deviceRemoved(info)) }
    func explain(_ explanation: Explanation, from device: DeviceInfo) {
        log.entries.append("\(device.id) explanation of \(explanation.fingers.count) finger(s)")
    }
    var connectedClients: Int { 0 }
}

@Suite struct DeviceRuntimeTests {
    static func runtime(
        _ source: ScriptedPanel, delivery: RecordingDelivery, passthrough: Bool = false, retiring: RetiringCopies = RetiringCopies()
    ) throws -> DeviceRuntime {
        let settings = DeviceSettings(passthrough: passthrough)
        let engine = try GestureEngine(device: source.description, settings: settings.recognizer, geometry: settings.geometry)
        let info = DeviceInfo(
            id: source.name, name: source.description.name, vendorProduct: source.description.vendorProduct, path: source.path,
            source: .evdev, slots: 10)
        let runtime = DeviceRuntime(
            token: 1, info: info, source: source, paths: [source.path], settings: settings, engine: engine,
            delivery: delivery, retiringCopies: retiring)
        if passthrough { runtime.switchPassthrough(.opened) }
        return runtime
    }

    static func isOn(_ state: PassthroughState) -> Bool {
        if case .on = state { return true } else { return false }
    }

    @Test func aReloadTurningPassthroughOnUnderAFingerWaitsForTheLift() throws {
        let log = ServiceLog()
        let delivery = RecordingDelivery(log: log)
        let source = ScriptedPanel("event5", log: log, pollDescriptor: 5)
        let runtime = try Self.runtime(source, delivery: delivery)
        source.land(at: 1_000_000)
        _ = runtime.pump(now: 0)
        runtime.reload(DeviceSettings(passthrough: true), monotonicNow: 1_010_000)
        // A finger is down: no grab, no copy, the engine does not withhold yet.
        guard case .turningOn = runtime.passthrough else {
            Issue.record("passthrough is \(runtime.passthrough), not waiting for the lift")
            return
        }
        #expect(!source.grabbed && source.copies.isEmpty)
        #expect(!runtime.engine.settings.withholdsTouches)
        #expect(runtime.info.virtualPath == nil)
        source.lift(at: 1_050_000)
        _ = runtime.pump(now: 0)
        // The lift: grabbed, copied, withholding; clients told the copy's node.
        #expect(Self.isOn(runtime.passthrough))
        #expect(source.grabbed && source.copies.count == 1)
        #expect(runtime.engine.settings.withholdsTouches)
        #expect(runtime.info.virtualPath == "/dev/input/event99")
        #expect(delivery.notifications.count == 1)
        // The next touch goes through the copy.
        source.land(at: 2_000_000)
        _ = runtime.pump(now: 0)
        #expect(source.copies.first?.written.isEmpty == false)
    }

    @Test func aDeviceOpenedUnderAFingerStartsPassthroughAtTheLift() throws {
        let log = ServiceLog()
        let delivery = RecordingDelivery(log: log)
        let source = ScriptedPanel("event5", log: log, pollDescriptor: 5)
        let runtime = try Self.runtime(source, delivery: delivery)
        source.land(at: 1_000_000)
        _ = runtime.pump(now: 0)
        runtime.switchPassthrough(.opened)
        guard case .turningOn = runtime.passthrough else {
            Issue.record("passthrough is \(runtime.passthrough), not waiting for the lift")
            return
        }
        source.lift(at: 1_050_000)
        _ = runtime.pump(now: 0)
        #expect(Self.isOn(runtime.passthrough))
        #expect(log.entries.contains("event5 grab true"))
    }

    @Test func aReloadTurningPassthroughOffUnderAFingerKeepsForwardingUntilTheLift() throws {
        let log = ServiceLog()
        let delivery = RecordingDelivery(log: log)
        let source = ScriptedPanel("event5", log: log, pollDescriptor: 5)
        let retiring = RetiringCopies()
        let runtime = try Self.runtime(source, delivery: delivery, passthrough: true, retiring: retiring)
        #expect(Self.isOn(runtime.passthrough) && source.grabbed)
        source.land(at: 1_000_000)
        _ = runtime.pump(now: 0)
        runtime.reload(DeviceSettings(passthrough: false), monotonicNow: 1_010_000)
        guard case .turningOff = runtime.passthrough else {
            Issue.record("passthrough is \(runtime.passthrough), not waiting for the lift")
            return
        }
        #expect(source.grabbed && retiring.count == 0)
        // A reload that asks for it again before the lift keeps it on, copy and all.
        runtime.reload(DeviceSettings(passthrough: true), monotonicNow: 1_020_000)
        #expect(Self.isOn(runtime.passthrough))
        runtime.reload(DeviceSettings(passthrough: false), monotonicNow: 1_030_000)
        source.lift(at: 1_050_000)
        _ = runtime.pump(now: 0)
        guard case .off = runtime.passthrough else {
            Issue.record("passthrough is \(runtime.passthrough) after the lift")
            return
        }
        #expect(!source.grabbed && retiring.count == 1 && source.copies.count == 1)
        #expect(!runtime.engine.settings.withholdsTouches)
        #expect(runtime.info.virtualPath == nil)
    }

    @Test func aCopyThatCannotBeMadeIsTheFailedStateWithItsReason() throws {
        let log = ServiceLog()
        let delivery = RecordingDelivery(log: log)
        let source = ScriptedPanel("event5", log: log, pollDescriptor: 5)
        let denied = SystemError(errno: EACCES, operation: "open", path: VirtualTouchscreen.uinputPath)
        source.copyError = denied
        let runtime = try Self.runtime(source, delivery: delivery, passthrough: true)
        guard case .failed(.cannotCreateCopy(let error)) = runtime.passthrough else {
            Issue.record("passthrough is \(runtime.passthrough)")
            return
        }
        #expect(error == denied)
        #expect(!source.grabbed && !runtime.engine.settings.withholdsTouches && runtime.info.virtualPath == nil)
        // A reload asking again tries again.
        source.copyError = nil
        runtime.reload(DeviceSettings(passthrough: true), monotonicNow: 1_000_000)
        #expect(Self.isOn(runtime.passthrough) && source.grabbed)
    }

    @Test func aWriteThatFailsIsTheFailedStateAndReleasesThePanel() throws {
        let log = ServiceLog()
        let delivery = RecordingDelivery(log: log)
        let source = ScriptedPanel("event5", log: log, pollDescriptor: 5)
        let runtime = try Self.runtime(source, delivery: delivery, passthrough: true)
        source.copies.first?.failsWrites = true
        source.land(at: 1_000_000)
        _ = runtime.pump(now: 0)
        guard case .failed(.writeFailed) = runtime.passthrough else {
            Issue.record("passthrough is \(runtime.passthrough)")
            return
        }
        #expect(!source.grabbed && !runtime.engine.settings.withholdsTouches && runtime.info.virtualPath == nil)
    }

    @Test func closingADeviceInPassthroughRetiresItsCopy() throws {
        let log = ServiceLog()
        let delivery = RecordingDelivery(log: log)
        let source = ScriptedPanel("event5", log: log, pollDescriptor: 5)
        let retiring = RetiringCopies()
        let runtime = try Self.runtime(source, delivery: delivery, passthrough: true, retiring: retiring)
        source.land(at: 1_000_000)
        _ = runtime.pump(now: 0)
        runtime.close(.unplugged, monotonicNow: 1_100_000)
        guard case .off = runtime.passthrough else {
            Issue.record("passthrough is \(runtime.passthrough)")
            return
        }
        #expect(retiring.count == 1 && !source.grabbed)
    }
}
