// Exclusions (issue 29): the real gestured replaying an edge swipe, with an [[exclusion]] section that
// holds while a named app is focused, and `focus` requests that say which app is.
import DaemonUnderTest
import GestureClient
import GestureCore
import GestureProtocol
import Glibc
import Testing
import GestureVocabulary

@Suite(.serialized) struct DaemonExclusionTests {
    /// The next gesture `end` of an edge swipe or a pan.
    func nextKind(_ client: GestureClient, from daemon: Daemon) throws -> GestureEvent {
        try nextEnd(client, from: daemon)
    }

    /// The top edge swipe lands in the middle of the top edge (x 0.5). Excluded there while "foot" is
    /// focused, it is a one-finger pan from no edge; focused elsewhere, or when the client that set the
    /// focus leaves, it is an edge swipe again. `devices` says the focused app and the exclusion with its
    /// section's place in the file.
    @Test func focusedAppKeepsItsPartOfTheEdge() throws {
        let directory = TemporaryDirectory()
        let config = directory.write(
            "gestured.toml", "[daemon]\nsocket_group = \"\"\n\n[[exclusion]]\napp = [\"foot\", \"org.gnome.*\"]\nedges = [\"top\"]\nedge_position = [0.4, 0.6]\n")
        let daemon = try Daemon(["--replay", topEdgeSwipeRecording(in: directory), "--loop", "--speed", "2", "--config", config], directory: directory)
        let client = try daemon.connect()
        try client.subscribe(SubscriptionFilter(kinds: [.edgeSwipe, .pan], updates: false, appTouches: true))
        let before = try nextEnd(client, from: daemon)
        #expect(before.kind == .edgeSwipe && before.edge == .top, "no focus: \(before)")

        let setter = try daemon.connect()
        guard case .focused(_, let app) = try setter.request(.focus(appID: "foot")) else { throw TestFailure("focus not answered with focused") }
        #expect(app == "foot")
        let changed = try nextDeviceChange(client, from: daemon)
        #expect(changed.focusedApp == "foot")
        #expect(changed.exclusions == [ExclusionInForce(edge: .top, from: 0.4, to: 0.6, source: "\(config):4:1")])
        // A gesture that began before the change may still end; the ones after are pans.
        var excluded = try nextEnd(client, from: daemon)
        if excluded.kind == .edgeSwipe { excluded = try nextEnd(client, from: daemon) }
        #expect(excluded.kind == .pan && excluded.startEdge == nil && excluded.fingers == 1, "foot focused: \(excluded)")
        let listed = try run(try Paths.gesturectl(), ["devices", "--socket", daemon.socketPath], in: directory)
        #expect(listed.output.contains("\tfocused foot\n"), "\(listed.output)")
        #expect(listed.output.contains("\texcluded top 0.4...0.6\tfrom \(config):4:1\n"), "\(listed.output)")

        // A glob of the list; then an app no section names.
        _ = try setter.request(.focus(appID: "org.gnome.Maps"))
        #expect(try nextDeviceChange(client, from: daemon).exclusions.count == 1)
        _ = try setter.request(.focus(appID: "firefox"))
        #expect(try nextDeviceChange(client, from: daemon).exclusions.isEmpty)
        var swipe = try nextEnd(client, from: daemon)
        if swipe.kind == .pan { swipe = try nextEnd(client, from: daemon) }
        #expect(swipe.kind == .edgeSwipe, "firefox focused: \(swipe)")

        // The focus is forgotten with the client that set it.
        _ = try setter.request(.focus(appID: "foot"))
        #expect(try nextDeviceChange(client, from: daemon).focusedApp == "foot")
        setter.close()
        let forgotten = try nextDeviceChange(client, from: daemon)
        #expect(forgotten.focusedApp == nil && forgotten.exclusions.isEmpty)
        try daemon.waitForLog("focused app on seat0: none (was \"foot\")")
    }

    /// A bad focus request is refused with a reason; a burst past the rate is refused with rate-limited.
    @Test func focusRequestsAreCheckedAndRateLimited() throws {
        let directory = TemporaryDirectory()
        let daemon = try Daemon(["--replay", topEdgeSwipeRecording(in: directory), "--loop"], directory: directory)
        let client = try daemon.connect()
        for line in [#"{"type":"focus","id":1}"#, #"{"type":"focus","id":2,"app_id":3}"#, #"{"type":"focus","id":3,"app_id":""}"#] {
            try client.sendRaw(Array((line + "\n").utf8))
            guard case .error(let e) = try receive(client, from: daemon) else { throw TestFailure("\(line) was not refused") }
            #expect(e.code == .invalidRequest, "\(line): \(e)")
        }
        var limited: ProtocolError?
        for n in 0..<200 {
            do {
                _ = try client.request(.focus(appID: "app\(n)"))
            } catch {
                guard case .daemon(let e) = error else { throw error }
                limited = e
                break
            }
        }
        #expect(limited?.code == .rateLimited && limited?.retryAfter != nil, "\(String(describing: limited))")
    }

    /// A client keeps a part of an edge while it is connected (the replay's top edge swipe becomes a pan);
    /// another client of the same user is refused what would pass 32 mm of that edge together, with why;
    /// the exclusions go with their client.
    @Test func clientExclusionsAreCappedPerUserAndGoWithTheirClient() throws {
        let directory = TemporaryDirectory()
        let daemon = try Daemon(["--replay", topEdgeSwipeRecording(in: directory), "--loop", "--speed", "2"], directory: directory)
        let client = try daemon.connect()
        try client.subscribe(SubscriptionFilter(kinds: [.edgeSwipe, .pan], updates: false, appTouches: true))
        #expect(try nextEnd(client, from: daemon).kind == .edgeSwipe)

        // The panel is 300 mm wide (assumed): 0.45...0.55 of the top edge is 30 mm.
        let game = try daemon.connect()
        guard case .excluded(_, let accepted, let refused) = try game.request(.exclude([RequestedExclusion(edge: .top, from: 0.45, to: 0.55)])) else {
            throw TestFailure("exclude not answered with excluded")
        }
        #expect(accepted == [RequestedExclusion(edge: .top, from: 0.45, to: 0.55)] && refused.isEmpty)
        let changed = try nextDeviceChange(client, from: daemon)
        #expect(changed.exclusions.count == 1 && changed.exclusions.first?.source.hasPrefix("client ") == true, "\(changed.exclusions)")
        var excluded = try nextEnd(client, from: daemon)
        if excluded.kind == .edgeSwipe { excluded = try nextEnd(client, from: daemon) }
        #expect(excluded.kind == .pan && excluded.startEdge == nil, "excluded: \(excluded)")

        // The same user's second client: 15 mm more of the top edge passes 32 mm; the left edge's 18 mm
        // does not; a device the daemon does not read is refused too.
        let other = try daemon.connect()
        guard case .excluded(_, let taken, let notTaken) = try other.request(
            .exclude([RequestedExclusion(edge: .top, from: 0, to: 0.05), RequestedExclusion(edge: .left, from: 0, to: 0.1),
                      RequestedExclusion(edge: .right, device: "event99")]))
        else { throw TestFailure("exclude not answered with excluded") }
        #expect(taken == [RequestedExclusion(edge: .left, from: 0, to: 0.1)])
        #expect(notTaken.map(\.reason) == [.overCap, .unknownDevice])
        #expect(notTaken.first?.message.contains("32 mm") == true, "\(notTaken)")
        #expect(try nextDeviceChange(client, from: daemon).exclusions.count == 2)

        // A new set replaces the old; the game leaving takes its exclusion with it.
        game.close()
        let after = try nextDeviceChange(client, from: daemon)
        #expect(after.exclusions.map(\.edge) == [.left])
        var swipe = try nextEnd(client, from: daemon)
        if swipe.kind == .pan { swipe = try nextEnd(client, from: daemon) }
        #expect(swipe.kind == .edgeSwipe, "after the game left: \(swipe)")
        guard case .excluded(_, let none, _) = try other.request(.exclude([])) else { throw TestFailure("no excluded") }
        #expect(none.isEmpty)
        #expect(try nextDeviceChange(client, from: daemon).exclusions.isEmpty)
    }
}

/// `gesturectl replay` and `plot` offline, given exclusions: --config's [[exclusion]] sections, with
/// --focus naming the focused app (issue 29, item 1).
@Suite struct OfflineExclusionTests {
    @Test func replayAndPlotApplyAndDrawTheExclusionsOfTheFocusedApp() throws {
        let directory = TemporaryDirectory()
        let recording = topEdgeSwipeRecording(in: directory)
        let config = directory.write(
            "gestured.toml", "[[exclusion]]\napp = \"foot\"\nedges = [\"top\"]\nedge_position = [0.4, 0.6]\n\n[[exclusion]]\nedges = [\"bottom-left\"]\n")
        let ctl = try Paths.gesturectl()
        // No focus: the section without app holds, foot's does not; the swipe from the top is an edge swipe.
        let plain = try run(ctl, ["replay", "--no-updates", "--config", config, recording], in: directory)
        #expect(plain.output.contains("excluded bottom-left from \(config):6:1"), "\(plain.output)")
        #expect(!plain.output.contains("excluded top"), "\(plain.output)")
        #expect(plain.output.contains("\"gesture\":\"edge-swipe\""), "\(plain.output)")
        // foot focused: the middle of the top edge is its own; the same touch is a pan from no edge.
        let focused = try run(ctl, ["replay", "--no-updates", "--config", config, "--focus", "foot", recording], in: directory)
        #expect(focused.output.contains("excluded top 0.4...0.6 from \(config):1:1"), "\(focused.output)")
        #expect(!focused.output.contains("edge-swipe") && focused.output.contains("\"gesture\":\"pan\""), "\(focused.output)")

        let svgPath = directory.path + "/focused.svg"
        let plot = try run(ctl, ["plot", "--config", config, "--focus", "foot", "-o", svgPath, recording], in: directory)
        #expect(plot.status == 0, "\(plot.output)")
        let svg = readWholeFile(svgPath)
        #expect(svg.contains("<g id=\"exclusions\">"), "no exclusions drawn")
        // The top's part (0.4...0.6 of the width) and the bottom-left corner's square: two hatched boxes.
        #expect(svg.ranges(of: "fill=\"url(#excluded-hatch)\"").count == 2)
        #expect(svg.contains("excluded (hatched): top 0.4…0.6, bottom-left"), "\(svg.prefix(2000))")
        // Without exclusions, nothing is hatched.
        let bare = directory.path + "/bare.svg"
        #expect(try run(ctl, ["plot", "-o", bare, recording], in: directory).status == 0)
        #expect(!readWholeFile(bare).contains("excluded-hatch"))
    }
}
