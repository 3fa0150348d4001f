import GestureVocabulary

/// Estimates the velocity of a point (millimetres per second) from its recent samples.
///
/// The velocity is the displacement over the samples in the last `windowMicroseconds`; with a single
/// sample in the window, the one before it is used too, so slow frame rates still give a velocity. A point
/// that has not moved for a whole window has velocity zero.
public struct VelocityTracker: Sendable {
    private struct Sample: Sendable {
        var time: Int64
        var position: Vector2
    }

    /// Samples kept (a power of two: ring positions wrap with a mask).
    private static let capacity = 32
    private static let mask = capacity - 1
    private var samples: [Sample]
    private var head = 0  // index of the next write
    private var count = 0
    public let windowMicroseconds: Int64

    public init(windowSeconds: Double) {
        windowMicroseconds = max(1_000, Int64(windowSeconds * 1_000_000))
        samples = Array(repeating: Sample(time: 0, position: .zero), count: VelocityTracker.capacity)
    }

    public mutating func reset() {
        count = 0
        head = 0
    }

    /// Records the point's position at `time`. Samples are expected in time order.
    public mutating func add(time: Int64, position: Vector2) {
        if count > 0 && samples[(head &- 1) & VelocityTracker.mask].position == position {
            return  // no movement: keep the older sample as evidence
        }
        samples[head] = Sample(time: time, position: position)
        head = (head &+ 1) & VelocityTracker.mask
        count = min(count + 1, VelocityTracker.capacity)
    }

    /// Time of the newest sample, if any.
    public var lastSampleTime: Int64? {
        count == 0 ? nil : samples[(head &- 1) & VelocityTracker.mask].time
    }

    /// The velocity at `now`, millimetres per second.
    public func velocity(at now: Int64) -> Vector2 {
        guard count >= 2 else { return .zero }
        let window = windowMicroseconds, head = self.head, count = self.count
        return samples.withUnsafeBufferPointer { samples in
            // The sample `back` places before the newest.
            func sample(_ back: Int) -> Sample { samples[(head &- 1 &- back) & VelocityTracker.mask] }
            let newest = sample(0)
            if now - newest.time >= window { return .zero }
            // Walk back to the oldest sample inside the window.
            var oldestIndex = 1
            while oldestIndex + 1 < count {
                if now - sample(oldestIndex + 1).time > window { break }
                oldestIndex += 1
            }
            let oldest = sample(oldestIndex)
            // `oldest` may lie outside the window when it is the only predecessor; allow it within two windows.
            guard newest.time > oldest.time, now - oldest.time <= 2 * window else { return .zero }
            let seconds = Double(newest.time - oldest.time) / 1_000_000
            return (newest.position - oldest.position) / seconds
        }
    }
}
