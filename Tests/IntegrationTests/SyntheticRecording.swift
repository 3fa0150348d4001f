// Evemu recordings written by the tests themselves, for replays through the real daemon: a phone panel of
// 72 x 128 mm (the size examples/recordings/generate.py uses), 10 units/mm, protocol B with 5 slots, frames
// at 120 Hz. Positions are millimetres from the top-left corner.

struct SyntheticRecording {
    static let widthMM = 72.0
    static let heightMM = 128.0
    static let unitsPerMM = 10.0
    static let frameSeconds = 1.0 / 120

    private(set) var time: Double
    private var events: [String] = []
    private var trackingID = 1
    private var currentSlot = -1
    /// Where each slot's finger was last reported, in device units (only changes are written).
    private var reported: [Int: (Int, Int)] = [:]

    /// `leadIn` seconds of nothing first, so clients started with the daemon subscribe in time.
    init(leadIn: Double) {
        time = 0
        events.append(event(0, 0, 0))
        time = leadIn
    }

    private func event(_ type: Int, _ code: Int, _ value: Int) -> String {
        let micro = Int((time * 1_000_000).rounded())
        let seconds = micro / 1_000_000
        let fraction = String(micro % 1_000_000 + 1_000_000).dropFirst()
        return "E: \(seconds).\(fraction) \(hex4(type)) \(hex4(code)) \(value)"
    }

    private func hex4(_ v: Int) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: max(0, 4 - s.count)) + s
    }

    private mutating func select(_ slot: Int) {
        if slot != currentSlot {
            events.append(event(3, 0x2f, slot))
            currentSlot = slot
        }
    }

    /// One frame with the fingers at `positions` (slot i = finger i); fingers no longer listed lift.
    private mutating func frame(_ positions: [(Double, Double)]) {
        for (slot, p) in positions.enumerated() {
            let x = Int((p.0 * Self.unitsPerMM).rounded()).clamped(0, Int(Self.widthMM * Self.unitsPerMM) - 1)
            let y = Int((p.1 * Self.unitsPerMM).rounded()).clamped(0, Int(Self.heightMM * Self.unitsPerMM) - 1)
            if let old = reported[slot] {
                if old.0 != x { select(slot); events.append(event(3, 0x35, x)) }
                if old.1 != y { select(slot); events.append(event(3, 0x36, y)) }
            } else {
                select(slot)
                events.append(event(3, 0x39, trackingID))
                trackingID += 1
                events.append(event(3, 0x35, x))
                events.append(event(3, 0x36, y))
                if reported.isEmpty { events.append(event(1, 0x14a, 1)) }
            }
            reported[slot] = (x, y)
        }
        for slot in reported.keys.sorted() where slot >= positions.count {
            select(slot)
            events.append(event(3, 0x39, -1))
            reported[slot] = nil
            if reported.isEmpty { events.append(event(1, 0x14a, 0)) }
        }
        events.append(event(0, 0, 0))
        time += Self.frameSeconds
    }

    /// Fingers land at `path(0)`, follow `path(t)` for t from 0 to 1 over `seconds`, and lift.
    mutating func stroke(seconds: Double, _ path: (Double) -> [(Double, Double)]) {
        let frames = max(2, Int((seconds / Self.frameSeconds).rounded()))
        for i in 0...frames { frame(path(Double(i) / Double(frames))) }
        frame([])
    }

    /// Fingers landing at `starts` and moving in a straight line by (dx, dy) millimetres.
    mutating func swipe(from starts: [(Double, Double)], by dx: Double, _ dy: Double, seconds: Double) {
        stroke(seconds: seconds) { t in starts.map { ($0.0 + dx * t, $0.1 + dy * t) } }
    }

    /// One finger landing at `start` and moving by (dx, dy).
    mutating func swipe(from start: (Double, Double), by dx: Double, _ dy: Double, seconds: Double = 0.25) {
        swipe(from: [start], by: dx, dy, seconds: seconds)
    }

    /// Two fingers either side of `center` on a horizontal line, their distance going from `fromSpan` to
    /// `toSpan` millimetres.
    mutating func pinch(center: (Double, Double), fromSpan: Double, toSpan: Double, seconds: Double = 0.4) {
        stroke(seconds: seconds) { t in
            let half = (fromSpan + (toSpan - fromSpan) * t) / 2
            return [(center.0 - half, center.1), (center.0 + half, center.1)]
        }
    }

    mutating func wait(_ seconds: Double) { time += seconds }

    /// The recording: the device description, then the events.
    var text: String {
        let maxX = Int(Self.widthMM * Self.unitsPerMM) - 1
        let maxY = Int(Self.heightMM * Self.unitsPerMM) - 1
        var lines = [
            "# EVEMU 1.3", "N: gestured test phone panel", "I: 0000 0000 0000 0001", "P: 02 00 00 00 00 00 00 00",
            "B: 00 0b 00 00 00 00 00 00 00",
        ]
        // EV_KEY: BTN_TOUCH (0x14a) only: byte 41, bit 2; 96 bytes in lines of 8.
        var keys = [UInt8](repeating: 0, count: 96)
        keys[0x14a / 8] |= 1 << (0x14a % 8)
        for i in stride(from: 0, to: 96, by: 8) {
            lines.append("B: 01 " + keys[i..<i + 8].map { hex2($0) }.joined(separator: " "))
        }
        lines.append("B: 02 00 00 00 00 00 00 00 00")
        // EV_ABS: X, Y, MT_SLOT (0x2f), MT_POSITION_X/Y (0x35, 0x36), MT_TRACKING_ID (0x39).
        var abs = [UInt8](repeating: 0, count: 8)
        for bit in [0x00, 0x01, 0x2f, 0x35, 0x36, 0x39] { abs[bit / 8] |= 1 << (bit % 8) }
        lines.append("B: 03 " + abs.map { hex2($0) }.joined(separator: " "))
        for type in ["04", "05", "11", "12", "14", "15"] { lines.append("B: \(type) 00 00 00 00 00 00 00 00") }
        for (code, maximum, resolution) in [
            (0x00, maxX, 10), (0x01, maxY, 10), (0x2f, 4, 0), (0x35, maxX, 10), (0x36, maxY, 10), (0x39, 65535, 0),
        ] {
            lines.append("A: \(hex2(UInt8(code))) 0 \(maximum) 0 0 \(resolution)")
        }
        return (lines + events).joined(separator: "\n") + "\n"
    }

    private func hex2(_ v: UInt8) -> String {
        let s = String(v, radix: 16)
        return s.count == 1 ? "0" + s : s
    }
}

extension Int {
    fileprivate func clamped(_ low: Int, _ high: Int) -> Int { Swift.min(Swift.max(self, low), high) }
}
