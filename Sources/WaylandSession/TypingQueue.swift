// What `gesturectl bind` has to type and what the compositor has not confirmed yet (issue 28). A chord is
// written whole or not at all: chords go to libwayland in batches of whole chords, at most `batchBytes`
// of requests (well within libwayland's 4096-byte buffer, so libwayland never writes part of one on its
// own, and within one read of the compositor's, so the compositor reads a batch at once), followed by a
// wl_display_sync; the next batch waits for that sync's `done`, so at most one batch is ever unread in
// the compositor's socket. A compositor that stops reading (SIGSTOP, a hang) leaves the batch in flight
// unconfirmed, and what comes meanwhile waits here, at most `maximumWaiting` chords; whole actions beyond
// that are refused, and chords that waited past their time are dropped. Pure: the caller gives the
// times, marshals the batches and says when they are confirmed.
import GestureBindings

public struct TypingQueue<Tag>: CustomStringConvertible {
    /// One chord to type, with what it belongs to.
    public struct Chord {
        public var tag: Tag
        public var chord: KeyChord
        public var keysym: UInt32
        /// When its action came due (ms, the caller's clock): it is not typed after `staleBefore`.
        public var due: Int64

        public init(tag: Tag, chord: KeyChord, keysym: UInt32, due: Int64) {
            self.tag = tag
            self.chord = chord
            self.keysym = keysym
            self.due = due
        }

        /// Bytes of the requests that type it (VirtualKeyboard.write).
        public var requestBytes: Int { VirtualKeyboard.requestBytes(modifiers: chord.modifiers.count) }
    }

    public enum State {
        /// No batch waits for the compositor: the next one may be written once the connection has room.
        case idle
        /// `batch` was written; the compositor has handled it when its confirmation number `confirmation`
        /// (Compositor.requestConfirmation) comes back.
        case confirming(batch: [Chord], confirmation: Int)
    }

    public private(set) var state: State = .idle
    /// Chords not written yet, oldest first.
    public private(set) var waiting: [Chord] = []

    /// Chords that may wait at most (two bindings' worth of 32).
    public static var maximumWaiting: Int { 64 }
    /// Bytes of key requests in one batch at most: half of libwayland's buffer, the rest left for the
    /// other requests made before the next flush; at least five chords of four modifiers, 25 of none.
    public static var batchBytes: Int { 2048 }

    public init() {}

    public var description: String {
        switch state {
        case .idle: return "idle, \(waiting.count) waiting"
        case .confirming(let batch, let n): return "\(batch.count) chords awaiting confirmation \(n), \(waiting.count) waiting"
        }
    }

    /// Whether nothing waits and nothing awaits confirmation.
    public var isEmpty: Bool {
        if case .idle = state { return waiting.isEmpty }
        return false
    }

    /// Adds one action's chords, all or none: first the waiting chords due before `staleBefore` are dropped
    /// (returned as `stale`), then `chords` are admitted if they all fit in `maximumWaiting`.
    public mutating func add(_ chords: [Chord], staleBefore: Int64) -> (admitted: Bool, stale: [Chord]) {
        let stale = dropStale(before: staleBefore)
        guard waiting.count + chords.count <= Self.maximumWaiting else { return (false, stale) }
        waiting += chords
        return (true, stale)
    }

    /// When no batch awaits confirmation: drops the chords due before `staleBefore` and takes the next batch
    /// of whole chords, at most `batchBytes` (at least one chord). The caller writes it, asks for a
    /// confirmation and calls `written(_:confirmation:)`; an empty batch means there is nothing to write.
    public mutating func nextBatch(staleBefore: Int64) -> (batch: [Chord], stale: [Chord]) {
        guard case .idle = state else { return ([], []) }
        let stale = dropStale(before: staleBefore)
        var bytes = 0
        var count = 0
        for chord in waiting {
            if count > 0 && bytes + chord.requestBytes > Self.batchBytes { break }
            bytes += chord.requestBytes
            count += 1
        }
        let batch = Array(waiting.prefix(count))
        waiting.removeFirst(count)
        return (batch, stale)
    }

    /// `batch` (from `nextBatch`) is in libwayland's buffer, followed by the sync numbered `confirmation`.
    public mutating func written(_ batch: [Chord], confirmation: Int) {
        guard !batch.isEmpty else { return }
        state = .confirming(batch: batch, confirmation: confirmation)
    }

    /// The compositor has confirmed the syncs up to `confirmations`: the batch in flight, if that covers
    /// it, is typed (returned) and the next may be written.
    public mutating func confirmed(through confirmations: Int) -> [Chord] {
        guard case .confirming(let batch, let n) = state, confirmations >= n else { return [] }
        state = .idle
        return batch
    }

    /// The connection is gone or closing: everything is given up. `unconfirmed` reached the compositor's
    /// socket (and may have been typed), `waiting` never left.
    public mutating func abandon() -> (unconfirmed: [Chord], waiting: [Chord]) {
        var unconfirmed: [Chord] = []
        if case .confirming(let batch, _) = state { unconfirmed = batch }
        let rest = waiting
        state = .idle
        waiting = []
        return (unconfirmed, rest)
    }

    private mutating func dropStale(before limit: Int64) -> [Chord] {
        let stale = waiting.filter { $0.due < limit }
        if !stale.isEmpty { waiting.removeAll { $0.due < limit } }
        return stale
    }
}
