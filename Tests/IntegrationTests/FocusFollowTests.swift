// `gesturectl orientation --follow` tells the daemon which app is focused (issue 29, item 1): a real
// headless sway with wayland-test-client windows of different app_ids focused in turn, the real gestured
// replaying a recording, and its `devices` reply saying the focused app.
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

    /// Each window focused in turn (swaymsg focus) becomes the daemon's focused app; no window, none;
    /// a restarted daemon (which knows no focus) is told the focus again after the reconnection.
    @Test func theDaemonsFocusFollowsTheCompositors() throws {
        let sway = try Sway()
        let directory = TemporaryDirectory()
        let recording = topEdgeSwipeRecording(in: directory)
        var daemon = try Daemon(["--replay", recording, "--loop", "--speed", "2"], directory: directory)
        let alpha = try sway.client("focus.alpha")
        let beta = try sway.client("focus.beta")
        let follower = try Background(
            [try Paths.gesturectl(), "orientation", "--follow", "--socket", daemon.socketPath, "--verbose"],
            environment: sway.environment, outputPath: directory.path + "/follow.log")
        try follower.waitForOutput("connected to gestured")
        // The last window mapped has the focus at the start.
        try waitUntil("focus.beta focused at the start", context: { follower.output + "\ndaemon:\n" + daemon.log }) {
            try focusedApp(daemon) == "focus.beta"
        }
        for app in ["focus.alpha", "focus.beta", "focus.alpha"] {
            try sway.message(["[app_id=\"\(app)\"]", "focus"])
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

        // Both windows gone: no app is focused.
        try sway.message(["[app_id=\"focus.alpha\"]", "kill"])
        try sway.message(["[app_id=\"focus.beta\"]", "kill"])
        _ = (alpha, beta)
        try waitUntil("no focused app once the windows are gone", context: { follower.output + "\ndaemon:\n" + daemon.log }) {
            try focusedApp(daemon) == nil
        }
        #expect(!follower.output.contains("exclusions by app will not apply"), "\(follower.output)")
        #expect(try follower.stop() == 0)
    }

    /// Focus changes faster than the daemon takes them (a burst of 4, then 2 a second for each user), the
    /// user's rate used up by another client of the same user just before the last change: the refused
    /// focus is sent again, as the latest, once retry_after has passed, and the daemon ends at the
    /// compositor's focus.
    @Test func quickFocusChangesEndAtTheLastFocus() throws {
        let sway = try Sway()
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
