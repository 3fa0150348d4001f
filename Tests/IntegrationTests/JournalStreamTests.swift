import Foundation
import GestureClient
import Glibc
import Testing

/// Under systemd, stderr is the service's own stream to journald (JOURNAL_STREAM names it). A journal
/// that stops reading must cost log lines, never the event loop.
@Suite(.serialized) struct JournalStreamTests {
    @Test func aJournalThatStopsReadingCostsLogLinesNotGestures() throws {
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        let journal = fds[0]
        defer { close(journal) }
        var small: Int32 = 4096
        setsockopt(fds[1], SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(journal, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        var st = stat()
        #expect(fstat(fds[1], &st) == 0)

        let directory = TemporaryDirectory()
        // Debug level: every gesture event is also a log line, so the stream fills within the first gesture.
        let config = directory.write("debug.toml", "[daemon]\nsocket_group = \"\"\nlog_level = \"debug\"\n")
        let daemon = try Daemon(
            ["--config", config, "--replay", Paths.recordings + "dell_canvas_touch.evemu", "--loop", "--speed", "10"],
            directory: directory, environment: ["JOURNAL_STREAM=\(st.st_dev):\(st.st_ino)"], stderrDescriptor: fds[1])
        close(fds[1])

        // Nobody reads the journal end, yet a client keeps receiving gestures (a blocking log would stall
        // the daemon at its first full write).
        let client = try daemon.connect()
        try client.subscribe()
        var received = 0
        while received < 200 {
            _ = try nextGesture(client, from: daemon)
            received += 1
        }

        // Drain the stream; the next line that gets through says how many were dropped.
        let flags = fcntl(journal, F_GETFL)
        _ = fcntl(journal, F_SETFL, flags | O_NONBLOCK)
        var text = ""
        var buffer = [UInt8](repeating: 0, count: 65536)
        try waitUntil("the daemon to report dropped log lines", context: { text.suffix(2000).description }) {
            while true {
                let n = read(journal, &buffer, buffer.count)
                if n <= 0 { break }
                text += String(decoding: buffer[0..<n], as: UTF8.self)
            }
            _ = try nextGesture(client, from: daemon)  // keeps the daemon logging
            return text.contains("log lines dropped: the journal was not reading")
        }
        // Lines stay whole and prefixed: every line that got through starts with a priority.
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("<") })
        #expect(try daemon.isRunning())
    }

    @Test func aStderrThatIsNotTheJournalStreamIsLeftBlocking() throws {
        // JOURNAL_STREAM naming another file (as when a service starts gestured by hand from a shell):
        // the daemon must not switch a descriptor it shares to non-blocking. It logs normally.
        let directory = TemporaryDirectory()
        let daemon = try Daemon(
            ["--replay", Paths.recordings + "dell_canvas_touch.evemu"], directory: directory,
            environment: ["JOURNAL_STREAM=1:1"])
        try daemon.waitForLog("ready")
        #expect(!daemon.log.contains("dropped"))
    }
}
