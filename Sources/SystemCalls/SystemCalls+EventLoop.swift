// The event loop's system calls: epoll, timerfd, signalfd, the signal mask and the monotonic clock.
// Part of `SystemCall` (SystemCalls.swift): each wrapper retries EINTR through `retryingInterrupts` and
// throws a `SystemError` naming the call.
import CLinux
import Glibc

extension SystemCall {
    /// `epoll_create1(EPOLL_CLOEXEC)`.
    public static func epollCreate() throws(SystemError) -> Int32 {
        try retryingInterrupts("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
    }

    /// `epoll_ctl(2)` with EPOLL_CTL_ADD, EPOLL_CTL_MOD or EPOLL_CTL_DEL; `token` is stored in the event's
    /// `data.u64` and returned by `epollWait`.
    public static func epollControl(
        _ epollFD: Int32, operation: Int32, fd: Int32, events: UInt32, token: UInt64
    ) throws(SystemError) {
        var event = epoll_event()
        event.events = events
        event.data.u64 = token
        _ = try retryingInterrupts("epoll_ctl") { epoll_ctl(epollFD, operation, fd, &event) }
    }

    /// `epoll_wait(2)`: fills `buffer` and returns how many entries are ready. EINTR is retried with the
    /// same timeout (signals arrive through a signalfd, so an interruption only comes from SIGSTOP/SIGCONT
    /// or a debugger).
    public static func epollWait(
        _ epollFD: Int32, into buffer: UnsafeMutableBufferPointer<epoll_event>, timeoutMilliseconds: Int32
    ) throws(SystemError) -> Int {
        // glibc 2.41 (Debian trixie) declares the buffer non-null: pass a pointer, not an Optional (an empty
        // buffer is epoll_wait's EINVAL).
        guard let events = buffer.baseAddress, !buffer.isEmpty else { throw SystemError(errno: EINVAL, operation: "epoll_wait") }
        return Int(
            try retryingInterrupts("epoll_wait") {
                epoll_wait(epollFD, events, Int32(buffer.count), timeoutMilliseconds)
            })
    }

    /// `timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC)`.
    public static func timerCreate() throws(SystemError) -> Int32 {
        try retryingInterrupts("timerfd_create") {
            timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK) | Int32(TFD_CLOEXEC))
        }
    }

    /// `timerfd_settime(2)` with TFD_TIMER_ABSTIME: the timer fires once at `monotonicMicroseconds`
    /// (CLOCK_MONOTONIC); nil disarms it.
    public static func timerSet(_ fd: Int32, monotonicMicroseconds: Int64?) throws(SystemError) {
        var spec = itimerspec()
        if let t = monotonicMicroseconds {
            // A zero it_value would disarm; an expiry in the past fires at once, so clamp to 1 ns.
            let clamped = max(t, 0)
            spec.it_value.tv_sec = Int(clamped / 1_000_000)
            spec.it_value.tv_nsec = Int(clamped % 1_000_000) * 1000
            if spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0 { spec.it_value.tv_nsec = 1 }
        }
        let flags: Int32 = monotonicMicroseconds == nil ? 0 : Int32(TFD_TIMER_ABSTIME)
        _ = try retryingInterrupts("timerfd_settime") { timerfd_settime(fd, flags, &spec, nil) }
    }

    /// `read(2)` of a timerfd's 8-byte expiration count; 0 when it has not expired (EAGAIN).
    public static func timerAcknowledge(_ fd: Int32) throws(SystemError) -> UInt64 {
        var expirations: UInt64 = 0
        while true {
            let n = Glibc.read(fd, &expirations, MemoryLayout<UInt64>.size)
            if n == MemoryLayout<UInt64>.size { return expirations }
            let code = Glibc.errno
            if n == -1 && code == EINTR { continue }
            if n == -1 && (code == EAGAIN || code == EWOULDBLOCK) { return 0 }
            throw SystemError(errno: n == -1 ? code : EIO, operation: "read (timerfd)")
        }
    }

    /// `sigprocmask(SIG_BLOCK)` for `signals`, then `signalfd(-1, mask, SFD_NONBLOCK | SFD_CLOEXEC)`: the
    /// signals are no longer delivered asynchronously but read from the returned descriptor.
    public static func signalDescriptor(blocking signals: [Int32]) throws(SystemError) -> Int32 {
        var mask = sigset_t()
        sigemptyset(&mask)
        for s in signals { sigaddset(&mask, s) }
        _ = try retryingInterrupts("sigprocmask") { sigprocmask(SIG_BLOCK, &mask, nil) }
        return try retryingInterrupts("signalfd") { signalfd(-1, &mask, Int32(SFD_NONBLOCK) | Int32(SFD_CLOEXEC)) }
    }

    /// `read(2)` of one `struct signalfd_siginfo`; the signal number, or nil when none is pending.
    public static func signalRead(_ fd: Int32) throws(SystemError) -> Int32? {
        var info = signalfd_siginfo()
        let size = MemoryLayout<signalfd_siginfo>.size
        while true {
            let n = Glibc.read(fd, &info, size)
            if n == size { return Int32(bitPattern: info.ssi_signo) }
            let code = Glibc.errno
            if n == -1 && code == EINTR { continue }
            if n == -1 && (code == EAGAIN || code == EWOULDBLOCK) { return nil }
            throw SystemError(errno: n == -1 ? code : EIO, operation: "read (signalfd)")
        }
    }

    /// `signal(2)` with SIG_IGN: a write to a closed socket then fails with EPIPE instead of killing us.
    public static func ignoreSignal(_ signal: Int32) {
        _ = Glibc.signal(signal, SIG_IGN)
    }

    /// `mallopt(M_MMAP_THRESHOLD, bytes)`: allocations of `bytes` or more get their own mapping, returned
    /// to the system when freed. glibc otherwise raises the threshold to the largest block freed so far,
    /// after which a client's queue that grew during a burst and drained again stays in the heap: the
    /// soak test saw the daemon's resident memory floor rise by megabytes after each burst.
    public static func returnLargeFreedBlocksToTheSystem(atLeast bytes: Int32) {
        _ = mallopt(M_MMAP_THRESHOLD, bytes)
    }

    /// `malloc_trim(0)`: gives the heap's free memory back to the system, after a burst of small
    /// allocations that the daemon no longer holds (a configuration's parse tree at a reload).
    public static func trimHeap() {
        _ = malloc_trim(0)
    }

    /// `clock_gettime(CLOCK_MONOTONIC)` in microseconds: the clock evdev timestamps use once libevdev's
    /// clock is set to CLOCK_MONOTONIC, and the clock the timerfd is armed on.
    public static func monotonicMicroseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
    }

    /// Sleeps `microseconds` (nanosleep, resumed after a signal). Only outside the event loop: the
    /// daemon's shutdown, after the loop has ended.
    public static func sleep(microseconds: Int64) {
        guard microseconds > 0 else { return }
        var request = timespec(tv_sec: Int(microseconds / 1_000_000), tv_nsec: Int(microseconds % 1_000_000) * 1000)
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}
