import CLinux
import Glibc
import SystemCalls

/// What a registered descriptor is watched for.
public struct Interest: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let readable = Interest(rawValue: EPOLLIN.rawValue)
    public static let writable = Interest(rawValue: EPOLLOUT.rawValue)
}

/// One ready descriptor, as `EventLoop.wait` reports it.
public struct Readiness: Equatable, Sendable {
    /// The token the descriptor was registered with.
    public var token: UInt64
    public var events: UInt32

    public var isReadable: Bool { events & EPOLLIN.rawValue != 0 }
    public var isWritable: Bool { events & EPOLLOUT.rawValue != 0 }
    /// The peer hung up or the descriptor is in error; reading reports the details.
    public var isHangUpOrError: Bool { events & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 }
}

/// The daemon's one epoll instance. Descriptors are registered with a caller-chosen token (never reused
/// by the daemon, so a stale readiness for a descriptor closed earlier in the same batch is recognised
/// and skipped); `wait` sleeps until something is ready, with no timeout unless asked, so an idle daemon
/// makes no wake-ups. Level-triggered: a handler that leaves data unread is called again next round,
/// which keeps one busy client from starving the others.
public final class EventLoop {
    public let epollFD: Int32
    private var buffer: UnsafeMutableBufferPointer<epoll_event>
    private var registered = Set<Int32>()

    /// Most readiness entries handled per `wait`.
    public init(batchSize: Int = 64) throws(SystemError) {
        epollFD = try SystemCall.epollCreate()
        buffer = .allocate(capacity: batchSize)
    }

    deinit {
        buffer.deallocate()
        SystemCall.close(epollFD)
    }

    /// Number of descriptors currently registered.
    public var registrationCount: Int { registered.count }

    /// Starts watching `fd` (EPOLL_CTL_ADD).
    public func add(_ fd: Int32, token: UInt64, interest: Interest) throws(SystemError) {
        try SystemCall.epollControl(epollFD, operation: EPOLL_CTL_ADD, fd: fd, events: interest.rawValue, token: token)
        registered.insert(fd)
    }

    /// Changes what `fd` is watched for (EPOLL_CTL_MOD).
    public func modify(_ fd: Int32, token: UInt64, interest: Interest) throws(SystemError) {
        try SystemCall.epollControl(epollFD, operation: EPOLL_CTL_MOD, fd: fd, events: interest.rawValue, token: token)
    }

    /// Stops watching `fd` (EPOLL_CTL_DEL). Call before closing it. Errors are returned, not thrown: there
    /// is nothing a caller could do but log them.
    @discardableResult
    public func remove(_ fd: Int32) -> SystemError? {
        guard registered.remove(fd) != nil else { return nil }
        do {
            try SystemCall.epollControl(epollFD, operation: EPOLL_CTL_DEL, fd: fd, events: 0, token: 0)
            return nil
        } catch {
            return error
        }
    }

    /// Sleeps until at least one descriptor is ready (or `timeoutMilliseconds` passes; -1 = forever) and
    /// returns what is ready.
    public func wait(timeoutMilliseconds: Int32 = -1) throws(SystemError) -> [Readiness] {
        var ready: [Readiness] = []
        try wait(timeoutMilliseconds: timeoutMilliseconds) { readiness in
            ready.append(readiness)
            return true
        }
        return ready
    }

    /// The same without building an array (the daemon's loop: a wake-up allocates nothing): hands what is
    /// ready to `handle`, in order, until it returns false.
    public func wait(timeoutMilliseconds: Int32 = -1, _ handle: (Readiness) -> Bool) throws(SystemError) {
        let count = try SystemCall.epollWait(epollFD, into: buffer, timeoutMilliseconds: timeoutMilliseconds)
        for i in 0..<count {
            guard handle(Readiness(token: buffer[i].data.u64, events: buffer[i].events)) else { return }
        }
    }
}

/// A one-shot timer on CLOCK_MONOTONIC (a timerfd). It remembers when it is armed for, so re-arming for
/// the same time costs no system call; when disarmed it never wakes the loop.
public final class MonotonicTimer {
    public let fd: Int32
    /// When the timer fires next, CLOCK_MONOTONIC microseconds; nil when disarmed.
    public private(set) var deadlineMicroseconds: Int64?

    public init() throws(SystemError) {
        fd = try SystemCall.timerCreate()
    }

    deinit { SystemCall.close(fd) }

    /// How close to the armed time a later deadline is worth a `timerfd_settime`: closer than this, the
    /// timer is moved rather than left to fire early. Longer than the interval between a panel's frames
    /// (4–17 ms), so that while fingers move a frame comes in time to move it.
    public static let moveAheadMicroseconds: Int64 = 25_000

    /// Arms the timer for `monotonicMicroseconds`, or disarms it for nil.
    ///
    /// While fingers move, a recognizer's deadline moves later with every frame (60–240 a second). A later
    /// time than the one armed costs no system call: the timer stays armed for the earlier time until
    /// that time is near. `knownNowMicroseconds` (a time already passed, such as the last event's: no
    /// clock read) says when that is: once the armed time is less than `moveAheadMicroseconds` after it,
    /// the timer is moved to the later time, one `timerfd_settime` per deadline period instead of a
    /// wake-up that finds nothing due. Without it, the timer fires early, the loop finds nothing due and
    /// re-arms then.
    public func set(_ monotonicMicroseconds: Int64?, knownNowMicroseconds: Int64? = nil) throws(SystemError) {
        guard monotonicMicroseconds != deadlineMicroseconds else { return }
        if let wanted = monotonicMicroseconds, let armed = deadlineMicroseconds, wanted > armed {
            guard let now = knownNowMicroseconds, armed - now < MonotonicTimer.moveAheadMicroseconds else { return }
        }
        try SystemCall.timerSet(fd, monotonicMicroseconds: monotonicMicroseconds)
        deadlineMicroseconds = monotonicMicroseconds
    }

    /// Consumes the expiry after the timer's descriptor was readable; the timer is then disarmed.
    public func acknowledge() throws(SystemError) {
        _ = try SystemCall.timerAcknowledge(fd)
        deadlineMicroseconds = nil
    }
}

/// Signals read from a signalfd instead of being delivered asynchronously.
public final class SignalReceiver {
    public let fd: Int32

    /// Blocks `signals` for the process and opens a signalfd for them. Call before any other thread exists.
    public init(signals: [Int32]) throws(SystemError) {
        fd = try SystemCall.signalDescriptor(blocking: signals)
    }

    deinit { SystemCall.close(fd) }

    /// The signals that arrived since the last call, in order.
    public func take() throws(SystemError) -> [Int32] {
        var signals: [Int32] = []
        while let s = try SystemCall.signalRead(fd) { signals.append(s) }
        return signals
    }
}
