/// Turns the evdev event stream of one device into touch frames, one per SYN_REPORT.
///
/// Multitouch protocol B (slots and tracking ids) and single-touch devices (ABS_X/ABS_Y + BTN_TOUCH) are
/// supported. Protocol A devices are refused when the engine is made (see docs/gestures.md).
public struct FrameAssembler: Sendable {
    /// What one event did to the assembler.
    public enum Outcome: Equatable, Sendable {
        /// Nothing to act on yet (the event updated state for the next frame).
        case pending
        /// A SYN_REPORT completed a frame: read `frame`.
        case frame
        /// SYN_DROPPED: events were lost; everything up to the next SYN_REPORT is discarded.
        case dropped
    }

    private enum ContactKind {
        case finger, palm, hovering
    }

    private struct Slot {
        var active = false
        /// What the contact in this slot was at the last frame; only `.finger` contacts are fingers.
        var kind = ContactKind.finger
        /// ABS_MT_DISTANCE: above 0 the contact hovers over the surface.
        var distance: Int32 = 0
        var trackingID: Int32 = -1
        var serial: UInt64 = 0
        var x: Int32 = 0
        var y: Int32 = 0
        var toolType: Int32 = MTTool.finger
        /// A contact that ended in this slot since the last frame, reported as lifted (or lost).
        var endedSerial: UInt64 = 0
        var endedWasFinger = false
    }

    /// Most slots tracked (libevdev's own limit; real panels have 10 to 60).
    public static let maximumSlots = 256

    /// Replaced on a configuration reload; slots keep their raw state across it.
    public internal(set) var geometry: DeviceGeometry
    private let singleTouch: Bool
    private var slots: [Slot]
    /// The slot the next slot events apply to.
    public private(set) var currentSlot: Int = 0
    private var nextSerial: UInt64 = 1
    private var discarding = false
    private var warnedSlots: Set<Int> = []
    private var warnedClampAxes: Set<UInt16> = []

    /// The latest frame; valid after `process` returned `.frame`.
    public private(set) var frame = TouchFrame()
    /// Warnings raised since the caller last took them.
    public var warnings: [CoreWarning] = []

    public init(geometry: DeviceGeometry, touchProtocol: TouchProtocol) {
        self.geometry = geometry
        switch touchProtocol {
        case .multitouchSlots(let count):
            singleTouch = false
            // A description may declare up to 2^32 slots (ABS_MT_SLOT -2^31...2^31-1 in a recording):
            // allocating them all would abort the process, so slots past the cap are ignored like any
            // slot beyond the declared count.
            slots = Array(repeating: Slot(), count: min(max(1, count), FrameAssembler.maximumSlots))
        case .singleTouch, .multitouchProtocolA, .unusable:
            singleTouch = true
            slots = [Slot()]
        }
        // A contact whose first frame brings no position sits at the kernel's initial 0, clamped into the
        // axis range like every reported value (found by fuzzing: with a minimum above 0 it was off screen).
        let x0 = min(max(0, geometry.xAxis.minimum), geometry.xAxis.maximum)
        let y0 = min(max(0, geometry.yAxis.minimum), geometry.yAxis.maximum)
        for i in slots.indices {
            slots[i].x = x0
            slots[i].y = y0
        }
    }

    /// The serial of the contact active in `slot` (slot 0 on a single-touch device), nil when the slot is
    /// empty or beyond the slots tracked. Palms and hovering contacts have serials too.
    public func contactSerial(inSlot slot: Int) -> UInt64? {
        guard slots.indices.contains(slot), slots[slot].active else { return nil }
        return slots[slot].serial
    }

    /// Feeds one event. Events are consumed in order; the frame is rebuilt at each SYN_REPORT.
    public mutating func process(_ e: InputEvent) -> Outcome {
        if discarding {
            if e.type == EV.syn && e.code == SYN.report {
                discarding = false
                // Whatever changed during the gap is unknown: the slots keep their last known state and
                // the next complete frame starts clean.
                for i in slots.indices {
                    slots[i].endedSerial = 0
                    slots[i].endedWasFinger = false
                }
            }
            return .pending
        }
        switch e.type {
        case EV.syn:
            switch e.code {
            case SYN.report:
                buildFrame(time: e.timeMicroseconds)
                return .frame
            case SYN.dropped:
                discarding = true
                return .dropped
            default:
                return .pending
            }
        case EV.abs:
            if singleTouch {
                handleSingleTouchAxis(e)
            } else {
                handleMultitouchAxis(e)
            }
            return .pending
        case EV.key:
            if singleTouch && e.code == BTN.touch {
                if e.value != 0 { begin(slot: 0, trackingID: 0) } else { end(slot: 0) }
            }
            return .pending
        default:
            return .pending
        }
    }

    // MARK: - Protocol B

    private mutating func handleMultitouchAxis(_ e: InputEvent) {
        if e.code == ABS.mtSlot {
            currentSlot = Int(e.value)
            if !slots.indices.contains(currentSlot) && !warnedSlots.contains(currentSlot) {
                warnedSlots.insert(currentSlot)
                warnings.append(
                    CoreWarning(
                        timeMicroseconds: e.timeMicroseconds,
                        message: "slot \(currentSlot) is beyond the \(slots.count) slots the device declares; "
                            + "its events are ignored"))
            }
            return
        }
        guard slots.indices.contains(currentSlot) else { return }
        switch e.code {
        case ABS.mtTrackingID:
            if e.value < 0 {
                end(slot: currentSlot)
            } else if !slots[currentSlot].active || slots[currentSlot].trackingID != e.value {
                if slots[currentSlot].active { end(slot: currentSlot) }
                begin(slot: currentSlot, trackingID: e.value)
            }
        case ABS.mtPositionX:
            slots[currentSlot].x = clamp(e.value, geometry.xAxis, code: e.code, time: e.timeMicroseconds)
        case ABS.mtPositionY:
            slots[currentSlot].y = clamp(e.value, geometry.yAxis, code: e.code, time: e.timeMicroseconds)
        case ABS.mtToolType:
            slots[currentSlot].toolType = e.value
        case ABS.mtDistance:
            slots[currentSlot].distance = e.value
        default:
            break
        }
    }

    // MARK: - Single touch

    private mutating func handleSingleTouchAxis(_ e: InputEvent) {
        switch e.code {
        case ABS.x: slots[0].x = clamp(e.value, geometry.xAxis, code: e.code, time: e.timeMicroseconds)
        case ABS.y: slots[0].y = clamp(e.value, geometry.yAxis, code: e.code, time: e.timeMicroseconds)
        default: break
        }
    }

    // MARK: - Contacts

    private mutating func begin(slot: Int, trackingID: Int32) {
        if slots[slot].active { return }
        slots[slot].active = true
        slots[slot].trackingID = trackingID
        slots[slot].serial = nextSerial
        slots[slot].kind = .finger
        nextSerial &+= 1
    }

    private mutating func end(slot: Int) {
        guard slots[slot].active else { return }
        slots[slot].active = false
        slots[slot].trackingID = -1
        slots[slot].endedSerial = slots[slot].serial
        slots[slot].endedWasFinger = slots[slot].kind == .finger
    }

    private mutating func clamp(_ value: Int32, _ axis: AxisInfo, code: UInt16, time: Int64) -> Int32 {
        if value >= axis.minimum && value <= axis.maximum { return value }
        if !warnedClampAxes.contains(code) {
            warnedClampAxes.insert(code)
            warnings.append(
                CoreWarning(
                    timeMicroseconds: time,
                    message: "axis 0x\(String(code, radix: 16)) value \(value) is outside its range "
                        + "\(axis.minimum)..\(axis.maximum); such values are clamped"))
        }
        return min(max(value, axis.minimum), axis.maximum)
    }

    private mutating func buildFrame(time: Int64) {
        frame.reset(time: time)
        for i in slots.indices {
            if slots[i].endedSerial != 0 {
                if slots[i].endedWasFinger { frame.lifted.append(slots[i].endedSerial) }
                slots[i].endedSerial = 0
            }
            guard slots[i].active else { continue }
            let kind: ContactKind =
                slots[i].toolType == MTTool.palm ? .palm : (slots[i].distance > 0 ? .hovering : .finger)
            if kind != slots[i].kind {
                switch (slots[i].kind, kind) {
                case (.finger, .palm):
                    // A finger that turns into a palm is lost, not lifted: its gesture is cancelled.
                    frame.lost.append(slots[i].serial)
                case (.finger, .hovering):
                    // A finger that rises off the surface but stays in range has lifted.
                    frame.lifted.append(slots[i].serial)
                case (.palm, .finger), (.hovering, .finger):
                    // A palm or hovering contact that becomes a touching finger is a new finger.
                    slots[i].serial = nextSerial
                    nextSerial &+= 1
                case (.palm, .hovering), (.hovering, .palm), (.finger, .finger), (.palm, .palm), (.hovering, .hovering):
                    break
                }
                slots[i].kind = kind
            }
            if kind != .finger { continue }
            let p = geometry.normalised(rawX: slots[i].x, rawY: slots[i].y)
            frame.contacts.append(
                Contact(serial: slots[i].serial, position: p, positionMM: geometry.millimetres(p)))
        }
    }
}
