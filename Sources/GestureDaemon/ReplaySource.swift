import GestureCore
import GestureProtocol
import SystemCalls
import RecordingFormats
import PlainText

/// How `gestured --replay` plays a recording.
public struct ReplayOptions: Equatable, Sendable {
    /// The recording, evemu's or `libinput record`'s (events, and the device when it has one).
    public var recordingPath: String
    /// A separate device description (`.desc`) for recordings that hold only events.
    public var descriptionPath: String?
    /// Start over when the recording ends, forever.
    public var loop: Bool
    /// Playback speed: 2 plays twice as fast. It changes only the pacing: events keep their recorded
    /// timestamps, so the gestures (velocities included) are the same at any speed.
    public var speed: Double
    /// `--passthrough`: the replay is a device in passthrough (as `passthrough = true` would make it): its
    /// touches go through the forwarder to a uinput copy of the recorded device.
    public var passthrough: Bool
    /// `--pen`: recordings of the panel's pens on the recording's clock, played beside it (touch
    /// arbitration); pens recorded in the recording itself (a `libinput record` of both) come without it.
    public var penPaths: [String] = []
    /// `--wait-for-explanations`: the replay is held (the device there, no event played) until a client
    /// subscribes to explanations, so that it explains the recording from its first touch (`gesturectl
    /// tune` and `explain` against the daemon).
    public var waitForExplanations: Bool

    public init(
        recordingPath: String, descriptionPath: String? = nil, loop: Bool = false, speed: Double = 1,
        passthrough: Bool = false, waitForExplanations: Bool = false
    ) {
        self.recordingPath = recordingPath
        self.descriptionPath = descriptionPath
        self.loop = loop
        self.speed = speed
        self.passthrough = passthrough
        self.waitForExplanations = waitForExplanations
    }

    /// Fastest and slowest speeds accepted.
    public static let speedRange: ClosedRange<Double> = 0.01...1_000_000
}

/// Why a recording cannot be replayed; the message names the file and says what to do.
public struct ReplayError: Error, Equatable, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A virtual device that plays a recording on the event loop's timer, through the same path as a
/// kernel device: its events are fed to a GestureEngine at the times they were recorded (scaled by the
/// speed), and the gestures go to clients like any other device's.
///
/// Event times stay in the recording's clock (passes of a loop are laid end to end, `passGap` apart), so
/// the engine sees exactly what `gesturectl replay` feeds it; only `monotonicMicroseconds(forEventTime:)`
/// maps them to the wall of CLOCK_MONOTONIC for scheduling.
public final class ReplaySource: InputSource {
    /// Pause between the end of one pass of a loop and the start of the next, in recording time.
    public static let passGapMicroseconds: Int64 = 1_000_000
    /// Most reports one `read` hands out, so a replay running far ahead of schedule (a high speed) still
    /// lets the loop serve its clients between batches.
    public static let maximumReportsPerRead = 2048

    public let options: ReplayOptions
    public let description: DeviceDescription
    public var source: DeviceSource { .replay }
    public var path: String { options.recordingPath }
    public var hotplugNode: String? { nil }
    public var pollDescriptor: Int32? { nil }

    private let events: [InputEvent]
    /// The pens' proximity changes (recording time, first pass), fed between the events.
    private let penChanges: [PenChange]
    private var penIndex = 0
    /// For each event, the index after the last event stamped the same (a frame's events share their
    /// time): a read hands a frame out at once.
    private let sameTimeEnds: [Int]
    private let firstTime: Int64
    /// Recording time from the start of one pass to the start of the next.
    private let periodMicroseconds: Int64
    private var startMonotonicMicroseconds: Int64
    /// Held until a client subscribes to explanations (`ReplayOptions.waitForExplanations`): no event due.
    public private(set) var held: Bool
    /// `options.speed == 1`, asked at every frame.
    private let atRecordedSpeed: Bool
    private var pass: Int64 = 0
    private var index = 0
    /// Set once a replay that does not loop has reported its final reset.
    private var ended = false
    /// Event time of the last report handed out.
    private var lastReportedTime: Int64?

    /// Loads the recording (and description) and schedules its first event for `startMonotonicMicroseconds`.
    public init(options: ReplayOptions, startMonotonicMicroseconds: Int64) throws(ReplayError) {
        guard ReplayOptions.speedRange.contains(options.speed) else {
            throw ReplayError(
                "replay speed \(options.speed) is out of range; use a speed from \(ReplayOptions.speedRange.lowerBound) to \(Int(ReplayOptions.speedRange.upperBound))")
        }
        let recording: DeviceRecording
        do {
            recording = try RecordingFile.load(options.recordingPath, description: options.descriptionPath)
        } catch {
            throw ReplayError(error.description)
        }
        let device = recording.device
        guard let first = recording.events.first, let last = recording.events.last else {
            throw ReplayError("\(options.recordingPath): has no events (E: lines) to replay")
        }
        var pens = recording.pens
        for path in options.penPaths {
            let pen: DeviceRecording
            do {
                pen = try RecordingFile.load(path)
            } catch {
                throw ReplayError(error.description)
            }
            guard pen.device.isPen else {
                throw ReplayError("\(path): \"\(escapingControlCharacters(pen.device.name))\" has neither BTN_TOOL_PEN nor BTN_TOOL_RUBBER; give --pen a recording of the pen")
            }
            pens.append(pen.events)
        }
        self.options = options
        self.description = device
        self.events = recording.events
        self.penChanges = PenChange.changes(of: pens)
        var ends = [Int](repeating: recording.events.count, count: recording.events.count)
        var i = recording.events.count - 1
        while i > 0 {
            ends[i - 1] = recording.events[i - 1].timeMicroseconds == recording.events[i].timeMicroseconds ? ends[i] : i
            i -= 1
        }
        self.sameTimeEnds = ends
        self.firstTime = first.timeMicroseconds
        self.periodMicroseconds = max(0, last.timeMicroseconds - first.timeMicroseconds) + ReplaySource.passGapMicroseconds
        self.startMonotonicMicroseconds = startMonotonicMicroseconds
        held = options.waitForExplanations
        atRecordedSpeed = options.speed == 1
    }

    /// Starts a held replay: its first event is due at `nowMicroseconds` (CLOCK_MONOTONIC). Nothing for
    /// one that is not held.
    public func release(nowMicroseconds: Int64) {
        guard held else { return }
        held = false
        startMonotonicMicroseconds = nowMicroseconds
        nextWakeMicroseconds = scheduledWake()
    }

    /// Whether every event has been played and the final reset reported (never true for a loop).
    public var finished: Bool { ended }

    /// Number of passes started so far, counting the current one.
    public var passesStarted: Int64 { pass + 1 }

    /// Farthest from the start a report is scheduled, in microseconds (about 146,000 years): a recording
    /// may span centuries (timestamps go up to 9e12 s) and a slow speed stretches that past what Int64
    /// holds. Such a report is due "never", instead of trapping in the conversion from Double.
    static let farthestScheduleMicroseconds: Int64 = 1 << 62

    public func monotonicMicroseconds(forEventTime eventMicroseconds: Int64) -> Int64 {
        // At speed 1 (the usual), in integers: the same result as below wherever that is exact (the time
        // from the first event below 2^53 µs, 285 years), with no conversion to and from Double.
        let fromFirst = eventMicroseconds - firstTime
        if atRecordedSpeed && fromFirst.magnitude < 1 << 53 { return startMonotonicMicroseconds + fromFirst }
        let elapsed = (Double(eventMicroseconds - firstTime) / options.speed).rounded(.up)
        let bound = Double(ReplaySource.farthestScheduleMicroseconds)
        return startMonotonicMicroseconds + Int64(min(max(elapsed, -bound), bound))
    }

    /// The clock clients map this replay's event times with (`DeviceInfo.replayClock`): the schedule
    /// `monotonicMicroseconds(forEventTime:)` keeps.
    public var clock: ReplayClock {
        ReplayClock(speed: options.speed, offsetMicroseconds: startMonotonicMicroseconds - Int64((Double(firstTime) / options.speed).rounded()))
    }

    public func eventMicroseconds(forMonotonic monotonicMicroseconds: Int64) -> Int64 {
        let elapsed = Double(monotonicMicroseconds - startMonotonicMicroseconds) * options.speed
        let bound = Double(ReplaySource.farthestScheduleMicroseconds)
        var time = firstTime &+ Int64(min(max(elapsed, -bound), bound))
        if let next = nextEventTime { time = min(time, next) }
        if let last = lastReportedTime { time = max(time, last) }
        return time
    }

    /// A recording starts from nothing: its events say everything.
    public var panelState: PanelState? { nil }

    /// A recording is read by the daemon alone: there is no grab to take.
    public func setGrab(_ grab: Bool) throws(EvdevError) {}

    /// The copy of a replayed panel is made from its description (`gestured --replay --passthrough`).
    public func makeVirtualCopy() throws(SystemError) -> any PassthroughCopy {
        try VirtualTouchscreen(cloning: description, panelNode: nil)
    }

    /// Event time of the next report: an event of the current pass, or the reset that ends the pass
    /// `passGapMicroseconds` after its last event (where the next pass of a loop starts).
    private var nextEventTime: Int64? {
        if ended { return nil }
        let next = index < events.count ? events[index].timeMicroseconds + pass * periodMicroseconds : firstTime + (pass + 1) * periodMicroseconds
        return min(next, nextPenTime ?? next)
    }

    /// Event time of the pens' next change in this pass, nil when none is left.
    private var nextPenTime: Int64? {
        penIndex < penChanges.count ? penChanges[penIndex].timeMicroseconds + pass * periodMicroseconds : nil
    }

    /// When the next report is due (CLOCK_MONOTONIC): worked out once per read, as the loop asks for it
    /// several times a turn.
    public private(set) lazy var nextWakeMicroseconds: Int64? = scheduledWake()

    private func scheduledWake() -> Int64? { held ? nil : nextEventTime.map(monotonicMicroseconds(forEventTime:)) }

    /// Everything due at once (a replay's events are in memory: no read to save): always returns false.
    @discardableResult
    public func read(nowMicroseconds readNow: @autoclosure () -> Int64, into reports: inout InputReports) throws(InputSourceEnded) -> Bool {
        defer { nextWakeMicroseconds = scheduledWake() }
        if held { return false }
        let nowMicroseconds = readNow()
        var budget = ReplaySource.maximumReportsPerRead
        while budget > 0, !ended {
            // A frame's events share their time: its schedule is worked out once, for the first.
            let offset = pass * periodMicroseconds
            // The pens' change comes before the panel's events stamped at or after it.
            let nextPanel = index < events.count ? events[index].timeMicroseconds + offset : firstTime + (pass + 1) * periodMicroseconds
            if let penTime = nextPenTime, penTime <= nextPanel {
                guard monotonicMicroseconds(forEventTime: penTime) <= nowMicroseconds else { break }
                lastReportedTime = max(lastReportedTime ?? penTime, penTime)
                reports.append(.pen(inProximity: penChanges[penIndex].inProximity, atMicroseconds: penTime))
                penIndex += 1
                budget -= 1
                continue
            }
            if index < events.count {
                let time = events[index].timeMicroseconds + offset
                guard monotonicMicroseconds(forEventTime: time) <= nowMicroseconds else { break }
                lastReportedTime = time
                // This event and those after it stamped the same, at once.
                let start = index
                let end = min(sameTimeEnds[start], start + budget)
                events.withUnsafeBufferPointer { events in
                    reports.append(UnsafeBufferPointer(rebasing: events[start..<end]), offsetMicroseconds: offset)
                }
                index = end
                budget -= index - start
            } else {
                let time = firstTime + (pass + 1) * periodMicroseconds
                guard monotonicMicroseconds(forEventTime: time) <= nowMicroseconds else { break }
                lastReportedTime = time
                reports.append(.reset(atMicroseconds: time))
                if options.loop {
                    pass += 1
                    index = 0
                    penIndex = 0
                } else {
                    ended = true
                }
                budget -= 1
            }
        }
        return false
    }
}
