import GestureVocabulary

/// One touch the tuner takes as an attempt: what was measured of it, what the recognizer made of it under
/// the settings in force, and the reasons it gave (from a replay of a recording, or from the daemon's
/// explanation stream).
public struct TuneTouch: Equatable, Sendable {
    public var measurement: TouchMeasurement
    public var outcome: TuneOutcome
    public var reasons: [Reason]

    public init(measurement: TouchMeasurement, outcome: TuneOutcome, reasons: [Reason]) {
        self.measurement = measurement
        self.outcome = outcome
        self.reasons = reasons
    }

    /// The touches of an explanation (`Explanation.touches`, one per first-finger-down to last-finger-up),
    /// each with what it became: with a tap, every touch of the sequence is a tap (a double tap is one
    /// sequence); otherwise the first touch became the sequence's first gesture (an edge swipe committed
    /// as its outcome says) and any further one nothing. Each touch gets the reasons decided from its
    /// start until the next touch's.
    public static func touches(of x: Explanation) -> [TuneTouch] {
        let first: TuneOutcome
        switch x.gestures.first {
        case let g? where g.kind == .edgeSwipe: first = .edgeSwipe(g.edge ?? .left, committed: g.outcome == .committed)
        case let g? where g.kind == .tap: first = .tap
        case let g?: first = .other(g.kind)
        case nil: first = .nothing
        }
        return x.touches.indices.map { i in
            let m = x.touches[i]
            let until = i + 1 < x.touches.count ? x.touches[i + 1].startMicroseconds : Int64.max
            let reasons = x.reasons.filter { r in (i == 0 || r.timeMicroseconds >= m.startMicroseconds) && r.timeMicroseconds < until }
            return TuneTouch(measurement: m, outcome: first == .tap || i == 0 ? first : .nothing, reasons: reasons)
        }
    }
}
