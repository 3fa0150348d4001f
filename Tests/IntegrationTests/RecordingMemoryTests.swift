import DaemonUnderTest
import Glibc
import Testing

/// A large recording costs at most about 1.5 times its size in memory, in `gesturectl replay` and in
/// `gestured --replay` alike (issue 28: a 123 MB evemu file took 388 MB and 297 MB, three copies of it
/// at once: the bytes read, a String of them and an array of that String's bytes). An evemu file is parsed
/// as it is read, so only its events stay (16 bytes an event, against its ~28 bytes a line).
@Suite struct RecordingMemoryTests {
    /// An evemu recording of about `megabytes` MB with no gesture worth printing: one finger lands in the
    /// middle of the 100 x 100 mm panel and rolls by a unit every frame (a hold, begun and ended once), as
    /// dense as evemu-record writes (no comments).
    static func writeLargeRecording(megabytes: Int, in directory: TemporaryDirectory) -> (path: String, bytes: Int) {
        let path = directory.path + "/large.evemu"
        let fd = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0o600)
        precondition(fd >= 0)
        defer { close(fd) }
        var total = 0
        func put(_ text: String) {
            let bytes = Array(text.utf8)
            precondition(bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } == bytes.count)
            total += bytes.count
        }
        put(
            "N: large\nI: 0018 1234 5678 0001\nP: 02 00 00 00 00 00 00 00\nB: 00 0b 00 00 00 00 00 00 00\n"
                + "B: 01" + String(repeating: " 00", count: 41) + " 04\n"
                + "B: 03 00 00 00 00 00 80 60 02\n"
                + "A: 2f 0 9 0 0 0\nA: 35 0 1000 0 0 10\nA: 36 0 1000 0 0 10\nA: 39 0 65535 0 0 0\n"
                + "E: 1.000000 0003 0039 1\nE: 1.000000 0003 0035 500\nE: 1.000000 0003 0036 500\n"
                + "E: 1.000000 0001 014a 1\nE: 1.000000 0000 0000 0\n")
        var block = ""
        var microseconds: Int64 = 1_010_000
        while total < megabytes << 20 {
            block.removeAll(keepingCapacity: true)
            for _ in 0..<4096 {
                let time = "\(microseconds / 1_000_000)." + String(String(microseconds % 1_000_000 + 1_000_000).dropFirst())
                block += "E: \(time) 0003 0035 \(500 + microseconds / 10_000 % 2)\nE: \(time) 0000 0000 0\n"
                microseconds += 10_000
            }
            put(block)
        }
        let time = "\(microseconds / 1_000_000)." + String(String(microseconds % 1_000_000 + 1_000_000).dropFirst())
        put("E: \(time) 0003 0039 -1\nE: \(time) 0001 014a 0\nE: \(time) 0000 0000 0\n")
        return (path, total)
    }

    /// How long a replay of the large recording may take: it is a few seconds' work in a debug build, and
    /// `make test` runs suites side by side on two cores (at a load of 17 it took longer than the tests'
    /// usual 20 s).
    static let patience: Int64 = 300_000

    @Test func replayHoldsALargeRecordingInLessThanOneAndAHalfTimesItsSize() throws {
        let directory = TemporaryDirectory()
        let recording = Self.writeLargeRecording(megabytes: 32, in: directory)
        let replay = try runMeasuringMemory(try Paths.gesturectl(), ["replay", recording.path], in: directory, patience: Self.patience)
        #expect(replay.status == 0, "\(replay.output.prefix(2000))")
        #expect(replay.output.contains(#""gesture":"hold","phase":"end""#), "\(replay.output.prefix(2000))")
        let fileKiB = recording.bytes / 1024
        #expect(replay.peakKiB < fileKiB * 3 / 2, "gesturectl replay of a \(fileKiB) KiB recording peaked at \(replay.peakKiB) KiB")

        let daemon = try Daemon(["--replay", recording.path, "--speed", "0.01"], patience: Self.patience)
        let status = readWholeFile("/proc/\(daemon.pid)/status")
        _ = try daemon.terminate()
        let peakLine = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        let peakKiB = try #require(Int(peakLine.split(separator: " ", omittingEmptySubsequences: true)[1]))
        #expect(peakKiB < fileKiB * 3 / 2, "gestured --replay of a \(fileKiB) KiB recording peaked at \(peakKiB) KiB")
    }
}
