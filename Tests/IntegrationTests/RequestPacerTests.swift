// RequestPacer, what a session companion wants the daemon to hold and when it sends it (issue 28), with no
// daemon: the latest value per key, one request in flight per key, a rate-limited value sent again after
// its retry_after. WaylandTests.fastTurnsEndWithTheDaemonAtTheOutputsOrientation runs it through the daemon.
import GestureClient
import GestureProtocol
import Testing

@Suite struct RequestPacerTests {
    typealias Pacer = RequestPacer<String, Int>

    private func limited(_ retryAfter: Double?) -> Pacer.Answer {
        .refused(ProtocolError(.rateLimited, "send it again", retryAfter: retryAfter))
    }

    @Test func onlyTheLatestWantedValueGoesAndOneAtATime() {
        var p = Pacer()
        p.daemonHolds(0, for: "event5")
        p.want(0, for: "event5")
        #expect(p.due(now: 0).isEmpty, "the daemon holds it already")
        p.want(90, for: "event5")
        #expect(p.due(now: 0).map(\.value) == [90])
        p.sent(90, for: "event5", id: 1)
        p.want(180, for: "event5")
        p.want(270, for: "event5")
        #expect(p.due(now: 0).isEmpty, "one request in flight per key")
        #expect(p.answered(id: 1, .accepted, now: 10, unitsPerSecond: 1000)! == ("event5", 90))
        #expect(p.held("event5") == 90)
        #expect(p.due(now: 10).map(\.value) == [270], "the latest, not each one wanted meanwhile")
        p.sent(270, for: "event5", id: 2)
        p.answered(id: 2, .accepted, now: 20, unitsPerSecond: 1000)
        #expect(p.due(now: 20).isEmpty && p.nextDeadline == nil)
        #expect(p.states["event5"] == .settled(held: 270))
        #expect(p.answered(id: 2, .accepted, now: 30, unitsPerSecond: 1000) == nil, "an answer twice is none of ours")
    }

    /// A value refused by the rate limit waits its retry_after (0.5 s from a daemon that does not say),
    /// then goes again, as the latest wanted by then; any other refusal ends the attempt.
    @Test func aRateLimitedValueGoesAgainWhenTheDaemonSaysItMay() {
        var p = Pacer()
        p.want(90, for: "a")
        p.sent(90, for: "a", id: 1)
        p.want(180, for: "a")
        p.answered(id: 1, limited(0.03), now: 1000, unitsPerSecond: 1000)
        #expect(p.due(now: 1029).isEmpty)
        #expect(p.nextDeadline == 1030)
        #expect(p.due(now: 1030).map(\.value) == [180])
        p.sent(180, for: "a", id: 2)
        p.answered(id: 2, limited(nil), now: 2000, unitsPerSecond: 1000)
        #expect(p.nextDeadline == 2500)
        p.want(270, for: "a")
        #expect(p.nextDeadline == 2500, "a newer value keeps the wait")
        #expect(p.due(now: 2500).map(\.value) == [270])
        p.sent(270, for: "a", id: 3)
        p.answered(id: 3, .refused(ProtocolError(.unknownDevice, "gone")), now: 2600, unitsPerSecond: 1000)
        #expect(p.due(now: 9999).isEmpty && p.nextDeadline == nil)
        p.want(0, for: "a")
        #expect(p.due(now: 9999).map(\.value) == [0])
    }

    /// The daemon saying it holds the wanted value (another client set it) settles it; force sends anyway.
    @Test func whatTheDaemonHoldsSettlesAndForceSendsAgain() {
        var p = Pacer()
        p.want(90, for: "a")
        p.daemonHolds(90, for: "a")
        #expect(p.due(now: 0).isEmpty)
        p.want(90, for: "a", force: true)
        #expect(p.due(now: 0).map(\.value) == [90])
        p.reset()
        #expect(p.due(now: 0).isEmpty && p.states.isEmpty)
    }
}
