// Who may set and see what (issue 36), against the real gestured: clients of other users run as real
// processes (runuser), a test directory standing in for logind's seat state, the real gesturectl tune
// writing real files.
import DaemonUnderTest
import GestureClient
import GestureProtocol
import GestureVocabulary
import Glibc
import Testing

@Suite(.serialized) struct PolicyTests {
    /// Request lines sent as `user` through socat (which closes its sending side at the end of its input;
    /// the daemon answers every line, then closes): the daemon's lines, the hello first.
    static func send(_ lines: [String], as user: String, to daemon: Daemon, in directory: TemporaryDirectory) throws -> [ServerMessage] {
        let input = directory.write("requests-\(user)-\(UInt32.random(in: 0...UInt32.max)).jsonl", lines.joined(separator: "\n") + "\n")
        chmod(input, 0o644)
        let r = try run(
            "/usr/sbin/runuser", ["-u", user, "--", "/bin/sh", "-c", "socat -t 5 - UNIX-CONNECT:\(daemon.socketPath) < \(input)"], in: directory)
        #expect(r.status == 0, "socat as \(user): \(r.output)")
        return r.output.split(separator: "\n").compactMap { try? ServerMessage.decode(line: Array($0.utf8)) }
    }

    /// A daemon replaying `recording` with the seat state in a test directory, seat0's session `uid`'s.
    static func daemon(_ recording: String, seatUser uid: UInt32, config extra: String = "", in directory: TemporaryDirectory) throws
        -> (Daemon, seats: String)
    {
        chmod(directory.path, 0o755)
        let seats = directory.path + "/seats"
        mkdir(seats, 0o755)
        AppTouchTests.setActiveUser(uid, seats: seats)
        let config = directory.write("gestured.toml", "[daemon]\nsocket_group = \"\"\nsocket_mode = \"0666\"\n" + extra)
        let daemon = try Daemon(
            ["--replay", recording, "--loop", "--speed", "2", "--config", config, "--seats-directory", seats], directory: directory)
        return (daemon, seats)
    }

    /// Hole 3: another user's client sends a focus naming an app whose [[exclusion]] takes the left edge,
    /// and an orientation, and exclusions: each is refused, typed, and the seat user's edge swipes keep
    /// coming.
    @Test func anotherUsersFocusOrientationAndExclusionsAreRefused() throws {
        guard getuid() == 0 else { return }  // the clients must be other users than the daemon's
        let directory = TemporaryDirectory()
        let (daemon, _) = try Self.daemon(
            topEdgeSwipeRecording(in: directory), seatUser: 4242,
            config: "[[exclusion]]\napp = \"game\"\nedges = [\"top\"]\n", in: directory)
        let replies = try Self.send(
            [
                "{\"type\":\"focus\",\"id\":1,\"app_id\":\"game\"}", "{\"type\":\"orientation\",\"id\":2,\"orientation\":90}",
                "{\"type\":\"exclude\",\"id\":3,\"exclusions\":[{\"edge\":\"top\"}]}", "{\"type\":\"reload\",\"id\":4}",
                "{\"type\":\"ping\",\"id\":5}",
            ], as: "nobody", to: daemon, in: directory)
        let errors = replies.compactMap { m -> ProtocolError? in if case .error(let e) = m { return e } else { return nil } }
        #expect(errors.map(\.code) == [.notPermitted, .notPermitted, .notPermitted, .notPermitted], "\(replies)")
        #expect(errors.first?.message.contains("the active session on seat0 is uid 4242's") == true, "\(errors)")
        #expect(replies.contains(.pong(id: .integer(5))))
        // Nothing changed: no focus, no exclusion, orientation 0, and the top edge swipes still come.
        let root = try daemon.connect()
        let device = try #require(try root.devices().first)
        #expect(device.focusedApp == nil && device.exclusions.isEmpty && device.orientation == .normal)
        try root.subscribe(SubscriptionFilter(kinds: [.edgeSwipe], updates: false))
        let swipe = try nextGesture(root, from: daemon)
        #expect(swipe.event.kind == .edgeSwipe && swipe.event.edge == .top)
        // Root (an administrator) may: the focus takes the top edge away.
        #expect(try root.request(.focus(appID: "game")) == .focused(id: .integer(3), appID: "game"))
        #expect(try root.devices().first?.exclusions.map(\.edge) == [.top])
    }

    /// Hole 1: a client that may not see app touches numbers only the gestures it receives: between two
    /// public gestures, the typing on the keyboard (nine app touches a pass) leaves no gap in its ids.
    @Test func gestureIDsCountOnlyWhatAClientSees() throws {
        guard getuid() == 0 else { return }
        let directory = TemporaryDirectory()
        let (daemon, _) = try Self.daemon(AppTouchTests.keyboardRecording(in: directory), seatUser: 4242, in: directory)
        let gesturectl = try AppTouchTests.gesturectlFor(others: directory)
        let other = try AppTouchTests.monitor(as: "nobody", count: 6, gesturectl: gesturectl, daemon: daemon, in: directory)
        #expect(!other.gestures.contains(where: AppTouchTests.isAppTouch))
        let ids = other.gestures.filter { $0.phase == .begin }.map(\.id)
        #expect(ids.count >= 3 && ids == Array(1...UInt64(ids.count)), "\(other.output)")
        // The seat's user (root here may see everything) sees the typing too, with ids of its own.
        let root = try daemon.connect()
        try root.subscribe(SubscriptionFilter(updates: false, appTouches: true))
        var begins: [GestureEvent] = []
        while begins.count < 12 {
            let g = try nextGesture(root, from: daemon)
            if g.event.phase == .begin { begins.append(g.event) }
        }
        #expect(begins.map(\.id) == Array(1...12))
        #expect(begins.contains(where: AppTouchTests.isAppTouch))
    }

    /// Hole 8: the focused app and the exclusions' sources (other users' programs, with their pids) are the
    /// seat's: another user's `devices` and `hello` show the device without them.
    @Test func aDevicesFocusAndExclusionsGoOnlyToTheSeatsAudience() throws {
        guard getuid() == 0 else { return }
        let directory = TemporaryDirectory()
        let (daemon, _) = try Self.daemon(topEdgeSwipeRecording(in: directory), seatUser: 4242, in: directory)
        let root = try daemon.connect()
        #expect(try root.request(.focus(appID: "org.secret.Diary")) == .focused(id: .integer(1), appID: "org.secret.Diary"))
        _ = try root.request(.exclude([RequestedExclusion(edge: .left, from: 0, to: 0.1)]))
        let mine = try #require(try root.devices().first)
        #expect(mine.focusedApp == "org.secret.Diary" && mine.exclusions.first?.source.contains("uid 0") == true)
        let theirs = try Self.send(["{\"type\":\"devices\",\"id\":1}"], as: "nobody", to: daemon, in: directory)
        var seen: [DeviceInfo] = []
        for message in theirs {
            switch message {
            case .hello(let h): seen += h.devices
            case .devices(_, let d): seen += d
            default: break
            }
        }
        #expect(seen.count == 2)
        #expect(seen.allSatisfy { $0.focusedApp == nil && $0.exclusions.isEmpty }, "\(seen)")
    }

    /// Hole 5: `reload` is root's and the daemon user's: answered once applied, or with the file's
    /// problems; refused to others.
    @Test func reloadIsAnsweredToRootAndRefusedToOthers() throws {
        guard getuid() == 0 else { return }
        let directory = TemporaryDirectory()
        let (daemon, _) = try Self.daemon(topEdgeSwipeRecording(in: directory), seatUser: 65534, in: directory)
        let config = directory.path + "/gestured.toml"
        let root = try daemon.connect()
        #expect(try root.request(.reload) == .reloaded(id: .integer(1), path: config))
        let broken = readWholeFile(config) + "[recognizer.tap]\nmax_taps = \"two\"\n"
        _ = directory.write("gestured.toml", broken)
        do {
            _ = try root.request(.reload)
            Issue.record("a broken file was answered as reloaded")
        } catch {
            guard case .daemon(let e) = error else { throw error }
            #expect(e.code == .reloadFailed)
            #expect(e.problems.first?.hasPrefix("\(config):5:1: recognizer.tap.max_taps") == true, "\(e.problems)")
        }
        // The seat's own user may not reload the daemon.
        let seatUser = try Self.send(["{\"type\":\"reload\",\"id\":9}"], as: "nobody", to: daemon, in: directory)
        #expect(seatUser.contains { if case .error(let e) = $0 { return e.code == .notPermitted && e.id == .integer(9) } else { return false } })
    }

    // MARK: gesturectl tune --write (hole 5)

    /// Writes the narrow-bezel proposal to `path` with `gesturectl tune --replay … --write PATH --yes`,
    /// telling the daemon at `socket` (none: a path nothing listens on).
    static func tuneWrite(_ path: String, socket: String, in directory: TemporaryDirectory) throws -> (status: Int32, output: String) {
        try run(
            try Paths.gesturectl(),
            ["tune", "--replay", TuneCommandTests.fixtures + "narrow-bezel.evemu", "--edges", "left,right", "--write", path, "--yes", "--socket", socket],
            in: directory)
    }

    /// The listener of the socket is not always gestured (socket activation: systemd; a listener that
    /// exited: a pid reused by someone else): the tuner never signals it. Here a stand-in that greets as
    /// gestured does and refuses the request it gets, and that SIGHUP's default action would end (the
    /// tuner of before signalled the socket's peer and killed it).
    @Test func tuneNeverSignalsWhateverListensOnTheSocket() throws {
        let directory = TemporaryDirectory()
        let config = directory.write("gestured.toml", TuneCommandTests.configuration)
        let socket = directory.path + "/not-gestured.sock"
        let listener = try Background(
            ["/usr/bin/python3", "-c",
             // The test's threads block SIGHUP and SIGTERM, and a child inherits that: unblocked, so that a
             // SIGHUP would end it.
             "import signal,socket,sys\nsignal.pthread_sigmask(signal.SIG_UNBLOCK,{signal.SIGHUP,signal.SIGTERM})\n"
                + "import json\ns=socket.socket(socket.AF_UNIX)\ns.bind(sys.argv[1])\ns.listen(8)\nprint('listening',flush=True)\n"
                + "while True:\n  c,_=s.accept()\n  f=c.makefile('rw')\n"
                + "  f.write(json.dumps({'type':'hello','protocol':1,'daemon':'gestured','version':'0','max_line_bytes':65536,'devices':[]})+'\\n'); f.flush()\n"
                + "  line=f.readline()\n"
                + "  if line:\n    f.write(json.dumps({'type':'error','id':json.loads(line).get('id'),'code':'not-permitted','message':'a stand-in'})+'\\n'); f.flush()\n"
                + "  c.close()\n",
             socket], outputPath: directory.path + "/listener.log")
        try listener.waitForOutput("listening")
        let r = try Self.tuneWrite(config, socket: socket, in: directory)
        #expect(r.status == 0, "\(r.output)")
        #expect(r.output.contains("gestured did not reload: a stand-in"), "\(r.output)")
        #expect(!r.output.contains("Told"), "\(r.output)")
        usleep(200_000)
        #expect(kill(listener.pid, 0) == 0, "the listener was signalled")
        _ = try listener.stop()
    }

    /// A configuration reached through a link is edited where it is (the link stays a link); the file keeps
    /// its owner and mode; a file another user left at the old fixed temporary name blocks nothing.
    @Test func tuneWritesThroughALinkKeepingOwnerAndMode() throws {
        guard getuid() == 0 else { return }  // the file must belong to another user
        let directory = TemporaryDirectory()
        let real = directory.path + "/etc"
        mkdir(real, 0o755)
        let target = real + "/gestured.toml"
        _ = directory.write("etc/gestured.toml", TuneCommandTests.configuration)
        chown(target, 65534, 65534)
        chmod(target, 0o600)
        let link = directory.path + "/gestured.toml"
        #expect(symlink(target, link) == 0)
        // Another user's file where the tuner once put its temporary file.
        let squatted = real + "/.gestured.toml.gesturectl-tune"
        _ = directory.write("etc/.gestured.toml.gesturectl-tune", "not yours\n")
        chown(squatted, 4242, 4242)
        let r = try Self.tuneWrite(link, socket: directory.path + "/none.sock", in: directory)
        #expect(r.status == 0, "\(r.output)")
        #expect(r.output.contains("Wrote \(target) (through the link \(link))"), "\(r.output)")
        var st = stat()
        #expect(lstat(link, &st) == 0 && (st.st_mode & S_IFMT) == S_IFLNK, "the link stays a link")
        #expect(stat(target, &st) == 0)
        #expect(st.st_uid == 65534 && st.st_gid == 65534 && st.st_mode & 0o7777 == 0o600)
        #expect(readWholeFile(target).contains("edge_swipe.left.zone_mm = 10"))
        #expect(readWholeFile(squatted) == "not yours\n")
        // Nothing left behind but the squatter's file.
        let leftovers = try run("/bin/sh", ["-c", "ls -A \(real)"], in: directory).output.split(separator: "\n")
        #expect(Set(leftovers) == ["gestured.toml", ".gestured.toml.gesturectl-tune"], "\(leftovers)")
        // A link to nothing is refused, and nothing is made.
        let dangling = directory.path + "/dangling.toml"
        #expect(symlink(directory.path + "/missing/x.toml", dangling) == 0)
        let refused = try Self.tuneWrite(dangling, socket: directory.path + "/none.sock", in: directory)
        #expect(refused.status == 1 && refused.output.contains("symbolic link to a file that does not exist"), "\(refused.output)")
    }

    /// Two edits at once: the second is refused while the first holds the directory's lock, and the file
    /// is the first's.
    @Test func aSecondEditAtTheSameTimeIsRefused() throws {
        let directory = TemporaryDirectory()
        let config = directory.write("gestured.toml", TuneCommandTests.configuration)
        // The test holds the lock an edit in progress holds.
        let fd = open(directory.path, O_RDONLY | O_DIRECTORY)
        #expect(flock(fd, LOCK_EX) == 0)
        let r = try Self.tuneWrite(config, socket: directory.path + "/none.sock", in: directory)
        #expect(r.status == 1 && r.output.contains("another gesturectl tune is writing in"), "\(r.output)")
        #expect(readWholeFile(config) == TuneCommandTests.configuration)
        close(fd)
        #expect(try Self.tuneWrite(config, socket: directory.path + "/none.sock", in: directory).status == 0)
    }

    // MARK: The app developer's tools (issue 38, items 1 and 4)

    /// The Swift client's helpers: each answered, and `reconnected()` sets the exclusions and the focus
    /// again on a restarted daemon.
    @Test func theSwiftClientKeepsItsExclusionsAndFocusAcrossARestart() throws {
        let directory = TemporaryDirectory()
        let recording = topEdgeSwipeRecording(in: directory)
        var daemon = try Daemon(["--replay", recording, "--loop"], directory: directory)
        let client = try daemon.connect()
        let (accepted, refused) = try client.exclude([
            RequestedExclusion(edge: .left, from: 0.4, to: 0.5), RequestedExclusion(edge: .right, from: 0, to: 0.1, app: "org.example.Sketch"),
            RequestedExclusion(edge: .top),
        ])
        #expect(accepted.map(\.edge) == [.left, .right] && refused.map(\.reason) == [.overCap])
        try client.setFocus("org.example.Sketch")
        #expect(try client.devices().first?.exclusions.map(\.edge).sorted { $0.rawValue < $1.rawValue } == [.left, .right])
        #expect(try daemon.terminate() == 0)
        daemon = try Daemon(["--replay", recording, "--loop"], directory: directory)
        let again = try client.reconnected()
        let device = try #require(try again.devices().first)
        #expect(device.focusedApp == "org.example.Sketch")
        #expect(device.exclusions.map(\.edge).sorted { $0.rawValue < $1.rawValue } == [.left, .right])
        try again.clearExclusions()
        #expect(try again.devices().first?.exclusions.isEmpty == true)
        #expect(try again.reload() == directory.path + "/default.toml")
    }

    /// `gesturectl focus` and `gesturectl exclude` hold what they set until stopped; another user is
    /// refused, with why.
    @Test func gesturectlFocusAndExcludeHoldUntilStoppedAndFollowTheRights() throws {
        guard getuid() == 0 else { return }
        let directory = TemporaryDirectory()
        let (daemon, _) = try Self.daemon(topEdgeSwipeRecording(in: directory), seatUser: 4242, in: directory)
        let gesturectl = try AppTouchTests.gesturectlFor(others: directory)
        let exclude = try Background(
            [gesturectl, "exclude", "--socket", daemon.socketPath, "--app", "sketch", "left:0-0.1", "top-left"],
            outputPath: directory.path + "/exclude.log")
        try exclude.waitForOutput("held until this stops")
        #expect(exclude.output.contains("excluded left 0...0.1 while sketch has the focus"), "\(exclude.output)")
        let focus = try Background([gesturectl, "focus", "--socket", daemon.socketPath, "sketch"], outputPath: directory.path + "/focus.log")
        try focus.waitForOutput("focused app: 'sketch'")
        let root = try daemon.connect()
        try waitUntil("the exclusions in force", context: { exclude.output }) {
            try root.devices().first?.exclusions.map(\.edge) == [.left, .topLeft]
        }
        #expect(try root.devices().first?.focusedApp == "sketch")
        // Stopped: what each set goes with it.
        #expect(try focus.stop(SIGINT) == 0)
        try waitUntil("the exclusions of the app gone with its focus", context: { daemon.log }) {
            try root.devices().first.map { $0.focusedApp == nil && $0.exclusions.isEmpty } == true
        }
        #expect(try exclude.stop() == 0)
        // Another user: refused, told why, status 1.
        let refused = try run(
            "/usr/sbin/runuser", ["-u", "nobody", "--", gesturectl, "exclude", "--socket", daemon.socketPath, "--for", "1", "left"],
            in: directory)
        #expect(refused.status == 1 && refused.output.contains("gestured refused: a exclude request may be sent only by"), "\(refused.output)")
        let held = try run(gesturectl, ["focus", "--socket", daemon.socketPath, "--for", "0.2", "--none"], in: directory)
        #expect(held.status == 0 && held.output.contains("focused app: none"), "\(held.output)")
    }
}
