// App touches only for those who may see them (issue 29, item 2): the real gestured replaying typing on an
// on-screen keyboard's area, with clients of other users run as real processes (runuser), a test directory
// standing in for logind's /run/systemd/seats, and a configured group.
import DaemonUnderTest
import GestureClient
import GestureProtocol
import GestureVocabulary
import Glibc
import Testing

@Suite(.serialized) struct AppTouchTests {
    /// Typing on the keyboard in the lower third of a 72 x 128 mm phone: eight one-finger taps on keys and a
    /// word swiped across them (one-finger pan): app touches. Then the public gestures of the same replay:
    /// a back swipe from the left edge, a two-finger tap on the keyboard and a one-finger tap that lands in
    /// the bottom edge zone.
    static func keyboardRecording(in directory: TemporaryDirectory) -> String {
        var r = SyntheticRecording(leadIn: 0.5)
        for (i, x) in [10.0, 22, 34, 46, 58, 16, 40, 62].enumerated() {
            let y = i < 5 ? 98.0 : 112.0
            r.stroke(seconds: 0.03) { _ in [(x, y)] }
            r.wait(0.35)
        }
        r.swipe(from: (10, 104), by: 44, 0, seconds: 0.3)
        r.wait(0.4)
        r.swipe(from: (2, 64), by: 50, 0)
        r.wait(0.4)
        r.stroke(seconds: 0.03) { _ in [(30, 104), (44, 104)] }
        r.wait(0.4)
        r.stroke(seconds: 0.03) { _ in [(36, 126)] }
        r.wait(0.5)
        return directory.write("keyboard.evemu", r.text)
    }

    /// Whether a gesture's begin is an app touch in this recording: one finger, a tap, hold or pan, away
    /// from the edges (the bottom tap landed at 126 of 128 mm, the edge swipe is no tap/hold/pan).
    static func isAppTouch(_ e: GestureEvent) -> Bool {
        e.fingers == 1 && [GestureKind.tap, .hold, .pan].contains(e.kind) && e.positionMM.y < 123 && e.startEdge == nil
    }

    /// A copy of gesturectl other users may run (the build directory may be closed to them).
    static func gesturectlFor(others directory: TemporaryDirectory) throws -> String {
        let copy = directory.path + "/gesturectl"
        guard try run("/bin/cp", ["-p", try Paths.gesturectl(), copy], in: directory).status == 0 else { throw TestFailure("cp gesturectl") }
        chmod(copy, 0o755)
        return copy
    }

    /// `gesturectl monitor --json --no-updates --count N` as `user`: the gestures it printed (begins and
    /// ends) and what it said on standard error.
    static func monitor(as user: String, count: Int, gesturectl: String, daemon: Daemon, in directory: TemporaryDirectory) throws
        -> (gestures: [GestureEvent], output: String)
    {
        let r = try run(
            "/usr/sbin/runuser",
            ["-u", user, "--", gesturectl, "monitor", "--json", "--no-updates", "--count", "\(count)", "--socket", daemon.socketPath],
            in: directory)
        #expect(r.status == 0, "monitor as \(user): \(r.output)\n\(daemon.log)")
        var gestures: [GestureEvent] = []
        for line in r.output.split(separator: "\n") where line.hasPrefix("{") {
            if case .gesture(let g)? = try? ServerMessage.decode(line: Array(line.utf8)) { gestures.append(g.event) }
        }
        return (gestures, r.output)
    }

    /// Writes a seat state file as logind does: a new file renamed over the old.
    static func setActiveUser(_ uid: UInt32, seats: String) {
        let temporary = seats + "/.#seat0new"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let text = "# This is private data. Do not parse.\nIS_SEAT0=1\nACTIVE=c\(uid)\nACTIVE_UID=\(uid)\n"
        _ = text.withCString { write(fd, $0, strlen($0)) }
        close(fd)
        rename(temporary, seats + "/seat0")
    }

    @Test func typingReachesOnlyThoseWhoMaySeeIt() throws {
        guard getuid() == 0 else { return }  // the clients must be other users than the daemon's
        let directory = TemporaryDirectory()
        chmod(directory.path, 0o755)
        let seats = directory.path + "/seats"
        mkdir(seats, 0o755)
        Self.setActiveUser(4242, seats: seats)  // someone else's session is active on seat0
        let config = directory.write(
            "gestured.toml", "[daemon]\nsocket_group = \"\"\nsocket_mode = \"0666\"\napp_touches_for = [\"%daemon\"]\n")
        let recording = Self.keyboardRecording(in: directory)
        let daemon = try Daemon(
            ["--replay", recording, "--loop", "--speed", "2", "--config", config, "--seats-directory", seats], directory: directory)
        let gesturectl = try Self.gesturectlFor(others: directory)

        // What root sees, subscribed to everything: the typing and the public gestures.
        let root = try daemon.connect()
        #expect(root.appTouchAccess == .granted(.root))
        try root.subscribe(SubscriptionFilter(updates: false, appTouches: true))
        var rootBegins: [GestureEvent] = []
        while rootBegins.filter({ $0.kind == .edgeSwipe }).count < 2 {
            let g = try nextGesture(root, from: daemon)
            if g.event.phase == .begin { rootBegins.append(g.event) }
        }
        #expect(rootBegins.filter(Self.isAppTouch).count >= 9, "\(rootBegins.map { "\($0.kind) \($0.fingers) \($0.positionMM)" })")

        // nobody, subscribed to everything (monitor asks for app touches): the public gestures of two
        // passes, not one app touch, and why.
        let other = try Self.monitor(as: "nobody", count: 12, gesturectl: gesturectl, daemon: daemon, in: directory)
        #expect(other.gestures.count == 12)
        #expect(!other.gestures.contains(where: Self.isAppTouch), "\(other.output)")
        let kinds = Set(other.gestures.map { "\($0.kind.rawValue) \($0.fingers)" })
        #expect(kinds == ["edge-swipe 1", "tap 2", "tap 1"], "\(other.output)")
        #expect(other.gestures.contains { $0.kind == .tap && $0.fingers == 1 && $0.positionMM.y > 123 }, "the tap in the bottom edge zone is public")
        #expect(other.output.contains("no app touches: another user has the active session on seat0"), "\(other.output)")

        // A member of a group app_touches_for names receives all.
        let member = try Self.monitor(as: "daemon", count: 30, gesturectl: gesturectl, daemon: daemon, in: directory)
        #expect(member.gestures.filter(Self.isAppTouch).count >= 9, "\(member.output)")
        #expect(!member.output.contains("no app touches"), "\(member.output)")

        // The seat switches to nobody's session (logind renames a new file over seat0): nobody receives all.
        Self.setActiveUser(65534, seats: seats)
        let seatUser = try Self.monitor(as: "nobody", count: 30, gesturectl: gesturectl, daemon: daemon, in: directory)
        #expect(seatUser.gestures.filter(Self.isAppTouch).count >= 9, "\(seatUser.output)\n\(daemon.log)")
        #expect(!seatUser.output.contains("no app touches"), "\(seatUser.output)")
    }

    /// gestured started before logind made its seat directory (the unit is not ordered after logind's):
    /// the daemon watches the parent until the directory appears, then follows it, so the seat's user gets
    /// the app touches without a restart. Before, a directory missing at start was never watched.
    @Test func aSeatDirectoryMadeAfterTheStartIsFollowed() throws {
        guard getuid() == 0 else { return }  // the clients must be other users than the daemon's
        let directory = TemporaryDirectory()
        chmod(directory.path, 0o755)
        let seats = directory.path + "/seats"  // not made yet: logind has not started
        let config = directory.write("gestured.toml", "[daemon]\nsocket_group = \"\"\nsocket_mode = \"0666\"\n")
        let recording = Self.keyboardRecording(in: directory)
        let daemon = try Daemon(
            ["--replay", recording, "--loop", "--speed", "2", "--config", config, "--seats-directory", seats], directory: directory)
        let gesturectl = try Self.gesturectlFor(others: directory)
        try daemon.waitForLog("\(seats) does not exist yet: waiting for logind to make it")

        let before = try Self.monitor(as: "nobody", count: 12, gesturectl: gesturectl, daemon: daemon, in: directory)
        #expect(!before.gestures.contains(where: Self.isAppTouch), "\(before.output)")

        // logind starts: it makes the directory, then nobody's session becomes active on seat0.
        mkdir(seats, 0o755)
        Self.setActiveUser(65534, seats: seats)
        try daemon.waitForLog("following logind's seat state in \(seats), made since gestured started")
        // The seat file may come just after the directory's watch read it: access is granted by the next
        // notification, so the check waits for a monitor that is not told "no app touches".
        try waitUntil("nobody to be the seat's user", context: { daemon.log }) {
            try !Self.monitor(as: "nobody", count: 1, gesturectl: gesturectl, daemon: daemon, in: directory).output.contains("no app touches")
        }
        let after = try Self.monitor(as: "nobody", count: 30, gesturectl: gesturectl, daemon: daemon, in: directory)
        #expect(after.gestures.filter(Self.isAppTouch).count >= 9, "\(after.output)\n\(daemon.log)")
        #expect(!after.output.contains("no app touches"), "\(after.output)")

        // And the directory is followed from then on: the seat switches to someone else.
        Self.setActiveUser(4242, seats: seats)
        try waitUntil("nobody to lose the seat", context: { daemon.log }) {
            try Self.monitor(as: "nobody", count: 1, gesturectl: gesturectl, daemon: daemon, in: directory).output
                .contains("no app touches: another user has the active session on seat0")
        }
        let switched = try Self.monitor(as: "nobody", count: 12, gesturectl: gesturectl, daemon: daemon, in: directory)
        #expect(!switched.gestures.contains(where: Self.isAppTouch), "\(switched.output)")
    }

    /// A binding with `region` on the keyboard fires for the user of the active session on the seat; for
    /// another user `bind --check` and bind's log say it cannot match, and why.
    @Test func aRegionBindingFiresForTheSeatsUserOnly() throws {
        guard getuid() == 0 else { return }
        let directory = TemporaryDirectory()
        chmod(directory.path, 0o755)
        let out = directory.path + "/out"
        mkdir(out, 0o777)
        chmod(out, 0o777)
        let seats = directory.path + "/seats"
        mkdir(seats, 0o755)
        Self.setActiveUser(65534, seats: seats)
        let config = directory.write("gestured.toml", "[daemon]\nsocket_group = \"\"\nsocket_mode = \"0666\"\n")
        let recording = Self.keyboardRecording(in: directory)
        let daemon = try Daemon(
            ["--replay", recording, "--loop", "--speed", "2", "--config", config, "--seats-directory", seats], directory: directory)
        let gesturectl = try Self.gesturectlFor(others: directory)
        let fired = out + "/fired"
        let bindings = directory.write(
            "bindings.toml",
            "[[binding]]\nname = \"key\"\ngesture = \"tap\"\nfingers = 1\nregion = [0, 0.66, 1, 0.95]\nshell = \"echo $GESTURE_FINGERS >> \(fired)\"\n")
        chmod(bindings, 0o644)

        // Another user: --check says the binding cannot match, and why.
        let check = try run(
            "/usr/sbin/runuser", ["-u", "daemon", "--", gesturectl, "bind", "--check", "--bindings", bindings, "--socket", daemon.socketPath],
            in: directory)
        #expect(check.status == 0, "\(check.output)")
        #expect(
            check.output.contains("note: key cannot match: its region's taps and holds are app touches, which the daemon does not send this user (no app touches: another user has the active session on seat0"),
            "\(check.output)")
        let otherBind = try Background(
            ["/usr/sbin/runuser", "-u", "daemon", "--", gesturectl, "bind", "--bindings", bindings, "--socket", daemon.socketPath],
            outputPath: directory.path + "/other-bind.log")
        try otherBind.waitForOutput("key cannot match")

        // The seat's user: it fires for the typing.
        let check2 = try run(
            "/usr/sbin/runuser", ["-u", "nobody", "--", gesturectl, "bind", "--check", "--bindings", bindings, "--socket", daemon.socketPath],
            in: directory)
        #expect(!check2.output.contains("cannot match"), "\(check2.output)")
        let bind = try Background(
            ["/usr/sbin/runuser", "-u", "nobody", "--", gesturectl, "bind", "--bindings", bindings, "--socket", daemon.socketPath],
            outputPath: directory.path + "/bind.log")
        try waitForLines(fired, 8, context: { "bind:\n\(bind.output)\nother:\n\(otherBind.output)\n\(daemon.log)" })
        #expect(lines(fired).allSatisfy { $0 == "1" })
        try bind.stop()
        try otherBind.stop()
    }
}
