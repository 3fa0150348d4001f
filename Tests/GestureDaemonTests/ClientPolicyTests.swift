import GestureCore
import GestureProtocol
import GestureVocabulary
import Testing

@testable import GestureDaemon

/// Who may set and see what (issue 36), as a table: the policy's transition function driven with inputs
/// alone, no socket and no device. uid 1000 has the active session on seat0, uid 1001 is another user, 990
/// is the daemon's own user.
@Suite struct ClientPolicyTests {
    static let seatUser: UInt32 = 1000
    static let other: UInt32 = 1001
    static let daemonUser: UInt32 = 990

    /// A 72 × 128 mm phone (its edges: 72 mm top and bottom, 128 mm left and right), zones 5 mm.
    static func phone(_ id: String = "event5", seat: String = "seat0", width: Double = 72, height: Double = 128) -> PolicyDevice {
        var info = DeviceInfo(id: id, name: "Phone \(id)", vendorProduct: "0000:0000", path: nil, source: .evdev, slots: 10)
        info.seat = seat
        return PolicyDevice(info: info, screenWidthMM: width, screenHeightMM: height, zones: EdgeZones())
    }

    static func policy(seats: SeatUsers = .known(["seat0": .some(seatUser)])) -> ClientPolicy {
        ClientPolicy(access: AppTouchPolicy(ownUID: daemonUser, seats: seats))
    }

    /// Connects client `id` as `uid` (nil: unknown peer).
    static func connect(_ p: inout ClientPolicy, _ id: ClientID, uid: UInt32?) {
        _ = p.handle(.connected(id, peer: uid.map { PeerIdentity(uid: $0, groups: [$0]) }, label: "client \(id) (uid \(uid.map(String.init) ?? "?"))"))
    }

    /// Sends `request` from client `id`; returns the actions. (One moment: no test but the rates' sends
    /// more requests of a type than its burst.)
    static func send(_ p: inout ClientPolicy, _ id: ClientID, _ request: Request, requestID: Int = 1) -> [ClientPolicy.Action] {
        p.handle(.request(id, RequestMessage(id: .integer(requestID), request), now: 1_000_000_000))
    }

    /// The error the actions reply with, if any.
    static func error(_ actions: [ClientPolicy.Action]) -> ProtocolError? {
        for case .send(_, .error(let e)) in actions { return e }
        return nil
    }

    /// The clients' exclusions each device is given, by the last `deviceState` of each.
    static func states(_ actions: [ClientPolicy.Action]) -> [String: (app: String?, exclusions: [EdgeExclusion])] {
        var states: [String: (app: String?, exclusions: [EdgeExclusion])] = [:]
        for case .deviceState(let device, let app, let exclusions) in actions { states[device] = (app, exclusions) }
        return states
    }

    static func millimetres(on side: Edge, of device: PolicyDevice, _ exclusions: [EdgeExclusion]) -> Double {
        exclusions.flatMap { ClientPolicy.costs($0, on: device) }.filter { $0.side == side }.reduce(0) { $0 + $1.mm }
    }

    // MARK: Rights (hole 3)

    @Test func onlyTheSeatsUserRootAndTheDaemonsUserMaySetTheFocus() {
        var p = Self.policy()
        _ = p.handle(.deviceAdded(Self.phone()))
        for (id, uid) in [(1, Self.seatUser), (2, Self.other), (3, 0), (4, Self.daemonUser)] as [(ClientID, UInt32)] {
            Self.connect(&p, id, uid: uid)
        }
        Self.connect(&p, 5, uid: nil)
        // Another user's focus is refused, typed, and changes nothing.
        let refused = Self.send(&p, 2, .focus(appID: "org.kde.krita"))
        #expect(Self.error(refused)?.code == .notPermitted)
        #expect(Self.error(refused)?.message.contains("uid 1001") == true)
        #expect(Self.states(refused).isEmpty && p.focus.isEmpty)
        #expect(Self.error(Self.send(&p, 5, .focus(appID: "game")))?.code == .notPermitted, "an unknown peer may not either")
        // The seat's user, root and the daemon's own user may.
        for id: ClientID in [1, 3, 4] {
            let actions = Self.send(&p, id, .focus(appID: "app\(id)"))
            #expect(Self.error(actions) == nil)
            #expect(actions.contains(.send(id, .focused(id: .integer(1), appID: "app\(id)"))))
            #expect(Self.states(actions)["event5"]?.app == "app\(id)")
        }
    }

    @Test func everyRequestThatChangesWhatTheSeatsUserGetsIsTheirs() {
        var p = Self.policy()
        _ = p.handle(.deviceAdded(Self.phone()))
        Self.connect(&p, 2, uid: Self.other)
        let requests: [Request] = [
            .orientation(.clockwise90, device: nil), .orientation(.clockwise90, device: "event5"), .focus(appID: nil),
            .exclude([RequestedExclusion(edge: .left, from: 0, to: 0.1)]), .exclude([]), .reload,
        ]
        for request in requests {
            let actions = Self.send(&p, 2, request)
            #expect(Self.error(actions)?.code == .notPermitted, "\(request)")
            #expect(!actions.contains { if case .turn = $0 { return true } else { return false } })
            #expect(!actions.contains { if case .reload = $0 { return true } else { return false } })
        }
        // Every request type is declared with its right; those that change nothing for others are open.
        for type in RequestType.allCases {
            switch type {
            case .subscribe, .unsubscribe, .devices, .ping: #expect(type.declaration.right == .anyClient)
            case .orientation, .focus, .exclude: #expect(type.declaration.right == .seatUser)
            case .reload: #expect(type.declaration.right == .administrator)
            }
        }
    }

    @Test func reloadIsRootsAndTheDaemonUsersOnly() {
        var p = Self.policy()
        Self.connect(&p, 1, uid: Self.seatUser)
        Self.connect(&p, 3, uid: 0)
        Self.connect(&p, 4, uid: Self.daemonUser)
        #expect(Self.error(Self.send(&p, 1, .reload))?.code == .notPermitted, "the seat's user may not reload the daemon")
        #expect(Self.send(&p, 3, .reload).contains(.reload(3, id: .integer(1), by: "client 3 (uid 0)")))
        #expect(Self.send(&p, 4, .reload).contains(.reload(4, id: .integer(1), by: "client 4 (uid 990)")))
    }

    @Test func aSeatsFocusIsOnlyThatSeatsAndGoesWithItsSetter() {
        var p = Self.policy(seats: .known(["seat0": .some(1000), "seat1": .some(1001)]))
        _ = p.handle(.deviceAdded(Self.phone("event5", seat: "seat0")))
        _ = p.handle(.deviceAdded(Self.phone("event6", seat: "seat1")))
        Self.connect(&p, 1, uid: 1000)
        Self.connect(&p, 2, uid: 1001)
        let first = Self.states(Self.send(&p, 1, .focus(appID: "sketch")))
        #expect(first["event5"]?.app == "sketch" && first["event6"] == nil)
        let second = Self.states(Self.send(&p, 2, .focus(appID: "game")))
        #expect(second["event6"]?.app == "game" && second["event5"] == nil)
        // The setter leaves: its seat's focus is forgotten, the other stays.
        let gone = p.handle(.disconnected(1))
        #expect(Self.states(gone)["event5"].map { $0.app == nil } == true)
        #expect(p.focus["seat1"]?.app == "game")
        // The seat goes to another user: the focus its former user set goes too.
        let switched = p.handle(.seatUsers(.known(["seat0": .some(1000), "seat1": .some(4242)])))
        #expect(switched.contains(.endTouches(seat: "seat1")))
        #expect(Self.states(switched)["event6"].map { $0.app == nil } == true)
    }

    // MARK: The exclusion cap (hole 4)

    @Test func exclusionsAskedBeforeAnyPanelAreCappedOnThePanelThatComes() throws {
        var p = Self.policy()
        Self.connect(&p, 1, uid: Self.seatUser)
        // No touchscreen yet: nothing to measure on, so nothing is refused, but nothing is in force either.
        let whole = Edge.allCases.map { RequestedExclusion(edge: $0) }
        let asked = Self.send(&p, 1, .exclude(Array(whole.prefix(8))))
        #expect(Self.error(asked) == nil)
        // A panel appears (boot, replug, resume): it gets only what the cap allows, side by side.
        let phone = Self.phone()
        let added = Self.states(p.handle(.deviceAdded(phone)))
        let given = try #require(added["event5"]).exclusions
        for side in Edge.sides {
            #expect(Self.millimetres(on: side, of: phone, given) <= ClientPolicy.exclusionCapMM + 1e-9, "\(side): \(given)")
        }
        // The corners fit (5 mm on each side); no whole side does.
        let cornersOnly = given.allSatisfy { $0.edge.isCorner }
        #expect(cornersOnly)
    }

    @Test func noSetOfClientsOrUsersTakesMoreThanTheCapOfAnEdge() {
        var p = Self.policy()
        let phone = Self.phone()
        _ = p.handle(.deviceAdded(phone))
        // The seat's user, root and the daemon's user, two connections each, each asks for 10 mm of the left edge.
        var id: ClientID = 1
        var accepted = 0
        for uid in [Self.seatUser, Self.seatUser, 0, 0, Self.daemonUser, Self.daemonUser] {
            Self.connect(&p, id, uid: uid)
            let actions = Self.send(&p, id, .exclude([RequestedExclusion(edge: .left, from: 0, to: 10.0 / 128)]))
            for case .send(_, .excluded(_, let a, let refused)) in actions {
                accepted += a.count
                if let r = refused.first { #expect(r.reason == .overCap && r.message.contains("left edge")) }
            }
            id += 1
        }
        #expect(accepted == 3, "32 mm of the left edge holds three 10 mm parts")
        var probe = p
        let inForce = probe.exclusionsInForce(on: phone)
        #expect(Self.millimetres(on: .left, of: phone, inForce) <= ClientPolicy.exclusionCapMM + 1e-9)
    }

    @Test func turningTheScreenNeverLeavesMoreThanTheCapOfAnySide() throws {
        var p = Self.policy()
        var phone = Self.phone()
        _ = p.handle(.deviceAdded(phone))
        Self.connect(&p, 1, uid: Self.seatUser)
        // 25 % of the left edge: 32 mm of the 128 mm side.
        #expect(Self.error(Self.send(&p, 1, .exclude([RequestedExclusion(edge: .left, from: 0, to: 0.25)]))) == nil)
        // Turned 90: the left edge is the 72 mm side, and 25 % of it is 18 mm; 14 mm more fit there now.
        phone.info.orientation = .clockwise90
        (phone.screenWidthMM, phone.screenHeightMM) = (128, 72)
        _ = p.handle(.deviceChanged(phone))
        Self.connect(&p, 2, uid: Self.seatUser)
        #expect(Self.error(Self.send(&p, 2, .exclude([RequestedExclusion(edge: .left, from: 0.5, to: 0.5 + 14.0 / 72)]))) == nil)
        // And back: the 128 mm side would hold 32 + 24.9 mm; the cap keeps it at most 32 in force.
        phone.info.orientation = .normal
        (phone.screenWidthMM, phone.screenHeightMM) = (72, 128)
        let back = Self.states(p.handle(.deviceChanged(phone)))
        let given = try #require(back["event5"]).exclusions
        #expect(Self.millimetres(on: .left, of: phone, given) <= ClientPolicy.exclusionCapMM + 1e-9, "\(given)")
        #expect(given.count == 1, "the first exclusion keeps its place; the later one waits until it fits again")
    }

    @Test func anExclusionForAnAppHoldsWhileThatAppHasTheFocus() {
        var p = Self.policy()
        _ = p.handle(.deviceAdded(Self.phone()))
        Self.connect(&p, 1, uid: Self.seatUser)
        Self.connect(&p, 2, uid: Self.seatUser)
        let set = Self.send(&p, 1, .exclude([RequestedExclusion(edge: .left, from: 0, to: 0.2, app: "org.sketch.*")]))
        #expect(Self.error(set) == nil)
        #expect(Self.states(set)["event5"] == nil, "no app has the focus yet: nothing changes on the device")
        let focused = Self.states(Self.send(&p, 2, .focus(appID: "org.sketch.Canvas")))
        #expect(focused["event5"]?.exclusions.map(\.edge) == [.left])
        let elsewhere = Self.states(Self.send(&p, 2, .focus(appID: "org.mail.Reader")))
        #expect(elsewhere["event5"]?.exclusions.isEmpty == true)
        // The exclusions go with the client that set them.
        _ = Self.send(&p, 2, .focus(appID: "org.sketch.Canvas"))
        #expect(Self.states(p.handle(.disconnected(1)))["event5"]?.exclusions.isEmpty == true)
    }

    @Test func aClientsExclusionsHoldOnlyWhileItsUserHasTheSeat() {
        var p = Self.policy()
        _ = p.handle(.deviceAdded(Self.phone()))
        Self.connect(&p, 1, uid: Self.seatUser)
        #expect(Self.states(Self.send(&p, 1, .exclude([RequestedExclusion(edge: .top, from: 0, to: 0.3)])))["event5"]?.exclusions.count == 1)
        let switched = Self.states(p.handle(.seatUsers(.known(["seat0": .some(Self.other)]))))
        #expect(switched["event5"]?.exclusions.isEmpty == true)
        let back = Self.states(p.handle(.seatUsers(.known(["seat0": .some(Self.seatUser)]))))
        #expect(back["event5"]?.exclusions.count == 1)
    }

    // MARK: Seeing (holes 7 and 8)

    @Test func aSeatSwitchEndsTheTouchesInFlightBeforeAnyViewChanges() {
        var p = Self.policy()
        _ = p.handle(.deviceAdded(Self.phone()))
        Self.connect(&p, 1, uid: Self.seatUser)
        Self.connect(&p, 2, uid: Self.other)
        _ = Self.send(&p, 1, .subscribe(.all))
        _ = Self.send(&p, 2, .subscribe(.all))
        let actions = p.handle(.seatUsers(.known(["seat0": .some(Self.other)])))
        guard let end = actions.firstIndex(of: .endTouches(seat: "seat0")) else {
            Issue.record("no endTouches: \(actions)")
            return
        }
        let views = actions.indices.filter { if case .view = actions[$0] { return true } else { return false } }
        #expect(views.count == 2 && views.allSatisfy { $0 > end })
        #expect(actions.contains(.view(1, ClientView(subscription: .all, privateSeats: []))))
        #expect(actions.contains(.view(2, ClientView(subscription: .all, privateSeats: ["seat0"]))))
        #expect(actions.contains(.send(1, .appTouchAccessChanged(.denied(.otherSeatUser(seat: "seat0"))))))
        #expect(actions.contains(.send(2, .appTouchAccessChanged(.granted(.seatUser(seat: "seat0"))))))
    }

    @Test func explanationsAndUpdatesAreWantedOnlyWhileSomeoneMayTakeThem() {
        var p = Self.policy()
        _ = p.handle(.deviceAdded(Self.phone()))
        Self.connect(&p, 2, uid: Self.other)
        let denied = Self.send(&p, 2, .subscribe(SubscriptionFilter(updates: false, explanations: true)))
        #expect(!denied.contains(.explaining(true)))
        #expect(denied.contains { if case .send(_, .subscribed(_, let filter, _)) = $0 { return !filter.explanations } else { return false } })
        Self.connect(&p, 1, uid: Self.seatUser)
        #expect(Self.send(&p, 1, .subscribe(SubscriptionFilter(updates: true, explanations: true))).contains(.explaining(true)))
        #expect(p.updatesWanted)
        let gone = p.handle(.disconnected(1))
        #expect(gone.contains(.explaining(false)) && gone.contains(.updates(false)))
    }

    @Test func theRatesAreTheSeatsNotEachConnections() {
        var p = Self.policy()
        _ = p.handle(.deviceAdded(Self.phone()))
        for id: ClientID in 1...8 { Self.connect(&p, id, uid: Self.seatUser) }
        var admitted = 0
        for id: ClientID in 1...8 {
            let actions = p.handle(.request(id, RequestMessage(.focus(appID: "a\(id)")), now: 5_000_000_000))
            if Self.error(actions) == nil { admitted += 1 } else { #expect(Self.error(actions)?.code == .rateLimited) }
        }
        #expect(admitted == 4, "a burst of 4 for the seat, however many connections ask")
    }
}
