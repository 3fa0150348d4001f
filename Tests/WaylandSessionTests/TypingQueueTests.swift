// TypingQueue, the state machine of keys typed through the compositor (issue 28), with no compositor:
// whole chords in batches of bounded size, one batch unconfirmed at a time, a bounded queue of whole
// actions, and chords that waited past their time dropped. CompositorStallTests run it against sway.
import GestureBindings
import Testing
import WaylandSession

@Suite struct TypingQueueTests {
    typealias Queue = TypingQueue<Int>

    /// An action's chords: `count` chords of `modifiers` modifiers each, due at `due`, tagged `tag`.
    private func action(_ tag: Int, count: Int, modifiers: Int = 2, due: Int64 = 0) -> [Queue.Chord] {
        let all: [KeyModifier] = [.ctrl, .alt, .shift, .super]
        return (0..<count).map { _ in
            Queue.Chord(tag: tag, chord: KeyChord(modifiers: Array(all.prefix(modifiers)), key: "a"), keysym: 0x61, due: due)
        }
    }

    @Test func aChordsRequestsAreCountedAsLibwaylandWritesThem() {
        // key: 8-byte header + time, key, state; modifiers: 8 + four masks.
        #expect(VirtualKeyboard.requestBytes(modifiers: 0) == 2 * 20)
        #expect(VirtualKeyboard.requestBytes(modifiers: 4) == 2 * 20 + 4 * 2 * (20 + 24))
    }

    /// Batches are whole chords within batchBytes, and the next waits for the confirmation of the last.
    @Test func batchesAreWholeChordsAndOneAwaitsConfirmationAtATime() {
        var q = Queue()
        #expect(q.add(action(1, count: 32, modifiers: 4), staleBefore: -1).admitted)
        let (first, stale) = q.nextBatch(staleBefore: -1)
        #expect(stale.isEmpty)
        let perChord = VirtualKeyboard.requestBytes(modifiers: 4)
        #expect(first.count == Queue.batchBytes / perChord)
        #expect(first.count * perChord <= Queue.batchBytes)
        q.written(first, confirmation: 7)
        #expect(q.nextBatch(staleBefore: -1).batch.isEmpty, "a batch awaits confirmation")
        #expect(q.confirmed(through: 6).isEmpty)
        #expect(q.confirmed(through: 7).count == first.count)
        let second = q.nextBatch(staleBefore: -1).batch
        #expect(second.count == first.count)
        q.written(second, confirmation: 8)
        #expect(q.waiting.count == 32 - 2 * first.count)
        let (unconfirmed, waiting) = q.abandon()
        #expect(unconfirmed.count == second.count && waiting.count == 32 - 2 * first.count)
        #expect(q.isEmpty)
    }

    /// A chord larger than a batch alone still goes (one chord at least per batch); none is split.
    @Test func aBatchHoldsAtLeastOneChord() {
        var q = Queue()
        _ = q.add(action(1, count: 1, modifiers: 4), staleBefore: 0)
        #expect(q.nextBatch(staleBefore: 0).batch.count == 1)
    }

    /// While nothing is confirmed, actions are admitted whole up to maximumWaiting chords, then refused
    /// whole; chords due before the bound are dropped first, so the freshest fit again.
    @Test func theQueueIsBoundedByWholeActionsAndDropsWhatWaitedTooLong() {
        var q = Queue()
        _ = q.add(action(0, count: 4, due: 0), staleBefore: -1)
        q.written(q.nextBatch(staleBefore: -1).batch, confirmation: 1)
        var tag = 1
        while q.waiting.count + 12 <= Queue.maximumWaiting {
            #expect(q.add(action(tag, count: 12, due: 100), staleBefore: -1).admitted)
            tag += 1
        }
        let full = q.waiting.count
        #expect(!q.add(action(tag, count: 12, due: 200), staleBefore: -1).admitted)
        #expect(q.waiting.count == full, "nothing of a refused action is kept")
        let (admitted, stale) = q.add(action(tag, count: 12, due: 1200), staleBefore: 150)
        #expect(admitted && stale.count == full && q.waiting.count == 12)
        #expect(q.confirmed(through: 1).count == 4)
        let (batch, late) = q.nextBatch(staleBefore: 1201)
        #expect(batch.isEmpty && late.count == 12)
        #expect(q.isEmpty)
    }
}
