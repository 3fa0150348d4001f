import GestureConfig
import CLinux
import GestureCore
import GestureProtocol
import Glibc
import Testing

@testable import GestureDaemon
import GestureVocabulary

/// The devices a test hub talks to: what the policy's actions asked of them, and devices the test sets.
final class FakeDevices: DeviceRequests {
    var infos: [DeviceInfo] = []
    private(set) var turned: [([String], DeviceOrientation)] = []
    private(set) var states: [String: (focusedApp: String?, exclusions: [EdgeExclusion])] = [:]
    private(set) var ended: [String] = []
    private(set) var explaining = false
    private(set) var updates = false

    var deviceInfos: [DeviceInfo] { infos }

    func turn(_ ids: [String], to orientation: DeviceOrientation, by label: String) -> OrientationChange {
        turned.append((ids, orientation))
        for i in infos.indices where ids.contains(infos[i].id) { infos[i].orientation = orientation }
        return OrientationChange(devices: infos.filter { ids.contains($0.id) })
    }

    func setState(device id: String, focusedApp: String?, clientExclusions: [EdgeExclusion], holdClaims: [ScreenRegion]) -> (DeviceInfo, DeviceInfo)? {
        states[id] = (focusedApp, clientExclusions)
        guard let i = infos.firstIndex(where: { $0.id == id }) else { return nil }
        let before = infos[i]
        infos[i].focusedApp = focusedApp
        infos[i].exclusions = clientExclusions.map { ExclusionInForce(edge: $0.edge, from: $0.from, to: $0.to, source: $0.source) }
        return (before, infos[i])
    }

    func endTouches(onSeat seat: String) { ended.append(seat) }
    func setExplaining(_ on: Bool) { explaining = on }
    func setUpdatesWanted(_ on: Bool) { updates = on }
}

/// A real `ClientHub` on a real epoll loop, with clients on socketpairs the test plays.
final class TestHub {
    let loop: EventLoop
    let hub: ClientHub
    let devices = FakeDevices()

    init(seats: SeatUsers = .unavailable, limits: DaemonSettings = DaemonSettings()) {
        loop = try! EventLoop()
        hub = ClientHub(watches: Watches(loop: loop), limits: limits, seatUsers: seats)
    }

    /// A client of user `uid` (nil: one the daemon could not identify).
    func connect(uid: UInt32? = nil, groups: [UInt32] = []) -> Pair {
        var fds: [Int32] = [0, 0]
        // SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC
        precondition(socketpair(AF_UNIX, 1 | 0o4000 | 0o2000000, 0, &fds) == 0)
        let session = hub.admit(fds[0], uid: uid, groups: groups, peer: "uid \(uid.map(String.init) ?? "?")", devices: devices)!
        return Pair(hub: self, session: session, peer: fds[1])
    }

    /// Lets every client's queue go out.
    func flush() {
        hub.flush()
        hub.applyDeferred(devices: devices)
    }
}

/// A session on one end of a socketpair; the test plays the client on the other end.
final class Pair {
    let hub: TestHub
    let session: ClientSession
    let peer: Int32
    var received = LineFramer(maximumLineBytes: 1 << 20)

    init(hub: TestHub, session: ClientSession, peer: Int32) {
        self.hub = hub
        self.session = session
        self.peer = peer
    }

    /// A session alone on a socketpair (for the queue's tests), with no hub.
    convenience init(limit: Int = 1 << 20) {
        var fds: [Int32] = [0, 0]
        precondition(socketpair(AF_UNIX, 1 | 0o4000 | 0o2000000, 0, &fds) == 0)
        let hub = TestHub()
        self.init(hub: hub, session: ClientSession(fd: fds[0], token: 1, label: "test client", outgoingLimitBytes: limit), peer: fds[1])
    }

    private var peerOpen = true

    deinit { closePeer() }

    func closePeer() {
        if peerOpen { close(peer) }
        peerOpen = false
    }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        #expect(bytes.withUnsafeBytes { write(peer, $0.baseAddress, $0.count) } == bytes.count)
    }

    /// Lets the hub read what was sent and answer through the policy; then flushes the replies.
    func pump() {
        hub.hub.handle(session, Readiness(token: session.token, events: EPOLLIN.rawValue), devices: hub.devices)
        hub.flush()
    }

    /// Whether the hub still has the session.
    var isConnected: Bool { hub.hub.sessions[session.token] != nil }

    /// Every complete line the session has written to the peer so far, decoded (the hello included).
    func messages() -> [ServerMessage] {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(peer, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n <= 0 { break }
            received.append(buffer[0..<n])
        }
        var out: [ServerMessage] = []
        while case .line(let line)? = received.next() {
            do {
                out.append(try ServerMessage.decode(line: line))
            } catch {
                Issue.record("undecodable line \(String(decoding: line, as: UTF8.self)): \(error)")
            }
        }
        return out
    }

    /// The messages since the last call, without the hello.
    func replies() -> [ServerMessage] {
        messages().filter { if case .hello = $0 { return false } else { return true } }
    }

    /// The gesture lines received since the last call.
    func gestures() -> [GestureEvent] {
        replies().compactMap { if case .gesture(let g) = $0 { return g.event } else { return nil } }
    }
}

@Suite struct ClientSessionTests {
    @Test func aDrainedQueueKeepsAFrameSizedBufferAndFreesABurstsBuffer() {
        let p = Pair()
        let line = Array(repeating: UInt8(ascii: "x"), count: 299) + [0x0a]
        // A client that keeps up: one frame's lines at a time, the buffer kept for the next frame.
        for _ in 0..<3 { #expect(line.withUnsafeBytes { p.session.enqueue(bytes: $0) }) }
        #expect(p.session.flush() == .keep)
        #expect(p.session.queuedByteCount == 0)
        #expect(p.session.queueCapacityBytes >= 900 && p.session.queueCapacityBytes <= ClientSession.retainedQueueBytes)
        // The peer reads and drops what arrived (not protocol messages).
        func discard() {
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while buffer.withUnsafeMutableBytes({ recv(p.peer, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }) > 0 {}
        }
        discard()
        // A burst (the client paused): 60 KB queued, then drained: its buffer is not kept.
        for _ in 0..<200 { #expect(line.withUnsafeBytes { p.session.enqueue(bytes: $0) }) }
        #expect(p.session.queueCapacityBytes >= 60_000)
        while p.session.queuedByteCount > 0 {
            #expect(p.session.flush() == .keep)
            discard()
        }
        #expect(p.session.queueCapacityBytes <= ClientSession.retainedQueueBytes)
    }

    @Test func answersRequestsEchoingTheirIDs() {
        let t = TestHub()
        let p = t.connect(uid: 1000)
        p.send("{\"type\":\"ping\",\"id\":\"a\"}\n{\"type\":\"subscribe\",\"id\":2,\"kinds\":[\"pan\"]}\n{\"type\":\"devices\",\"id\":3}\n")
        p.pump()
        let messages = p.messages()
        guard case .hello? = messages.first else {
            Issue.record("no hello first: \(messages)")
            return
        }
        #expect(
            Array(messages.dropFirst()) == [
                .pong(id: .string("a")),
                .subscribed(id: .integer(2), filter: SubscriptionFilter(kinds: [.pan]), appTouchAccess: .denied(.noSeatState)),
                .devices(id: .integer(3), devices: []),
            ])
        #expect(p.session.view.subscription == SubscriptionFilter(kinds: [.pan]))
        p.send("{\"type\":\"unsubscribe\"}\n")
        p.pump()
        #expect(p.replies() == [.unsubscribed(id: nil)])
        #expect(p.session.view.subscription == nil)
    }

    @Test func orientationRequestsGoToTheDevicesAndTheirRepliesCarryTheID() {
        let t = TestHub(seats: .known(["seat0": .some(1000)]))
        let panel = DeviceInfo(id: "event5", name: "Panel", vendorProduct: "04f3:2234", path: nil, source: .evdev, slots: 10)
        t.devices.infos = [panel]
        t.hub.run(.deviceAdded(PolicyDevice(info: panel, screenWidthMM: 100, screenHeightMM: 160, zones: EdgeZones())), devices: t.devices)
        let p = t.connect(uid: 1000)
        p.send(
            "{\"type\":\"orientation\",\"id\":7,\"orientation\":90,\"device\":\"Panel\"}\n"
                + "{\"type\":\"orientation\",\"orientation\":270}\n"
                + "{\"type\":\"orientation\",\"id\":\"x\",\"orientation\":180,\"device\":\"event9\"}\n"
                + "{\"type\":\"orientation\",\"id\":9,\"orientation\":45}\n")
        p.pump()
        let replies = p.replies()
        #expect(replies.count == 4)
        guard replies.count == 4 else { return }
        var turned = panel
        turned.orientation = .clockwise90
        #expect(replies[0] == .oriented(id: .integer(7), devices: [turned]))
        turned.orientation = .clockwise270
        #expect(replies[1] == .oriented(id: nil, devices: [turned]))
        guard case .error(let unknown) = replies[2], case .error(let badAngle) = replies[3] else {
            Issue.record("expected two errors, got \(replies[2...])")
            return
        }
        #expect(unknown.code == .unknownDevice && unknown.id == .string("x"))
        #expect(badAngle.code == .invalidRequest && badAngle.id == .integer(9))
        #expect(badAngle.message.contains("0, 90, 180 or 270"))
        // The bad angle and the unknown device never reached the devices; the valid requests did.
        #expect(t.devices.turned.map(\.1) == [.clockwise90, .clockwise270])
        #expect(t.devices.turned.map(\.0) == [["event5"], ["event5"]])
    }

    @Test func halfLinesWaitForTheirNewline() {
        let p = TestHub().connect(uid: 1000)
        p.send("{\"type\":\"pi")
        p.pump()
        #expect(p.replies() == [])
        p.send("ng\"}\n{\"type\"")
        p.pump()
        #expect(p.replies() == [.pong(id: nil)])
        p.send(":\"ping\",\"id\":9}\r\n")
        p.pump()
        #expect(p.replies() == [.pong(id: .integer(9))])
    }

    @Test func badRequestsGetErrorsInTheirPlaceAndTheConnectionStaysOpen() {
        let p = TestHub().connect(uid: 1000)
        p.send("{\"type\":\"ping\",\"id\":1}\ngarbage\n[1]\n{\"type\":\"x\",\"id\":5}\n\n   \n{\"type\":\"ping\"}\n")
        p.pump()
        let replies = p.replies()
        #expect(replies.count == 5)  // blank lines are not requests
        guard replies.count == 5 else { return }
        #expect(replies[0] == .pong(id: .integer(1)))
        if case .error(let e) = replies[1] { #expect(e.code == .invalidJSON) } else { Issue.record("\(replies[1])") }
        if case .error(let e) = replies[2] { #expect(e.code == .invalidRequest) } else { Issue.record("\(replies[2])") }
        if case .error(let e) = replies[3] {
            #expect(e.code == .unknownRequest)
            #expect(e.id == .integer(5))
        } else {
            Issue.record("\(replies[3])")
        }
        #expect(replies[4] == .pong(id: nil))
        #expect(p.isConnected)
    }

    @Test func aFloodOfErrorsClosesTheConnection() {
        let p = TestHub().connect(uid: 1000)
        // A good request resets the count: 15 bad, 1 good, 15 bad stays open.
        p.send(String(repeating: "x\n", count: 15) + "{\"type\":\"ping\"}\n" + String(repeating: "x\n", count: 15))
        p.pump()
        #expect(p.replies().count == 31)
        #expect(p.isConnected)
        p.send("x\n")
        p.pump()
        #expect(!p.isConnected, "the 16th bad request in a row did not close the connection")
        guard case .error(let e)? = p.replies().last else {
            Issue.record("no final error")
            return
        }
        #expect(e.code == .tooManyErrors)
    }

    @Test func aLineOver64KiBClosesTheConnection() {
        let p = TestHub().connect(uid: 1000)
        p.send("{\"type\":\"ping\"}\n")
        p.pump()
        #expect(p.replies() == [.pong(id: nil)])
        let chunk = String(repeating: "a", count: 16 * 1024)
        for _ in 0..<5 where p.isConnected {
            p.send(chunk)
            p.pump()
        }
        #expect(!p.isConnected, "an 80 KiB line did not close the connection")
        guard case .error(let e)? = p.replies().last else {
            Issue.record("no line-too-long error")
            return
        }
        #expect(e.code == .lineTooLong)
    }

    @Test func theOutgoingBufferIsBounded() {
        let p = Pair(limit: 1000)
        let line = String(repeating: "z", count: 99)
        for _ in 0..<10 { #expect(p.session.enqueue(line: line)) }
        #expect(p.session.queuedByteCount == 1000)
        #expect(!p.session.enqueue(line: "one more"))
        // Once the peer reads, room comes back.
        #expect(p.session.flush() == .keep)
        #expect(p.session.queuedByteCount == 0)
        #expect(p.session.enqueue(line: "one more"))
    }
    @Test func aClientThatNeverReadsFillsItsBufferAndIsRefusedMore() {
        // The kernel socket buffer takes some; past it, the session's own bound holds.
        let p = Pair(limit: 64 * 1024)
        let line = String(repeating: "e", count: 1023)
        var accepted = 0
        while p.session.enqueue(line: line) {
            accepted += 1
            _ = p.session.flush()
            if accepted > 100_000 { break }
        }
        #expect(accepted < 100_000)
        #expect(p.session.queuedByteCount <= 64 * 1024)
    }
    @Test func aClientThatVanishesIsNoticedOnWrite() {
        let p = Pair()
        p.closePeer()
        p.session.enqueue(line: "{\"type\":\"pong\"}")
        guard case .close = p.session.flush() else {
            Issue.record("writing to a closed peer did not report it")
            return
        }
    }

    static let device = DeviceInfo(id: "replay1", name: "r", vendorProduct: "0000:0000", path: nil, source: .replay, slots: 5)

    static func event(_ id: UInt64, _ phase: GesturePhase, _ kind: GestureKind = .pan, fingers: Int = 1) -> GestureEvent {
        GestureEvent(kind: kind, phase: phase, id: id, timeMicroseconds: 0, fingers: fingers)
    }

    @Test func subscribersSeeWholeGesturesOnly() {
        let t = TestHub()
        let p = t.connect(uid: 1000)
        func publish(_ e: GestureEvent) { t.hub.publish(e, audience: .everyone, from: Self.device) }
        // Not subscribed: nothing.
        publish(Self.event(1, .begin))
        p.send("{\"type\":\"subscribe\",\"fingers\":[1]}\n")
        p.pump()
        // Gesture 1 began before the subscription: none of it. Gesture 2: all of it.
        for e in [Self.event(1, .update), Self.event(1, .end), Self.event(2, .begin), Self.event(2, .update)] { publish(e) }
        // A new filter that would refuse gesture 2 does not cut it in half.
        p.send("{\"type\":\"subscribe\",\"fingers\":[2],\"updates\":false}\n")
        p.pump()
        for e in [
            Self.event(2, .update), Self.event(2, .end), Self.event(3, .begin), Self.event(3, .cancel),
            Self.event(4, .begin, .pinch, fingers: 2), Self.event(4, .update, .pinch, fingers: 2), Self.event(4, .cancel, .pinch, fingers: 2),
        ] { publish(e) }
        p.send("{\"type\":\"unsubscribe\"}\n")
        p.pump()
        publish(Self.event(5, .begin, fingers: 2))
        t.flush()
        let got = p.gestures().map { "\($0.id) \($0.phase)" }
        // The client numbers its gestures by what it received: its first is 1, gesture 4 its second.
        #expect(got == ["1 begin", "1 update", "1 end", "2 begin", "2 cancel"])
        #expect(!p.session.wantsNotification(about: Self.device))
    }

    @Test func gesturesInFlightTogetherEndInAnyOrder() {
        // Two panels, each with a gesture running: each gesture's end is delivered once, whichever ends
        // first, and an end never delivers a gesture that was not begun (or already ended).
        let t = TestHub()
        let p = t.connect(uid: 1000)
        let b = DeviceInfo(id: "replay2", name: "b", vendorProduct: "0000:0000", path: nil, source: .replay, slots: 5)
        p.send("{\"type\":\"subscribe\"}\n")
        p.pump()
        func publish(_ id: UInt64, _ phase: GesturePhase) {
            t.hub.publish(Self.event(id, phase), audience: .everyone, from: id == 8 ? b : Self.device)
        }
        for id: UInt64 in [7, 8, 9] { publish(id, .begin) }
        for (id, phase) in [(7, .update), (7, .end), (7, .update), (7, .end), (9, .cancel), (8, .update), (8, .end), (8, .update), (9, .update)]
            as [(UInt64, GesturePhase)]
        { publish(id, phase) }
        t.flush()
        #expect(
            p.gestures().map { "\($0.id) \($0.phase)" } == ["1 begin", "2 begin", "3 begin", "1 update", "1 end", "3 cancel", "2 update", "2 end"])
    }

    @Test func aClientThatClosesItsSideGetsItsRepliesThenIsClosed() {
        let t = TestHub()
        let p = t.connect(uid: 1000)
        p.send("{\"type\":\"subscribe\"}\n{\"type\":\"ping\",\"id\":1}")  // last request without newline
        shutdown(p.peer, Int32(SHUT_WR))
        p.pump()  // the lines (one read)
        #expect(p.isConnected)
        p.pump()  // the end of file (the descriptor stays readable: the next read)
        #expect(!p.isConnected, "end of file did not end the session")
        #expect(
            p.replies() == [.subscribed(id: nil, filter: SubscriptionFilter(), appTouchAccess: .denied(.noSeatState)), .pong(id: .integer(1))])
        #expect(p.session.view.subscription == nil)
    }
}

/// App touches reach a session only when its subscription asks for them and it may see them; the hello
/// and the subscribed reply say which, with the reason; each client's gesture ids count only what it sees.
@Suite struct ClientSessionAppTouchTests {
    static let device = DeviceInfo(id: "event5", name: "panel", vendorProduct: "0000:0000", path: nil, source: .evdev, slots: 10)

    static func hub() -> TestHub {
        var limits = DaemonSettings()
        limits.appTouchesFor = [.group("2000")]
        let t = TestHub(seats: .known(["seat0": .some(1000)]), limits: limits)
        t.devices.infos = [device]
        t.hub.run(.deviceAdded(PolicyDevice(info: device, screenWidthMM: 72, screenHeightMM: 128, zones: EdgeZones())), devices: t.devices)
        return t
    }

    static func subscribed(_ t: TestHub, uid: UInt32, groups: [UInt32] = [], appTouches: Bool = true) -> Pair {
        let p = t.connect(uid: uid, groups: groups)
        p.send("{\"type\":\"subscribe\",\"updates\":false\(appTouches ? ",\"app_touches\":true" : "")}\n")
        p.pump()
        _ = p.replies()
        return p
    }

    static func tap(_ phase: GesturePhase, id: UInt64) -> GestureEvent {
        GestureEvent(kind: .tap, phase: phase, id: id, timeMicroseconds: 0, fingers: 1)
    }

    @Test func anAppTouchGoesOnlyToThoseWhoAskAndMaySee() {
        let t = Self.hub()
        let seatUser = Self.subscribed(t, uid: 1000)
        let other = Self.subscribed(t, uid: 1001)
        let groupMember = Self.subscribed(t, uid: 1002, groups: [1002, 2000])
        let notAsking = Self.subscribed(t, uid: 1000, appTouches: false)
        t.hub.publish(Self.tap(.begin, id: 1), audience: .seat, from: Self.device)
        t.hub.publish(Self.tap(.end, id: 1), audience: .seat, from: Self.device)
        // A public gesture (a tap in an edge zone) reaches every subscriber.
        t.hub.publish(Self.tap(.begin, id: 2), audience: .everyone, from: Self.device)
        t.hub.publish(Self.tap(.end, id: 2), audience: .everyone, from: Self.device)
        t.flush()
        #expect(seatUser.gestures().map(\.id) == [1, 1, 2, 2])
        #expect(groupMember.gestures().map(\.id) == [1, 1, 2, 2])
        // The others see the public tap alone, as their gesture 1: nothing counts the app touch they did not get.
        #expect(other.gestures().map(\.id) == [1, 1], "its end follows the begin's decision; its ids count only what it sees")
        #expect(notAsking.gestures().map(\.id) == [1, 1])
    }

    @Test func theSubscribedReplySaysWhy() {
        let t = Self.hub()
        let other = t.connect(uid: 1001)
        other.send("{\"type\":\"subscribe\",\"id\":3,\"app_touches\":true}\n")
        other.pump()
        let replies = other.replies()
        #expect(replies == [.subscribed(id: .integer(3), filter: .all, appTouchAccess: .denied(.otherSeatUser(seat: "seat0")))])
        #expect(replies.first?.encoded.contains("\"app_touch_access\":{\"granted\":false,\"reason\":\"other-seat-user\",\"seat\":\"seat0\"") == true)
    }

    @Test func aChangeOfTheSeatsUserIsToldOnceAndEndsTheTouchesInFlightFirst() {
        let t = Self.hub()
        let before = Self.subscribed(t, uid: 1000)
        let after = Self.subscribed(t, uid: 1001)
        // A hold lands under uid 1000 and is still down when the seat goes to uid 1001.
        t.hub.publish(GestureEvent(kind: .hold, phase: .begin, id: 7, timeMicroseconds: 0, fingers: 1), audience: .seat, from: Self.device)
        t.hub.setSeatUsers(.known(["seat0": .some(1001)]), devices: t.devices)
        #expect(t.devices.ended == ["seat0"], "the touches in flight end before anyone's view changes")
        // The engine's later events of that hold reach neither: the first lost access, the second never had it.
        t.hub.publish(GestureEvent(kind: .hold, phase: .update, id: 7, timeMicroseconds: 1, fingers: 1), audience: .seat, from: Self.device)
        t.hub.publish(GestureEvent(kind: .hold, phase: .end, id: 7, timeMicroseconds: 2, fingers: 1), audience: .seat, from: Self.device)
        t.hub.setSeatUsers(.known(["seat0": .some(1001)]), devices: t.devices)  // the same again: told once
        t.flush()
        let first = before.replies()
        #expect(first.filter { if case .gesture = $0 { return true } else { return false } }.count == 1)
        #expect(first.last == .appTouchAccessChanged(.denied(.otherSeatUser(seat: "seat0"))))
        let second = after.replies()
        #expect(second == [.appTouchAccessChanged(.granted(.seatUser(seat: "seat0")))])
        // From now on the new seat user receives the app touches.
        t.hub.publish(Self.tap(.begin, id: 8), audience: .seat, from: Self.device)
        t.flush()
        #expect(after.gestures().map(\.kind) == [.tap])
        #expect(before.gestures().isEmpty)
    }

    /// A change of a device only the seat's audience sees (its focus, its exclusions) is told to them
    /// alone: another user's subscriber gets no device-changed for it, so not even its timing shows.
    @Test func aFocusChangeIsToldOnlyToTheSeatsAudience() {
        let t = Self.hub()
        let seatUser = Self.subscribed(t, uid: 1000)
        let other = Self.subscribed(t, uid: 1001)
        let setter = t.connect(uid: 1000)
        setter.send("{\"type\":\"focus\",\"id\":1,\"app_id\":\"org.secret.Diary\"}\n")
        setter.pump()
        #expect(setter.replies() == [.focused(id: .integer(1), appID: "org.secret.Diary")])
        t.flush()
        let seen = seatUser.replies()
        #expect(seen.count == 1)
        if case .deviceChanged(let d)? = seen.first { #expect(d.focusedApp == "org.secret.Diary") } else { Issue.record("\(seen)") }
        #expect(other.replies().isEmpty)
        // The other's hello and devices say nothing of it either.
        other.send("{\"type\":\"devices\",\"id\":2}\n")
        other.pump()
        #expect(other.replies() == [.devices(id: .integer(2), devices: [Self.device])])
    }
}
