// Devices: the adapters between the kernel's input devices and GestureCore.
//
// Interface (what the event loop calls; see docs/architecture.md, "Devices"):
//
//   final class EvdevDevice                       — one opened /dev/input/eventN, read through libevdev
//     init(path: String, grab: Bool = false, udevTouchscreen: Bool = false) throws(EvdevError)
//     let path: String; let fd: Int32 (non-blocking, for epoll); let description: DeviceDescription
//     func readAvailable(_ handler: (EvdevReadResult) -> Void) throws(EvdevError) -> Bool
//         one read(2) of what the node has now, returning true when it filled the buffer (read again: more
//         may wait); throws EvdevError.removed when the device is gone (ENODEV)
//   enum EvdevReadResult { case event(InputEvent), dropped(atMicroseconds: Int64) }
//         `dropped`: call GestureEngine.eventsDropped, then feed the `event`s that follow (libevdev's sync
//         of the device state) to process() as usual
//   enum EvdevError: permissionDenied / removed / notEvdevDevice / unsupported / ownPassthroughCopy /
//         grabFailed / system (`isPermissionDenied`, `errno`; the description tells the user what to do;
//         `ownPassthroughCopy`: a node whose phys starts with VirtualTouchscreen.physPrefix, never read)
//   enum EvdevTouchCheck { static func refusalReason(_:udevTouchscreen:) -> UnsupportedDeviceReason? }
//   enum UnsupportedDeviceReason: noPositionAxes / touchpad / tablet / notDeclaredDirect (its description
//         says why in words for the log)
//
//   final class UdevMonitor { init() throws(SystemError); let fd: Int32; func receive() -> UdevDeviceChange? }
//   struct UdevDeviceChange { action: .add/.remove/.change/.other(String); device: UdevInputDevice }
//   enum UdevDiscovery { static func touchscreens() / eventDevices() throws(SystemError) -> [UdevInputDevice];
//                        static func device(devnode:) throws(SystemError) -> UdevInputDevice? }
//   struct UdevInputDevice { devnode, syspath, name, properties; isTouchscreen, isTouchpad }
//   struct HotplugTracker — decides open/close/ignore for udev changes, retries a node that was not yet
//         readable (EACCES) on its next `change`, and says when a permission problem is worth logging (once).
import CLibevdev
import GestureCore
import Glibc
import SystemCalls
import PlainText

/// What one read from a device yields.
public enum EvdevReadResult: Equatable, Sendable {
    /// An event, in order. After `dropped`, the events are libevdev's resynchronisation of the device state
    /// (slots, tracking ids, positions), ending with a SYN_REPORT: feed them to the engine like any other.
    case event(InputEvent)
    /// The kernel's buffer overflowed (SYN_DROPPED) at this time: events were lost. Tell the engine
    /// (`GestureEngine.eventsDropped`) before feeding the events that follow.
    case dropped(atMicroseconds: Int64)
}

/// Why a device could not be opened or read.
public enum EvdevError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The node exists but the daemon may not read it (EACCES/EPERM). Just after a udev `add` this can be
    /// temporary: retry on the device's next `change` event.
    case permissionDenied(path: String, SystemError)
    /// The device is gone (ENODEV): drop it and cancel its gestures.
    case removed(path: String)
    /// The file is not an evdev device node.
    case notEvdevDevice(path: String, SystemError)
    /// An input device gestured does not handle (a touchpad, a keyboard, ...), and why.
    case unsupported(path: String, name: String, reason: UnsupportedDeviceReason)
    /// One of gestured's own passthrough copies (its phys says so): never read (expected, not a problem).
    case ownPassthroughCopy(path: String, name: String, phys: String)
    /// An exclusive grab (EVIOCGRAB) was asked for and failed.
    case grabFailed(path: String, SystemError)
    /// Any other failed call.
    case system(SystemError)

    public var path: String? {
        switch self {
        case .permissionDenied(let path, _), .removed(let path), .notEvdevDevice(let path, _),
            .unsupported(let path, _, _), .ownPassthroughCopy(let path, _, _), .grabFailed(let path, _):
            return path
        case .system(let error):
            return error.path
        }
    }

    /// The errno behind the error, where there is one.
    public var errno: Int32? {
        switch self {
        case .permissionDenied(_, let error), .notEvdevDevice(_, let error), .grabFailed(_, let error),
            .system(let error):
            return error.errno
        case .removed:
            return ENODEV
        case .unsupported, .ownPassthroughCopy:
            return nil
        }
    }

    /// What to do about `permissionDenied`.
    public static let permissionAdvice =
        "gestured needs read access to touchscreen event nodes: run it in group 'input' (the installed "
        + "gestured.service does), or, run by a person, give that user the touchscreens alone with a udev rule "
        + "(TAG+=\"uaccess\", docs/installation.md, \"Running as a user\"); joining 'input' would let the user read "
        + "every keyboard"

    public var isPermissionDenied: Bool {
        switch self {
        case .permissionDenied: return true
        case .removed, .notEvdevDevice, .unsupported, .ownPassthroughCopy, .grabFailed, .system: return false
        }
    }

    public var description: String {
        switch self {
        case .permissionDenied(let path, let error):
            return "cannot open \(path): \(error.message) (errno \(error.errno)). " + EvdevError.permissionAdvice
        case .removed(let path):
            return "\(path) was removed"
        case .notEvdevDevice(let path, let error):
            return "\(path) is not an evdev input device (\(error.operation): \(error.message), errno "
                + "\(error.errno)); name a /dev/input/eventN node"
        case .unsupported(let path, let name, let reason):
            return "ignoring \(path) (\"\(escapingControlCharacters(name))\"): \(reason)"
        case .ownPassthroughCopy(let path, let name, let phys):
            return "ignoring \(path) (\"\(escapingControlCharacters(name))\"): it is gestured's own passthrough copy of a panel (phys \(phys))"
        case .grabFailed(let path, let error):
            var text = "cannot grab \(path) exclusively (\(error.message), errno \(error.errno))"
            if error.errno == EBUSY {
                text += ": another program holds the grab; stop it or set grab = false for this device"
            }
            return text
        case .system(let error):
            return error.description
        }
    }
}

/// One opened evdev device node, read through libevdev. Single-threaded: owned by the event loop.
public final class EvdevDevice {
    public let path: String
    /// The non-blocking descriptor to watch for EPOLLIN. Owned by this object: closed when it goes away.
    public let fd: Int32
    /// What the device is, as GestureCore needs it.
    public let description: DeviceDescription
    /// Whether the device is grabbed exclusively (EVIOCGRAB).
    public private(set) var isGrabbed: Bool
    /// The device's `phys` (its physical path, e.g. "usb-0000:00:14.0-4/input0"), empty when it has none.
    public let phys: String

    /// The libevdev handle (`struct libevdev *`).
    private let handle: OpaquePointer
    /// What one `read(2)` of the node takes at most, in events: a frame of ten fingers is about 60, and a
    /// read that fills this is followed by another.
    static let readCapacityEvents = 256
    /// The buffer the node is read into, `readCapacityEvents` long, allocated once.
    private let readBuffer: UnsafeMutableBufferPointer<input_event>

    /// Opens `path` (O_RDONLY | O_NONBLOCK | O_CLOEXEC), reads its capabilities with libevdev, checks it is a
    /// direct-touch device and sets its event clock to CLOCK_MONOTONIC (the clock the event loop's timerfd
    /// uses). `udevTouchscreen` is udev's ID_INPUT_TOUCHSCREEN=1: it vouches for a touchscreen that does
    /// not declare INPUT_PROP_DIRECT. `grab` takes the device exclusively (EVIOCGRAB), hiding its events
    /// from every other reader, the compositor included.
    public init(path: String, grab: Bool = false, udevTouchscreen: Bool = false) throws(EvdevError) {
        let fd = try openEventNode(path)
        var handle: OpaquePointer?
        let rc = libevdev_new_from_fd(fd, &handle)
        guard rc >= 0, let handle else {
            SystemCall.close(fd)
            let error = SystemError(errno: -rc, operation: "libevdev_new_from_fd", path: path)
            switch -rc {
            case ENODEV: throw .removed(path: path)
            case ENOTTY, EINVAL: throw .notEvdevDevice(path: path, error)
            default: throw .system(error)
            }
        }
        // From here on, failures release both the handle and the descriptor.
        func fail(_ error: EvdevError) -> EvdevError {
            libevdev_free(handle)
            SystemCall.close(fd)
            return error
        }
        let description = EvdevDescription.describe(handle)
        let phys = libevdev_get_phys(handle).map { String(cString: $0) } ?? ""
        if phys.hasPrefix(VirtualTouchscreen.physPrefix) {
            throw fail(.ownPassthroughCopy(path: path, name: description.name, phys: phys))
        }
        if let reason = EvdevTouchCheck.refusalReason(description, udevTouchscreen: udevTouchscreen) {
            throw fail(.unsupported(path: path, name: description.name, reason: reason))
        }
        let clockRC = libevdev_set_clock_id(handle, CLOCK_MONOTONIC)
        if clockRC < 0 {
            throw fail(
                .system(SystemError(errno: -clockRC, operation: "libevdev_set_clock_id(CLOCK_MONOTONIC)", path: path)))
        }
        if grab {
            let grabRC = libevdev_grab(handle, LIBEVDEV_GRAB)
            if grabRC < 0 {
                let error = SystemError(errno: -grabRC, operation: "libevdev_grab", path: path)
                throw fail(-grabRC == ENODEV ? .removed(path: path) : .grabFailed(path: path, error))
            }
        }
        self.path = path
        self.fd = fd
        self.handle = handle
        self.description = description
        self.isGrabbed = grab
        self.phys = phys
        readBuffer = .allocate(capacity: EvdevDevice.readCapacityEvents)
    }

    /// What the panel has down and the values its slots hold, as libevdev sees the device: the kernel's
    /// state at open (libevdev reads every slot then), kept current by every event read since.
    public var panelState: PanelState { EvdevDevice.panelState(of: handle, description: description) }

    /// `panelState` of a libevdev handle (`libevdev_get_current_slot`, `libevdev_get_slot_value`,
    /// `libevdev_get_event_value`).
    static func panelState(of handle: OpaquePointer, description: DeviceDescription) -> PanelState {
        var state = PanelState()
        if case .multitouchSlots(let count) = description.touchProtocol {
            state.currentSlot = Int(libevdev_get_current_slot(handle))
            // ABS_MT_TOUCH_MAJOR (0x30) ... ABS_MT_TOOL_Y (0x3d), the tracking id among them.
            let codes = description.axes.keys.filter { $0 >= ABS.mtTouchMajor && $0 <= 0x3d && $0 != ABS.mtSlot }
            for slot in 0..<min(max(count, 0), FrameAssembler.maximumSlots) {
                var values: [UInt16: Int32] = [:]
                for code in codes { values[code] = libevdev_get_slot_value(handle, UInt32(slot), UInt32(code)) }
                state.slots.append(values)
            }
        }
        if description.keys.contains(BTN.touch) {
            state.touching = libevdev_get_event_value(handle, UInt32(EV_KEY), UInt32(BTN.touch)) != 0
        }
        if description.axes[ABS.x] != nil { state.x = libevdev_get_event_value(handle, UInt32(EV_ABS), UInt32(ABS.x)) }
        if description.axes[ABS.y] != nil { state.y = libevdev_get_event_value(handle, UInt32(EV_ABS), UInt32(ABS.y)) }
        return state
    }

    /// Takes or releases the exclusive grab (`libevdev_grab`, EVIOCGRAB) on the open device.
    public func setGrab(_ grab: Bool) throws(EvdevError) {
        guard grab != isGrabbed else { return }
        let rc = libevdev_grab(handle, grab ? LIBEVDEV_GRAB : LIBEVDEV_UNGRAB)
        if rc < 0 {
            let error = SystemError(errno: -rc, operation: grab ? "libevdev_grab" : "libevdev_grab(UNGRAB)", path: path)
            throw -rc == ENODEV ? .removed(path: path) : .grabFailed(path: path, error)
        }
        isGrabbed = grab
    }

    /// Runs `body` with the libevdev handle (for the virtual copy's template).
    func withHandle<T>(_ body: (OpaquePointer) -> T) -> T { body(handle) }

    deinit {
        if isGrabbed { _ = libevdev_grab(handle, LIBEVDEV_UNGRAB) }
        libevdev_free(handle)
        SystemCall.close(fd)
        readBuffer.deallocate()
    }

    /// Reads what the node has now with one `read(2)` and hands each event to `handler`, in order, as
    /// libevdev's own reads would: each event is applied to libevdev's view of the device with
    /// `libevdev_set_event_value`, which filters it as `libevdev_next_event` does (a code the device lacks,
    /// a tracking id that does not alternate with -1), so that view stays the state the engine was given.
    ///
    /// Returns true when the read filled the buffer (more may be waiting: call again), false when it did
    /// not: the device had nothing more when it was read, and no second read is made to find it empty, as
    /// draining through `libevdev_next_event` until -EAGAIN would (the descriptor is watched level-triggered:
    /// what arrives meanwhile wakes the loop again). The kernel hands out complete frames only, so a read
    /// that does not fill the buffer ends at a SYN_REPORT.
    ///
    /// At SYN_DROPPED the rest of the read is discarded, `dropped` is reported, and the device state is
    /// resynchronised through libevdev's sync mode (`LIBEVDEV_READ_FLAG_FORCE_SYNC`): it discards what is
    /// left in the kernel's buffer and hands out the difference between the state delivered so far and the
    /// kernel's, then the events that came since. Throws `.removed` on ENODEV.
    @discardableResult
    public func readAvailable(_ handler: (EvdevReadResult) -> Void) throws(EvdevError) -> Bool {
        let handle = self.handle, path = self.path, fd = self.fd
        let buffer = readBuffer
        return try EvdevReadLoop.readBatch(
            path: path, capacity: buffer.count,
            read: {
                let bytes: Int
                do throws(SystemError) {
                    switch try SystemCall.read(fd, into: UnsafeMutableRawBufferPointer(buffer)) {
                    case .bytes(let n): bytes = n
                    case .wouldBlock: return .failed(errno: EAGAIN)
                    case .endOfFile: return .events(0)
                    }
                } catch {
                    return .failed(errno: error.errno)
                }
                let size = MemoryLayout<input_event>.stride
                return bytes % size == 0 ? .events(bytes / size) : .failed(errno: EINVAL)
            },
            event: { index in EvdevDevice.inputEvent(buffer.baseAddress! + index) },
            accept: { event in EvdevDevice.applyAsLibevdevReads(event, to: handle) },
            resync: { () throws(EvdevError) in
                var raw = input_event()
                let rc = libevdev_next_event(handle, LIBEVDEV_READ_FLAG_FORCE_SYNC.rawValue, &raw)
                guard rc == EvdevReadLoop.statusSync else {
                    if rc == -ENODEV { throw .removed(path: path) }
                    throw .system(
                        SystemError(errno: rc < 0 ? -rc : EIO, operation: "libevdev_next_event(FORCE_SYNC)", path: path))
                }
                try EvdevReadLoop.drain(path: path, startingIn: .sync, handler: handler) { flags in
                    var raw = input_event()
                    let rc = libevdev_next_event(handle, flags.rawValue, &raw)
                    return (rc, EvdevDevice.inputEvent(&raw))
                }
            },
            handler: handler)
    }

    /// The kernel's `input_event` as GestureCore's `InputEvent` (its time in microseconds).
    private static func inputEvent(_ raw: UnsafePointer<input_event>) -> InputEvent {
        InputEvent(
            timeMicroseconds: Int64(gestured_input_event_microseconds(raw)),
            type: raw.pointee.type, code: raw.pointee.code, value: raw.pointee.value)
    }

    /// Applies an event read from the node to libevdev's view of the device, as `libevdev_next_event` does
    /// with each event it reads, and returns it as it is to be delivered (nil: libevdev would not deliver
    /// it). A slot number past the device's slots is capped to the last one, as libevdev does.
    static func applyAsLibevdevReads(_ event: InputEvent, to handle: OpaquePointer) -> InputEvent? {
        let type = UInt32(event.type), code = UInt32(event.code)
        switch event.type {
        case EV.abs, EV.key, EvdevDevice.evLED, EvdevDevice.evSW:
            var delivered = event
            if event.type == EV.abs && event.code == ABS.mtSlot {
                let slots = libevdev_get_num_slots(handle)
                if slots > 0 && (event.value < 0 || event.value >= slots) { delivered.value = slots - 1 }
            }
            return libevdev_set_event_value(handle, type, code, delivered.value) == 0 ? delivered : nil
        default:
            return libevdev_has_event_code(handle, type, code) != 0 ? event : nil
        }
    }

    /// EV_LED and EV_SW: event types whose state libevdev keeps besides EV_ABS and EV_KEY.
    private static let evLED: UInt16 = 0x11
    private static let evSW: UInt16 = 0x05
}

/// The read loop's logic, separate from libevdev so it can be tested with a scripted source.
public enum EvdevReadLoop {
    /// The libevdev read mode a call asks for.
    public enum Mode: Equatable, Sendable {
        case normal, sync

        var rawValue: UInt32 {
            switch self {
            case .normal: return LIBEVDEV_READ_FLAG_NORMAL.rawValue
            case .sync: return LIBEVDEV_READ_FLAG_SYNC.rawValue
            }
        }
    }

    /// LIBEVDEV_READ_STATUS_SUCCESS and LIBEVDEV_READ_STATUS_SYNC as `libevdev_next_event` returns them.
    public static let statusSuccess = Int32(LIBEVDEV_READ_STATUS_SUCCESS.rawValue)
    public static let statusSync = Int32(LIBEVDEV_READ_STATUS_SYNC.rawValue)

    /// One `read(2)` of a device node: how many events it gave, or the errno it failed with (EAGAIN: the
    /// device has none now).
    public enum NodeRead: Equatable, Sendable {
        case events(Int)
        case failed(errno: Int32)
    }

    /// The read path of a kernel device (`EvdevDevice.readAvailable`), with its system calls and libevdev
    /// calls passed in so that it can be tested with a scripted source: one `read` of up to `capacity`
    /// events; each event (`event(index)`) goes through `accept` (libevdev's view of the device updated, and
    /// its filter: nil drops the event) to `handler`. At a SYN_DROPPED the rest of the read is discarded,
    /// `dropped` is reported with the drop's time and `resync` hands out the device state. Returns true when
    /// the read filled the buffer (call again), false otherwise; EAGAIN is an empty read (false), ENODEV
    /// throws `.removed`, other errnos `.system`.
    public static func readBatch(
        path: String, capacity: Int, read: () -> NodeRead, event: (Int) -> InputEvent, accept: (InputEvent) -> InputEvent?,
        resync: () throws(EvdevError) -> Void, handler: (EvdevReadResult) -> Void
    ) throws(EvdevError) -> Bool {
        let count: Int
        switch read() {
        case .events(let n):
            count = n
        case .failed(let code):
            switch code {
            case EAGAIN, EWOULDBLOCK: return false
            case ENODEV: throw .removed(path: path)
            default: throw .system(SystemError(errno: code, operation: "read", path: path))
            }
        }
        for index in 0..<count {
            let e = event(index)
            if e.type == EV.syn && e.code == SYN.dropped {
                handler(.dropped(atMicroseconds: e.timeMicroseconds))
                try resync()
                return false
            }
            if let delivered = accept(e) { handler(.event(delivered)) }
        }
        return count >= capacity
    }

    /// Calls `next` (one `libevdev_next_event`: return code and event) until the device has nothing more,
    /// as libevdev documents it, starting in `mode` (`.sync` right after `LIBEVDEV_READ_FLAG_FORCE_SYNC`):
    /// - normal mode, SUCCESS: an event;
    /// - normal mode, SYNC: SYN_DROPPED was read; report `dropped` and switch to sync mode;
    /// - sync mode, SYNC: one event of the device-state delta; sync mode, -EAGAIN: the delta is complete,
    ///   back to normal mode;
    /// - normal mode, -EAGAIN: drained, return;
    /// - -ENODEV: the device is gone; -EINTR: call again; other negative values: thrown with their errno.
    public static func drain(
        path: String, startingIn mode: Mode = .normal, handler: (EvdevReadResult) -> Void,
        next: (Mode) -> (Int32, InputEvent)
    ) throws(EvdevError) {
        var mode = mode
        while true {
            let (rc, event) = next(mode)
            switch (mode, rc) {
            case (.normal, statusSuccess):
                handler(.event(event))
            case (.normal, statusSync):
                handler(.dropped(atMicroseconds: event.timeMicroseconds))
                mode = .sync
            case (.sync, statusSync):
                handler(.event(event))
            case (.sync, statusSuccess):
                // Not returned in sync mode by libevdev; an event is an event.
                handler(.event(event))
            case (.sync, -EAGAIN):
                mode = .normal
            case (.normal, -EAGAIN):
                return
            case (_, -EINTR):
                continue
            case (_, -ENODEV):
                throw .removed(path: path)
            case (_, let code):
                throw .system(SystemError(errno: code < 0 ? -code : EIO, operation: "libevdev_next_event", path: path))
            }
        }
    }
}

/// Opens an input event node for reading (O_RDONLY | O_NONBLOCK | O_CLOEXEC), the one way touchscreens and
/// pens are opened: EACCES/EPERM are `permissionDenied` (the message says which group grants it), a node
/// gone (ENODEV, ENXIO) is `removed`, anything else `system` with its errno.
func openEventNode(_ path: String) throws(EvdevError) -> Int32 {
    do {
        return try SystemCall.open(path, flags: O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    } catch {
        switch error.errno {
        case EACCES, EPERM: throw .permissionDenied(path: path, error)
        case ENODEV, ENXIO: throw .removed(path: path)
        default: throw .system(error)
        }
    }
}
