import Foundation
import Glibc
import SystemCalls
import Testing

/// SIGUSR1s this process took (the handler only counts).
nonisolated(unsafe) private var interruptions = 0

/// SystemCalls is where EINTR is retried for every program here (gesturectl's poll loops too), and where the
/// one log stream that never waits for its reader is written (the daemon's log and gesturectl's).
@Suite(.serialized) struct SystemCallsTests {
    /// A poll of several descriptors interrupted by a signal (a handler, no SA_RESTART: poll is never
    /// restarted by the kernel) waits on with the time left, and returns when the descriptor is ready,
    /// instead of failing with EINTR or waking the caller's loop for nothing.
    @Test func pollOfManyDescriptorsRetriesAnInterruption() throws {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in interruptions += 1 }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        var previous = sigaction()
        try #require(sigaction(SIGUSR1, &action, &previous) == 0)
        defer { sigaction(SIGUSR1, &previous, nil) }
        // The test runner's threads may block it: unblock it on this one for the poll.
        var usr1 = sigset_t(), oldMask = sigset_t()
        sigemptyset(&usr1)
        sigaddset(&usr1, SIGUSR1)
        try #require(pthread_sigmask(SIG_UNBLOCK, &usr1, &oldMask) == 0)
        defer { pthread_sigmask(SIG_SETMASK, &oldMask, nil) }
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        var idle: [Int32] = [0, 0]
        try #require(pipe(&idle) == 0)
        defer { close(idle[0]); close(idle[1]) }

        let before = interruptions
        let poller = pthread_self()
        let writeEnd = ends[1]
        let helper = Thread {
            usleep(100_000)
            pthread_kill(poller, SIGUSR1)
            usleep(100_000)
            var byte: UInt8 = 1
            _ = write(writeEnd, &byte, 1)
        }
        helper.start()
        var fds = [pollfd(fd: idle[0], events: Int16(POLLIN), revents: 0), pollfd(fd: ends[0], events: Int16(POLLIN), revents: 0)]
        let ready = try SystemCall.poll(&fds, timeoutMilliseconds: 10_000)
        #expect(interruptions > before, "the signal was not delivered to the polling thread")
        #expect(ready == 1)
        #expect(fds[0].revents == 0 && Int32(fds[1].revents) & POLLIN != 0)
    }

    /// Nothing ready within the timeout: 0, every revents 0; a descriptor that is not open: POLLNVAL, not
    /// an error (poll's own rule).
    @Test func pollOfManyDescriptorsTimesOut() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        var fds = [pollfd(fd: ends[0], events: Int16(POLLIN), revents: 0)]
        #expect(try SystemCall.poll(&fds, timeoutMilliseconds: 0) == 0)
        #expect(fds[0].revents == 0)
        var closed = [pollfd(fd: 1_000_000, events: Int16(POLLIN), revents: 0)]
        #expect(try SystemCall.poll(&closed, timeoutMilliseconds: 0) == 1)
        #expect(Int32(closed[0].revents) & POLLNVAL != 0)
    }

    /// A stream that takes what `accepts` says, per write.
    struct ScriptedStream {
        var accepts: [Int]
        var received = ""
        mutating func send(_ bytes: UnsafeRawBufferPointer) -> Int {
            let n = min(accepts.isEmpty ? bytes.count : accepts.removeFirst(), bytes.count)
            received += String(decoding: bytes.prefix(n), as: UTF8.self)
            return n
        }
    }

    static func notice(_ n: Int) -> String { "[\(n) dropped]\n" }

    /// Lines the stream cannot take are counted; the next line that goes out says how many, first.
    @Test func droppedLinesAreCountedAndReportedWithTheNextLine() {
        var writer = DroppingLineWriter()
        var stream = ScriptedStream(accepts: [.max, 0, 0, .max, .max])
        for line in ["one\n", "two\n", "three\nfour\n", "five\n", "six\n"] {
            let lines = line.filter { $0 == "\n" }.count
            writer.write(line, lines: lines, notice: Self.notice) { stream.send($0) }
            if line == "three\nfour\n" { #expect(writer.droppedLines == 3) }
        }
        #expect(stream.received == "one\n[3 dropped]\nfive\nsix\n")
        #expect(writer.droppedLines == 0)
    }

    /// A write cut short leaves the stream mid-line: the rest of it counts as dropped, and the next write
    /// starts on a fresh line.
    @Test func aLineCutShortIsFinishedWithANewlineAndCounted() {
        var writer = DroppingLineWriter()
        var stream = ScriptedStream(accepts: [3, .max])
        writer.write("abcdef\n", lines: 1, notice: Self.notice) { stream.send($0) }
        #expect(writer.droppedLines == 1)
        writer.write("next\n", lines: 1, notice: Self.notice) { stream.send($0) }
        #expect(stream.received == "abc\n[1 dropped]\nnext\n")
        #expect(writer.droppedLines == 0)
    }

    /// A notice cut short is not counted as sent: the lines stay dropped, the stream is mid-line; once the
    /// notice went out whole, only the cut line is owed.
    @Test func aNoticeCutShortKeepsTheCount() {
        var writer = DroppingLineWriter()
        var stream = ScriptedStream(accepts: [0, 0, 4, 14, .max])
        writer.write("a\n", lines: 1, notice: Self.notice) { stream.send($0) }
        writer.write("b\n", lines: 1, notice: Self.notice) { stream.send($0) }
        #expect(writer.droppedLines == 2)
        writer.write("c\n", lines: 1, notice: Self.notice) { stream.send($0) }  // "[2 d" of "[2 dropped]\nc\n"
        #expect(writer.droppedLines == 3)
        writer.write("d\n", lines: 1, notice: Self.notice) { stream.send($0) }  // "\n[3 dropped]\n" + "d"
        #expect(writer.droppedLines == 1)
        writer.write("e\n", lines: 1, notice: Self.notice) { stream.send($0) }
        #expect(stream.received == "[2 d\n[3 dropped]\nd\n[1 dropped]\ne\n")
    }
}
