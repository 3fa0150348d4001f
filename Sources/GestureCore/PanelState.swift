/// What a panel has down, and the values its slots hold, when gestured starts reading it (libevdev's view
/// of the device at open) or starts forwarding it (passthrough switched on later): the kernel sends only
/// what changes, so a reader that starts late must start from this state, not from nothing.
public struct PanelState: Equatable, Sendable {
    /// The slot the kernel's next slot events apply to (it sends no ABS_MT_SLOT for the current one).
    public var currentSlot: Int
    /// Each slot's ABS_MT_* values by code, ABS_MT_TRACKING_ID included (-1: no contact).
    public var slots: [[UInt16: Int32]]
    /// A single-touch panel's BTN_TOUCH and ABS_X/ABS_Y (and the legacy axes of a multitouch one).
    public var touching: Bool
    public var x: Int32?
    public var y: Int32?

    public init(currentSlot: Int = 0, slots: [[UInt16: Int32]] = [], touching: Bool = false, x: Int32? = nil, y: Int32? = nil) {
        self.currentSlot = currentSlot
        self.slots = slots
        self.touching = touching
        self.x = x
        self.y = y
    }

    /// Whether any contact is down.
    public var hasContacts: Bool { touching || slots.contains { ($0[ABS.mtTrackingID] ?? -1) >= 0 } }

    /// The events that bring a reader that knows nothing to this state: every slot's values, contacts
    /// with their tracking ids, then the current slot, ending with SYN_REPORT.
    func events(atMicroseconds time: Int64, singleTouch: Bool) -> [InputEvent] {
        func event(_ type: UInt16, _ code: UInt16, _ value: Int32) -> InputEvent {
            InputEvent(timeMicroseconds: time, type: type, code: code, value: value)
        }
        var events: [InputEvent] = []
        if singleTouch {
            if let x { events.append(event(EV.abs, ABS.x, x)) }
            if let y { events.append(event(EV.abs, ABS.y, y)) }
            if touching { events.append(event(EV.key, BTN.touch, 1)) }
        } else {
            for (index, values) in slots.enumerated() {
                events.append(event(EV.abs, ABS.mtSlot, Int32(index)))
                for (code, value) in values.sorted(by: { $0.key < $1.key }) where code != ABS.mtTrackingID {
                    events.append(event(EV.abs, code, value))
                }
                if let id = values[ABS.mtTrackingID], id >= 0 { events.append(event(EV.abs, ABS.mtTrackingID, id)) }
            }
            events.append(event(EV.abs, ABS.mtSlot, Int32(currentSlot)))
        }
        events.append(event(EV.syn, SYN.report, 0))
        return events
    }
}
