// `gesturectl explain` against the running daemon: a daemon replaying a recording sends each touch
// sequence explained to a client that subscribed to explanations and may see app touches (root, the
// daemon's own user), the same explanations `gesturectl explain FILE` makes offline; another user's
// client is told no (its `subscribed` filter has no `explanations`) and receives none.
import Foundation
import GestureClient
import GestureProtocol
import GestureVocabulary
import Glibc
import Testing

@Suite(.serialized) struct LiveExplainTests {
    /// An explanation without what differs between passes of a loop and between live and offline: times
    /// (the touches' too), gesture ids, the device.
    static func canonical(_ x: Explanation) -> String {
        var x = x
        x.startMicroseconds = 0
        x.endMicroseconds = 0
        for i in x.gestures.indices { x.gestures[i].id = 0 }
        for i in x.touches.indices {
            x.touches[i].startMicroseconds = 0
            x.touches[i].endMicroseconds = 0
        }
        for i in x.reasons.indices {
            x.reasons[i].timeMicroseconds = 0
            if x.reasons[i].gestureID != nil { x.reasons[i].gestureID = 0 }
        }
        return ExplanationJSON.encode(x)
    }

    @Test func anAllowedClientReceivesTheExplanationsOfEveryTouch() throws {
        let recording = Paths.recordings + "dell_canvas_touch.evemu"
        let daemon = try Daemon(["--replay", recording, "--loop", "--speed", "4"])
        // Offline, the same recording's explanations.
        let ctl = try Paths.gesturectl()
        let offline = try run(ctl, ["explain", "--json", recording], in: daemon.directory)
        #expect(offline.status == 0)
        let expected = Set(
            offline.output.split(separator: "\n").compactMap { line -> String? in
                guard let value = try? JSONParser.parse(Array(line.utf8)), let (x, _) = ExplanationJSON.decode(value) else { return nil }
                return Self.canonical(x)
            })
        #expect(expected.count == 4)

        let client = try daemon.connect()
        let filter = try client.subscribe(SubscriptionFilter(kinds: [], updates: false, explanations: true))
        #expect(filter.explanations, "root may have explanations")
        var received: [Explanation] = []
        while received.count < 7 {
            switch try receive(client, from: daemon) {
            case .explanation(let x, let device):
                #expect(device?.isEmpty == false)
                received.append(x)
            case .gesture(let g):
                Issue.record("a gesture with kinds [] in the filter: \(g)")
            default:
                break
            }
        }
        // The first may be a touch the subscription came in the middle of; every later one is one of the
        // recording's, with the same landings, gestures, reasons and numbers as offline.
        for x in received.dropFirst() {
            #expect(expected.contains(Self.canonical(x)), "live explanation not among the offline ones: \(x.text())")
        }
        // Four touches a pass: six in a row after the first cover every one of them.
        #expect(Set(received.dropFirst().map(Self.canonical)).count == 4)

        // The command prints them a line each, numbered, with the device; --all as blocks.
        let live = try run(ctl, ["explain", "--socket", daemon.socketPath, "--count", "2"], in: daemon.directory)
        #expect(live.status == 0, "\(live.output)")
        #expect(live.output.hasPrefix("explaining the touches of gestured at \(daemon.socketPath); devices: "))
        #expect(live.output.contains("\nreplay1: touch 1 at 0.000 s, ") && live.output.contains("\nreplay1: touch 2 at "), "\(live.output)")
        let blocks = try run(ctl, ["explain", "--socket", daemon.socketPath, "--count", "2", "--all"], in: daemon.directory)
        #expect(blocks.status == 0, "\(blocks.output)")
        #expect(blocks.output.contains("\nreplay1: touch 1 at 0.000 s to ") && blocks.output.contains("\n\nreplay1: touch 2 at "), "\(blocks.output)")
    }

    @Test func anotherUserReceivesNone() throws {
        try #require(getuid() == 0, "this test connects as another user through runuser, which needs root")
        let directory = TemporaryDirectory()
        chmod(directory.path, 0o755)
        let config = directory.write("gestured.toml", "[daemon]\nsocket_group = \"\"\nsocket_mode = \"0666\"\n")
        let daemon = try Daemon(
            ["--config", config, "--replay", Paths.recordings + "dell_canvas_touch.evemu", "--loop", "--speed", "4"], directory: directory)
        // nobody subscribes to explanations, says what the daemon granted, waits for the word, then pings and
        // counts what came before the pong.
        let script = directory.write(
            "nobody.py",
            """
            import json, os, socket, sys, time
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(sys.argv[1])
            f = s.makefile()
            f.readline()
            s.sendall(b'{"type":"subscribe","id":1,"kinds":[],"updates":false,"explanations":true}\\n')
            reply = json.loads(f.readline())
            print("granted", reply["filter"].get("explanations", False))
            sys.stdout.flush()
            while not os.path.exists(sys.argv[2]):
                time.sleep(0.05)
            s.sendall(b'{"type":"ping","id":2}\\n')
            explanations = 0
            while True:
                message = json.loads(f.readline())
                if message["type"] == "explanation":
                    explanations += 1
                if message["type"] == "pong":
                    break
            print("explanations", explanations)
            sys.stdout.flush()
            """)
        chmod(script, 0o644)
        let go = directory.path + "/go"
        let nobody = try Background(
            ["/usr/sbin/runuser", "-u", "nobody", "--", "/usr/bin/python3", script, daemon.socketPath, go],
            outputPath: directory.path + "/nobody.out")
        defer { _ = try? nobody.stop(SIGKILL) }
        try nobody.waitForOutput("granted ")
        #expect(nobody.output.contains("granted False"), "\(nobody.output)")
        // Meanwhile root takes explanations: they are made and sent, to root only.
        let root = try daemon.connect()
        #expect(try root.subscribe(SubscriptionFilter(kinds: [], updates: false, explanations: true)).explanations)
        var rootReceived = 0
        while rootReceived < 3 {
            if case .explanation = try receive(root, from: daemon) { rootReceived += 1 }
        }
        _ = directory.write("go", "")
        try nobody.waitForOutput("explanations ")
        #expect(nobody.output.contains("explanations 0\n"), "\(nobody.output)")
        #expect(access(go, F_OK) == 0)
        // gesturectl explain as that user says why it gets nothing.
        let denied = try run(
            "/usr/sbin/runuser", ["-u", "nobody", "--", "/usr/bin/python3", "-c",
            "import socket,sys,json; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f=s.makefile(); f.readline(); "
                + "s.sendall(b'{\"type\":\"subscribe\",\"explanations\":true}\\n'); print(f.readline().strip())",
            daemon.socketPath], in: directory)
        #expect(denied.output.contains("\"subscribed\""), "\(denied.output)")
        #expect(!denied.output.contains("\"explanations\""), "\(denied.output)")
    }
}
