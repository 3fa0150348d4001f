// EventAges, the age of a gesture event when gesturectl reads it (issue 28), with no clock: a kernel
// device's events are on CLOCK_MONOTONIC; a replay's clock is learned from the events read in time.
// CompositorStallTests stop a real gesturectl bind to see it drop what it read late.
import GestureBindings
import GestureProtocol
import Testing

@Suite struct EventAgesTests {
    let second: Int64 = 1_000_000

    @Test func aKernelDevicesEventsAreAgedOnTheMonotonicClock() {
        var ages = EventAges()
        #expect(ages.age(eventTime: 100 * second, device: "event5", source: .evdev, now: 100 * second + 3000, bound: second) == 3000)
        #expect(ages.age(eventTime: 100 * second, device: "event5", source: .evdev, now: 112 * second, bound: second) == 12 * second)
        // Never negative, even for a clock a little ahead.
        #expect(ages.age(eventTime: 100 * second, device: "event5", source: .evdev, now: 99 * second, bound: second) == 0)
    }

    /// A replay's recording clock (here 1 000 s behind CLOCK_MONOTONIC) is learned from the events read in
    /// time; after a 12 s stop the backlog is aged against it, and the next events are fresh again.
    @Test func aReplaysBacklogIsAgedAgainstThePaceBeforeIt() {
        var ages = EventAges()
        let shift = 1000 * second
        func age(_ t: Int64, readAt now: Int64) -> Int64 {
            ages.age(eventTime: t, device: "replay1", source: .replay, now: now + shift, bound: second)
        }
        #expect(age(10 * second, readAt: 10 * second + 2000) == 0)
        #expect(age(11 * second, readAt: 11 * second + 1000) == 0)
        #expect(age(12 * second, readAt: 12 * second + 3000) == 2000)
        // Stopped from 12.5 s to 24.5 s: what happened meanwhile is read at once.
        #expect(age(13 * second, readAt: 24_500_000) == 11_500_000 - 3000)
        #expect(age(20 * second, readAt: 24_500_100) == 4_500_100 - 3000)
        #expect(age(24 * second, readAt: 24_500_200) == 500_200 - 3000)
        #expect(age(25 * second, readAt: 25 * second + 1000) == 0)
    }

    /// A replay faster than its recording stays fresh; one slower drifts, and lateness that lasts a whole
    /// bound of gesturectl's time (no backlog lasts that long) moves the clock to the event read then.
    @Test func aReplayAtAnotherPaceIsNotDroppedForGood() {
        var ages = EventAges()
        for i in Int64(0)..<20 {
            // Twice as fast: the recording's time runs ahead.
            #expect(ages.age(eventTime: i * 2 * second, device: "fast", source: .replay, now: i * second, bound: second) == 0)
        }
        // Half as fast: each event 2 s later on gesturectl's clock for 1 s of the recording.
        #expect(ages.age(eventTime: 0, device: "slow", source: nil, now: 0, bound: second) == 0)
        #expect(ages.age(eventTime: 3 * second, device: "slow", source: nil, now: 6 * second, bound: second) == 3 * second)
        #expect(ages.age(eventTime: 5 * second, device: "slow", source: nil, now: 10 * second, bound: second) == 0)
        #expect(ages.age(eventTime: 5_400_000, device: "slow", source: nil, now: 10_800_000, bound: second) == 400_000)
    }

    @Test func aNewConnectionForgetsTheClocks() {
        var ages = EventAges()
        _ = ages.age(eventTime: 10 * second, device: "replay1", source: .replay, now: 10 * second, bound: second)
        #expect(ages.age(eventTime: 0, device: "replay1", source: .replay, now: 20 * second, bound: second) == 20 * second)
        ages.reset()
        #expect(ages.age(eventTime: 0, device: "replay1", source: .replay, now: 20 * second, bound: second) == 0)
        ages.forget(device: "replay1")
        #expect(ages.age(eventTime: 5 * second, device: "replay1", source: .replay, now: 30 * second, bound: second) == 0)
    }

    /// A daemon that says a replay's clock (issue 36, hole 8): a gesturectl stopped before the replay's
    /// first event finds that event and its backlog old, and at `--speed 4` an event read late is as old as
    /// it is late (the learned mapping made it look younger by twice the time since the last fresh event).
    @Test func aReplaysClockAgesItsEventsExactlyAtAnySpeed() {
        var ages = EventAges()
        let second: Int64 = 1_000_000
        // The replay started at 500 s CLOCK_MONOTONIC; its recording's clock starts at 1000 s; speed 4.
        let clock = ReplayClock(speed: 4, offsetMicroseconds: 500 * second - 1000 * second / 4)
        func age(_ eventTime: Int64, readAt now: Int64) -> Int64 {
            ages.age(eventTime: eventTime, device: "replay1", source: .replay, replayClock: clock, now: now, bound: second)
        }
        // The first event, due at 500 s, read 20 s late: 20 s old (not 0, as the first event of a learned clock).
        #expect(age(1000 * second, readAt: 520 * second) == 20 * second)
        // In time, then 4 s of the recording later (1 s of ours), read 2 s late: 2 s old.
        #expect(age(1040 * second, readAt: 510 * second) == 0)
        #expect(age(1044 * second, readAt: 513 * second) == 2 * second)
        // A clock that maps nowhere (a forged speed) falls back to the learned mapping.
        let forged = ReplayClock(speed: .infinity, offsetMicroseconds: 0)
        #expect(forged.monotonicMicroseconds(forEventTime: 1) == nil)
    }
}
