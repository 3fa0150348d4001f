import GestureCore
import GestureVocabulary
import PlainText

/// Touch ownership for a passthrough device (docs/architecture.md, "Passthrough"): from the panel's raw
/// events and the recognizer's `TouchDecision`s, the events to write to the panel's virtual copy.
///
/// A value with no I/O, shared by the daemon (which writes the events to uinput in the loop iteration that
/// read the frame) and `gesturectl replay --forward` (which writes them to an evemu file).
///
/// Frame by frame, at each SYN_REPORT:
/// - a frame whose contacts are all delivered, while the virtual device mirrors the panel, is written as it
///   came (the fast path: the same events, in the same order);
/// - otherwise the frame written brings the virtual device from what it has to what it should have:
///   delivered contacts as the panel has them, withheld and claimed contacts absent. BTN_TOUCH, BTN_TOOL_*
///   and ABS_X/ABS_Y/ABS_PRESSURE follow the contacts delivered; other events (MSC_TIMESTAMP, ...) pass;
/// - a released contact first gets a frame with its landing, then the frame with its current state;
/// - a claimed contact that was delivered gets `ABS_MT_TOOL_TYPE = MT_TOOL_PALM` in a frame of its own,
///   then its lift (tracking id -1) in the next, which libinput (1.12+) reports as a touch cancel.
///
/// Nothing is ever left down: `finish` cancels whatever the virtual device has down (device removed,
/// daemon stopping, passthrough turned off), and after SYN_DROPPED the next frame is rebuilt from state.
///
/// Only multitouch protocol B panels are supported (single-touch and protocol A panels are refused by
/// `init`).
public struct TouchForwarder: Sendable {
    /// Why a device cannot be forwarded.
    public struct UnsupportedError: Error, Equatable, Sendable, CustomStringConvertible {
        public var deviceName: String
        public var description: String {
            "\(escapingControlCharacters(deviceName)): passthrough needs a multitouch protocol B panel (slots); this one is not, so its "
                + "touches are read but not forwarded: remove passthrough = true for it"
        }
    }

    /// What happens to the contact in a slot.
    private enum Ownership: Equatable, Sendable {
        /// Delivered live (the default for every contact).
        case delivered
        /// Held back until the recognizer decides.
        case withheld
        /// A system gesture's: nothing more of it is delivered.
        case claimed
    }

    /// ABS_MT_* codes whose values a slot holds: ABS_MT_TOUCH_MAJOR (0x30) ... ABS_MT_TOOL_Y (0x3d), less
    /// ABS_MT_TRACKING_ID, which is kept apart.
    private static let firstValueCode: UInt16 = 0x30
    private static let valueCount = SlotValues.count
    private static let unknown = Int32.min

    /// BTN_TOOL_FINGER, _DOUBLETAP, _TRIPLETAP, _QUADTAP, _QUINTTAP: the tool keys of 1...5 contacts.
    public static let fingerCountKeys: [UInt16] = [0x145, 0x14d, 0x14e, 0x14f, 0x148]

    /// The events that mirror the contacts rather than being contacts (recomputed on frames that differ
    /// from the panel's).
    private static func isLegacy(_ e: InputEvent) -> Bool {
        switch e.type {
        case EV.key: return e.code == BTN.touch || fingerCountKeys.contains(e.code)
        case EV.abs: return e.code == ABS.x || e.code == ABS.y || e.code == ABS.pressure
        default: return false
        }
    }

    /// The device the virtual copy is: the panel with ABS_MT_TOOL_TYPE (MT_TOOL_FINGER...MT_TOOL_PALM)
    /// added when it lacks it, or widened to MT_TOOL_PALM when it stops short (pens and fingers only),
    /// since cancelling a touch needs it; and with ABS_MT_SLOT 0...N-1 for the N slots it follows.
    public static func virtualDescription(of device: DeviceDescription) -> DeviceDescription {
        var copy = device
        // The copy has the slots the forwarder follows, not a declared count past the cap (the kernel refuses
        // a uinput device of more than 1024 slots).
        if case .multitouchSlots(let count) = device.touchProtocol, var slot = copy.axes[ABS.mtSlot] {
            slot.minimum = 0
            slot.maximum = Int32(count - 1)
            copy.axes[ABS.mtSlot] = slot
        }
        if var tool = copy.axes[ABS.mtToolType] {
            tool.maximum = max(tool.maximum, MTTool.palm)
            copy.axes[ABS.mtToolType] = tool
        } else {
            copy.axes[ABS.mtToolType] = AxisInfo(minimum: MTTool.finger, maximum: MTTool.palm)
        }
        return copy
    }

    public let device: DeviceDescription
    private let slotCount: Int
    private let legacyKeys: [UInt16]
    private let hasAbsX: Bool
    private let hasAbsY: Bool
    private let hasAbsPressure: Bool

    /// Everything about one slot: the panel's contact, what the copy shows of it, and what happened to it
    /// in the frame being written.
    private struct Slot {
        // The panel, as of the last SYN_REPORT.
        var panelTracking: Int32 = -1
        var panelValues = SlotValues(repeating: TouchForwarder.unknown)
        /// The contact's values at the end of its first frame (its landing).
        var landingValues = SlotValues(repeating: TouchForwarder.unknown)
        var ownership = Ownership.delivered
        /// Serial of the contact as of the last frame, 0 for none.
        var serial: UInt64 = 0

        // The virtual device, as written.
        var virtualTracking: Int32 = -1
        var virtualValues = SlotValues(repeating: TouchForwarder.unknown)

        // This frame only (`clearFrame`).
        /// A contact began in the slot.
        var began = false
        /// A contact that ended in the slot: its serial (0 for none), tracking id and ownership.
        var endedSerial: UInt64 = 0
        var endedTracking: Int32 = -1
        var endedOwnership = Ownership.delivered
        var release = Release.none
        /// A delivered contact is cancelled now.
        var cancelNow = false

        mutating func clearFrame() {
            began = false
            endedSerial = 0
            release = .none
            cancelNow = false
        }
    }

    private var slots: [Slot]
    private var panelSlot = 0
    /// The panel's own BTN_TOUCH, BTN_TOOL_*, ABS_X/Y/PRESSURE (code | type << 16 -> value).
    private var panelLegacy: [UInt32: Int32] = [:]
    private var virtualSlot = -1
    private var virtualLegacy: [UInt32: Int32] = [:]
    /// The virtual device has exactly what the panel has: frames may be written as they came.
    private var mirrorsPanel = true

    /// Events of the frame being read, not yet written.
    private var pending: [InputEvent] = []
    /// A raw SYN_DROPPED was read: everything up to the next SYN_REPORT is discarded.
    private var discarding = false
    /// Events were lost: the next frame is rebuilt from state, not written as it came.
    private var resync = false

    /// Which contact of a slot is released in this frame.
    private enum Release: Equatable, Sendable {
        case none
        /// The contact down in the slot.
        case current
        /// The contact that ended in the slot in this frame (a withheld tap).
        case ended
    }

    /// A forwarder for `device`, starting from `panel`: the panel's state when forwarding starts (its
    /// current slot and the values its slots hold, which the kernel will not send again until they
    /// change), nil for a panel that has sent nothing yet.
    public init(device: DeviceDescription, panel: PanelState? = nil) throws(UnsupportedError) {
        guard case .multitouchSlots(let count) = device.touchProtocol else {
            throw UnsupportedError(deviceName: device.name)
        }
        self.device = device
        slotCount = min(max(1, count), FrameAssembler.maximumSlots)
        legacyKeys = ([BTN.touch] + TouchForwarder.fingerCountKeys).filter { device.keys.contains($0) }
        hasAbsX = device.axes[ABS.x] != nil
        hasAbsY = device.axes[ABS.y] != nil
        hasAbsPressure = device.axes[ABS.pressure] != nil && device.axes[ABS.mtPressure] != nil
        slots = Array(repeating: Slot(), count: slotCount)
        pending.reserveCapacity(64)
        if let panel { start(from: panel) }
    }

    /// Takes over the panel's state (the forwarder is new: the copy has shown nothing yet).
    private mutating func start(from panel: PanelState) {
        if panel.currentSlot >= 0 && panel.currentSlot < slotCount { panelSlot = panel.currentSlot }
        for (i, values) in panel.slots.enumerated() where i < slotCount {
            for (code, value) in values {
                if code == ABS.mtTrackingID {
                    slots[i].panelTracking = value
                    // A contact down before forwarding started is not the copy's to show (the daemon starts
                    // forwarding only when nothing is down, so this is a safeguard).
                    if value >= 0 { slots[i].ownership = .claimed }
                } else if code >= TouchForwarder.firstValueCode, Int(code - TouchForwarder.firstValueCode) < TouchForwarder.valueCount {
                    slots[i].panelValues[Int(code - TouchForwarder.firstValueCode)] = value
                }
            }
        }
        if device.keys.contains(BTN.touch) { panelLegacy[TouchForwarder.legacyKey(EV.key, BTN.touch)] = panel.touching ? 1 : 0 }
        if hasAbsX, let x = panel.x { panelLegacy[TouchForwarder.legacyKey(EV.abs, ABS.x)] = x }
        if hasAbsY, let y = panel.y { panelLegacy[TouchForwarder.legacyKey(EV.abs, ABS.y)] = y }
        mirrorsPanel = false
    }

    /// Whether the virtual device has any contact down.
    public var hasContactsDown: Bool { slots.contains { $0.virtualTracking >= 0 } }

    /// Feeds one event of the panel with the decisions the engine produced while processing it (the
    /// `touches` of `GestureEngine.process` for this event, in order), appending what to write to the
    /// virtual device to `out`. `serial(slot)` is `GestureEngine.contactSerial(inSlot:)`, asked only at a
    /// SYN_REPORT, after the engine processed it.
    public mutating func process(
        _ event: InputEvent, decisions: [TouchDecision], serial: (Int) -> UInt64?, into out: inout [InputEvent]
    ) {
        if event.type == EV.syn && event.code == SYN.report {
            if discarding {
                discarding = false
                pending.removeAll(keepingCapacity: true)
                apply(decisions, atMicroseconds: event.timeMicroseconds, into: &out)
                return
            }
            endFrame(event, decisions: decisions, serial: serial, into: &out)
            return
        }
        // Decisions that came before the frame ends (deadlines that passed before this event) act on the
        // frames already read.
        if !decisions.isEmpty { apply(decisions, atMicroseconds: event.timeMicroseconds, into: &out) }
        if event.type == EV.syn && event.code == SYN.dropped {
            discarding = true
            resync = true
            pending.removeAll(keepingCapacity: true)
            return
        }
        if !discarding { pending.append(event) }
    }

    /// libevdev reported SYN_DROPPED and will deliver its resynchronisation of the device state as the
    /// next events: the next frame is rebuilt from state rather than written as it came.
    public mutating func eventsDropped() {
        resync = true
    }

    /// Decisions made between frames (the engine's `advance` at a deadline, or its cancellation): acted on
    /// at once, on the state of the last complete frame.
    public mutating func apply(_ decisions: [TouchDecision], atMicroseconds time: Int64, into out: inout [InputEvent]) {
        guard !decisions.isEmpty else { return }
        clearFrame()
        mark(decisions)
        writeFrames(time: time, frameEvents: [], into: &out)
    }

    /// The end of forwarding (device removed, daemon stopping, passthrough off): whatever the virtual device
    /// has down is cancelled (MT_TOOL_PALM, then the lift) and nothing of the contacts now down is
    /// delivered any more.
    public mutating func finish(atMicroseconds time: Int64, into out: inout [InputEvent]) {
        pending.removeAll(keepingCapacity: true)
        clearFrame()
        for i in slots.indices {
            if slots[i].panelTracking >= 0 { slots[i].ownership = .claimed }
            slots[i].cancelNow = slots[i].virtualTracking >= 0
        }
        writeFrames(time: time, frameEvents: [], into: &out)
    }

    // MARK: - Frames

    private static func legacyKey(_ type: UInt16, _ code: UInt16) -> UInt32 { UInt32(type) << 16 | UInt32(code) }

    private mutating func clearFrame() {
        for i in slots.indices { slots[i].clearFrame() }
    }

    private mutating func endFrame(
        _ report: InputEvent, decisions: [TouchDecision], serial: (Int) -> UInt64?, into out: inout [InputEvent]
    ) {
        clearFrame()
        let slotAtFrameStart = panelSlot
        // The panel's new state.
        for e in pending {
            if e.type == EV.abs && (e.code == ABS.mtSlot || e.code == ABS.mtTrackingID || e.code >= TouchForwarder.firstValueCode) {
                if e.code == ABS.mtSlot {
                    panelSlot = Int(e.value)
                    continue
                }
                guard panelSlot >= 0 && panelSlot < slotCount else { continue }
                if e.code == ABS.mtTrackingID {
                    let old = slots[panelSlot].panelTracking
                    if old >= 0 && e.value != old && !slots[panelSlot].began && slots[panelSlot].endedSerial == 0 {
                        slots[panelSlot].endedSerial = slots[panelSlot].serial
                        slots[panelSlot].endedTracking = old
                        slots[panelSlot].endedOwnership = slots[panelSlot].ownership
                    }
                    if e.value >= 0 && e.value != old {
                        slots[panelSlot].began = true
                        slots[panelSlot].ownership = .delivered
                        // A new contact inherits the slot's values: written as it came, it would inherit
                        // stale ones where the copy's differ from the panel's (left by a withheld or
                        // claimed contact), so that frame is rebuilt from state.
                        if !slotValuesMatch(panelSlot) { resync = true }
                    }
                    slots[panelSlot].panelTracking = e.value
                } else {
                    let index = Int(e.code - TouchForwarder.firstValueCode)
                    if index < TouchForwarder.valueCount { slots[panelSlot].panelValues[index] = e.value }
                }
                continue
            }
            if TouchForwarder.isLegacy(e) { panelLegacy[TouchForwarder.legacyKey(e.type, e.code)] = e.value }
        }
        for i in slots.indices {
            slots[i].serial = slots[i].panelTracking >= 0 ? (serial(i) ?? 0) : 0
        }
        mark(decisions)
        let fast =
            mirrorsPanel && !resync
            && !slots.contains { slot in
                slot.ownership != .delivered || slot.cancelNow || slot.release != .none
                    || (slot.endedSerial != 0 && slot.endedOwnership != .delivered)
            }
        if fast {
            // The virtual device mirrors the panel and keeps doing so: the frame as it came. The kernel sends
            // no ABS_MT_SLOT for a slot that is already current; when the copy's current slot is another (or
            // not known: a new copy, a fresh forwarder), the frame's first slot events get one.
            if virtualSlot != slotAtFrameStart,
                let firstSlotted = pending.firstIndex(where: TouchForwarder.isSlotted),
                !pending[..<firstSlotted].contains(where: { $0.type == EV.abs && $0.code == ABS.mtSlot })
            {
                emit(EV.abs, ABS.mtSlot, Int32(slotAtFrameStart), pending[firstSlotted].timeMicroseconds, into: &out)
            }
            for e in pending {
                out.append(e)
                record(e)
            }
            out.append(report)
        } else {
            resync = false
            writeFrames(time: report.timeMicroseconds, frameEvents: pending, into: &out)
        }
        pending.removeAll(keepingCapacity: true)
        // Contacts that landed in this frame keep their landing for a later release.
        for i in slots.indices where slots[i].began { slots[i].landingValues = slots[i].panelValues }
    }

    /// The slot of the contact with this serial as of the last frame.
    private func slot(ofContact serial: UInt64) -> Int? { slots.firstIndex { $0.serial == serial } }

    /// The slot where the contact with this serial ended in this frame.
    private func slot(ofEndedContact serial: UInt64) -> Int? { slots.firstIndex { $0.endedSerial == serial } }

    /// Applies decisions to the slots' ownership, noting releases and cancellations due now.
    private mutating func mark(_ decisions: [TouchDecision]) {
        for decision in decisions {
            switch decision {
            case .withhold(let list):
                for s in list where s != 0 {
                    // Only a contact that landed in this frame can still be withheld: one already delivered
                    // stays delivered.
                    if let i = slot(ofContact: s), slots[i].began, slots[i].ownership == .delivered {
                        slots[i].ownership = .withheld
                    }
                }
            case .release(let list):
                for s in list where s != 0 {
                    if let i = slot(ofContact: s) {
                        guard slots[i].ownership == .withheld else { continue }
                        slots[i].ownership = .delivered
                        // Landed in this very frame: its landing is its current state, written below.
                        if !slots[i].began { slots[i].release = .current }
                    } else if let i = slot(ofEndedContact: s), slots[i].endedOwnership == .withheld {
                        // A withheld contact that lifted (a tap): its landing, then its lift.
                        slots[i].endedOwnership = .delivered
                        slots[i].release = .ended
                    }
                }
            case .claim(let list):
                for s in list where s != 0 {
                    if let i = slot(ofContact: s) {
                        if slots[i].ownership == .delivered && !slots[i].began && slots[i].virtualTracking >= 0 {
                            slots[i].cancelNow = true
                        }
                        slots[i].ownership = .claimed
                    } else if let i = slot(ofEndedContact: s) {
                        if slots[i].endedOwnership == .delivered && slots[i].virtualTracking >= 0 { slots[i].cancelNow = true }
                        slots[i].endedOwnership = .claimed
                    }
                }
            }
        }
    }

    private static let toolIndex = Int(ABS.mtToolType - TouchForwarder.firstValueCode)

    /// Writes, when due, the frame of landings and cancels, then the frame that brings the virtual device to
    /// what it should show, with `frameEvents`' other events.
    private mutating func writeFrames(time: Int64, frameEvents: [InputEvent], into out: inout [InputEvent]) {
        // First frame: released contacts land as they landed; cancelled ones turn into palms.
        var first = false
        for i in slots.indices {
            if slots[i].cancelNow {
                emitSlot(i, time: time, into: &out)
                emit(EV.abs, ABS.mtToolType, MTTool.palm, time, into: &out)
                slots[i].virtualValues[TouchForwarder.toolIndex] = MTTool.palm
                first = true
            }
            switch slots[i].release {
            case .none:
                break
            case .current:
                writeContact(i, tracking: slots[i].panelTracking, values: slots[i].landingValues, time: time, into: &out)
                first = true
            case .ended:
                writeContact(i, tracking: slots[i].endedTracking, values: slots[i].landingValues, time: time, into: &out)
                first = true
            }
        }
        if first {
            writeLegacy(time: time, frameEvents: [], allDelivered: false, into: &out)
            out.append(InputEvent(timeMicroseconds: time, type: EV.syn, code: SYN.report, value: 0))
        }
        // Second frame: the state each slot should have now.
        let before = out.count
        var allDelivered = true
        for i in slots.indices {
            if slots[i].panelTracking >= 0 && slots[i].ownership != .delivered { allDelivered = false }
            let wanted: Int32 = slots[i].ownership == .delivered ? slots[i].panelTracking : -1
            if wanted >= 0 {
                writeContact(i, tracking: wanted, values: slots[i].panelValues, time: time, into: &out)
            } else if slots[i].virtualTracking >= 0 {
                emitSlot(i, time: time, into: &out)
                emit(EV.abs, ABS.mtTrackingID, -1, time, into: &out)
                slots[i].virtualTracking = -1
            }
        }
        for e in frameEvents {
            if e.type == EV.abs && (e.code == ABS.mtSlot || e.code == ABS.mtTrackingID || e.code >= TouchForwarder.firstValueCode) {
                continue
            }
            if TouchForwarder.isLegacy(e) { continue }
            // Other events pass: MSC_TIMESTAMP, other keys and axes.
            out.append(e)
        }
        writeLegacy(time: time, frameEvents: frameEvents, allDelivered: allDelivered, into: &out)
        if out.count > before {
            out.append(InputEvent(timeMicroseconds: time, type: EV.syn, code: SYN.report, value: 0))
        }
        mirrorsPanel = allDelivered && virtualMatchesPanel()
    }

    /// Whether the virtual device holds what the panel holds, so that the panel's next frame may be written
    /// as it came. Values of slots empty on both sides may differ: a contact landing in such a slot is
    /// checked when it lands (`slotValuesMatch`).
    private func virtualMatchesPanel() -> Bool {
        for (key, value) in panelLegacy where (virtualLegacy[key] ?? 0) != value { return false }
        for i in slots.indices {
            if slots[i].virtualTracking != slots[i].panelTracking { return false }
            if slots[i].panelTracking >= 0 && !slotValuesMatch(i) { return false }
        }
        return true
    }

    /// Whether slot `slot` holds the same values on the copy as on the panel.
    private func slotValuesMatch(_ slot: Int) -> Bool {
        for k in 0..<TouchForwarder.valueCount {
            let panel = slots[slot].panelValues[k]
            let virtual = slots[slot].virtualValues[k]
            if panel == virtual { continue }
            // A panel without tool types has fingers.
            if k == TouchForwarder.toolIndex && panel == TouchForwarder.unknown && virtual == MTTool.finger { continue }
            return false
        }
        return true
    }

    /// Brings slot `slot` of the virtual device to a contact with `tracking` and `values`.
    private mutating func writeContact(_ slot: Int, tracking: Int32, values: SlotValues, time: Int64, into out: inout [InputEvent]) {
        let toolIndex = TouchForwarder.toolIndex
        let isNew = slots[slot].virtualTracking != tracking
        if isNew {
            emitSlot(slot, time: time, into: &out)
            // A slot last used by a cancelled (palm) contact says "finger" before the new contact's tracking
            // id: libinput takes the slot's tool type at that moment, and a contact that starts as a palm
            // is never reported to the compositor.
            if slots[slot].virtualValues[toolIndex] == MTTool.palm {
                let panelTool = values[toolIndex]
                let tool = panelTool == TouchForwarder.unknown ? MTTool.finger : panelTool
                emit(EV.abs, ABS.mtToolType, tool, time, into: &out)
                slots[slot].virtualValues[toolIndex] = tool
            }
            emit(EV.abs, ABS.mtTrackingID, tracking, time, into: &out)
            slots[slot].virtualTracking = tracking
        }
        for k in 0..<TouchForwarder.valueCount {
            var value = values[k]
            let virtual = slots[slot].virtualValues[k]
            if k == toolIndex && value == TouchForwarder.unknown && (isNew || virtual == MTTool.palm) {
                // A panel without tool types has fingers; a slot the virtual device last used for a cancelled
                // (palm) contact must say so.
                if virtual != TouchForwarder.unknown { value = MTTool.finger }
            }
            guard value != TouchForwarder.unknown, value != virtual else { continue }
            emitSlot(slot, time: time, into: &out)
            emit(EV.abs, TouchForwarder.firstValueCode + UInt16(k), value, time, into: &out)
            slots[slot].virtualValues[k] = value
        }
    }

    /// BTN_TOUCH, BTN_TOOL_* and ABS_X/Y/PRESSURE for what the virtual device has down: the panel's own
    /// values when it shows everything the panel has, else derived from the contacts delivered.
    private mutating func writeLegacy(time: Int64, frameEvents: [InputEvent], allDelivered: Bool, into out: inout [InputEvent]) {
        if allDelivered && hasContactsDown {
            for e in frameEvents where TouchForwarder.isLegacy(e) {
                setLegacy(e.type, e.code, e.value, e.timeMicroseconds, into: &out)
            }
            // Values the panel set in earlier frames, while the copy showed less.
            for (key, value) in panelLegacy {
                setLegacy(UInt16(key >> 16), UInt16(key & 0xffff), value, time, into: &out)
            }
            return
        }
        var count = 0
        var first = -1
        for i in slots.indices where slots[i].virtualTracking >= 0 {
            // Palms count, as the kernel's own pointer emulation counts them: a cancelled touch is down
            // until its lift.
            count += 1
            if first < 0 { first = i }
        }
        for key in legacyKeys {
            let value: Int32
            if key == BTN.touch {
                value = count > 0 ? 1 : 0
            } else {
                let index = TouchForwarder.fingerCountKeys.firstIndex(of: key)!
                value = min(count, TouchForwarder.fingerCountKeys.count) == index + 1 ? 1 : 0
            }
            setLegacy(EV.key, key, value, time, into: &out)
        }
        guard first >= 0 else { return }
        let values = slots[first].virtualValues
        func mt(_ code: UInt16) -> Int32 { values[Int(code - TouchForwarder.firstValueCode)] }
        if hasAbsX, mt(ABS.mtPositionX) != TouchForwarder.unknown { setLegacy(EV.abs, ABS.x, mt(ABS.mtPositionX), time, into: &out) }
        if hasAbsY, mt(ABS.mtPositionY) != TouchForwarder.unknown { setLegacy(EV.abs, ABS.y, mt(ABS.mtPositionY), time, into: &out) }
        if hasAbsPressure, mt(ABS.mtPressure) != TouchForwarder.unknown {
            setLegacy(EV.abs, ABS.pressure, mt(ABS.mtPressure), time, into: &out)
        }
    }

    private mutating func setLegacy(_ type: UInt16, _ code: UInt16, _ value: Int32, _ time: Int64, into out: inout [InputEvent]) {
        let key = TouchForwarder.legacyKey(type, code)
        guard virtualLegacy[key] != value else { return }
        // A key never pressed need not be released.
        if type == EV.key && value == 0 && virtualLegacy[key] == nil { return }
        emit(type, code, value, time, into: &out)
        virtualLegacy[key] = value
    }

    /// An event that applies to the current slot: ABS_MT_TRACKING_ID or a slot value.
    private static func isSlotted(_ e: InputEvent) -> Bool {
        e.type == EV.abs && (e.code == ABS.mtTrackingID || e.code >= TouchForwarder.firstValueCode)
    }

    private mutating func emitSlot(_ slot: Int, time: Int64, into out: inout [InputEvent]) {
        guard virtualSlot != slot else { return }
        emit(EV.abs, ABS.mtSlot, Int32(slot), time, into: &out)
    }

    private mutating func emit(_ type: UInt16, _ code: UInt16, _ value: Int32, _ time: Int64, into out: inout [InputEvent]) {
        let e = InputEvent(timeMicroseconds: time, type: type, code: code, value: value)
        out.append(e)
        record(e)
    }

    /// Keeps the virtual device's state as written.
    private mutating func record(_ e: InputEvent) {
        if e.type == EV.abs {
            if e.code == ABS.mtSlot {
                virtualSlot = Int(e.value)
                return
            }
            if e.code == ABS.mtTrackingID || e.code >= TouchForwarder.firstValueCode {
                guard virtualSlot >= 0 && virtualSlot < slotCount else { return }
                if e.code == ABS.mtTrackingID {
                    slots[virtualSlot].virtualTracking = e.value
                } else if Int(e.code - TouchForwarder.firstValueCode) < TouchForwarder.valueCount {
                    slots[virtualSlot].virtualValues[Int(e.code - TouchForwarder.firstValueCode)] = e.value
                }
                return
            }
        }
        if TouchForwarder.isLegacy(e) { virtualLegacy[TouchForwarder.legacyKey(e.type, e.code)] = e.value }
    }
}
