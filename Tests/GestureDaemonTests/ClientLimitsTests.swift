import GestureConfig
import Testing

@testable import GestureDaemon

/// No client can deny the others: how many connections one user may hold, and how fast one user may turn
/// the screen.
@Suite struct ClientLimitsTests {
    static var limits: DaemonSettings {
        var limits = DaemonSettings()
        limits.maxClients = 64
        limits.maxClientsPerUID = 16
        return limits
    }

    @Test func oneUserMayHoldAtMostItsShare() {
        let sixteen = [UInt32?](repeating: 1000, count: 16)
        #expect(ClientHub.refusal(uid: 1000, connected: Array(sixteen.prefix(15)), limits: Self.limits, ownUID: 105) == nil)
        let refused = ClientHub.refusal(uid: 1000, connected: sixteen, limits: Self.limits, ownUID: 105)
        #expect(refused?.contains("max_clients_per_uid") == true)
        // Another user, root and the daemon's own user still connect.
        #expect(ClientHub.refusal(uid: 1001, connected: sixteen, limits: Self.limits, ownUID: 105) == nil)
        #expect(ClientHub.refusal(uid: 0, connected: sixteen, limits: Self.limits, ownUID: 105) == nil)
        #expect(ClientHub.refusal(uid: 105, connected: sixteen + [105, 105], limits: Self.limits, ownUID: 105) == nil)
        // The global limit holds for everyone.
        let full = [UInt32?](repeating: 0, count: 64)
        #expect(ClientHub.refusal(uid: 0, connected: full, limits: Self.limits, ownUID: 105)?.contains("(max_clients)") == true)
    }

    @Test func oneUserMayTurnTheScreenABurstThenTwiceASecond() {
        var rate = RequestRate()
        let t0: Int64 = 1_000_000_000
        for _ in 0..<4 { #expect(rate.admit(uid: 1000, now: t0).admitted) }
        let refused = rate.admit(uid: 1000, now: t0)
        #expect(!refused.admitted && refused.retryAfterMicroseconds == 500_000)
        // Another user has its own bucket.
        #expect(rate.admit(uid: 1001, now: t0).admitted)
        #expect(!rate.admit(uid: 1000, now: t0 + 400_000).admitted)
        #expect(rate.admit(uid: 1000, now: t0 + 500_000).admitted)
        // A flood of 60 000 requests over 12 s gets through about 4 + 2 a second.
        var admitted = 0
        for i in 0..<60_000 where rate.admit(uid: 2000, now: t0 + Int64(i) * 200).admitted { admitted += 1 }
        #expect(admitted <= 4 + 25)
    }

    @Test func theUsersKeptAreBounded() {
        var rate = RequestRate()
        for uid in 0..<UInt32(10_000) { _ = rate.admit(uid: uid, now: Int64(uid)) }
        // Each used one change of its burst: busy, but never more than four times 256 are kept.
        #expect(rate.userCount <= 4 * RequestRate.keptUsers)
        _ = rate.admit(uid: 99_999, now: 60_000_000)
        #expect(rate.userCount <= RequestRate.keptUsers + 1)
        #expect(rate.admit(uid: 5, now: 60_000_000).admitted)
    }
}
