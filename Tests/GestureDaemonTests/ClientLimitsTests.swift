import GestureConfig
import GestureProtocol
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

    static let orientation = RequestType.orientation.declaration.rate!

    @Test func oneSeatMayTurnTheScreenABurstThenTwiceASecond() {
        var rates = SeatRates()
        let t0: Int64 = 1_000_000_000
        for _ in 0..<4 { #expect(rates.admit(.orientation, Self.orientation, seats: ["seat0"], now: t0).admitted) }
        let refused = rates.admit(.orientation, Self.orientation, seats: ["seat0"], now: t0)
        #expect(!refused.admitted && refused.retryAfterMicroseconds == 500_000)
        // Another seat has its own bucket, and so has another request type.
        #expect(rates.admit(.orientation, Self.orientation, seats: ["seat1"], now: t0).admitted)
        #expect(rates.admit(.focus, RequestType.focus.declaration.rate!, seats: ["seat0"], now: t0).admitted)
        #expect(!rates.admit(.orientation, Self.orientation, seats: ["seat0"], now: t0 + 400_000).admitted)
        #expect(rates.admit(.orientation, Self.orientation, seats: ["seat0"], now: t0 + 500_000).admitted)
        // A flood of 60 000 requests over 12 s gets through about 4 + 2 a second.
        var admitted = 0
        for i in 0..<60_000 where rates.admit(.orientation, Self.orientation, seats: ["seat2"], now: t0 + Int64(i) * 200).admitted {
            admitted += 1
        }
        #expect(admitted <= 4 + 25)
    }

    @Test func aRequestOverTwoSeatsTakesFromBothOrFromNeither() {
        var rates = SeatRates()
        let t0: Int64 = 1_000_000_000
        for _ in 0..<4 { #expect(rates.admit(.orientation, Self.orientation, seats: ["seat1"], now: t0).admitted) }
        // seat1 is empty: the request over both is refused and seat0 keeps its whole burst.
        #expect(!rates.admit(.orientation, Self.orientation, seats: ["seat0", "seat1"], now: t0).admitted)
        for _ in 0..<4 { #expect(rates.admit(.orientation, Self.orientation, seats: ["seat0"], now: t0).admitted) }
    }

    @Test func theBucketsKeptAreBounded() {
        var rates = SeatRates()
        for seat in 0..<10_000 { _ = rates.admit(.orientation, Self.orientation, seats: ["seat\(seat)"], now: Int64(seat)) }
        // Each used one change of its burst: busy, but never more than four times 256 are kept.
        #expect(rates.count <= 4 * SeatRates.keptBuckets)
        _ = rates.admit(.orientation, Self.orientation, seats: ["other"], now: 60_000_000)
        #expect(rates.count <= SeatRates.keptBuckets + 1)
        #expect(rates.admit(.orientation, Self.orientation, seats: ["seat5"], now: 60_000_000).admitted)
    }
}
