import Testing

@testable import GestureDaemon

/// A pen that says it is near but never moves (issue 36, hole 8: it turned gestures off for good) counts
/// as gone after 30 s of samples the same, and as near again when it moves.
@Suite struct PenStillnessTests {
    static let s: Int64 = 1_000_000

    @Test func aPenStillForThirtySecondsCountsAsGoneUntilItMoves() {
        var p = PenStillness()
        #expect(!p.countsAsNear && p.nextCheck == nil, "away: nothing is sampled")
        p.proximity(near: true, sample: [100, 200, 0], now: 0)
        #expect(p.countsAsNear && p.nextCheck == 10 * Self.s)
        // Three checks of the same sample, 10 s apart: gone at the third.
        #expect(p.check([100, 200, 0], now: 10 * Self.s) == nil)
        #expect(p.check([100, 200, 0], now: 20 * Self.s) == nil)
        #expect(p.countsAsNear)
        #expect(p.check([100, 200, 0], now: 30 * Self.s) == .becameStill)
        #expect(!p.countsAsNear && p.nextCheck == 40 * Self.s, "still sampled, to see it move")
        #expect(p.check([100, 200, 0], now: 40 * Self.s) == nil)
        // It moves: near again, and a full 30 s still again before it is gone.
        #expect(p.check([101, 200, 0], now: 50 * Self.s) == .movedAgain)
        #expect(p.countsAsNear)
        #expect(p.check([101, 200, 0], now: 60 * Self.s) == nil)
        #expect(p.check([101, 200, 0], now: 70 * Self.s) == nil)
        #expect(p.check([101, 200, 0], now: 80 * Self.s) == .becameStill)
    }

    @Test func aPenThatMovesEvenALittleStaysNear() {
        var p = PenStillness()
        p.proximity(near: true, sample: [100, 200, 0, 40], now: 0)
        for i in 1...100 {
            // A hovering hand: a unit of distance or pressure now and then is enough.
            #expect(p.check([100, 200, 0, 40 + Int32(i % 2)], now: Int64(i) * 10 * Self.s) == nil)
        }
        #expect(p.countsAsNear)
        p.proximity(near: false, sample: [], now: 1001 * Self.s)
        #expect(!p.countsAsNear && p.nextCheck == nil)
        #expect(p.check([1, 2], now: 1002 * Self.s) == nil)
    }

    /// The pen's read takes its keys' changes one at a time, and each reports what arbitration sees: the guest's
    /// pen checks found the pen's leaving never reported (PenDevice read the keys' final state for every change
    /// of a read, so "away" looked unchanged and touches stayed off for good).
    @Test func eachKeyChangeReportsWhatArbitrationSees() {
        var p = PenStillness()
        #expect(p.proximity(near: true, sample: [1, 2], now: 0) == true, "came near")
        #expect(p.proximity(near: false, sample: [], now: 1) == false, "went away: reported")
        #expect(p.proximity(near: false, sample: [], now: 2) == nil, "away again: nothing changed")
        // In and out within one read: both reported, in order.
        #expect(p.proximity(near: true, sample: [1, 2], now: 3) == true)
        #expect(p.proximity(near: false, sample: [], now: 3) == false)
        // A still pen lifted away was already taken as gone: nothing to report.
        p.proximity(near: true, sample: [5, 5], now: 0)
        for t in 1...3 { _ = p.check([5, 5], now: Int64(t) * 10 * Self.s) }
        #expect(!p.countsAsNear)
        #expect(p.proximity(near: false, sample: [], now: 40 * Self.s) == nil)
    }
}
