import GestureProtocol
import GestureVocabulary
import Glibc
import Testing

@testable import GestureDaemon

/// Who may see app touches (`AppTouchPolicy.access`), decided with injected users, groups and seat state:
/// root, the daemon's own user, the active session's user on the touchscreen's seat, and those
/// app_touches_for names; everyone else gets a typed reason.
@Suite struct AppTouchPolicyTests {
    static let daemon: UInt32 = 990
    static let seatUser: UInt32 = 1000
    static let other: UInt32 = 1001
    static let kiosk: UInt32 = 2000

    static func policy(seats: SeatUsers = .known(["seat0": .some(seatUser)])) -> AppTouchPolicy {
        AppTouchPolicy(
            ownUID: daemon, viewers: AppTouchViewers(users: [(1500, "alice")], groups: [(kiosk, "kiosk")]), seats: seats)
    }

    @Test func rootTheDaemonAndTheSeatsUserMaySee() {
        let p = Self.policy()
        #expect(p.access(for: PeerIdentity(uid: 0, groups: []), seat: "seat0") == .granted(.root))
        #expect(p.access(for: PeerIdentity(uid: Self.daemon, groups: []), seat: "seat0") == .granted(.daemonUser))
        #expect(p.access(for: PeerIdentity(uid: Self.seatUser, groups: []), seat: "seat0") == .granted(.seatUser(seat: "seat0")))
    }

    @Test func configuredUsersAndGroupsMaySee() {
        let p = Self.policy()
        #expect(p.access(for: PeerIdentity(uid: 1500, groups: []), seat: "seat0") == .granted(.configuredUser("alice")))
        #expect(p.access(for: PeerIdentity(uid: Self.other, groups: [100, Self.kiosk]), seat: "seat0") == .granted(.configuredGroup("kiosk")))
    }

    @Test func everyoneElseIsToldWhy() {
        let other = PeerIdentity(uid: Self.other, groups: [Self.other, 100])
        #expect(Self.policy().access(for: other, seat: "seat0") == .denied(.otherSeatUser(seat: "seat0")))
        // The seat's user on seat0 is nobody's on seat1.
        #expect(Self.policy().access(for: PeerIdentity(uid: Self.seatUser, groups: []), seat: "seat1") == .denied(.noActiveSession(seat: "seat1")))
        #expect(Self.policy(seats: .known(["seat0": .none])).access(for: other, seat: "seat0") == .denied(.noActiveSession(seat: "seat0")))
        // Without logind nobody but root, the daemon and those configured.
        let noLogind = Self.policy(seats: .unavailable)
        #expect(noLogind.access(for: PeerIdentity(uid: Self.seatUser, groups: []), seat: "seat0") == .denied(.noSeatState))
        #expect(noLogind.access(for: PeerIdentity(uid: 0, groups: []), seat: "seat0") == .granted(.root))
        #expect(noLogind.access(for: nil, seat: "seat0") == .denied(.unknownPeer))
    }

    @Test func theReasonRoundTripsOnTheWire() throws {
        let all: [AppTouchAccess] = [
            .granted(.root), .granted(.daemonUser), .granted(.seatUser(seat: "seat1")), .granted(.configuredUser("alice")),
            .granted(.configuredGroup("kiosk")), .denied(.otherSeatUser(seat: "seat0")), .denied(.noActiveSession(seat: "seat0")),
            .denied(.noSeatState), .denied(.unknownPeer),
        ]
        for access in all {
            #expect(AppTouchAccess(json: access.json) == access)
            let line = ServerMessage.appTouchAccessChanged(access).encoded
            #expect(try ServerMessage.decode(line: Array(line.utf8)) == .appTouchAccessChanged(access))
        }
        // A reason this client does not know keeps whether access was granted.
        let newer = JSONValue.object([("granted", .bool(false)), ("reason", .string("quiet-hours")), ("message", .string("m"))])
        #expect(AppTouchAccess(json: newer) == .denied(.unknown(code: "quiet-hours", message: "m")))
    }

    @Test func logindsSeatFilesAreReadFromTheirDirectory() throws {
        var template = Array("/tmp/gestured-seats-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { Issue.record("mkdtemp"); return }
        let directory = String(cString: made)
        defer {
            for name in ["seat0", "seat1", ".#seat0abc"] { unlink(directory + "/" + name) }
            rmdir(directory)
        }
        func write(_ name: String, _ text: String) {
            let fd = open(directory + "/" + name, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            _ = text.withCString { Glibc.write(fd, $0, strlen($0)) }
            close(fd)
        }
        write("seat0", "# This is private data. Do not parse.\nIS_SEAT0=1\nCAN_MULTI_SESSION=1\nACTIVE=c2\nACTIVE_UID=1000\nSESSIONS=c2 c1\nUIDS=1000 1001\n")
        write("seat1", "IS_SEAT0=0\n")
        write(".#seat0abc", "ACTIVE_UID=1\n")  // logind's file being written
        #expect(SeatMonitor.read(directory: directory) == .known(["seat0": .some(1000), "seat1": .none]))
        #expect(SeatMonitor.read(directory: directory + "/none") == .unavailable)
    }
}
