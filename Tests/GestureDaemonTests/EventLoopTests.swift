import Glibc
import SystemCalls
import Testing

@testable import GestureDaemon

@Suite struct EventLoopTests {
    @Test func aTimerArmedInThePastFiresAtOnceAndThenIsDisarmed() throws {
        let loop = try EventLoop()
        let timer = try MonotonicTimer()
        try loop.add(timer.fd, token: 7, interest: .readable)
        try timer.set(SystemCall.monotonicMicroseconds() - 1000)
        let ready = try loop.wait(timeoutMilliseconds: 5000)
        #expect(ready.map(\.token) == [7])
        try timer.acknowledge()
        #expect(timer.deadlineMicroseconds == nil)
        #expect(try loop.wait(timeoutMilliseconds: 0).isEmpty)
    }

    @Test func aTimerFiresNoEarlierThanItsDeadline() throws {
        let loop = try EventLoop()
        let timer = try MonotonicTimer()
        try loop.add(timer.fd, token: 1, interest: .readable)
        let deadline = SystemCall.monotonicMicroseconds() + 20_000
        try timer.set(deadline)
        var ready: [Readiness] = []
        while ready.isEmpty { ready = try loop.wait(timeoutMilliseconds: 5000) }
        #expect(SystemCall.monotonicMicroseconds() >= deadline)
    }

    @Test func aLaterDeadlineKeepsTheEarlierOneArmed() throws {
        // Moving fingers push the recognizer's deadline later every frame: no re-arm until it fires.
        let loop = try EventLoop()
        let timer = try MonotonicTimer()
        try loop.add(timer.fd, token: 1, interest: .readable)
        let first = SystemCall.monotonicMicroseconds() + 20_000
        try timer.set(first)
        try timer.set(first + 1_000_000)
        try timer.set(first + 2_000_000)
        #expect(timer.deadlineMicroseconds == first)
        var ready: [Readiness] = []
        while ready.isEmpty { ready = try loop.wait(timeoutMilliseconds: 5000) }
        let woke = SystemCall.monotonicMicroseconds()
        #expect(woke >= first && woke < first + 1_000_000)
        try timer.acknowledge()
        // An earlier deadline re-arms at once.
        let later = SystemCall.monotonicMicroseconds() + 60_000
        try timer.set(later)
        try timer.set(later - 40_000)
        #expect(timer.deadlineMicroseconds == later - 40_000)
    }

    @Test func aLaterDeadlineMovesTheTimerOnlyWhenTheArmedTimeIsNear() throws {
        // Fingers moving: each frame's deadline is later, and the frame's time says how near the armed one is.
        let timer = try MonotonicTimer()
        let armed = SystemCall.monotonicMicroseconds() + 10_000_000
        try timer.set(armed)
        // The armed time is far from the last frame: left as it is (no system call).
        try timer.set(armed + 100_000, knownNowMicroseconds: armed - MonotonicTimer.moveAheadMicroseconds - 1)
        #expect(timer.deadlineMicroseconds == armed)
        // Near it: moved to the later deadline, so it does not fire early for nothing.
        try timer.set(armed + 200_000, knownNowMicroseconds: armed - MonotonicTimer.moveAheadMicroseconds + 1)
        #expect(timer.deadlineMicroseconds == armed + 200_000)
        // Without a known time, a later deadline never moves it.
        try timer.set(armed + 300_000)
        #expect(timer.deadlineMicroseconds == armed + 200_000)
        // An earlier one always does.
        try timer.set(armed, knownNowMicroseconds: armed - 10_000_000)
        #expect(timer.deadlineMicroseconds == armed)
    }

    @Test func aMovedTimerFiresAtTheLaterTimeNotTheEarlierOne() throws {
        let loop = try EventLoop()
        let timer = try MonotonicTimer()
        try loop.add(timer.fd, token: 1, interest: .readable)
        let now = SystemCall.monotonicMicroseconds()
        try timer.set(now + 10_000)
        try timer.set(now + 80_000, knownNowMicroseconds: now)
        var ready: [Readiness] = []
        while ready.isEmpty { ready = try loop.wait(timeoutMilliseconds: 5000) }
        #expect(SystemCall.monotonicMicroseconds() >= now + 80_000)
    }

    @Test func aDisarmedTimerNeverWakesTheLoop() throws {
        let loop = try EventLoop()
        let timer = try MonotonicTimer()
        try loop.add(timer.fd, token: 1, interest: .readable)
        try timer.set(SystemCall.monotonicMicroseconds() + 10_000)
        try timer.set(nil)
        #expect(try loop.wait(timeoutMilliseconds: 50).isEmpty)
    }

    @Test func readinessCarriesTokensAndInterestCanChange() throws {
        let loop = try EventLoop()
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, 1 | 0o4000 | 0o2000000, 0, &fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        try loop.add(fds[0], token: 42, interest: .readable)
        #expect(try loop.wait(timeoutMilliseconds: 0).isEmpty)
        try loop.modify(fds[0], token: 42, interest: [.readable, .writable])
        let writable = try loop.wait(timeoutMilliseconds: 5000)
        #expect(writable.count == 1 && writable[0].token == 42 && writable[0].isWritable && !writable[0].isReadable)
        #expect(write(fds[1], "x", 1) == 1)
        try loop.modify(fds[0], token: 43, interest: .readable)
        let readable = try loop.wait(timeoutMilliseconds: 5000)
        #expect(readable.count == 1 && readable[0].token == 43 && readable[0].isReadable)
        #expect(loop.remove(fds[0]) == nil)
        #expect(loop.registrationCount == 0)
        close(fds[1])
        fds[1] = -1
        #expect(try loop.wait(timeoutMilliseconds: 0).isEmpty)
    }

    @Test func waitingWithAHandlerStopsWhereTheHandlerSays() throws {
        // The daemon's loop stops handling a batch when SIGTERM arrives in it.
        let loop = try EventLoop()
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, 1 | 0o4000 | 0o2000000, 0, &fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        try loop.add(fds[0], token: 1, interest: .writable)
        try loop.add(fds[1], token: 2, interest: .writable)
        var handled: [UInt64] = []
        try loop.wait(timeoutMilliseconds: 5000) { readiness in
            handled.append(readiness.token)
            return true
        }
        #expect(handled.sorted() == [1, 2])
        handled = []
        try loop.wait(timeoutMilliseconds: 5000) { readiness in
            handled.append(readiness.token)
            return false
        }
        #expect(handled.count == 1)
    }

    @Test func nonBlockingReadAndSendReportWouldBlockAndEndOfFile() throws {
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, 1 | 0o4000 | 0o2000000, 0, &fds) == 0)
        defer { close(fds[0]) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16, alignment: 1)
        defer { buffer.deallocate() }
        #expect(try SystemCall.read(fds[0], into: buffer) == .wouldBlock)
        let sent = try [UInt8]("hello".utf8).withUnsafeBytes { try SystemCall.send(fds[1], $0) }
        #expect(sent == .wrote(5))
        #expect(try SystemCall.read(fds[0], into: buffer) == .bytes(5))
        close(fds[1])
        #expect(try SystemCall.read(fds[0], into: buffer) == .endOfFile)
        #expect(throws: SystemError.self) { try [UInt8]("x".utf8).withUnsafeBytes { try SystemCall.send(fds[0], $0) } }
    }
}
