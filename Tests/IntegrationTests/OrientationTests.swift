// Screen orientation at run time: the real gestured replaying recordings, turned by gesturectl and by the
// protocol's `orientation` request while it runs.
import DaemonUnderTest
import GestureClient
import GestureCore
import GestureProtocol
import Glibc
import Testing
import GestureVocabulary

/// The EP0430M09 recording of a 4-finger drag: a committed pan "up" at orientation 0, about a second long.
let fourFingerDrag = [
    "--replay", Paths.recordings + "EP0430M09.4-finger-drag-down.events", "--device", Paths.recordings + "EP0430M09.desc",
]

/// A recording on the EP0430M09 panel (1280 x 768 units, no resolution: a 350 mm diagonal is assumed) of
/// one finger that lands on the panel's top edge, in the middle, and moves 400 units down in 300 ms: an
/// edge swipe from the top at orientation 0.
func topEdgeSwipeRecording(in directory: TemporaryDirectory) -> String {
    let header = readWholeFile(Paths.recordings + "EP0430M09.desc")
    var lines: [String] = []
    func padded(_ text: String, _ width: Int) -> String { String(repeating: "0", count: max(0, width - text.count)) + text }
    func event(_ time: Double, _ type: Int, _ code: Int, _ value: Int) {
        let micros = Int((time * 1_000_000).rounded())
        let stamp = "\(micros / 1_000_000).\(padded(String(micros % 1_000_000), 6))"
        let number = value < 0 ? "-" + padded(String(-value), 3) : padded(String(value), 4)
        lines.append("E: \(stamp) \(padded(String(type, radix: 16), 4)) \(padded(String(code, radix: 16), 4)) \(number)")
    }
    let (EV_SYN, EV_KEY, EV_ABS) = (0, 1, 3)
    event(0, EV_ABS, 0x2f, 0)
    event(0, EV_ABS, 0x39, 1)
    event(0, EV_ABS, 0x35, 640)
    event(0, EV_ABS, 0x36, 4)
    event(0, EV_KEY, 0x14a, 1)
    event(0, EV_ABS, 0x00, 640)
    event(0, EV_ABS, 0x01, 4)
    event(0, EV_SYN, 0, 0)
    for step in 1...30 {
        let t = Double(step) * 0.01
        let y = 4 + step * 13
        event(t, EV_ABS, 0x36, y)
        event(t, EV_ABS, 0x01, y)
        event(t, EV_SYN, 0, 0)
    }
    event(0.31, EV_ABS, 0x39, -1)
    event(0.31, EV_KEY, 0x14a, 0)
    event(0.31, EV_SYN, 0, 0)
    return directory.write("top-edge-swipe.evemu", header + lines.joined(separator: "\n") + "\n")
}

/// The next gesture `end`, skipping other events; fails with the daemon's log when none comes.
func nextEnd(_ client: GestureClient, from daemon: Daemon) throws -> GestureEvent {
    while true {
        let g = try nextGesture(client, from: daemon)
        if g.event.phase == .end { return g.event }
    }
}

/// Waits for the `device-changed` notification of `id`, skipping gestures; returns its device.
func nextDeviceChange(_ client: GestureClient, from daemon: Daemon) throws -> DeviceInfo {
    while true {
        if case .deviceChanged(let device) = try receive(client, from: daemon) { return device }
    }
}

@Suite(.serialized) struct OrientationTests {
    /// The same recorded stroke from the panel's top edge is an edge swipe from the top, right, bottom and
    /// left edge of the screen as the user turns it 0, 90, 180 and 270 degrees.
    @Test func edgesFollowTheOrientationAtOnce() throws {
        let directory = TemporaryDirectory()
        let daemon = try Daemon(["--replay", topEdgeSwipeRecording(in: directory), "--loop", "--speed", "2"], directory: directory)
        let client = try daemon.connect()
        #expect(client.hello.devices.first?.orientation == .normal)
        try client.subscribe(SubscriptionFilter(kinds: [.edgeSwipe], updates: false))
        let first = try nextEnd(client, from: daemon)
        #expect(first.edge == .top && first.committed == true, "at 0: \(first)")

        for (orientation, edge) in [(DeviceOrientation.clockwise90, Edge.right), (.upsideDown, .bottom), (.clockwise270, .left), (.normal, .top)] {
            let devices = try client.setOrientation(orientation)
            #expect(devices.map(\.id) == ["replay1"])
            #expect(devices.first?.orientation == orientation)
            // The notification was sent before the reply: it is among the messages held meanwhile.
            let changed = try nextDeviceChange(client, from: daemon)
            #expect(changed.id == "replay1" && changed.orientation == orientation)
            let end = try nextEnd(client, from: daemon)
            #expect(end.edge == edge && end.committed == true, "at \(orientation.rawValue): \(end)")
        }
        try daemon.waitForLog("replay1: orientation 0 (was 270), set by client")
    }

    /// gesturectl orientation turns the 4-finger drag "up" into a swipe "right"; a reload that changes the
    /// configured geometry keeps the orientation on top of the new geometry, and setting the orientation
    /// the device already has changes nothing (no notification, no cancel).
    @Test func gesturectlSetsItAndAReloadKeepsIt() throws {
        let directory = TemporaryDirectory()
        let notify = NotifySocket(in: directory)
        let config = directory.write("gestured.toml", "[daemon]\nsocket_group = \"\"\n")
        let daemon = try Daemon(fourFingerDrag + ["--loop", "--speed", "4", "--config", config], directory: directory, notify: notify)
        let ready = try notify.waitFor("READY=1", log: { daemon.log })
        let client = try daemon.connect()
        try client.subscribe(SubscriptionFilter(kinds: [.pan], updates: false))
        let before = try nextEnd(client, from: daemon)
        #expect(before.direction == .up && before.committed == true, "at 0: \(before)")

        let ctl = try Paths.gesturectl()
        let set = try run(ctl, ["orientation", "--socket", daemon.socketPath, "90"], in: directory)
        #expect(set.status == 0)
        #expect(set.output == "replay1\tEP0430M09\torientation 90\n")
        #expect(try nextDeviceChange(client, from: daemon).orientation == .clockwise90)
        let turned = try nextEnd(client, from: daemon)
        #expect(turned.direction == .right && turned.committed == true, "at 90: \(turned)")
        let listed = try run(ctl, ["devices", "--socket", daemon.socketPath], in: directory)
        #expect(
            listed.output.hasSuffix("\torientation 90\tpanel 300 x 180 mm (assumed: no axis resolution and none configured)\n"),
            "gesturectl devices: \(listed.output)")

        // Again 90, by name: the reply lists the device; nothing is cancelled or announced.
        let again = try run(ctl, ["orientation", "--socket", daemon.socketPath, "--device", "EP0430M09", "--json", "90"], in: directory)
        #expect(again.status == 0)
        guard case .oriented(_, let devices, _) = try ServerMessage.decode(line: Array(again.output.utf8.dropLast())) else {
            Issue.record("gesturectl orientation --json printed \(again.output)")
            return
        }
        #expect(devices.map(\.orientation) == [.clockwise90])
        try client.ping()
        while let message = try client.next(timeoutMilliseconds: 0) {
            if case .deviceChanged = message { Issue.record("setting the same orientation again announced a change") }
        }

        // The panel is now configured upside down; the orientation stays on top of it: the drag that was
        // "up" at 0 is "down" with the new configuration alone, and "left" with the orientation kept.
        _ = directory.write(
            "gestured.toml", "[daemon]\nsocket_group = \"\"\n[[device]]\nmatch_name = \"EP0430M09\"\nrotation = 180\n")
        daemon.signal(SIGHUP)
        let reloading = try notify.waitFor("RELOADING=1", after: ready, log: { daemon.log })
        _ = try notify.waitFor("READY=1", after: reloading, log: { daemon.log })
        try daemon.waitForLog("replay1: new settings applied")
        try client.ping()
        while try client.next(timeoutMilliseconds: 0) != nil {}
        let reloaded = try nextEnd(client, from: daemon)
        #expect(reloaded.direction == .left && reloaded.committed == true, "after the reload: \(reloaded)")
        #expect(try client.devices().map(\.orientation) == [.clockwise90])
        #expect(try daemon.terminate() == 0)
    }

    /// A gesture in flight when the orientation changes is cancelled before the notification, and the
    /// reply comes last; the fingers still down start nothing until they lift.
    @Test func aGestureInFlightIsCancelled() throws {
        // Slowed down so the drag lasts seconds: the request lands while the fingers move.
        let daemon = try Daemon(fourFingerDrag + ["--loop", "--speed", "0.25"])
        let client = try daemon.connect()
        try client.subscribe(SubscriptionFilter(kinds: [.pan], updates: true))
        var orientation = DeviceOrientation.clockwise90
        for attempt in 1...5 {
            // The 4-finger pan (fingers landing one by one may begin and cancel pans with fewer first).
            var begin = try nextGesture(client, from: daemon).event
            while begin.phase != .begin || begin.fingers != 4 { begin = try nextGesture(client, from: daemon).event }
            try client.send(RequestMessage(id: .string("turn"), .orientation(orientation, device: "replay1")))
            var seen: [ServerMessage] = []
            while true {
                let message = try receive(client, from: daemon)
                seen.append(message)
                if case .oriented(.string("turn")?, _, _) = message { break }
                if case .error(let e) = message { throw TestFailure("the orientation request failed: \(e)") }
            }
            let ended = seen.contains { if case .gesture(let g) = $0 { g.event.id == begin.id && g.event.phase == .end } else { false } }
            if ended {
                // The drag ended before the request arrived (a slow machine): try with the next one.
                print("attempt \(attempt): the pan ended before the orientation request; trying again")
                orientation = orientation == .clockwise90 ? .normal : .clockwise90
                continue
            }
            let cancel = seen.firstIndex { if case .gesture(let g) = $0 { g.event.id == begin.id && g.event.phase == .cancel } else { false } }
            let changed = seen.firstIndex { if case .deviceChanged(let d) = $0 { d.orientation == orientation } else { false } }
            #expect(cancel != nil, "no cancel for pan \(begin.id): \(seen)")
            #expect(changed != nil, "no device-changed: \(seen)")
            if let cancel, let changed { #expect(cancel < changed, "the cancel came after the notification") }
            let devices = try client.devices()
            #expect(seen.last == .oriented(id: .string("turn"), devices: devices))
            return
        }
        Issue.record("in 5 attempts the orientation request never reached a pan in flight")
    }

    /// Bad requests get errors that name the problem, and the connection stays open; gesturectl says the
    /// same and exits 2 for a bad command line, 1 for what the daemon refuses or a daemon it cannot reach.
    /// One client flooding `orientation` cannot deny the others: past a burst of four, two changes a
    /// second for its user; the rest are refused with `rate-limited` and change nothing (no cancel, no
    /// notification), and the log says a few lines, not one per request.
    @Test func anOrientationFloodIsRateLimited() throws {
        let directory = TemporaryDirectory()
        let daemon = try Daemon(fourFingerDrag + ["--loop", "--speed", "4"], directory: directory)
        let watcher = try daemon.connect()
        try watcher.subscribe(SubscriptionFilter(updates: false))
        let flooder = try daemon.connect()
        var applied = 0
        var refused = 0
        for i in 0..<200 {
            do {
                try flooder.setOrientation(i % 2 == 0 ? .clockwise90 : .normal)
                applied += 1
            } catch {
                guard case .daemon(let e) = error, e.code == .rateLimited else { throw error }
                #expect(e.message.contains("orientation changes a second"))
                #expect(e.retryAfter.map { $0 > 0 && $0 <= 1 / 2 + 0.01 } == true, "retry_after \(String(describing: e.retryAfter))")
                refused += 1
            }
        }
        #expect(applied >= 4 && applied <= 6, "\(applied) of 200 orientation changes applied")
        #expect(refused == 200 - applied)
        try watcher.ping()
        var notifications = 0
        while let message = try watcher.next(timeoutMilliseconds: 0) {
            if case .deviceChanged = message { notifications += 1 }
        }
        #expect(notifications == applied)
        #expect(daemon.log.ranges(of: ": orientation ").count == applied)
    }

    @Test func badRequestsAreRefusedWithTheirReason() throws {
        let daemon = try Daemon(fourFingerDrag)
        let client = try daemon.connect()
        func error(_ line: String) throws -> ProtocolError {
            try client.sendRaw(Array((line + "\n").utf8))
            while true {
                if case .error(let e) = try receive(client, from: daemon) { return e }
            }
        }
        let angle = try error(#"{"type":"orientation","id":1,"orientation":45}"#)
        #expect(angle.code == .invalidRequest && angle.id == .integer(1))
        #expect(angle.message == "\"orientation\" holds 45; it is one of 0, 90, 180 or 270 (degrees clockwise)")
        let text = try error(#"{"type":"orientation","id":2,"orientation":"90"}"#)
        #expect(text.code == .invalidRequest && text.message.contains("holds \"90\""))
        let missing = try error(#"{"type":"orientation","id":3}"#)
        #expect(missing.code == .invalidRequest && missing.message.contains("needs \"orientation\""))
        let extra = try error(#"{"type":"orientation","id":4,"orientation":90,"devices":["replay1"]}"#)
        #expect(extra.code == .invalidRequest && extra.message.contains("unknown field \"devices\""))
        let emptyName = try error(#"{"type":"orientation","id":5,"orientation":90,"device":""}"#)
        #expect(emptyName.code == .invalidRequest && emptyName.message.contains("leave it out for every device"))
        let unknown = try error(#"{"type":"orientation","id":6,"orientation":90,"device":"event42"}"#)
        #expect(unknown.code == .unknownDevice && unknown.id == .integer(6))
        #expect(unknown.message == "no device has the id, name or vendor:product \"event42\"; the daemon reads replay1 \"EP0430M09\"")
        try client.ping()
        #expect(try client.devices().map(\.orientation) == [.normal], "a refused request changed the orientation")

        let ctl = try Paths.gesturectl()
        let badAngle = try run(ctl, ["orientation", "--socket", daemon.socketPath, "45"], in: daemon.directory)
        #expect(badAngle.status == 2)
        #expect(badAngle.output == "gesturectl orientation: ANGLE is one of 0, 90, 180 or 270, not '45'\n")
        let noAngle = try run(ctl, ["orientation", "--socket", daemon.socketPath], in: daemon.directory)
        #expect(noAngle.status == 2 && noAngle.output.hasPrefix("gesturectl orientation: which ANGLE?"))
        let unknownDevice = try run(ctl, ["orientation", "--socket", daemon.socketPath, "--device", "event42", "90"], in: daemon.directory)
        #expect(unknownDevice.status == 1)
        #expect(unknownDevice.output.contains("no device has the id, name or vendor:product \"event42\""))
        #expect(unknownDevice.output.contains("(unknown-device)"))
        let noDaemon = try run(ctl, ["orientation", "--socket", daemon.directory.path + "/none.sock", "90"], in: daemon.directory)
        #expect(noDaemon.status == 1)
        #expect(noDaemon.output.contains("cannot connect to \(daemon.directory.path)/none.sock") && noDaemon.output.contains("is gestured running?"))
    }
}
