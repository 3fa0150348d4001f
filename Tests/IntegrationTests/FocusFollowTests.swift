// `gesturectl orientation --follow` tells the daemon which app is focused (issue 29, item 1): a real
// headless compositor (HeadlessCompositor) with wayland-test-client windows of different app_ids focused in
// turn, the real gestured replaying a recording, and its `devices` reply saying the focused app. A
// compositor that does not say which app is focused (cage) is said so once, and the rest works there.
import DaemonUnderTest
import GestureClient
import GestureProtocol
import Glibc
import Testing

@Suite(.serialized) struct FocusFollowTests {
    /// The daemon's focused app as `devices` says it (the replayed touchscreen's).
    func focusedApp(_ daemon: Daemon) throws -> String? {
        let c = try daemon.connect()
        defer { c.close() }
        guard let device = try c.devices().first else { throw TestFailure("the daemon lists no device") }
        return device.focusedApp
    }

    /// Each window focused in turn (swaymsg's focus, wlrctl's elsewhere) becomes the daemon's focused app; no window, none;
    /// a restarted daemon (which knows no focus) is told the focus again after the reconnection.
    @Test(arguments: CompositorKind.testedWithFocus)
    func theDaemonsFocusFollowsTheCompositors(_ kind: CompositorKind) throws {
        let compositor = try HeadlessCompositor(kind)
        let directory = TemporaryDirectory()
        let recording = topEdgeSwipeRecording(in: directory)
        var daemon = try Daemon(["--replay", recording, "--loop", "--speed", "2"], directory: directory)
        let alpha = try compositor.client("focus.alpha")
        let beta = try compositor.client("focus.beta")
        let follower = try Background(
            [try Paths.gesturectl(), "orientation", "--follow", "--socket", daemon.socketPath, "--verbose"],
            environment: compositor.environment, outputPath: directory.path + "/follow.log")
        try follower.waitForOutput("connected to gestured")
        // The last window mapped has the focus at the start.
        try waitUntil("focus.beta focused at the start", context: { follower.output + "\ndaemon:\n" + daemon.log }) {
            try focusedApp(daemon) == "focus.beta"
        }
        for app in ["focus.alpha", "focus.beta", "focus.alpha"] {
            try compositor.focus(app)
            try waitUntil("the daemon's focus at \(app)", context: { follower.output + "\ndaemon:\n" + daemon.log }) {
                try focusedApp(daemon) == app
            }
        }
        #expect(follower.output.contains("focus 'focus.alpha' set"), "\(follower.output)")

        #expect(try daemon.terminate() == 0)
        daemon = try Daemon(["--replay", recording, "--loop", "--speed", "2"], directory: directory)
        try follower.waitForOutput("reconnected to gestured")
        try waitUntil("focus.alpha again after the restart", context: { follower.output + "\ndaemon:\n" + daemon.log }) {
            try focusedApp(daemon) == "focus.alpha"
        }

        // Both windows gone (their clients killed): no app is focused.
        #expect(try alpha.stop(SIGKILL) == 128 + SIGKILL)
        #expect(try beta.stop(SIGKILL) == 128 + SIGKILL)
        try waitUntil("no focused app once the windows are gone", context: { follower.output + "\ndaemon:\n" + daemon.log }) {
            try focusedApp(daemon) == nil
        }
        #expect(!follower.output.contains("exclusions by app will not apply"), "\(follower.output)")
        #expect(try follower.stop() == 0)
    }

    /// A compositor that does not say which app is focused (cage: no wlr-foreign-toplevel-management): the
    /// follower says so once (not again when it reconnects to a restarted daemon), sends no focus, and
    /// follows the output's transform all the same; `gesturectl bind` says once which bindings cannot match
    /// there, and the general binding after them fires (for the right edge: the panel's top, turned 90).
    @Test(arguments: CompositorKind.testedWithoutFocus)
    func withoutFocusTheFollowerSaysSoOnceAndStillTurns(_ kind: CompositorKind) throws {
        let compositor = try HeadlessCompositor(kind)
        let directory = TemporaryDirectory()
        let recording = topEdgeSwipeRecording(in: directory)
        var daemon = try Daemon(["--replay", recording, "--loop", "--speed", "2"], directory: directory)
        let window = try compositor.client("kiosk.app")
        let ctl = try Paths.gesturectl()
        let follower = try Background(
            [ctl, "orientation", "--follow", "--socket", daemon.socketPath, "--verbose"],
            environment: compositor.environment, outputPath: directory.path + "/follow.log")
        let note =
            "the compositor at '\(compositor.display)' does not say which app is focused (no wlr-foreign-toplevel-management): "
            + "no focus is sent to gestured, so its [[exclusion]] sections by app will not apply"
        try follower.waitForOutput(note)
        try follower.waitForOutput("replay1 (EP0430M09) follows HEADLESS-1: transform normal, orientation 0")
        try compositor.turn("HEADLESS-1", toPublish: "90")
        try waitUntil("orientation 90", context: { follower.output + "\ndaemon:\n" + daemon.log }) {
            try daemon.connect().devices().first?.orientation == .clockwise90
        }
        #expect(try daemon.terminate() == 0)
        daemon = try Daemon(["--replay", recording, "--loop", "--speed", "2"], directory: directory)
        try follower.waitForOutput("reconnected to gestured")
        try waitUntil("orientation 90 after the restart", context: { follower.output + "\ndaemon:\n" + daemon.log }) {
            try daemon.connect().devices().first?.orientation == .clockwise90
        }
        #expect(try focusedApp(daemon) == nil)
        #expect(follower.output.ranges(of: note).count == 1, "\(follower.output)")
        #expect(try follower.stop() == 0)

        let fired = directory.path + "/fired"
        let bindings = directory.write(
            "bindings.toml",
            """
            [[binding]]
            name = "kiosk app"
            app = "kiosk.app"
            edge = "right"
            shell = "echo app >> \(fired)"

            [[binding]]
            edge = "right"
            shell = "echo general >> \(fired)"

            """)
        let bind = try Background(
            [ctl, "bind", "--bindings", bindings, "--socket", daemon.socketPath], environment: compositor.environment,
            outputPath: directory.path + "/bind.log")
        try waitForLines(fired, 2, context: { bind.output })
        #expect(Set(lines(fired)) == ["general"])
        let cannot =
            "app matching cannot work here: the compositor at '\(compositor.display)' does not offer zwlr_foreign_toplevel_manager_v1 "
            + "(wlr-foreign-toplevel-management-unstable-v1), which says which app is focused; these bindings never match: kiosk app"
        #expect(bind.output.ranges(of: cannot).count == 1, "\(bind.output)")
        #expect(try bind.stop() == 0)
        _ = window
    }

    /// Focus changes faster than the daemon takes them (a burst of 4, then 2 a second for each user), the
    /// user's rate used up by another client of the same user just before the last change: the refused
    /// focus is sent again, as the latest, once retry_after has passed, and the daemon ends at the
    /// compositor's focus.
    @Test func quickFocusChangesEndAtTheLastFocus() throws {
        let sway = try HeadlessCompositor(.sway)
        let directory = TemporaryDirectory()
        let daemon = try Daemon(["--replay", topEdgeSwipeRecording(in: directory), "--loop", "--speed", "2"], directory: directory)
        let windows = try ["quick.one", "quick.two", "quick.three"].map { try sway.client($0) }
        let follower = try Background(
            [try Paths.gesturectl(), "orientation", "--follow", "--socket", daemon.socketPath, "--verbose"],
            environment: sway.environment, outputPath: directory.path + "/follow.log")
        try follower.waitForOutput("connected to gestured")
        try waitUntil("quick.three focused at the start", context: { follower.output + "\ndaemon:\n" + daemon.log }) {
            try focusedApp(daemon) == "quick.three"
        }
        // Twelve changes with no pause between them; never quick.two before the last one.
        for app in ["quick.one", "quick.three", "quick.one", "quick.three", "quick.one", "quick.three"] + ["quick.one", "quick.three", "quick.one", "quick.three", "quick.one", "quick.three"] {
            try sway.message(["[app_id=\"\(app)\"]", "focus"])
        }
        // The same user's focus rate used up: the flood's focus is this client's until the follower's next.
        let flood = try daemon.connect()
        var limited = false
        var n = 0
        while !limited {
            do {
                _ = try flood.request(.focus(appID: "flood\(n)"))
                n += 1
            } catch {
                guard case .daemon(let e) = error, e.code == .rateLimited else { throw error }
                limited = true
            }
        }
        try sway.message(["[app_id=\"quick.two\"]", "focus"])
        try waitUntil("the daemon's focus at quick.two, the compositor's", context: { follower.output + "\ndaemon:\n" + daemon.log }) {
            try focusedApp(daemon) == "quick.two"
        }
        #expect(follower.output.contains("the daemon's rate limit refused focus"), "\(follower.output)")
        // It stays there: nothing the follower still holds sends another.
        #expect(try focusedApp(daemon) == "quick.two")
        _ = windows
        #expect(try follower.stop() == 0)
    }
}
