/// Follows a pen device's proximity from its events, reading nothing but its tools' keys: a pen is in
/// proximity while BTN_TOOL_PEN or BTN_TOOL_RUBBER is down, and a change counts at the frame's
/// SYN_REPORT (a tool swapped within one frame is no change). Pure: the time is the event's.
public struct PenProximity: Equatable, Sendable {
    private var pen = false
    private var rubber = false
    /// In proximity as of the last frame.
    public private(set) var inProximity = false

    public init(pen: Bool = false, rubber: Bool = false) {
        self.pen = pen
        self.rubber = rubber
        inProximity = pen || rubber
    }

    /// Feeds one event of the pen; at a SYN_REPORT that changed the proximity, returns the new one.
    public mutating func process(_ e: InputEvent) -> Bool? {
        switch (e.type, e.code) {
        case (EV.key, BTN.toolPen): pen = e.value != 0
        case (EV.key, BTN.toolRubber): rubber = e.value != 0
        case (EV.syn, SYN.report):
            let now = pen || rubber
            guard now != inProximity else { return nil }
            inProximity = now
            return now
        default: break
        }
        return nil
    }

    /// The tools' keys as read from the device after its events were lost (SYN_DROPPED): the proximity
    /// they make, nil when it did not change.
    public mutating func resynchronised(pen: Bool, rubber: Bool) -> Bool? {
        self.pen = pen
        self.rubber = rubber
        let now = pen || rubber
        guard now != inProximity else { return nil }
        inProximity = now
        return now
    }

    /// The pen is gone (removed, or its events were lost): out of proximity, nil when it was already.
    public mutating func lost() -> Bool? {
        pen = false
        rubber = false
        guard inProximity else { return nil }
        inProximity = false
        return false
    }
}

extension DeviceDescription {
    /// A pen (or its eraser): BTN_TOOL_PEN or BTN_TOOL_RUBBER.
    public var isPen: Bool { keys.contains(BTN.toolPen) || keys.contains(BTN.toolRubber) }
}

/// One change of a panel's pens as a whole: some pen came into proximity, or the last one left.
public struct PenChange: Equatable, Sendable {
    public var inProximity: Bool
    public var timeMicroseconds: Int64

    public init(inProximity: Bool, timeMicroseconds: Int64) {
        self.inProximity = inProximity
        self.timeMicroseconds = timeMicroseconds
    }

    /// The changes of the panel's pens taken together (in proximity while any one is), in time order, from
    /// each pen's recorded events.
    public static func changes(of pens: [[InputEvent]]) -> [PenChange] {
        var perPen: [(time: Int64, pen: Int, inProximity: Bool)] = []
        for (index, events) in pens.enumerated() {
            var proximity = PenProximity()
            for e in events {
                if let change = proximity.process(e) { perPen.append((e.timeMicroseconds, index, change)) }
            }
        }
        perPen.sort { ($0.time, $0.pen) < ($1.time, $1.pen) }
        var near = Set<Int>()
        var changes: [PenChange] = []
        for c in perPen {
            let before = !near.isEmpty
            if c.inProximity { near.insert(c.pen) } else { near.remove(c.pen) }
            if !near.isEmpty != before { changes.append(PenChange(inProximity: !near.isEmpty, timeMicroseconds: c.time)) }
        }
        return changes
    }
}
