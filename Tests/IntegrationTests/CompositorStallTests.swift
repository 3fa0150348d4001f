// Issue 28: gesturectl against a compositor that stops reading (sway under SIGSTOP, then SIGCONT) and a
// gesturectl that is stopped itself. Keys are typed into wayland-test-client, which says at the end what
// its keyboard left down; the daemon replays a top edge swipe over and over.
import DaemonUnderTest
import GestureClient
import GestureProtocol
import GestureVocabulary
import Glibc
import Testing

/// Many chords, most with modifiers: about 3 KB of requests for each firing.
private let manyChords = [
    "ctrl+alt+Left", "super+shift+2", "ctrl+a", "alt+shift+Tab", "ctrl+shift+super+alt+b", "shift+c",
    "ctrl+alt+d", "super+e", "ctrl+shift+super+alt+f", "alt+g", "ctrl+shift+h", "super+alt+i",
]

/// The keys a chord list presses that are not modifiers, as wayland-test-client names them.
private let modifierKeyNames: Set<Substring> = ["Control_L", "Alt_L", "Shift_L", "Super_L"]

/// The chords gesturectl's log says it typed (its `typed A, B, C` lines).
private func typedChords(_ log: String) -> Int {
    log.split(separator: "\n").compactMap { line -> Int? in
        guard let range = line.range(of: ": typed ") else { return nil }
        return line[range.upperBound...].split(separator: " (gesture")[0].split(separator: ", ").count
    }.reduce(0, +)
}

/// The keys (not modifiers) the client saw released.
private func releasedKeys(_ output: String) -> Int {
    output.split(separator: "\n").filter { line in
        let words = line.split(separator: " ")
        return words.count >= 3 && words[0] == "key" && words[2] == "released" && !modifierKeyNames.contains(words[1])
    }.count
}

@Suite(.serialized) struct CompositorStallTests {
    /// Item 2: a `keys` binding with many chords fires about ten times a second while sway is stopped;
    /// gesturectl keeps the compositor (no "lost"), keeps a small queue of whole chords and drops the rest
    /// and what waited too long, and once sway runs again types the rest. At the end the client's
    /// keyboard has no key and no modifier down, and gesturectl said "typed" for exactly the chords the
    /// client received.
    @Test func keysTypedAcrossACompositorStallAreNeverLeftDown() throws {
        let sway = try HeadlessCompositor(.sway)
        let directory = TemporaryDirectory()
        let bindings = directory.write(
            "bindings.toml",
            """
            [[binding]]
            name = "many"
            edge = "top"
            max_per_second = 1000
            keys = [\(manyChords.map { "\"\($0)\"" }.joined(separator: ", "))]

            """)
        let target = try sway.client("keys-target")
        // gesturectl first, the daemon once the client has the virtual keyboard's focus: every chord typed
        // reaches the client.
        let socket = directory.path + "/gestured.sock"
        let bind = try Background(
            [try Paths.gesturectl(), "bind", "--bindings", bindings, "--socket", socket, "--verbose"],
            environment: sway.environment, outputPath: directory.path + "/bind.log")
        try target.waitForOutput("enter")
        // One pass is 0.31 s of swipe and 1 s of pause: at 13 times the speed, ten swipes a second.
        let daemon = try Daemon(["--replay", topEdgeSwipeRecording(in: directory), "--loop", "--speed", "13"], directory: directory)
        let context = { "bind:\n\(bind.output)\nclient:\n\(target.output)\ndaemon:\n\(daemon.log)" }
        try waitUntil("keys typed before the stall", context: context) { releasedKeys(target.output) >= 3 * manyChords.count }

        sway.stall()
        try waitUntil("gesturectl to drop chords that waited for the stopped compositor (or to lose it)", context: context) {
            bind.output.contains("waited more than 1 s for the compositor") || bind.output.contains("lost the compositor")
        }
        sway.resume()
        let before = releasedKeys(target.output)
        try waitUntil("keys typed after the stall", context: context) { releasedKeys(target.output) >= before + 3 * manyChords.count }
        #expect(try bind.stop() == 0)
        try target.waitForOutput("keyboard gone")
        let gone = target.output.split(separator: "\n").filter { $0.hasPrefix("keyboard gone") }
        #expect(gone == ["keyboard gone: down none, modifiers none"], "\(context())")
        #expect(!bind.output.contains("lost the compositor"), "\(context())")
        #expect(!bind.output.contains("Resource temporarily unavailable"), "\(context())")
        #expect(typedChords(bind.output) == releasedKeys(target.output), "\(context())")
    }

    /// Item 2, killed: after a short stall, gesturectl is killed (SIGKILL) while it types the chords that
    /// waited, three times; each time the keyboard it leaves has no key and no modifier down (the
    /// compositor reads each batch of whole chords at once, or drops it whole with the connection).
    @Test func aBindKilledWhileItTypesLeavesNoKeyDown() throws {
        let sway = try HeadlessCompositor(.sway)
        let directory = TemporaryDirectory()
        let bindings = directory.write(
            "bindings.toml",
            "[[binding]]\nname = \"many\"\nedge = \"top\"\nmax_per_second = 1000\nkeys = [\(manyChords.map { "\"\($0)\"" }.joined(separator: ", "))]\n")
        let target = try sway.client("keys-target")
        let daemon = try Daemon(["--replay", topEdgeSwipeRecording(in: directory), "--loop", "--speed", "13"], directory: directory)
        for round in 1...3 {
            let bind = try Background(
                [try Paths.gesturectl(), "bind", "--bindings", bindings, "--socket", daemon.socketPath],
                environment: sway.environment, outputPath: directory.path + "/bind\(round).log")
            let context = { "round \(round)\nbind:\n\(bind.output)\nclient:\n\(target.output)" }
            let before = releasedKeys(target.output)
            try waitUntil("keys typed before the stall", context: context) { releasedKeys(target.output) >= before + manyChords.count }
            sway.stall()
            try waitUntil("gesturectl to queue chords for the stopped compositor (or to lose it)", context: context) {
                bind.output.contains("chords already wait for the compositor") || bind.output.contains("lost the compositor")
            }
            sway.resume()
            let resumed = releasedKeys(target.output)
            try waitUntil("keys typed after the stall", context: context) { releasedKeys(target.output) > resumed }
            #expect(try bind.stop(SIGKILL) == 128 + SIGKILL)
            try target.waitForOutput("keyboard gone", occurrences: round)
            let gone = target.output.split(separator: "\n").filter { $0.hasPrefix("keyboard gone") }
            #expect(gone.last == "keyboard gone: down none, modifiers none", "\(context())")
        }
    }

    /// Item 3: `gesturectl bind` stopped (SIGSTOP) for 6 s while the daemon keeps sending gestures, then
    /// continued, runs no command and types no key for the gestures that are more than a second old when
    /// it reads them: those a client of its own received between half a second after the stop and 1.5 s
    /// before the continue (whatever the machine's pace, they are older than that when bind reads them,
    /// which is after the continue). One line says how many it dropped; the next gestures fire again.
    @Test func aStoppedBindRunsNothingForOldGestures() throws {
        let sway = try HeadlessCompositor(.sway)
        let directory = TemporaryDirectory()
        let fired = directory.path + "/fired"
        // Each client numbers the gestures it receives itself: the gestures are told apart by their time.
        let commands = directory.write("commands.toml", "[[binding]]\nname = \"swipe\"\nedge = \"top\"\nshell = \"echo $GESTURE_TIME >> \(fired)\"\n")
        let keys = directory.write("keys.toml", "[[binding]]\nname = \"back\"\nedge = \"top\"\nkeys = \"XF86Back\"\n")
        let target = try sway.client("keys-target")
        // A swipe every 1.31 s, at its recording's pace.
        let daemon = try Daemon(["--replay", topEdgeSwipeRecording(in: directory), "--loop"], directory: directory)
        let ctl = try Paths.gesturectl()
        let commandBind = try Background(
            [ctl, "bind", "--bindings", commands, "--socket", daemon.socketPath, "--verbose"], outputPath: directory.path + "/commands.log")
        let keysBind = try Background(
            [ctl, "bind", "--bindings", keys, "--socket", daemon.socketPath, "--verbose"], environment: sway.environment,
            outputPath: directory.path + "/keys.log")
        let observer = try daemon.connect()
        try observer.subscribe(SubscriptionFilter(kinds: [.edgeSwipe], updates: false))
        let context = { "commands:\n\(commandBind.output)\nkeys:\n\(keysBind.output)\nclient:\n\(target.output)\ndaemon:\n\(daemon.log)" }
        try waitUntil("both to fire", context: context) { !lines(fired).isEmpty && keysBind.output.contains(": typed XF86Back") }

        for b in [commandBind, keysBind] { kill(b.pid, SIGSTOP) }
        let stopped = monotonicMilliseconds()
        var received: [(time: String, at: Int64)] = []
        while monotonicMilliseconds() < stopped + 6000 {
            guard let g = try observer.nextGesture(timeoutMilliseconds: 100) else { continue }
            if g.event.phase == .end { received.append((GestureEventJSON.seconds(g.event.timeMicroseconds), monotonicMilliseconds())) }
        }
        for b in [commandBind, keysBind] { kill(b.pid, SIGCONT) }
        let continued = monotonicMilliseconds()
        let old = Set(received.filter { $0.at >= stopped + 500 && $0.at <= continued - 1500 }.map(\.time))
        try #require(old.count >= 2, "gestures received while bind was stopped: \(received)")

        // The next gestures fire again.
        let newest = old.compactMap(Double.init).max()!
        func typedTimes() -> [String] {
            keysBind.output.split(separator: "\n").compactMap { line in
                guard line.contains(": typed "), let r = line.range(of: " at ") else { return nil }
                return String(line[r.upperBound...].prefix { $0.isNumber || $0 == "." })
            }
        }
        try waitUntil("a firing after the continue", context: context) {
            lines(fired).contains { Double($0).map { $0 > newest } ?? false } && typedTimes().contains { Double($0).map { $0 > newest } ?? false }
        }
        let ran = Set(lines(fired))
        #expect(ran.isDisjoint(with: old), "commands ran for old gestures \(old.sorted()): \(context())")
        #expect(Set(typedTimes()).isDisjoint(with: old), "keys typed for old gestures \(old.sorted()): \(context())")
        for b in [commandBind, keysBind] {
            let said = b.output.split(separator: "\n").filter { $0.contains(" late firing") }
            #expect(said.count == 1, "one line for the backlog: \(b.output)")
            let count = said.first.flatMap { line in line.range(of: "dropped ").flatMap { Int(line[$0.upperBound...].prefix { $0.isNumber }) } }
            #expect((count ?? 0) >= old.count, "\(b.output)")
            #expect(try b.stop() == 0)
        }
    }
}
