// `gesturectl lisgd` with a set of bindings in the style of Sxmo's (written here, not copied): corners,
// edges, swipes along an edge, diagonals, distance classes, pressed mode and 1 to 3 fingers, replayed
// through the real daemon. Each binding runs its command for a gesture of its kind, and no other does.
import Glibc
import Testing

@Suite("gesturectl lisgd through the daemon")
struct LisgdCommandTests {
    @Test func sxmoStyleBindingsEachRunForTheirGestureOnly() throws {
        let directory = TemporaryDirectory()
        let out = directory.path + "/fired"
        let bindings: [(String, String)] = [
            ("1,DRUL,BR,*", "bottomright-corner"),
            ("1,DLUR,BL,*", "bottomleft-corner"),
            ("1,ULDR,TL,*", "topleft-corner"),
            ("1,URDL,TR,*", "topright-corner"),
            ("1,LR,B,L", "along-bottom-long"),
            ("1,DU,L,*,P", "pressed-up-left-edge"),
            ("1,LR,L,*", "from-left-edge"),
            ("1,RL,R,*", "from-right-edge"),
            ("1,UD,T,*", "from-top-edge"),
            ("1,DU,B,*", "from-bottom-edge"),
            ("2,UD,N,*", "two-down"),
            ("2,LR,*,*", "two-right"),
            ("3,DU,*,*", "three-up"),
            ("1,DLUR,N,*", "diagonal-up-right"),
            ("1,UD,N,L", "down-long"),
            ("1,UD,N,M", "down-medium"),
            ("1,UD,N,*", "down-short"),
            ("1,RL,N,*,P", "pressed-left"),
        ]
        var arguments = [try Paths.gesturectl(), "lisgd", "-v"]
        for (spec, name) in bindings { arguments += ["-g", "\(spec),echo \(name) $LISGD_SWIPE >> \(out)"] }

        var r = SyntheticRecording(leadIn: BindCommandTests.leadIn)
        r.swipe(from: (70, 126), by: -40, -40)
        r.wait(0.4)
        r.swipe(from: (2, 126), by: 40, -40)
        r.wait(0.4)
        r.swipe(from: (2, 2), by: 40, 40)
        r.wait(0.4)
        r.swipe(from: (70, 2), by: -40, 40)
        r.wait(0.4)
        r.swipe(from: (2, 64), by: 50, 0)
        r.wait(0.4)
        r.swipe(from: (70, 64), by: -50, 0)
        r.wait(0.4)
        r.swipe(from: (36, 2), by: 0, 60)
        r.wait(0.4)
        r.swipe(from: (36, 126), by: 0, -60)
        r.wait(0.4)
        r.swipe(from: [(30, 40), (42, 40)], by: 0, 40, seconds: 0.3)
        r.wait(0.4)
        r.swipe(from: [(20, 60), (20, 72)], by: 40, 0, seconds: 0.3)
        r.wait(0.4)
        r.swipe(from: [(24, 90), (36, 90), (48, 90)], by: 0, -40, seconds: 0.3)
        r.wait(0.4)
        r.swipe(from: (20, 90), by: 30, -30)
        r.wait(0.4)
        r.swipe(from: (36, 20), by: 0, 90, seconds: 0.4)  // 70 % of the height: long
        r.wait(0.4)
        r.swipe(from: (36, 30), by: 0, 50, seconds: 0.3)  // 39 %: medium
        r.wait(0.4)
        r.swipe(from: (36, 40), by: 0, 25)  // 20 %: short
        r.wait(0.4)
        r.swipe(from: (10, 126), by: 50, 0, seconds: 0.3)  // along the bottom edge: 69 % of the width, long
        r.wait(0.4)
        r.swipe(from: (2, 110), by: 0, -33, seconds: 0.3)  // pressed, up along the left edge: twice
        r.wait(0.4)
        r.swipe(from: (60, 64), by: -33, 0, seconds: 0.3)  // pressed: at the begin, then 60 px (6 mm) on: twice
        r.wait(0.4)
        r.swipe(from: [(20, 60), (20, 72)], by: 40, 0, seconds: 1.2)  // slower than -m 800: nothing
        r.wait(0.4)
        r.swipe(from: (36, 64), by: 5, 0)  // shorter than -t 125 px: nothing
        r.wait(0.4)
        let recording = directory.write("sxmo.evemu", r.text)

        let daemon = try Daemon(["--replay", recording])
        let lisgd = try Background(arguments + ["--socket", daemon.socketPath], outputPath: directory.path + "/lisgd.log")
        let expected = [
            "bottomright-corner DRUL", "bottomleft-corner DLUR", "topleft-corner ULDR", "topright-corner URDL",
            "from-left-edge LR", "from-right-edge RL", "from-top-edge UD", "from-bottom-edge DU", "two-down UD",
            "two-right LR", "three-up DU", "diagonal-up-right DLUR", "down-long UD", "down-medium UD", "down-short UD",
            "along-bottom-long LR",
        // Pressed: once per event at most, as lisgd: the pan's begin (after 21 mm of landing and moving) and
        // once 6 mm (-T 60 px) later; a begin covering several -T fires once.
        ] + Array(repeating: "pressed-left RL", count: 2) + Array(repeating: "pressed-up-left-edge DU", count: 2)
        let context = { "gesturectl lisgd's log:\n\(lisgd.output)\n\(replayed(recording, in: directory))" }
        try waitForLines(out, expected.count, context: context)
        // The last two gestures fire nothing; the log says why once the daemon has replayed them.
        try lisgd.waitForOutput("took")
        try lisgd.waitForOutput("no swipe (-t 125, -r 15)", occurrences: 1)
        try daemon.terminate()
        try lisgd.waitForOutput("the daemon closed the connection")
        #expect(try lisgd.stop() == 0)
        #expect(lines(out).sorted() == expected.sorted(), "\(context())")
    }

    /// -o turns the bindings as lisgd does (a quarter turn: LR from L becomes UD from T); -d keeps the
    /// gestures of the device whose node it names (a symlink resolved to the file the daemon reads, here
    /// the recording it replays) and drops the others.
    @Test func orientationAndDevice() throws {
        let directory = TemporaryDirectory()
        let out = directory.path + "/fired"
        var r = SyntheticRecording(leadIn: BindCommandTests.leadIn)
        r.swipe(from: (2, 64), by: 50, 0)
        r.wait(0.4)
        r.swipe(from: (36, 2), by: 0, 60)
        r.wait(0.4)
        let recording = directory.write("turned.evemu", r.text)
        #expect(symlink(recording, directory.path + "/touchscreen") == 0)
        let notReplayed = directory.write("event9.evemu", r.text)
        let daemon = try Daemon(["--replay", recording])
        let ctl = try Paths.gesturectl()
        let turned = try Background(
            [ctl, "lisgd", "-o", "1", "-d", directory.path + "/touchscreen", "-g", "1,LR,L,*,echo turned $LISGD_SWIPE >> \(out)",
             "--socket", daemon.socketPath], outputPath: directory.path + "/turned.log")
        let otherDevice = try Background(
            [ctl, "lisgd", "-d", notReplayed, "-g", "1,UD,T,*,echo other-device >> \(out)", "-g", "1,LR,L,*,echo other-device >> \(out)",
             "--socket", daemon.socketPath], outputPath: directory.path + "/other.log")
        try waitForLines(out, 1, context: { turned.output + otherDevice.output + replayed(recording, in: directory) })
        try daemon.terminate()
        try turned.waitForOutput("the daemon closed the connection")
        try otherDevice.waitForOutput("the daemon closed the connection")
        #expect(otherDevice.output.contains("connected to gestured"))
        #expect(lines(out) == ["turned UD"])
        try turned.stop()
        try otherDevice.stop()
    }

    @Test func optionsAreCheckedAsLisgdNamesThem() throws {
        let directory = TemporaryDirectory()
        let ctl = try Paths.gesturectl()
        for (args, message) in [
            (["-g", "1,XY,L,*,true"], "-g '1,XY,L,*,true': the swipe 'XY' is not one of DU DLUR LR ULDR UD URDL RL DRUL"),
            (["-g", "1,LR,Q,*,true"], "-g '1,LR,Q,*,true': the edge 'Q' is not one of L R T B TL TR BL BR N *"),
            (["-g", "1,LR,L,X,true"], "-g '1,LR,L,X,true': the distance 'X' is not one of S M L *"),
            (["-g", "1,LR,true"], "-g '1,LR,true': expected FINGERS,SWIPE,EDGE,DISTANCE[,P|R],COMMAND (at least 5 comma-separated fields), got 3"),
            (["-g", "1,LR,L,*,P"], "-g '1,LR,L,*,P': the mode 'P' is not followed by a command"),
            (["-t"], "option -t expects a value"),
            (["-r", "60", "-g", "1,LR,L,*,true"], "-r 60: the leniency in degrees must be a number from 0 to 45"),
            (["-w", "720", "-g", "1,LR,L,*,true"], "give both -w and -h (the screen's size in pixels), or neither"),
            ([], "no -g bindings: gesturectl lisgd has no built-in gestures (lisgd's config.h); give them with -g"),
            (["-x"], "unknown option '-x'"),
        ] {
            let r = try run(ctl, ["lisgd"] + args, in: directory)
            #expect(r.status == 2)
            #expect(r.output == "gesturectl lisgd: \(message)\nRun 'gesturectl lisgd --help' for the options.\n", "\(args)")
        }
    }
}
