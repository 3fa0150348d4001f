import GestureCore
import GestureProtocol
import Glibc
import Testing

@testable import GestureDaemon
import GestureVocabulary

/// Answers for the daemon: no devices, and an orientation request only records what it was asked.
private final class TestHost: SessionHost {
    var deviceInfos: [DeviceInfo] = []
    var orientations: [(DeviceOrientation, String?)] = []
    func setOrientation(
        _ orientation: DeviceOrientation, device: String?, requestedBy session: ClientSession
    ) -> Result<OrientationChange, ProtocolError> {
        orientations.append((orientation, device))
        if let device, !deviceInfos.contains(where: { $0.isNamed(by: device) }) {
            return .failure(ProtocolError(.unknownDevice, "no device \(device)"))
        }
        return .success(OrientationChange(devices: deviceInfos.filter { d in device.map(d.isNamed(by:)) ?? true }))
    }
}

/// A session on one end of a socketpair; the test plays the client on the other end.
private final class Pair {
    let session: ClientSession
    let peer: Int32
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: ClientSession.readChunkBytes, alignment: 8)
    var received = LineFramer(maximumLineBytes: 1 << 20)
    let host = TestHost()

    init(limit: Int = 1 << 20) {
        var fds: [Int32] = [0, 0]
        // SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC
        precondition(socketpair(AF_UNIX, 1 | 0o4000 | 0o2000000, 0, &fds) == 0)
        session = ClientSession(fd: fds[0], token: 1, label: "test client", outgoingLimitBytes: limit)
        peer = fds[1]
    }

    private var peerOpen = true

    deinit {
        closePeer()
        scratch.deallocate()
    }

    func closePeer() {
        if peerOpen { close(peer) }
        peerOpen = false
    }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        #expect(bytes.withUnsafeBytes { write(peer, $0.baseAddress, $0.count) } == bytes.count)
    }

    /// Lets the session read what was sent and answer; then flushes its replies.
    @discardableResult
    func pump() -> ClientSession.Outcome {
        let outcome = session.readAndHandle(scratch: scratch, host: host)
        if case .close = outcome { return outcome }
        return session.flush()
    }

    /// Every complete line the session has written to the peer so far, decoded.
    func replies() -> [ServerMessage] {
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
        let p = Pair()
        p.send("{\"type\":\"ping\",\"id\":\"a\"}\n{\"type\":\"subscribe\",\"id\":2,\"kinds\":[\"pan\"]}\n{\"type\":\"devices\",\"id\":3}\n")
        #expect(p.pump() == .keep)
        #expect(
            p.replies() == [
                .pong(id: .string("a")),
                .subscribed(id: .integer(2), filter: SubscriptionFilter(kinds: [.pan]), appTouchAccess: .denied(.unknownPeer)),
                .devices(id: .integer(3), devices: []),
            ])
        #expect(p.session.subscription == SubscriptionFilter(kinds: [.pan]))
        p.send("{\"type\":\"unsubscribe\"}\n")
        p.pump()
        #expect(p.replies() == [.unsubscribed(id: nil)])
        #expect(p.session.subscription == nil)
    }

    @Test func orientationRequestsGoToTheDaemonAndTheirRepliesCarryTheID() {
        let p = Pair()
        let panel = DeviceInfo(id: "event5", name: "Panel", vendorProduct: "04f3:2234", path: nil, source: .evdev, slots: 10)
        p.host.deviceInfos = [panel]
        p.send(
            "{\"type\":\"orientation\",\"id\":7,\"orientation\":90,\"device\":\"Panel\"}\n"
                + "{\"type\":\"orientation\",\"orientation\":270}\n"
                + "{\"type\":\"orientation\",\"id\":\"x\",\"orientation\":180,\"device\":\"event9\"}\n"
                + "{\"type\":\"orientation\",\"id\":9,\"orientation\":45}\n")
        #expect(p.pump() == .keep)
        let replies = p.replies()
        #expect(replies.count == 4)
        guard replies.count == 4 else { return }
        #expect(replies[0] == .oriented(id: .integer(7), devices: [panel]))
        #expect(replies[1] == .oriented(id: nil, devices: [panel]))
        guard case .error(let unknown) = replies[2], case .error(let badAngle) = replies[3] else {
            Issue.record("expected two errors, got \(replies[2...])")
            return
        }
        #expect(unknown.code == .unknownDevice && unknown.id == .string("x"))
        #expect(badAngle.code == .invalidRequest && badAngle.id == .integer(9))
        #expect(badAngle.message.contains("0, 90, 180 or 270"))
        // The bad angle never reached the daemon; the three valid requests did, as sent.
        #expect(p.host.orientations.map(\.0) == [.clockwise90, .clockwise270, .upsideDown])
        #expect(p.host.orientations.map(\.1) == ["Panel", nil, "event9"])
    }

    @Test func halfLinesWaitForTheirNewline() {
        let p = Pair()
        p.send("{\"type\":\"pi")
        #expect(p.pump() == .keep)
        #expect(p.replies() == [])
        p.send("ng\"}\n{\"type\"")
        p.pump()
        #expect(p.replies() == [.pong(id: nil)])
        p.send(":\"ping\",\"id\":9}\r\n")
        p.pump()
        #expect(p.replies() == [.pong(id: .integer(9))])
    }

    @Test func badRequestsGetErrorsAndTheConnectionStaysOpen() {
        let p = Pair()
        p.send("garbage\n[1]\n{\"type\":\"x\",\"id\":5}\n\n   \n{\"type\":\"ping\"}\n")
        #expect(p.pump() == .keep)
        let replies = p.replies()
        #expect(replies.count == 4)  // blank lines are not requests
        guard replies.count == 4 else { return }
        if case .error(let e) = replies[0] { #expect(e.code == .invalidJSON) } else { Issue.record("\(replies[0])") }
        if case .error(let e) = replies[1] { #expect(e.code == .invalidRequest) } else { Issue.record("\(replies[1])") }
        if case .error(let e) = replies[2] {
            #expect(e.code == .unknownRequest)
            #expect(e.id == .integer(5))
        } else {
            Issue.record("\(replies[2])")
        }
        #expect(replies[3] == .pong(id: nil))
    }

    @Test func aFloodOfErrorsClosesTheConnection() {
        let p = Pair()
        // A good request resets the count: 15 bad, 1 good, 15 bad stays open.
        p.send(String(repeating: "x\n", count: 15) + "{\"type\":\"ping\"}\n" + String(repeating: "x\n", count: 15))
        #expect(p.pump() == .keep)
        #expect(p.replies().count == 31)
        p.send("x\n")
        guard case .close(let reason) = p.pump() else {
            Issue.record("the 16th bad request in a row did not close the connection")
            return
        }
        #expect(reason == .tooManyBadRequests(16))
        _ = p.session.flush()
        guard case .error(let e)? = p.replies().last else {
            Issue.record("no final error")
            return
        }
        #expect(e.code == .tooManyErrors)
    }

    @Test func aLineOver64KiBClosesTheConnection() {
        let p = Pair()
        p.send("{\"type\":\"ping\"}\n")
        p.pump()
        #expect(p.replies() == [.pong(id: nil)])
        var outcome = ClientSession.Outcome.keep
        let chunk = String(repeating: "a", count: 16 * 1024)
        for _ in 0..<5 {
            p.send(chunk)
            outcome = p.pump()
            if case .close = outcome { break }
        }
        guard case .close(let reason) = outcome else {
            Issue.record("an 80 KiB line did not close the connection")
            return
        }
        #expect(reason == .lineTooLong(limit: 65536))
        _ = p.session.flush()
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

    @Test func subscribersSeeWholeGesturesOnly() {
        let p = Pair()
        let device = DeviceInfo(id: "replay1", name: "r", vendorProduct: "0000:0000", path: nil, source: .replay, slots: 5)
        func event(_ id: UInt64, _ phase: GesturePhase, _ kind: GestureKind = .pan, fingers: Int = 1) -> GestureEvent {
            GestureEvent(kind: kind, phase: phase, id: id, timeMicroseconds: 0, fingers: fingers)
        }
        // Not subscribed: nothing.
        #expect(!p.session.wants(event(1, .begin), from: device))
        p.send("{\"type\":\"subscribe\",\"fingers\":[1]}\n")
        p.pump()
        // Gesture 1 began before the subscription: none of it.
        #expect(!p.session.wants(event(1, .update), from: device))
        #expect(!p.session.wants(event(1, .end), from: device))
        // Gesture 2: all of it.
        #expect(p.session.wants(event(2, .begin), from: device))
        #expect(p.session.wants(event(2, .update), from: device))
        // A new filter that would refuse gesture 2 does not cut it in half.
        p.send("{\"type\":\"subscribe\",\"fingers\":[2],\"updates\":false}\n")
        p.pump()
        #expect(!p.session.wants(event(2, .update), from: device))  // updates off now
        #expect(p.session.wants(event(2, .end), from: device))
        #expect(!p.session.wants(event(3, .begin, fingers: 1), from: device))
        #expect(!p.session.wants(event(3, .cancel, fingers: 1), from: device))
        #expect(p.session.wants(event(4, .begin, .pinch, fingers: 2), from: device))
        #expect(!p.session.wants(event(4, .update, .pinch, fingers: 2), from: device))
        #expect(p.session.wants(event(4, .cancel, .pinch, fingers: 2), from: device))
        #expect(p.session.wantsNotification(about: device))
        p.send("{\"type\":\"unsubscribe\"}\n")
        p.pump()
        #expect(!p.session.wants(event(5, .begin, fingers: 2), from: device))
        #expect(!p.session.wantsNotification(about: device))
    }

    @Test func gesturesInFlightTogetherEndInAnyOrder() {
        // Two panels, each with a gesture running: each gesture's end is delivered once, whichever ends
        // first, and an end never delivers a gesture that was not begun (or already ended).
        let p = Pair()
        let a = DeviceInfo(id: "replay1", name: "a", vendorProduct: "0000:0000", path: nil, source: .replay, slots: 5)
        let b = DeviceInfo(id: "replay2", name: "b", vendorProduct: "0000:0000", path: nil, source: .replay, slots: 5)
        func event(_ id: UInt64, _ phase: GesturePhase) -> GestureEvent {
            GestureEvent(kind: .pan, phase: phase, id: id, timeMicroseconds: 0, fingers: 1)
        }
        p.send("{\"type\":\"subscribe\"}\n")
        p.pump()
        for id: UInt64 in [7, 8, 9] { #expect(p.session.wants(event(id, .begin), from: id == 8 ? b : a)) }
        #expect(p.session.wants(event(7, .update), from: a))
        #expect(p.session.wants(event(7, .end), from: a))  // the first begun ends first
        #expect(!p.session.wants(event(7, .update), from: a))
        #expect(!p.session.wants(event(7, .end), from: a))
        #expect(p.session.wants(event(9, .cancel), from: a))  // then the last
        #expect(p.session.wants(event(8, .update), from: b))
        #expect(p.session.wants(event(8, .end), from: b))
        #expect(!p.session.wants(event(8, .update), from: b))
        #expect(!p.session.wants(event(9, .update), from: a))
    }

    @Test func aClientThatClosesItsSideGetsItsRepliesThenIsClosed() {
        let p = Pair()
        p.send("{\"type\":\"subscribe\"}\n{\"type\":\"ping\",\"id\":1}")  // last request without newline
        shutdown(p.peer, Int32(SHUT_WR))
        #expect(p.pump() == .keep)  // the subscribe reply
        guard case .close(let reason) = p.pump() else {
            Issue.record("end of file did not end the session")
            return
        }
        #expect(reason == .closedByClient && reason.isRoutine)
        #expect(p.replies() == [.subscribed(id: nil, filter: SubscriptionFilter(), appTouchAccess: .denied(.unknownPeer)), .pong(id: .integer(1))])
        #expect(p.session.subscription == nil)
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
}

/// App touches reach a session only when its subscription asks for them and it may see them; the hello
/// and the subscribed reply say which, with the reason.
@Suite struct ClientSessionAppTouchTests {
    static let device = DeviceInfo(id: "event5", name: "panel", vendorProduct: "0000:0000", path: nil, source: .evdev, slots: 10)

    static func session(uid: UInt32, groups: [UInt32] = [], subscription: SubscriptionFilter) -> ClientSession {
        var fds: [Int32] = [0, 0]
        precondition(socketpair(AF_UNIX, 1 | 0o4000 | 0o2000000, 0, &fds) == 0)
        close(fds[1])
        let s = ClientSession(fd: fds[0], token: 1, label: "t", uid: uid, groups: groups, outgoingLimitBytes: 1 << 20)
        s.updateAppTouchAccess(
            AppTouchPolicy(ownUID: 990, viewers: AppTouchViewers(groups: [(2000, "kiosk")]), seats: .known(["seat0": .some(1000)])),
            seats: ["seat0"])
        _ = s.respond(to: RequestMessage(.subscribe(subscription)), host: NoDevices())
        return s
    }

    private struct NoDevices: SessionHost {
        var deviceInfos: [DeviceInfo] { [] }
        func setOrientation(_ o: DeviceOrientation, device: String?, requestedBy session: ClientSession) -> Result<OrientationChange, ProtocolError> {
            .failure(ProtocolError(.unknownDevice, "none"))
        }
    }

    static func tap(_ phase: GesturePhase, id: UInt64) -> GestureEvent {
        GestureEvent(kind: .tap, phase: phase, id: id, timeMicroseconds: 0, fingers: 1)
    }

    @Test func anAppTouchGoesOnlyToThoseWhoAskAndMaySee() {
        let seatUser = Self.session(uid: 1000, subscription: .all)
        let other = Self.session(uid: 1001, subscription: .all)
        let kioskMember = Self.session(uid: 1002, groups: [1002, 2000], subscription: .all)
        let notAsking = Self.session(uid: 1000, subscription: SubscriptionFilter())
        #expect(seatUser.wants(Self.tap(.begin, id: 1), appTouch: true, from: Self.device))
        #expect(seatUser.wants(Self.tap(.end, id: 1), from: Self.device))
        #expect(kioskMember.wants(Self.tap(.begin, id: 1), appTouch: true, from: Self.device))
        #expect(!other.wants(Self.tap(.begin, id: 1), appTouch: true, from: Self.device))
        #expect(!other.wants(Self.tap(.end, id: 1), from: Self.device), "its end follows the begin's decision")
        #expect(!notAsking.wants(Self.tap(.begin, id: 1), appTouch: true, from: Self.device))
        // A public gesture (a tap in an edge zone) reaches every subscriber.
        #expect(other.wants(Self.tap(.begin, id: 2), appTouch: false, from: Self.device))
        #expect(other.wants(Self.tap(.end, id: 2), from: Self.device))
    }

    @Test func theSubscribedReplySaysWhy() {
        let other = Self.session(uid: 1001, subscription: .all)
        let reply = other.respond(to: RequestMessage(id: .integer(3), .subscribe(.all)), host: NoDevices())
        #expect(reply == .subscribed(id: .integer(3), filter: .all, appTouchAccess: .denied(.otherSeatUser(seat: "seat0"))))
        #expect(reply.encoded.contains("\"app_touch_access\":{\"granted\":false,\"reason\":\"other-seat-user\",\"seat\":\"seat0\""))
    }

    @Test func aChangeOfTheSeatsUserIsToldOnce() {
        let s = Self.session(uid: 1001, subscription: .all)
        let policy = AppTouchPolicy(ownUID: 990, seats: .known(["seat0": .some(1001)]))
        #expect(s.updateAppTouchAccess(policy, seats: ["seat0"]) == .granted(.seatUser(seat: "seat0")))
        #expect(s.updateAppTouchAccess(policy, seats: ["seat0"]) == nil)
        #expect(s.wants(Self.tap(.begin, id: 4), appTouch: true, from: Self.device))
    }
}
