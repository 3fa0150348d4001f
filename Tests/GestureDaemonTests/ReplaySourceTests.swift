import GestureCore
import Glibc
import RecordingFormats
import Testing

@testable import GestureDaemon

@Suite struct ReplaySourceTests {
    static let fixtures: String = {
        var path = #filePath
        for _ in 0..<2 { path = String(path[..<path.lastIndex(of: "/")!]) }
        return path + "/Fixtures/recordings/"
    }()

    private func source(loop: Bool = false, speed: Double = 1, start: Int64 = 1_000_000) throws -> ReplaySource {
        try ReplaySource(
            options: ReplayOptions(
                recordingPath: Self.fixtures + "Atmel_maXTouch_Touchscreen.2-fingers-touch-release.events",
                descriptionPath: Self.fixtures + "Atmel_maXTouch_Touchscreen.desc", loop: loop, speed: speed),
            startMonotonicMicroseconds: start)
    }

    /// Everything the source reports when read at `now`.
    private func read(_ s: ReplaySource, at now: Int64) -> [InputReport] {
        var reports = InputReports()
        do {
            try s.read(nowMicroseconds: now, into: &reports)
        } catch {
            Issue.record("read threw \(error)")
        }
        return reports.inOrder
    }

    @Test func playsEventsAtTheirRecordedTimesThenEnds() throws {
        let s = try source()
        let recording = try RecordingFile.parse(Self.fixtures + "Atmel_maXTouch_Touchscreen.2-fingers-touch-release.events")
        let first = recording.events.first!.timeMicroseconds
        let last = recording.events.last!.timeMicroseconds
        #expect(s.nextWakeMicroseconds == 1_000_000)
        // Nothing before the start.
        #expect(read(s, at: 999_999).isEmpty)
        // Everything recorded within the first 50 ms, in order, with its recorded time.
        let due = read(s, at: 1_000_000 + 50_000)
        let expected = recording.events.filter { $0.timeMicroseconds - first <= 50_000 }.map(InputReport.event)
        #expect(due == expected)
        // The rest, then the reset that ends the pass one gap after the last event.
        let rest = read(s, at: 1_000_000 + (last - first) + ReplaySource.passGapMicroseconds)
        #expect(rest.dropLast() == recording.events.dropFirst(expected.count).map(InputReport.event)[...])
        #expect(rest.last == .reset(atMicroseconds: last + ReplaySource.passGapMicroseconds))
        #expect(s.finished)
        #expect(s.nextWakeMicroseconds == nil)
    }

    /// `--wait-for-explanations`: nothing is due while held, however late; released, the recording plays
    /// from its first event on, scheduled from the release.
    @Test func aHeldReplayPlaysNothingUntilReleasedThenFromItsStart() throws {
        let s = try ReplaySource(
            options: ReplayOptions(
                recordingPath: Self.fixtures + "Atmel_maXTouch_Touchscreen.2-fingers-touch-release.events",
                descriptionPath: Self.fixtures + "Atmel_maXTouch_Touchscreen.desc", waitForExplanations: true),
            startMonotonicMicroseconds: 1_000_000)
        let recording = try RecordingFile.parse(Self.fixtures + "Atmel_maXTouch_Touchscreen.2-fingers-touch-release.events")
        #expect(s.held && s.nextWakeMicroseconds == nil)
        #expect(read(s, at: 1_000_000_000).isEmpty)
        s.release(nowMicroseconds: 5_000_000)
        #expect(!s.held && s.nextWakeMicroseconds == 5_000_000)
        let first = read(s, at: 5_000_000)
        #expect(!first.isEmpty)
        if case .event(let e)? = first.first { #expect(e == recording.events.first!) } else { Issue.record("\(first)") }
        // A second release changes nothing.
        s.release(nowMicroseconds: 9_000_000)
        #expect(s.monotonicMicroseconds(forEventTime: recording.events.first!.timeMicroseconds) == 5_000_000)
    }

    @Test func speedScalesThePacingNotTheTimestamps() throws {
        let normal = try source()
        let fast = try source(speed: 4)
        let span: Int64 = 200_000
        let a = read(normal, at: 1_000_000 + span)
        let b = read(fast, at: 1_000_000 + span / 4)
        #expect(!a.isEmpty)
        #expect(a == b)
    }

    @Test func aLoopLaysPassesEndToEnd() throws {
        let s = try source(loop: true, speed: 1000)
        var reports: [InputReport] = []
        var now: Int64 = 1_000_000
        while reports.filter({ if case .reset = $0 { return true } else { return false } }).count < 3 {
            now += 1000
            reports += read(s, at: now)
            if now > 1_000_000_000 { break }
        }
        #expect(!s.finished)
        var previous = Int64.min
        var events = 0
        var resets = 0
        for r in reports where resets < 3 {
            switch r {
            case .event(let e):
                #expect(e.timeMicroseconds >= previous)
                previous = e.timeMicroseconds
                events += 1
            case .reset(let t):
                #expect(t > previous)
                previous = t
                resets += 1
            case .dropped:
                Issue.record("a replay reported dropped events")
            case .pen:
                Issue.record("a replay without a pen reported one")
            }
        }
        #expect(events == 3 * 64)  // the recording has 64 events
    }

    @Test func aBatchIsBoundedSoTheLoopStaysResponsive() throws {
        let s = try source(loop: true, speed: 1_000_000)
        let reports = read(s, at: Int64.max / 4)
        #expect(reports.count == ReplaySource.maximumReportsPerRead)
        #expect(s.nextWakeMicroseconds! <= Int64.max / 4)  // more is due at once
    }

    @Test func refusesWhatCannotBeReplayed() {
        #expect(throws: ReplayError.self) {
            try ReplaySource(options: ReplayOptions(recordingPath: "/nonexistent.events"), startMonotonicMicroseconds: 0)
        }
        do {
            _ = try ReplaySource(
                options: ReplayOptions(recordingPath: Self.fixtures + "Wacom_ISDv4_E6_Finger.2fg-tap.events"),
                startMonotonicMicroseconds: 0)
            Issue.record("a recording without a description was accepted")
        } catch {
            #expect(error.description.contains("pass the device's .desc file with --device"))
        }
        do {
            _ = try ReplaySource(
                options: ReplayOptions(recordingPath: Self.fixtures + "Atmel_maXTouch_Touchscreen.desc"),
                startMonotonicMicroseconds: 0)
            Issue.record("a description without events was accepted")
        } catch {
            #expect(error.description.contains("has no events"))
        }
        #expect(throws: ReplayError.self) {
            try ReplaySource(
                options: ReplayOptions(recordingPath: Self.fixtures + "dell_canvas_touch.evemu", speed: 0),
                startMonotonicMicroseconds: 0)
        }
    }
}

@Suite struct ReplaySourceRangeTests {
    /// A recording whose events are 1e11 s apart, played at the slowest speed: the second event is 1e21 µs
    /// away, more than Int64 holds. It is scheduled "never" (far away), not a trap that kills the daemon.
    @Test func aRecordingSpanningCenturiesAtTheSlowestSpeedIsScheduledFarAwayNotATrap() throws {
        let directory = "/tmp/gestured-replay-range-\(getpid())"
        mkdir(directory, 0o700)
        defer {
            unlink(directory + "/huge.events")
            rmdir(directory)
        }
        let path = directory + "/huge.events"
        let text = "E: 0.000000 0000 0000 0\nE: 100000000000.000000 0000 0000 0\n"
        let fd = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0o600)
        #expect(fd >= 0)
        _ = Array(text.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        let s = try ReplaySource(
            options: ReplayOptions(
                recordingPath: path, descriptionPath: ReplaySourceTests.fixtures + "Atmel_maXTouch_Touchscreen.desc",
                speed: ReplayOptions.speedRange.lowerBound),
            startMonotonicMicroseconds: 1_000_000)
        var reports = InputReports()
        try s.read(nowMicroseconds: 2_000_000, into: &reports)
        #expect(reports.inOrder.count == 1)  // the first event; the second is centuries away
        let wake = try #require(s.nextWakeMicroseconds)
        #expect(wake > 1_000_000 + 1_000_000_000_000_000)
        reports.removeAll()
        try s.read(nowMicroseconds: Int64.max / 4, into: &reports)
        #expect(reports.isEmpty)
        #expect(s.monotonicMicroseconds(forEventTime: -9_000_000_000_000_000_000) < 0)
    }
}

extension ReplaySourceTests {
    /// `--pen`: the pen's proximity changes come between the panel's events, each before the first event
    /// stamped at or after it, and again in each pass of a loop; a recording that is no pen is refused.
    @Test func aPenRecordingPlaysBesideThePanel() throws {
        let recording = try RecordingFile.parse(Self.fixtures + "Atmel_maXTouch_Touchscreen.2-fingers-touch-release.events")
        let first = recording.events.first!.timeMicroseconds
        func stamp(_ t: Int64) -> String { "\(t / 1_000_000).\(String(repeating: "0", count: 6 - String(t % 1_000_000).count))\(t % 1_000_000)" }
        // A pen's evemu recording: BTN_TOOL_PEN (0x140, key byte 40), ABS_X/ABS_Y; near 20 ms to 40 ms in.
        let keyRows = (0..<12).map { row in "B: 01 " + (0..<8).map { row * 8 + $0 == 40 ? "01" : "00" }.joined(separator: " ") }
        var lines: [String] = ["N: Test Pen", "I: 0018 056a 5146 0100", "P: 02 00 00 00 00 00 00 00", "B: 00 0b 00 00 00 00 00 00 00"]
        lines += keyRows
        lines += ["B: 03 03 00 00 00 00 00 00 00", "A: 00 0 1000 0 0 10", "A: 01 0 1600 0 0 10"]
        for (time, value) in [(first + 20_000, 1), (first + 40_000, 0)] as [(Int64, Int)] {
            lines.append("E: \(stamp(time)) 0001 0140 \(value)")
            lines.append("E: \(stamp(time)) 0000 0000 0")
        }
        let path = "/tmp/gestured-replay-pen-\(getpid()).evemu"
        try RecordingFile.write(lines.joined(separator: "\n") + "\n", to: path)
        defer { unlink(path) }
        var options = ReplayOptions(
            recordingPath: Self.fixtures + "Atmel_maXTouch_Touchscreen.2-fingers-touch-release.events",
            descriptionPath: Self.fixtures + "Atmel_maXTouch_Touchscreen.desc", loop: true)
        options.penPaths = [path]
        let s = try ReplaySource(options: options, startMonotonicMicroseconds: 1_000_000)
        var reports: [InputReport] = []
        func isReset(_ r: InputReport) -> Bool { if case .reset = r { return true } else { return false } }
        while reports.filter(isReset).count < 2 { reports += read(s, at: 1_000_000_000) }
        // The first two passes.
        let secondReset = reports.indices.filter { isReset(reports[$0]) }[1]
        reports = Array(reports[...secondReset])
        let pens = reports.compactMap { r -> (Bool, Int64)? in if case .pen(let near, let t) = r { return (near, t) } else { return nil } }
        let period = recording.events.last!.timeMicroseconds - first + ReplaySource.passGapMicroseconds
        #expect(pens.map(\.0) == [true, false, true, false])
        #expect(pens.map(\.1) == [first + 20_000, first + 40_000, first + period + 20_000, first + period + 40_000])
        // In time order with the events: nothing stamped after a pen change comes before it.
        var previous = Int64.min
        for r in reports {
            let t: Int64
            switch r {
            case .event(let e): t = e.timeMicroseconds
            case .pen(_, let time), .reset(let time), .dropped(let time): t = time
            }
            #expect(t >= previous)
            previous = t
        }
        // A touchscreen's recording as the pen: refused, saying why.
        options.penPaths = [Self.fixtures + "dell_canvas_touch.evemu"]
        #expect(throws: ReplayError.self) { try ReplaySource(options: options, startMonotonicMicroseconds: 0) }
        do {
            _ = try ReplaySource(options: options, startMonotonicMicroseconds: 0)
        } catch {
            #expect((error as? ReplayError)?.description.contains("has neither BTN_TOOL_PEN nor BTN_TOOL_RUBBER") == true)
        }
    }
}
