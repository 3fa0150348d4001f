import GestureCore
import GestureProtocol
import SystemCalls

/// What reading an input source yields, in order.
public enum InputReport: Equatable, Sendable {
    /// One evdev event, to feed to the device's engine.
    case event(InputEvent)
    /// Events were lost (SYN_DROPPED); the events that follow resynchronise the device state.
    case dropped(atMicroseconds: Int64)
    /// Gestures in flight are cancelled and the touch state forgotten at this event time, as if the device
    /// had been unplugged and plugged back in: a replay's pass has ended (a loop then starts the next).
    case reset(atMicroseconds: Int64)
    /// The panel's pens came into proximity or the last one left (a replay's recorded pen,
    /// `GestureEngine.penProximity`); live pens reach the engine through the hub (DevicePens.swift).
    case pen(inProximity: Bool, atMicroseconds: Int64)
}

/// What one read of a source yields: its events, and where among them a `dropped` or `reset` came. The
/// daemon keeps one and reuses its storage, and hands each run of events between breaks to the engine at
/// once (`GestureEngine.process(_:into:)` over a buffer), not one call per event.
public struct InputReports: Sendable {
    /// The events read are the first `eventCount` (the rest is storage kept from earlier reads, written
    /// over rather than emptied and refilled).
    private var storage: [InputEvent] = []
    private var eventCount = 0
    /// The reports that are not events (`dropped`, `reset`), each with the number of events before it.
    private var breaks: [(eventsBefore: Int, report: InputReport)] = []

    public init() {}

    public var isEmpty: Bool { eventCount == 0 && breaks.isEmpty }

    @inline(__always)
    public mutating func append(_ event: InputEvent) {
        if eventCount < storage.count { storage[eventCount] = event } else { storage.append(event) }
        eventCount += 1
    }

    /// Appends `events` with `offsetMicroseconds` added to their times (a replay's later passes).
    public mutating func append(_ events: UnsafeBufferPointer<InputEvent>, offsetMicroseconds: Int64) {
        let start = eventCount
        let needed = start + events.count
        if storage.count < needed {
            storage.append(contentsOf: repeatElement(InputEvent(timeMicroseconds: 0, type: 0, code: 0, value: 0), count: needed - storage.count))
        }
        storage.withUnsafeMutableBufferPointer { all in
            for i in events.indices {
                var e = events[i]
                e.timeMicroseconds &+= offsetMicroseconds
                all[start + i] = e
            }
        }
        eventCount = needed
    }

    public mutating func append(_ report: InputReport) {
        switch report {
        case .event(let e): append(e)
        case .dropped, .reset, .pen: breaks.append((eventCount, report))
        }
    }

    /// Empties it for the next read, keeping the storage.
    public mutating func removeAll() {
        eventCount = 0
        if !breaks.isEmpty { breaks.removeAll(keepingCapacity: true) }
    }

    /// Hands every run of events to `run` and every break to `breakReport`, in the order they were read.
    public func forEach(run: (UnsafeBufferPointer<InputEvent>) -> Void, breakReport: (InputReport) -> Void) {
        storage.withUnsafeBufferPointer { stored in
            let all = UnsafeBufferPointer(rebasing: stored[..<eventCount])
            var start = 0
            for (before, report) in breaks {
                if before > start { run(UnsafeBufferPointer(rebasing: all[start..<before])) }
                start = before
                breakReport(report)
            }
            if all.count > start { run(UnsafeBufferPointer(rebasing: all[start...])) }
        }
    }

    /// The reports one by one, in order.
    public var inOrder: [InputReport] {
        var reports: [InputReport] = []
        forEach(run: { for e in $0 { reports.append(.event(e)) } }, breakReport: { reports.append($0) })
        return reports
    }
}

/// Why a source stopped for good.
public struct InputSourceEnded: Error, Sendable, CustomStringConvertible {
    /// True when the device was unplugged (ENODEV), false for a failure.
    public var removed: Bool
    public var description: String
    public init(removed: Bool, _ description: String) {
        self.removed = removed
        self.description = description
    }
}

/// One device the daemon reads gestures from: a kernel input device (`EvdevInputSource`) or a replayed
/// recording (`ReplaySource`). Both go through the same path in the daemon: reports -> GestureEngine ->
/// clients; only the way they are woken and their clocks differ, and the daemon asks the source about
/// both rather than asking which kind it is.
public protocol InputSource: AnyObject {
    var description: DeviceDescription { get }
    /// What clients are told the device is (the `source` field of device objects).
    var source: DeviceSource { get }
    /// The device node or the recording file.
    var path: String { get }
    /// The udev device node the hotplug tracker follows for this source; nil for a source udev does not
    /// know (a replay).
    var hotplugNode: String? { get }
    /// A descriptor to watch for readability, or nil for a source woken only by `nextWakeMicroseconds`.
    var pollDescriptor: Int32? { get }
    /// When (CLOCK_MONOTONIC microseconds) the source wants `read` called without readiness; nil = never.
    var nextWakeMicroseconds: Int64? { get }
    /// Appends every report that is available (or due at `nowMicroseconds`) to `reports`, in order. Throws
    /// when the source has ended for good (the device was removed, or failed); what the read appended before
    /// (at most a resynchronisation cut short by the removal) is dropped with it: the device's gestures are
    /// cancelled and its copy's touches lifted when it is removed. The current time is asked
    /// for only by a source that hands out what is due (a replay): a kernel device reports what it has,
    /// stamped by the kernel, and its reads cost no clock read (a system call where the clock source is
    /// not the TSC, as in many virtual machines).
    ///
    /// Returns true when the read stopped with more perhaps waiting (a kernel device's read filled its
    /// buffer): the caller hands the gestures so far to its clients, then reads again. False: nothing more
    /// is available now.
    @discardableResult
    func read(nowMicroseconds: @autoclosure () -> Int64, into reports: inout InputReports) throws(InputSourceEnded) -> Bool
    /// The CLOCK_MONOTONIC time at which the source's event clock reads `eventMicroseconds` (identity for
    /// live devices, whose events libevdev stamps with CLOCK_MONOTONIC).
    func monotonicMicroseconds(forEventTime eventMicroseconds: Int64) -> Int64
    /// The source's event-clock time at CLOCK_MONOTONIC `monotonicMicroseconds`, for cancelling "now"
    /// (device removed, reload, shutdown): never before an event already reported nor after one still to
    /// come.
    func eventMicroseconds(forMonotonic monotonicMicroseconds: Int64) -> Int64

    // Passthrough: what the daemon needs to own the source's touches, asked of the source whatever it is.

    /// Takes (or releases) the source exclusively, so that only the daemon reads it (EVIOCGRAB); a source
    /// no other program reads (a replay) has nothing to take.
    func setGrab(_ grab: Bool) throws(EvdevError)
    /// A virtual copy of the source for its passthrough: the panel's name, ids, properties and axes.
    func makeVirtualCopy() throws(SystemError) -> any PassthroughCopy
    /// The virtual pointer beside the copy (touch that points): the panel's position axes, buttons, wheels.
    func makeVirtualPointer() throws(SystemError) -> any PassthroughCopy
    /// What the source has down now, and the values its slots hold (a kernel device's state, which its
    /// events only change); nil for a source that reports everything from the start (a replay).
    var panelState: PanelState? { get }
}

/// A kernel touchscreen read through libevdev (the devices adapter's `EvdevDevice`).
public final class EvdevInputSource: InputSource {
    public let device: EvdevDevice

    public init(_ device: EvdevDevice) { self.device = device }

    public var description: DeviceDescription { device.description }
    public var source: DeviceSource { .evdev }
    public var path: String { device.path }
    public var hotplugNode: String? { device.path }
    public var pollDescriptor: Int32? { device.fd }
    public var nextWakeMicroseconds: Int64? { nil }

    /// One `read(2)` a call: what the device has now (`EvdevDevice.readAvailable`), with no second read to
    /// find it empty.
    @discardableResult
    public func read(nowMicroseconds: @autoclosure () -> Int64, into reports: inout InputReports) throws(InputSourceEnded) -> Bool {
        do {
            return try device.readAvailable { result in
                switch result {
                case .event(let e): reports.append(e)
                case .dropped(let time): reports.append(.dropped(atMicroseconds: time))
                }
            }
        } catch {
            switch error {
            case .removed: throw InputSourceEnded(removed: true, "\(device.path) was removed")
            case .permissionDenied, .notEvdevDevice, .unsupported, .ownPassthroughCopy, .grabFailed, .system:
                throw InputSourceEnded(removed: false, error.description)
            }
        }
    }

    public func monotonicMicroseconds(forEventTime eventMicroseconds: Int64) -> Int64 { eventMicroseconds }
    public func eventMicroseconds(forMonotonic monotonicMicroseconds: Int64) -> Int64 { monotonicMicroseconds }

    public func setGrab(_ grab: Bool) throws(EvdevError) { try device.setGrab(grab) }

    public var panelState: PanelState? { device.panelState }

    /// The copy clones the open device through libevdev (every code it has, not only the description's).
    public func makeVirtualCopy() throws(SystemError) -> any PassthroughCopy {
        try VirtualTouchscreen(cloning: description, from: device, panelNode: device.path)
    }

    public func makeVirtualPointer() throws(SystemError) -> any PassthroughCopy {
        try VirtualPointer(panel: description, panelNode: device.path)
    }
}
