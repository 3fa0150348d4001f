// A pen's event node, read for its proximity alone (touch arbitration, docs/gestures.md "Pen and palm").
//
//   final class PenDevice
//     init(udev: UdevInputDevice) throws(EvdevError)   — opens the node read-only, never grabs it
//     let fd: Int32 (non-blocking, for epoll); udev: UdevInputDevice; name; vendorProduct
//     func read() throws(EvdevError) -> [(inProximity: Bool, atMicroseconds: Int64)]
//     var inProximity: Bool
import CLibevdev
import GestureCore
import Glibc
import PlainText
import SystemCalls

/// One pen device (udev's ID_INPUT_TABLET with BTN_TOOL_PEN or BTN_TOOL_RUBBER) the daemon reads for the
/// touchscreens it belongs with. It owns the pen's descriptor and its proximity (`PenProximity`, the
/// core's), and nothing else: the node is opened read-only and never grabbed, so libinput and the
/// compositor read the pen as before; the kernel is asked to queue only the two tool keys for this reader
/// (EVIOCSMASK), so a pen writing on the glass wakes the daemon at its proximity changes alone. Events are
/// stamped on CLOCK_MONOTONIC, the touchscreens' clock.
final class PenDevice {
    let udev: UdevInputDevice
    let fd: Int32
    /// The event loop's token for the descriptor (`Watch.pen`).
    var token: UInt64 = 0
    let name: String
    let vendorProduct: String
    /// The kernel queues only the tool keys for this reader (EVIOCSMASK took); without, every event is read
    /// and skipped.
    let masked: Bool
    private var proximity: PenProximity
    private let buffer: UnsafeMutableBufferPointer<input_event>
    /// After a SYN_DROPPED, the events up to the next SYN_REPORT are a frame cut short: skipped.
    private var skippingToReport = false
    /// What one read takes at most; with the mask a proximity change is three events.
    static let readCapacityEvents = 64

    /// Whether a pen that says it is near has stayed still too long (`PenStillness`).
    private var stillness = PenStillness()

    var path: String { udev.devnode }
    /// Near the glass, as arbitration takes it: its keys say so and it has not been still for 30 s.
    var inProximity: Bool { stillness.countsAsNear }
    /// When the pen, said to be near, is next sampled for stillness (CLOCK_MONOTONIC µs).
    var nextStillnessCheck: Int64? { stillness.nextCheck }

    /// Opens the pen's node (O_RDONLY | O_NONBLOCK | O_CLOEXEC): refused as `unsupported(.noPenTool)` when
    /// it has neither BTN_TOOL_PEN nor BTN_TOOL_RUBBER (a pad, a touch part of a tablet).
    init(udev: UdevInputDevice) throws(EvdevError) {
        let path = udev.devnode
        let fd = try openEventNode(path)
        func fail(_ operation: String) -> EvdevError {
            let code = errno
            SystemCall.close(fd)
            if code == ENODEV { return .removed(path: path) }
            if code == ENOTTY || code == EINVAL {
                return .notEvdevDevice(path: path, SystemError(errno: code, operation: operation, path: path))
            }
            return .system(SystemError(errno: code, operation: operation, path: path))
        }
        var nameBytes = [CChar](repeating: 0, count: 256)
        guard gestured_evdev_name(fd, &nameBytes, UInt32(nameBytes.count)) >= 0 else { throw fail("EVIOCGNAME") }
        let name = String(decoding: nameBytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var vendor: UInt16 = 0, product: UInt16 = 0
        guard gestured_evdev_ids(fd, &vendor, &product) >= 0 else { throw fail("EVIOCGID") }
        let hasPen = gestured_evdev_has_key(fd, UInt32(BTN.toolPen))
        let hasRubber = gestured_evdev_has_key(fd, UInt32(BTN.toolRubber))
        guard hasPen >= 0, hasRubber >= 0 else { throw fail("EVIOCGBIT(EV_KEY)") }
        guard hasPen == 1 || hasRubber == 1 else {
            SystemCall.close(fd)
            throw .unsupported(path: path, name: name, reason: .noPenTool)
        }
        guard gestured_evdev_set_clock(fd, CLOCK_MONOTONIC) >= 0 else { throw fail("EVIOCSCLOCKID") }
        masked = gestured_evdev_mask_keys(fd, UInt32(BTN.toolPen), UInt32(BTN.toolRubber)) >= 0
        // The state after the mask: a change from here on comes as events.
        let pen = gestured_evdev_key_down(fd, UInt32(BTN.toolPen))
        let rubber = gestured_evdev_key_down(fd, UInt32(BTN.toolRubber))
        guard pen >= 0, rubber >= 0 else { throw fail("EVIOCGKEY") }
        self.udev = udev
        self.fd = fd
        self.name = name
        self.vendorProduct = PenDevice.hex(vendor) + ":" + PenDevice.hex(product)
        proximity = PenProximity(pen: pen == 1, rubber: rubber == 1)
        buffer = .allocate(capacity: PenDevice.readCapacityEvents)
        stillness.proximity(near: proximity.inProximity, sample: motionSample(), now: SystemCall.monotonicMicroseconds())
    }

    /// Where the pen is now as the kernel keeps it (EVIOCGABS, whatever this reader's mask): position,
    /// pressure, distance and tilt; an axis the pen lacks reads 0.
    private func motionSample() -> [Int32] {
        [ABS.x, ABS.y, ABS.pressure, ABS.distance, ABS.tiltX, ABS.tiltY].map { Int32(gestured_evdev_abs_value(fd, UInt32($0))) }
    }

    /// Samples a pen said to be near, when its check is due (`nextStillnessCheck`): the new proximity when
    /// it changed (false: still for 30 s, it counts as gone; true: it moved again), nil otherwise.
    func checkStillness(now: Int64) -> Bool? {
        let before = inProximity
        switch stillness.check(motionSample(), now: now) {
        case .becameStill?:
            Log.warning(
                "pen \(path) \"\(escapingControlCharacters(name))\" says it is near the glass but has not moved for "
                    + "\(PenStillness.intervalMicroseconds * Int64(PenStillness.stillChecks) / 1_000_000) s (a pen lying on the screen's frame, "
                    + "or a tool key stuck down): touches are recognized again until it moves")
        case .movedAgain?:
            Log.info("pen \(path) moves again: touches are arbitrated with it")
        case nil:
            break
        }
        return inProximity != before ? inProximity : nil
    }

    deinit {
        SystemCall.close(fd)
        buffer.deallocate()
    }

    private static func hex(_ value: UInt16) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// Reads what the node has now (one `read(2)`; the descriptor is watched level-triggered) and returns
    /// the proximity changes it made, in order, each at its event's time. At SYN_DROPPED the tools' keys
    /// are read again from the kernel (EVIOCGKEY) and a change they make is reported at the drop's time.
    /// Throws `.removed` when the pen is gone (ENODEV).
    func read() throws(EvdevError) -> [(inProximity: Bool, atMicroseconds: Int64)] {
        let count: Int
        do {
            switch try SystemCall.read(fd, into: UnsafeMutableRawBufferPointer(buffer)) {
            case .bytes(let n): count = n / MemoryLayout<input_event>.stride
            case .wouldBlock, .endOfFile: return []
            }
        } catch {
            if error.errno == ENODEV { throw .removed(path: path) }
            throw .system(error)
        }
        var changes: [(inProximity: Bool, atMicroseconds: Int64)] = []
        for i in 0..<count {
            let time = Int64(gestured_input_event_microseconds(buffer.baseAddress! + i))
            let event = InputEvent(timeMicroseconds: time, type: buffer[i].type, code: buffer[i].code, value: buffer[i].value)
            if event.type == EV.syn && event.code == SYN.dropped {
                skippingToReport = true
                let pen = gestured_evdev_key_down(fd, UInt32(BTN.toolPen))
                let rubber = gestured_evdev_key_down(fd, UInt32(BTN.toolRubber))
                if pen < 0 || rubber < 0 {
                    if errno == ENODEV { throw .removed(path: path) }
                    throw .system(SystemError(errno: errno, operation: "EVIOCGKEY", path: path))
                }
                if let change = proximity.resynchronised(pen: pen == 1, rubber: rubber == 1) { changes.append((change, time)) }
                continue
            }
            if skippingToReport {
                if event.type == EV.syn && event.code == SYN.report { skippingToReport = false }
                continue
            }
            if let change = proximity.process(event) { changes.append((change, time)) }
        }
        return effective(changes)
    }

    /// The keys' proximity changes as arbitration takes them: each starts (or stops) the stillness
    /// sampling, and only those that change `inProximity` are reported (a still pen lifted away was already
    /// taken as gone).
    private func effective(_ changes: [(inProximity: Bool, atMicroseconds: Int64)]) -> [(inProximity: Bool, atMicroseconds: Int64)] {
        guard !changes.isEmpty else { return changes }
        var reported: [(inProximity: Bool, atMicroseconds: Int64)] = []
        for change in changes {
            if let near = stillness.proximity(near: change.inProximity, sample: motionSample(), now: SystemCall.monotonicMicroseconds()) {
                reported.append((near, change.atMicroseconds))
            }
        }
        return reported
    }

    /// The pen went (removed, or its read failed): out of proximity, nil when it was already.
    func lost() -> Bool? {
        _ = proximity.lost()
        return stillness.proximity(near: false, sample: [], now: 0)
    }
}
