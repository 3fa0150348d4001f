import GestureVocabulary

/// Estimates the velocity of a point (millimetres per second) from its recent samples.
///
/// The velocity is the displacement over the samples in the last `windowMicroseconds`; with a single
/// sample in the window, the one before it is used too, so slow frame rates still give a velocity. A point
/// that has not moved for a whole window has velocity zero.
struct VelocityTracker: Sendable {
    private struct Sample: Sendable {
        var time: Int64
        var position: Vector2
    }

    private static let capacity = 32
    private var samples: [Sample]
    private var head = 0  // index of the next write
    private var count = 0
    let windowMicroseconds: Int64

    init(windowSeconds: Double) {
        windowMicroseconds = max(1_000, Int64(windowSeconds * 1_000_000))
        samples = Array(repeating: Sample(time: 0, position: .zero), count: VelocityTracker.capacity)
    }

    mutating func reset() {
        count = 0
        head = 0
    }

    /// Records the point's position at `time`. Samples are expected in time order.
    mutating func add(time: Int64, position: Vector2) {
        if count > 0 {
            let last = samples[(head + VelocityTracker.capacity - 1) % VelocityTracker.capacity]
            if last.position == position { return }  // no movement: keep the older sample as evidence
        }
        samples[head] = Sample(time: time, position: position)
        head = (head + 1) % VelocityTracker.capacity
        count = min(count + 1, VelocityTracker.capacity)
    }

    /// Time of the newest sample, if any.
    var lastSampleTime: Int64? {
        count == 0 ? nil : samples[(head + VelocityTracker.capacity - 1) % VelocityTracker.capacity].time
    }

    /// The velocity at `now`, millimetres per second.
    func velocity(at now: Int64) -> Vector2 {
        guard count >= 2 else { return .zero }
        let cap = VelocityTracker.capacity
        let newest = samples[(head + cap - 1) % cap]
        if now - newest.time >= windowMicroseconds { return .zero }
        // Walk back to the oldest sample inside the window.
        var oldestIndex = 1
        while oldestIndex + 1 < count {
            let candidate = samples[(head + cap - 1 - (oldestIndex + 1)) % cap]
            if now - candidate.time > windowMicroseconds { break }
            oldestIndex += 1
        }
        let oldest = samples[(head + cap - 1 - oldestIndex) % cap]
        // `oldest` may lie outside the window when it is the only predecessor; allow it within two windows.
        guard newest.time > oldest.time, now - oldest.time <= 2 * windowMicroseconds else { return .zero }
        let seconds = Double(newest.time - oldest.time) / 1_000_000
        return (newest.position - oldest.position) / seconds
    }
}
