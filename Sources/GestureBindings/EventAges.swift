// How old a gesture event is when `gesturectl bind` (or `lisgd`) reads it (issue 28): a gesturectl that was
// stopped (SIGSTOP, a suspended session) or starved of CPU finds the daemon's events of the meantime waiting
// in its socket, and must not run their commands or type their keys late. An event's `time` is on its
// device's clock (docs/protocol.md): CLOCK_MONOTONIC for a kernel device, the clock gesturectl reads too, so
// its age is exact. A replay's clock is the recording's: it is mapped onto CLOCK_MONOTONIC by the events
// read in time (each fresh event moves the mapping to itself), so the backlog found after a stop is aged
// against the pace before it. A daemon that says a replay's clock (`DeviceInfo.replayClock`: its speed
// and its offset onto CLOCK_MONOTONIC) has its events aged exactly, at any `--speed`, the first one too (a
// gesturectl stopped before the replay's first event finds its backlog old, not fresh); the learned mapping
// is for a daemon that does not say it, exact at the recording's pace or faster; a slower one drifts, and
// lateness that lasts a whole `bound` of gesturectl's own time (not a backlog, which is read at once) moves
// the mapping to the event read then. Pure: the caller gives the times.
import GestureProtocol

public struct EventAges: Sendable {
    /// A learned clock: CLOCK_MONOTONIC minus the device's event clock (µs) at its last fresh event, and
    /// whether (since when, µs CLOCK_MONOTONIC) its events are late.
    private enum Anchor: Sendable {
        case inTime(offset: Int64)
        case late(offset: Int64, since: Int64)

        var offset: Int64 {
            switch self {
            case .inTime(let offset), .late(let offset, _): return offset
            }
        }
    }
    private var anchors: [String: Anchor] = [:]

    public init() {}

    /// The age (µs, never negative) of an event of `device` (nil: the daemon named none) that happened at
    /// `eventTime` (µs, the device's clock) and is read at `now` (µs, CLOCK_MONOTONIC). `source` is the
    /// device's (nil when the daemon has not described it); `bound` (µs) is the age past which the caller
    /// drops what the event fires.
    public mutating func age(
        eventTime: Int64, device: String?, source: DeviceSource?, replayClock: ReplayClock? = nil, now: Int64, bound: Int64
    ) -> Int64 {
        let offset = now &- eventTime
        if source == .evdev { return max(0, offset) }
        // A replay whose clock the daemon says: exact, at any speed, from its first event on.
        if let replayClock, let happened = replayClock.monotonicMicroseconds(forEventTime: eventTime) { return max(0, now &- happened) }
        let key = device ?? ""
        guard let anchor = anchors[key] else {
            anchors[key] = .inTime(offset: offset)
            return 0
        }
        let age = max(0, offset &- anchor.offset)
        if age <= bound {
            anchors[key] = .inTime(offset: offset)
            return age
        }
        switch anchor {
        case .inTime(let kept):
            anchors[key] = .late(offset: kept, since: now)
            return age
        case .late(_, let since) where now - since < bound:
            return age
        case .late:
            // Late for longer than a backlog takes to read: the replay's clock runs slower than ours.
            anchors[key] = .inTime(offset: offset)
            return 0
        }
    }

    /// Forgets one device's clock (it was removed: the id may come back for another recording).
    public mutating func forget(device: String) { anchors[device] = nil }

    /// Forgets every clock (a new connection: the daemon may have restarted its replays).
    public mutating func reset() { anchors = [:] }
}
