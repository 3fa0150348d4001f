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
        /// The slot's contact size (the `palmSize` axis), as the kernel last reported it for the slot.
        var size: Int32 = 0
        /// The contact reached the palm size: a palm until it lifts.
        var large = false
        /// A contact that ended in this slot since the last frame, reported as lifted (or lost).
        var endedSerial: UInt64 = 0
        var endedWasFinger = false
    }

    /// Most slots tracked (libevdev's own limit; real panels have 10 to 60).
    public static let maximumSlots = 256

    /// Replaced on a configuration reload; slots keep their raw state across it.
    public internal(set) var geometry: DeviceGeometry {
        didSet {
            xRange = geometry.xAxis.minimum...max(geometry.xAxis.minimum, geometry.xAxis.maximum)
            yRange = geometry.yAxis.minimum...max(geometry.yAxis.minimum, geometry.yAxis.maximum)
        }
    }
    private let singleTouch: Bool
    /// Every slot but the current one, whose state is `current` (its entry here is stale until
    /// `storeCurrent`): most events change the current slot, and a stored property changes in place where
    /// an array element costs a uniqueness check and a bounds check each time.
    private var slots: [Slot]
    /// The slot the next slot events apply to.
    public private(set) var currentSlot: Int = 0
    /// The state of slot `currentSlot` while `currentInRange` (the slot exists).
    private var current = Slot()
    private var currentInRange = true
    /// The range of each position axis, clamped to (kept here so that the clamp's test is two compares).
    private var xRange: ClosedRange<Int32>
    private var yRange: ClosedRange<Int32>
    /// The contact-size axis palms are told by (none: a code no event has) and the size that makes one.
    private var sizeAxis: UInt16 = .max
    private var palmUnits: Int32 = .max
    private var nextSerial: UInt64 = 1
    private var discarding = false
    private var warnedSlots: Set<Int> = []
    private var warnedClampAxes: Set<UInt16> = []

    /// The latest frame; valid after `process` returned `.frame`.
    public private(set) var frame = TouchFrame()
    /// Warnings raised since the caller last took them.
    public var warnings: [CoreWarning] = []

    /// Contacts at or above this size are palms (nil: the panel reports no contact size).
    public var palmSize: PalmSizeThreshold? {
        didSet {
            sizeAxis = palmSize?.axis ?? .max
            palmUnits = palmSize?.units ?? .max
        }
    }

    public init(geometry: DeviceGeometry, touchProtocol: TouchProtocol, palmSize: PalmSizeThreshold? = nil) {
        self.geometry = geometry
        self.palmSize = palmSize
        sizeAxis = palmSize?.axis ?? .max
        palmUnits = palmSize?.units ?? .max
        xRange = geometry.xAxis.minimum...max(geometry.xAxis.minimum, geometry.xAxis.maximum)
        yRange = geometry.yAxis.minimum...max(geometry.yAxis.minimum, geometry.yAxis.maximum)
        switch touchProtocol {
        case .multitouchSlots(let count):
            singleTouch = false
            // DeviceDescription.touchProtocol caps the count (a recording may declare 2^31 slots: allocating
            // them all would abort the process); the cap is kept here too, for a protocol made by hand.
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
        current = slots[0]
    }

    /// Writes the current slot's state back to `slots`.
    @inline(__always)
    private mutating func storeCurrent() {
        if currentInRange { slots[currentSlot] = current }
    }

    /// Makes `slot` the current one.
    private mutating func select(slot: Int) {
        storeCurrent()
        currentSlot = slot
        currentInRange = slots.indices.contains(slot)
        if currentInRange { current = slots[slot] }
    }

    /// The serial of the contact active in `slot` (slot 0 on a single-touch device), nil when the slot is
    /// empty or beyond the slots tracked. Palms and hovering contacts have serials too.
    public func contactSerial(inSlot slot: Int) -> UInt64? {
        guard slots.indices.contains(slot) else { return nil }
        let state = slot == currentSlot ? current : slots[slot]
        return state.active ? state.serial : nil
    }

    /// Feeds one event. Events are consumed in order; the frame is rebuilt at each SYN_REPORT.
    @inline(__always)
    public mutating func process(_ e: InputEvent) -> Outcome {
        // Most events move the current slot's contact, or are ones a multitouch device's frames carry
        // that change nothing here (ABS_X/ABS_Y, pressure, MSC_TIMESTAMP): they take the short way.
        if e.type == EV.abs && !singleTouch && !discarding && currentInRange {
            switch e.code {
            case ABS.mtPositionX:
                if xRange.contains(e.value) { current.x = e.value } else { current.x = clamp(e.value, xRange, code: e.code, time: e.timeMicroseconds) }
                return .pending
            case ABS.mtPositionY:
                if yRange.contains(e.value) { current.y = e.value } else { current.y = clamp(e.value, yRange, code: e.code, time: e.timeMicroseconds) }
                return .pending
            case ABS.mtSlot, ABS.mtTrackingID, ABS.mtToolType, ABS.mtDistance:
                break
            default:
                if e.code == sizeAxis { current.size = e.value }
                return .pending
            }
        } else if e.type == EV.msc && !discarding {
            return .pending
        }
        return processAny(e)
    }

    @inline(never)
    private mutating func processAny(_ e: InputEvent) -> Outcome {
        if discarding {
            if e.type == EV.syn && e.code == SYN.report {
                discarding = false
                // Whatever changed during the gap is unknown: the slots keep their last known state and
                // the next complete frame starts clean.
                storeCurrent()
                for i in slots.indices {
                    slots[i].endedSerial = 0
                    slots[i].endedWasFinger = false
                }
                if currentInRange { current = slots[currentSlot] }
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
                if e.value != 0 { begin(trackingID: 0) } else { end() }
            }
            return .pending
        default:
            return .pending
        }
    }

    // MARK: - Protocol B

    private mutating func handleMultitouchAxis(_ e: InputEvent) {
        if e.code == ABS.mtSlot {
            select(slot: Int(e.value))
            if !currentInRange && !warnedSlots.contains(currentSlot) {
                warnedSlots.insert(currentSlot)
                warnings.append(
                    CoreWarning(
                        timeMicroseconds: e.timeMicroseconds,
                        message: "slot \(currentSlot) is beyond the \(slots.count) slots the device declares; "
                            + "its events are ignored"))
            }
            return
        }
        guard currentInRange else { return }
        switch e.code {
        case ABS.mtTrackingID:
            if e.value < 0 {
                end()
            } else if !current.active || current.trackingID != e.value {
                if current.active { end() }
                begin(trackingID: e.value)
            }
        case ABS.mtPositionX:
            current.x = clamp(e.value, xRange, code: e.code, time: e.timeMicroseconds)
        case ABS.mtPositionY:
            current.y = clamp(e.value, yRange, code: e.code, time: e.timeMicroseconds)
        case ABS.mtToolType:
            current.toolType = e.value
        case ABS.mtDistance:
            current.distance = e.value
        case sizeAxis:
            current.size = e.value
        default:
            break
        }
    }

    // MARK: - Single touch

    private mutating func handleSingleTouchAxis(_ e: InputEvent) {
        switch e.code {
        case ABS.x: current.x = clamp(e.value, xRange, code: e.code, time: e.timeMicroseconds)
        case ABS.y: current.y = clamp(e.value, yRange, code: e.code, time: e.timeMicroseconds)
        default: break
        }
    }

    // MARK: - Contacts

    /// A contact begins in the current slot (slot 0 on a single-touch device).
    private mutating func begin(trackingID: Int32) {
        if current.active { return }
        current.active = true
        current.trackingID = trackingID
        current.serial = nextSerial
        current.kind = .finger
        current.large = false
        nextSerial &+= 1
    }

    /// The current slot's contact ends.
    private mutating func end() {
        guard current.active else { return }
        current.active = false
        current.trackingID = -1
        current.endedSerial = current.serial
        current.endedWasFinger = current.kind == .finger
    }

    @inline(never)
    private mutating func clamp(_ value: Int32, _ range: ClosedRange<Int32>, code: UInt16, time: Int64) -> Int32 {
        if range.contains(value) { return value }
        if !warnedClampAxes.contains(code) {
            warnedClampAxes.insert(code)
            warnings.append(
                CoreWarning(
                    timeMicroseconds: time,
                    message: "axis 0x\(String(code, radix: 16)) value \(value) is outside its range "
                        + "\(range.lowerBound)..\(range.upperBound); such values are clamped"))
        }
        return min(max(value, range.lowerBound), range.upperBound)
    }

    private mutating func buildFrame(time: Int64) {
        storeCurrent()
        frame.reset(time: time)
        // The slots are moved out while they are walked, so that one pointer reaches them all (an array
        // element written through `self` costs a uniqueness check each time).
        var all: [Slot] = []
        swap(&all, &slots)
        var fingers = 0
        all.withUnsafeMutableBufferPointer { slots in
            for i in slots.indices {
                if slots[i].endedSerial != 0 {
                    if slots[i].endedWasFinger { frame.lifted.append(slots[i].endedSerial) }
                    slots[i].endedSerial = 0
                }
                guard slots[i].active else { continue }
                // A contact that reached the palm size stays a palm until it lifts, as one the kernel
                // marks MT_TOOL_PALM is one while marked.
                if slots[i].size >= palmUnits { slots[i].large = true }
                let kind: ContactKind =
                    slots[i].toolType == MTTool.palm || slots[i].large
                    ? .palm : (slots[i].distance > 0 ? .hovering : .finger)
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
                frame.setContact(
                    fingers,
                    Contact(
                        serial: slots[i].serial, position: p, positionMM: geometry.millimetres(p),
                        devicePosition: DevicePoint(x: slots[i].x, y: slots[i].y)))
                fingers += 1
            }
        }
        swap(&all, &slots)
        frame.keepContacts(fingers)
        if currentInRange { current = slots[currentSlot] }
    }
}
