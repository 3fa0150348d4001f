// The real gestured binary, replaying real recordings on a private socket, with real clients.
import DaemonUnderTest
import GestureClient
import GestureCore
import GestureProtocol
import Glibc
import Testing
import GestureVocabulary

/// The Dell Canvas recording: pans with 1, 2 and 4 fingers and a 5-finger pinch, 327 events a pass.
let dell = ["--replay", Paths.recordings + "dell_canvas_touch.evemu"]
let dellRecording = "dell_canvas_touch.evemu"

/// A configuration for a test that follows clients through the log: connections are logged at debug.
let debugConfiguration = "[daemon]\nsocket_group = \"\"\nlog_level = \"debug\"\n"

@Suite(.serialized) struct EventDeliveryTests {
    @Test func eventsArriveInOrderWithTheRightFields() throws {
        let daemon = try Daemon(dell + ["--loop", "--speed", "10"])
        let expected = try expectedGestures(recording: dellRecording, description: nil)
        #expect(expected.count == 267)  // the reviewed golden replay, Tests/Fixtures/golden/dell.jsonl
        let client = try daemon.connect()
        #expect(client.hello.protocolVersion == 1)
        #expect(client.hello.devices.map(\.id) == ["replay1"])
        #expect(client.hello.devices.first?.name == "Advanced Silicon S.A. CoolTouch® System")
        #expect(client.hello.devices.first?.source == .replay)
        try client.subscribe()

        // Gestures in flight when the client subscribed are not delivered: the first event is a begin.
        let first = try nextGesture(client, from: daemon)
        #expect(first.event.phase == .begin)
        #expect(first.device == "replay1")
        let begins = expected.indices.filter { expected[$0].phase == .begin && canonical(expected[$0]) == canonical(first.event) }
        guard let start = begins.first else {
            Issue.record("the first event \(canonical(first.event)) is not a begin of the recording")
            return
        }
        // One whole pass (and then some), compared field by field with what the recognizer makes of the
        // recording offline; ids grow, times never go back, every event names its device.
        var previous = first.event
        var ids: [UInt64: GesturePhase] = [first.event.id: .begin]
        for k in 1..<(expected.count + 10) {
            let g = try nextGesture(client, from: daemon)
            let want = expected[(start + k) % expected.count]
            #expect(canonical(g.event) == canonical(want), "event \(k) after the first begin")
            #expect(g.device == "replay1")
            #expect(g.event.timeMicroseconds >= previous.timeMicroseconds)
            switch g.event.phase {
            case .begin:
                #expect(g.event.id > previous.id)
                #expect(ids[g.event.id] == nil)
            case .update, .end, .cancel:
                #expect(ids[g.event.id] != nil, "event of gesture \(g.event.id) without its begin")
            }
            ids[g.event.id] = g.event.phase
            previous = g.event
        }
    }

    @Test func filtersSelectKindsFingersDevicesAndUpdates() throws {
        let daemon = try Daemon(
            dell + ["--loop", "--speed", "10", "--replay", Paths.recordings + "EP0430M09.2-finger-scroll-down.events",
            "--device", Paths.recordings + "EP0430M09.desc", "--loop", "--speed", "10"])
        let pinches = try daemon.connect()
        try pinches.subscribe(SubscriptionFilter(kinds: [.pinch], updates: false))
        let twoFingers = try daemon.connect()
        try twoFingers.subscribe(SubscriptionFilter(fingers: [2]))
        let onlyEP = try daemon.connect()
        try onlyEP.subscribe(SubscriptionFilter(devices: ["EP0430M09"]))
        let nothing = try daemon.connect()
        try nothing.subscribe(SubscriptionFilter(devices: ["no-such-device"]))

        for _ in 0..<4 {
            let g = try nextGesture(pinches, from: daemon)
            #expect(g.event.kind == .pinch)
            #expect(g.event.phase != .update)
            #expect(g.device == "replay1")
        }
        var sawUpdate = false
        var devices = Set<String>()
        for _ in 0..<60 {
            let g = try nextGesture(twoFingers, from: daemon)
            #expect(g.event.fingers == 2)
            sawUpdate = sawUpdate || g.event.phase == .update
            devices.insert(g.device ?? "")
        }
        #expect(sawUpdate)
        for _ in 0..<30 {
            #expect(try nextGesture(onlyEP, from: daemon).device == "replay2")
        }
        // The others have seen plenty; a ping, answered after anything queued before it, shows that this
        // client was sent nothing.
        try nothing.ping(timeoutMilliseconds: Int32(patienceMilliseconds))
        #expect(try nothing.next(timeoutMilliseconds: 0) == nil)
    }

    @Test func severalClientsEachGetTheSameEvents() throws {
        let daemon = try Daemon(dell + ["--loop", "--speed", "10"])
        let clients = try (0..<6).map { _ in try daemon.connect() }
        for c in clients { try c.subscribe(SubscriptionFilter(updates: false)) }
        // Each client starts at a gesture that began after it subscribed; from the latest such start, all
        // must see the same gestures, with the same ids, in the same order.
        var streams: [[DeviceGestureEvent]] = Array(repeating: [], count: clients.count)
        for (i, c) in clients.enumerated() {
            streams[i].append(try nextGesture(c, from: daemon))
        }
        let common = streams.map { $0[0].event.id }.max()!
        for (i, c) in clients.enumerated() {
            while streams[i].filter({ $0.event.id >= common && $0.event.phase != .begin }).count < 8 {
                streams[i].append(try nextGesture(c, from: daemon))
            }
        }
        let reference = Array(streams[0].filter { $0.event.id >= common }.prefix(16))
        #expect(reference.count == 16)
        for s in streams.dropFirst() {
            #expect(Array(s.filter { $0.event.id >= common }.prefix(16)) == reference)
        }
    }

    @Test func devicesRequestAndUnsubscribe() throws {
        let daemon = try Daemon(dell + ["--loop", "--speed", "10"])
        let client = try daemon.connect()
        let devices = try client.devices()
        #expect(devices.count == 1)
        #expect(devices.first?.vendorProduct == "2575:0204")
        #expect(devices.first?.slots == 5)
        #expect(devices.first?.path == Paths.recordings + "dell_canvas_touch.evemu")
        try client.subscribe()
        _ = try nextGesture(client, from: daemon)
        try client.unsubscribe()
        // Events sent before the unsubscribed reply are kept by the client library; drop them.
        while try client.next(timeoutMilliseconds: 0) != nil {}
        // After the reply, nothing but replies: the ping's pong comes with nothing before it.
        try client.ping()
        while let m = try client.next(timeoutMilliseconds: 0) {
            Issue.record("after unsubscribe, still received \(m)")
        }
    }
}

@Suite(.serialized) struct RobustnessTests {
    @Test func garbageHalfLinesAndBadRequestsGetErrorsAndTheConnectionLives() throws {
        let daemon = try Daemon(dell + ["--loop", "--speed", "10"])
        let client = try daemon.connect()
        try client.sendRaw(Array("garbage\n{\"type\":\"dance\",\"id\":1}\n".utf8) + [0xff, 0xfe, 0x0a] + Array("{\"type\":\"ping\",\"id\":".utf8))
        var errors: [ProtocolError] = []
        for _ in 0..<3 {
            if case .error(let e) = try receive(client, from: daemon) { errors.append(e) }
        }
        #expect(errors.map(\.code) == [.invalidJSON, .unknownRequest, .invalidJSON])
        #expect(errors[1].id == .integer(1))
        // The half line waits for the rest.
        try client.sendRaw(Array("\"half\"}\n".utf8))
        #expect(try receive(client, from: daemon) == .pong(id: .string("half")))
        // Binary noise without newlines, then a newline: one error, still alive.
        try client.sendRaw((0..<4000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }.filter { $0 != 0x0a } + [0x0a])
        guard case .error = try receive(client, from: daemon) else {
            Issue.record("binary noise was not answered with an error")
            return
        }
        try client.ping()
    }

    @Test func anOversizedLineClosesOnlyThatConnection() throws {
        let daemon = try Daemon(dell + ["--loop", "--speed", "10"])
        let bystander = try daemon.connect()
        try bystander.subscribe()
        let offender = try daemon.connect()
        try offender.sendRaw(Array(repeating: UInt8(ascii: "{"), count: 70_000))
        guard case .error(let e) = try receive(offender, from: daemon) else {
            Issue.record("no error for a 70000-byte line")
            return
        }
        #expect(e.code == .lineTooLong)
        #expect(try messagesUntilClosed(offender, from: daemon).isEmpty)
        _ = try nextGesture(bystander, from: daemon)
        try bystander.ping()
        try daemon.waitForLog("sent a line over 65536 bytes")
    }

    @Test func aFloodOfBadRequestsClosesTheConnection() throws {
        let daemon = try Daemon(dell)
        let client = try daemon.connect()
        try client.sendRaw(Array(String(repeating: "{}\n", count: 100).utf8))
        let messages = try messagesUntilClosed(client, from: daemon)
        #expect(messages.count == 16)
        guard case .error(let last)? = messages.last else {
            Issue.record("no final error")
            return
        }
        #expect(last.code == .tooManyErrors)
        try daemon.waitForLog("sent 16 bad requests in a row")
        try daemon.connect().ping()
    }

    @Test func abruptDisconnectsLeaveTheDaemonServing() throws {
        // At debug level, where every disconnection is logged.
        let directory = TemporaryDirectory()
        let config = directory.write("gestured.toml", debugConfiguration)
        let daemon = try Daemon(dell + ["--loop", "--speed", "20", "--config", config], directory: directory)
        let survivor = try daemon.connect()
        try survivor.subscribe()
        for i in 0..<20 {
            let c = try daemon.connect()
            if i % 2 == 0 { try c.send(RequestMessage(.subscribe(.all))) }
            if i % 3 == 0 { try c.sendRaw(Array("{\"type\":\"pi".utf8)) }
            // Close with unread data: the kernel resets the connection.
            c.close()
        }
        try daemon.waitForLog("disconnected", occurrences: 21)  // and the start-up probe
        _ = try nextGesture(survivor, from: daemon)
        try survivor.ping()
        #expect(try daemon.isRunning())
    }

    @Test func aClientThatNeverReadsIsDisconnectedWhileOthersKeepReceiving() throws {
        let directory = TemporaryDirectory()
        let config = directory.write("gestured.toml", "[daemon]\nclient_buffer_bytes = 65536\nsocket_group = \"\"\n")
        // Speed 10: the sleeper's buffer fills in a few seconds, while the reader, which shares the 64 KiB
        // bound, survives a stall of as long (a busy machine, a sanitizer build: at speed 50 it did not).
        let daemon = try Daemon(dell + ["--loop", "--speed", "10", "--config", config], directory: directory)
        let reader = try daemon.connect()
        try reader.subscribe()
        let sleeper = try daemon.connect()
        try sleeper.subscribe()
        // The sleeper reads nothing from here on; the reader keeps up.
        try waitUntil("the sleeper to be disconnected", context: { daemon.log }) {
            while try reader.next(timeoutMilliseconds: 0) != nil {}
            return daemon.log.contains("stopped reading")
        }
        #expect(daemon.log.contains("65536-byte buffer (client_buffer_bytes) is full"))
        #expect(daemon.log.ranges(of: "stopped reading").count == 1)
        // The reader goes on receiving events published after the sleeper was dropped.
        for _ in 0..<50 { _ = try nextGesture(reader, from: daemon) }
        try reader.ping()
        // What the sleeper finds when it finally reads: at most the bound, then the end of the connection.
        let leftovers = try messagesUntilClosed(sleeper, from: daemon)
        #expect(!leftovers.isEmpty)
    }

    @Test func theClientLimitHolds() throws {
        let directory = TemporaryDirectory()
        let config = directory.write("gestured.toml", "[daemon]\nmax_clients = 3\nsocket_group = \"\"\nlog_level = \"debug\"\n")
        let daemon = try Daemon(["--config", config], directory: directory)
        // The daemon's own readiness probe connected and left; wait until it is gone from the count.
        try daemon.waitForLog("disconnected")
        let clients = try (0..<3).map { _ in try daemon.connect() }
        guard case .daemon(let e)? = connectError(daemon) else {
            Issue.record("a fourth client was accepted")
            return
        }
        #expect(e.code == .tooManyClients)
        #expect(e.message.contains("maximum of 3 clients"))
        try daemon.waitForLog("refused a client")
        for c in clients { try c.ping() }
        clients[0].close()
        try daemon.waitForLog("disconnected", occurrences: 2)
        try daemon.connect().ping()
    }

    @Test func theSocketHasTheConfiguredMode() throws {
        let directory = TemporaryDirectory()
        let config = directory.write("gestured.toml", "[daemon]\nsocket_mode = \"0600\"\nsocket_group = \"\"\n")
        let daemon = try Daemon(["--config", config], directory: directory)
        var info = stat()
        #expect(lstat(daemon.socketPath, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        let defaults = try Daemon([])
        #expect(lstat(defaults.socketPath, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o660)
        #expect(defaults.log.contains("group 'gestured' does not exist") || defaults.log.contains("listening on"))
    }

    /// The size every millimetre threshold rests on, and where it came from, is said when a device is
    /// added and in its device object.
    @Test func theDevicesPanelSizeIsSaid() throws {
        let directory = TemporaryDirectory()
        let daemon = try Daemon(dell, directory: directory)
        // A panel without ABS_MT_TOUCH_MAJOR/WIDTH_MAJOR: palms by size do not apply, said once here.
        try daemon.waitForLog("panel 596 x 334 mm (from the axis resolution), no contact size reported, palms only as MT_TOOL_PALM) from ")
        let size = try #require(try daemon.connect().hello.devices.first?.size)
        #expect(size.source == .resolution && abs(size.widthMM - 595.8) < 0.1 && abs(size.heightMM - 334.4) < 0.1)
    }

    @Test func theClientLogsWhoConnected() throws {
        let directory = TemporaryDirectory()
        let daemon = try Daemon(["--config", directory.write("gestured.toml", debugConfiguration)], directory: directory)
        _ = try daemon.connect()
        try daemon.waitForLog("uid \(getuid()), pid \(getpid())")
    }
}

@Suite(.serialized) struct LifecycleTests {
    @Test func sigtermStopsCleanlyRemovesTheSocketAndSaysStopping() throws {
        let directory = TemporaryDirectory()
        let notify = NotifySocket(in: directory)
        let daemon = try Daemon(dell + ["--loop", "--speed", "10"], directory: directory, notify: notify)
        let ready = try notify.waitFor("READY=1", log: { daemon.log })
        let client = try daemon.connect()
        try client.subscribe()
        _ = try nextGesture(client, from: daemon)
        #expect(try daemon.terminate() == 0)
        _ = try notify.waitFor("STOPPING=1", after: ready, log: { daemon.log })
        #expect(access(daemon.socketPath, F_OK) != 0)
        #expect(daemon.log.contains("SIGTERM received: shutting down"))
        // The client sees the rest of what was sent, then the end of the connection.
        _ = try messagesUntilClosed(client, from: daemon)
    }

    /// With systemd's watchdog on (WatchdogSec=, passed as $WATCHDOG_USEC), the loop itself tells systemd
    /// it is alive, every half interval, whether idle or busy; without it, it never does.
    @Test func theLoopFeedsSystemdsWatchdog() throws {
        let directory = TemporaryDirectory()
        let notify = NotifySocket(in: directory)
        let daemon = try Daemon(dell + ["--loop", "--speed", "2"], directory: directory, notify: notify, environment: ["WATCHDOG_USEC=400000"])
        let ready = try notify.waitFor("READY=1", log: { daemon.log })
        var pings = ready
        for _ in 0..<4 { pings = try notify.waitFor("WATCHDOG=1", after: pings, log: { daemon.log }) }
        #expect(try daemon.terminate() == 0)

        let quiet = TemporaryDirectory()
        let plainNotify = NotifySocket(in: quiet)
        let plain = try Daemon(dell + ["--speed", "4"], directory: quiet, notify: plainNotify)
        _ = try plainNotify.waitFor("READY=1", log: { plain.log })
        let client = try plain.connect()
        try client.subscribe()
        _ = try nextGesture(client, from: plain)
        #expect(try plain.terminate() == 0)
        plainNotify.drain()
        #expect(!plainNotify.messages.contains { $0.contains("WATCHDOG=1") })
    }

    /// Under systemd a readiness that does not get through makes systemd time the service out: said at
    /// warning, once.
    @Test func aNotificationThatFailsIsAWarning() throws {
        let directory = TemporaryDirectory()
        let daemon = try Daemon(dell, directory: directory, environment: ["NOTIFY_SOCKET=\(directory.path)/no-such-socket"])
        try daemon.waitForLog("<4>cannot notify systemd (sd_notify READY=1")
        #expect(try daemon.terminate() == 0)
        #expect(daemon.log.ranges(of: "cannot notify systemd (sd_notify READY=1").count == 1)
        #expect(!daemon.log.contains("<4>cannot notify systemd (sd_notify STATUS"))  // a status line alone: debug
    }

    @Test func sighupWithAGoodConfigurationAppliesIt() throws {
        let directory = TemporaryDirectory()
        let notify = NotifySocket(in: directory)
        let config = directory.write("gestured.toml", "[daemon]\nsocket_group = \"\"\n")
        let daemon = try Daemon(["--config", config], directory: directory, notify: notify)
        let ready = try notify.waitFor("READY=1", log: { daemon.log })
        let first = try daemon.connect()
        _ = directory.write("gestured.toml", "[daemon]\nsocket_group = \"\"\nmax_clients = 1\nlog_level = \"debug\"\n")
        daemon.signal(SIGHUP)
        let reloading = try notify.waitFor("RELOADING=1", after: ready, log: { daemon.log })
        #expect(notify.messages[reloading].contains("MONOTONIC_USEC="))
        _ = try notify.waitFor("READY=1", after: reloading, log: { daemon.log })
        try daemon.waitForLog("configuration reloaded from \(config)")
        // max_clients = 1 now holds: the first client is the one.
        try first.ping()
        guard case .daemon(let e)? = connectError(daemon) else {
            Issue.record("a second client was accepted with max_clients = 1")
            return
        }
        #expect(e.code == .tooManyClients)
    }

    /// A megabyte of misspelt keys reloaded: at most 100 problems listed and the count of the rest, the
    /// running configuration kept, the clients served, and the parse's memory given back.
    @Test func aHugeBrokenConfigurationCostsAHundredLinesAndNoMemory() throws {
        let directory = TemporaryDirectory()
        let notify = NotifySocket(in: directory)
        let config = directory.write("gestured.toml", "[daemon]\nsocket_group = \"\"\n")
        let daemon = try Daemon(["--config", config], directory: directory, notify: notify)
        let ready = try notify.waitFor("READY=1", log: { daemon.log })
        let client = try daemon.connect()
        let before = try residentKilobytes(daemon.pid)
        try #require(before > 0, "cannot read the daemon's resident memory")
        var text = "[daemon]\nsocket_group = \"\"\n[recognizer]\n"
        var i = 0
        while text.utf8.count < 1_000_000 {
            text += "slop_mmx\(i) = 3\n"
            i += 1
        }
        _ = directory.write("gestured.toml", text)
        daemon.signal(SIGHUP)
        let reloading = try notify.waitFor("RELOADING=1", after: ready, log: { daemon.log })
        _ = try notify.waitFor("READY=1", after: reloading, log: { daemon.log })
        try daemon.waitForLog("more problems (only the first 100 are listed)")
        try client.ping()
        let log = daemon.log
        #expect(log.ranges(of: "unknown key in [recognizer]").count == 100)
        #expect(log.contains("... and \(i - 100) more problems"))
        #expect(log.contains("configuration not reloaded, keeping the running one"))
        let after = try residentKilobytes(daemon.pid)
        #expect(after < before + 2 * 1024, "resident memory \(before) KiB before the reload, \(after) KiB after")
    }

    @Test func sighupAppliesNewRecognizerSettingsToRunningDevices() throws {
        let directory = TemporaryDirectory()
        let notify = NotifySocket(in: directory)
        let config = directory.write("gestured.toml", "[daemon]\nsocket_group = \"\"\n")
        let daemon = try Daemon(dell + ["--loop", "--speed", "10", "--config", config], directory: directory, notify: notify)
        let ready = try notify.waitFor("READY=1", log: { daemon.log })
        let client = try daemon.connect()
        try client.subscribe(SubscriptionFilter(updates: false))
        var kinds = Set<GestureKind>()
        while !kinds.isSuperset(of: [.pan, .pinch]) { kinds.insert(try nextGesture(client, from: daemon).event.kind) }
        _ = directory.write("gestured.toml", "[daemon]\nsocket_group = \"\"\n[recognizer.pan]\nenabled = false\n")
        daemon.signal(SIGHUP)
        let reloading = try notify.waitFor("RELOADING=1", after: ready, log: { daemon.log })
        _ = try notify.waitFor("READY=1", after: reloading, log: { daemon.log })
        try daemon.waitForLog("replay1: new settings applied")
        // Everything published before the reload arrives before this pong.
        try client.ping()
        while try client.next(timeoutMilliseconds: 0) != nil {}
        var pinches = 0
        while pinches < 3 {
            let g = try nextGesture(client, from: daemon)
            #expect(g.event.kind != .pan, "a pan after pans were disabled")
            if g.event.kind == .pinch && g.event.phase == .begin { pinches += 1 }
        }
    }

    /// The recognizer's trace follows the log level a reload sets, for devices already open: it starts
    /// at debug and stops at info (it used to be fixed when a device opened, and to pile up unread after a
    /// reload from debug to info).
    @Test func sighupTurnsTheRecognizerTraceOnAndOffForOpenDevices() throws {
        let directory = TemporaryDirectory()
        let notify = NotifySocket(in: directory)
        let info = "[daemon]\nsocket_group = \"\"\nlog_level = \"info\"\n"
        let debug = "[daemon]\nsocket_group = \"\"\nlog_level = \"debug\"\n"
        let config = directory.write("gestured.toml", info)
        let daemon = try Daemon(dell + ["--loop", "--speed", "10", "--config", config], directory: directory, notify: notify)
        let client = try daemon.connect()
        try client.subscribe(SubscriptionFilter(updates: false))
        let traceLine = "replay1: idle -> "
        func gestures(_ count: Int) throws {
            var begins = 0
            while begins < count { if try nextGesture(client, from: daemon).event.phase == .begin { begins += 1 } }
        }
        try gestures(3)
        #expect(!daemon.log.contains(traceLine), "traced at info")

        _ = directory.write("gestured.toml", debug)
        daemon.signal(SIGHUP)
        try daemon.waitForLog("configuration reloaded from \(config)")
        try daemon.waitForLog(traceLine)

        _ = directory.write("gestured.toml", info)
        daemon.signal(SIGHUP)
        try daemon.waitForLog("configuration reloaded from \(config)", occurrences: 2)
        let afterReload = daemon.log.utf8.count
        try client.ping()
        while try client.next(timeoutMilliseconds: 0) != nil {}
        try gestures(3)
        let later = String(decoding: Array(daemon.log.utf8)[afterReload...], as: UTF8.self)
        #expect(!later.contains(traceLine), "still traced after the reload to info")
        #expect(try daemon.terminate() == 0)
    }

    /// The engines make running gestures' updates only while some client takes them or the log shows
    /// gestures: a client that subscribes with updates after others took none gets them from then on, and
    /// at debug the log has them with no client at all.
    @Test func updatesAreMadeForTheClientsAndTheLogThatTakeThem() throws {
        let directory = TemporaryDirectory()
        let config = directory.write("gestured.toml", "[daemon]\nsocket_group = \"\"\nlog_level = \"info\"\n")
        let daemon = try Daemon(dell + ["--loop", "--speed", "10", "--config", config], directory: directory)
        let quiet = try daemon.connect()
        _ = try quiet.subscribe(SubscriptionFilter(updates: false))
        var begins = 0
        while begins < 2 { if try nextGesture(quiet, from: daemon).event.phase == .begin { begins += 1 } }
        let wanting = try daemon.connect()
        _ = try wanting.subscribe()
        // A pass of the recording makes 267 updates among 8 other events: 40 events without 5 updates
        // among them are 5 passes without any.
        var updates = 0
        for _ in 0..<40 where updates < 5 {
            if try nextGesture(wanting, from: daemon).event.phase == .update { updates += 1 }
        }
        #expect(updates == 5, "a client subscribed with updates got none while another took none")
        wanting.close()
        quiet.close()
        #expect(try daemon.terminate() == 0)

        let debugDirectory = TemporaryDirectory()
        let debug = debugDirectory.write("gestured.toml", debugConfiguration)
        let logged = try Daemon(dell + ["--loop", "--speed", "10", "--config", debug], directory: debugDirectory)
        try logged.waitForLog(#""phase":"update""#)
        #expect(try logged.terminate() == 0)
    }

    @Test func sighupWithABrokenConfigurationKeepsTheRunningOne() throws {
        let directory = TemporaryDirectory()
        let notify = NotifySocket(in: directory)
        let config = directory.write("gestured.toml", "[daemon]\nsocket_group = \"\"\nmax_clients = 2\n")
        let daemon = try Daemon(dell + ["--loop", "--speed", "10", "--config", config], directory: directory, notify: notify)
        let ready = try notify.waitFor("READY=1", log: { daemon.log })
        let client = try daemon.connect()
        try client.subscribe()
        _ = directory.write("gestured.toml", "[daemon]\nmax_clients = \"many\"\nbogus_key = 1\n")
        daemon.signal(SIGHUP)
        let reloading = try notify.waitFor("RELOADING=1", after: ready, log: { daemon.log })
        _ = try notify.waitFor("READY=1", after: reloading, log: { daemon.log })
        try daemon.waitForLog("configuration not reloaded, keeping the running one")
        // The log says why, with file, line and key.
        #expect(daemon.log.contains("\(config):2:"))
        #expect(daemon.log.contains("max_clients"))
        #expect(daemon.log.contains("bogus_key"))
        // Still serving, with the old limit of 2 clients.
        _ = try nextGesture(client, from: daemon)
        let second = try daemon.connect()
        try second.ping()
        guard case .daemon(let e)? = connectError(daemon) else {
            Issue.record("a third client was accepted: the broken file's settings leaked in")
            return
        }
        #expect(e.code == .tooManyClients)
    }

    @Test func aBrokenConfigurationAtStartIsAnErrorNamingTheFile() throws {
        let directory = TemporaryDirectory()
        let config = directory.write("gestured.toml", "[daemon]\nmax_clinets = 3\n")
        let daemon = try Daemon(["--config", config], directory: directory, waitForSocket: false)
        #expect(try daemon.waitForExit() == 1)
        #expect(daemon.log.contains("gestured cannot start"))
        #expect(daemon.log.contains("\(config):2:1"))
        #expect(daemon.log.contains("max_clients"))  // did you mean
    }

    @Test func checkConfigExitsZeroForAGoodFileAndOneForABadOne() throws {
        let directory = TemporaryDirectory()
        let good = directory.write("good.toml", "[daemon]\nmax_clients = 3\n")
        let bad = directory.write("bad.toml", "[daemon]\nmax_clients = 0\n")
        let ok = try Daemon(["--check-config", good], directory: directory, waitForSocket: false)
        #expect(try ok.waitForExit() == 0)
        #expect(ok.log.contains("\(good): OK"))
        let broken = try Daemon(["--check-config", bad], directory: directory, waitForSocket: false)
        #expect(try broken.waitForExit() == 1)
        #expect(broken.log.contains("\(bad):2:"))
        #expect(access(ok.socketPath, F_OK) != 0)  // checking never listens
    }

    @Test func aSecondDaemonOnTheSameSocketRefusesAndAStaleSocketIsReplaced() throws {
        let directory = TemporaryDirectory()
        let first = try Daemon([], directory: directory)
        let second = try Daemon([], directory: directory, waitForSocket: false)
        #expect(try second.waitForExit() == 1)
        #expect(second.log.contains("another gestured is already listening there"))
        try first.connect().ping()
        // A daemon killed without cleaning up leaves its socket; the next one replaces it.
        first.signal(SIGKILL)
        _ = try first.waitForExit()
        #expect(access(first.socketPath, F_OK) == 0)
        let third = try Daemon([], directory: directory)
        #expect(third.log.contains("removed stale socket"))
        try third.connect().ping()
    }

    @Test func socketActivationUsesTheInheritedSocketAndLeavesItToSystemd() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/gestured.sock"
        let fd = socket(AF_UNIX, 1 | 0o2000000, 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        #expect(listen(fd, 16) == 0)
        defer { close(fd) }
        let daemon = try Daemon([], directory: directory, inheritListener: fd)
        try daemon.waitForLog("listening on the socket systemd passed")
        try daemon.connect().ping()
        #expect(try daemon.terminate() == 0)
        #expect(access(path, F_OK) == 0)  // systemd's socket stays
    }

    /// `--replay ... --pen PEN`: the pen recorded beside the panel comes into proximity while the pan of
    /// each pass runs: the pan is cancelled, and the debug log says the pen stopped it.
    @Test func aReplayWithItsPenMakesNoGestureWhileThePenIsNear() throws {
        let directory = TemporaryDirectory()
        // A two-finger pan (one finger's would be an app touch, which this client may not see): the
        // recording's first event is at 1330495970.996848, the pan begins 0.24 s later and ends at 1.89 s.
        var lines = ["N: Test Pen", "I: 0018 056a 5146 0100", "P: 02 00 00 00 00 00 00 00", "B: 00 0b 00 00 00 00 00 00 00"]
        // The key bitmask in rows of 8 bytes: BTN_TOOL_PEN is bit 0x140, byte 40.
        for row in 0..<12 { lines.append("B: 01 " + (0..<8).map { row * 8 + $0 == 40 ? "01" : "00" }.joined(separator: " ")) }
        lines += ["B: 03 03 00 00 00 00 00 00 00", "A: 00 0 1000 0 0 10", "A: 01 0 1600 0 0 10"]
        for (time, value) in [("1330495971.496848", 1), ("1330495972.000000", 0)] {
            lines += ["E: \(time) 0001 0140 \(value)", "E: \(time) 0000 0000 0"]
        }
        let pen = directory.write("pen.evemu", lines.joined(separator: "\n") + "\n")
        let daemon = try Daemon(
            ["--replay", Paths.recordings + "Wacom_ISDv4_E6_Finger.double-top-swipe.events", "--device", Paths.recordings + "Wacom_ISDv4_E6_Finger.desc",
             "--loop", "--speed", "4", "--pen", pen, "--config", directory.write("gestured.toml", debugConfiguration)], directory: directory)
        let client = try daemon.connect()
        try client.subscribe(SubscriptionFilter(updates: false))
        var g = try nextGesture(client, from: daemon)
        while g.event.phase != .begin { g = try nextGesture(client, from: daemon) }
        #expect(g.event.kind == .pan)
        let terminal = try nextGesture(client, from: daemon)
        #expect(terminal.event.id == g.event.id)
        #expect(terminal.event.phase == .cancel)
        try daemon.waitForLog("replay1: the pen in proximity stopped pan #")
    }

    @Test func anIdleDaemonSleeps() throws {
        // A replay that has finished leaves nothing waiting on time: no timer, no wake-ups.
        let directory = TemporaryDirectory()
        let daemon = try Daemon(["--replay", Paths.recordings + "Wacom_ISDv4_E6_Finger.single-tap-center.events",
            "--device", Paths.recordings + "Wacom_ISDv4_E6_Finger.desc", "--speed", "100",
            "--config", directory.write("gestured.toml", debugConfiguration)], directory: directory)
        let client = try daemon.connect()
        client.close()
        try daemon.waitForLog("disconnected", occurrences: 2)
        func wakeUps() -> Int {
            // Context switches of every thread: each return from epoll_wait is one.
            var total = 0
            guard let dir = opendir("/proc/\(daemon.pid)/task") else { return -1 }
            defer { closedir(dir) }
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
                guard name.first?.isNumber == true else { continue }
                let status = readWholeFile("/proc/\(daemon.pid)/task/\(name)/status")
                for line in status.split(separator: "\n") where line.hasPrefix("voluntary_ctxt_switches:") {
                    total += Int(line.split(separator: "\t").last.map { String($0).trimmingCharacters() } ?? "") ?? 0
                }
            }
            return total
        }
        // The replay (a 2-event tap at 100x) ends within a second; wait for the count to settle.
        var last = wakeUps()
        try waitUntil("the daemon to go quiet") {
            usleep(300_000)
            let now = wakeUps()
            defer { last = now }
            return now == last
        }
        let before = wakeUps()
        usleep(1_000_000)
        #expect(wakeUps() == before, "the idle daemon woke up")
    }
}

extension String {
    fileprivate func trimmingCharacters() -> String {
        var s = Substring(self)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}

/// VmRSS of a process, from /proc/PID/status (-1 when it cannot be read).
func residentKilobytes(_ pid: pid_t) throws -> Int {
    let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
        let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    else { return -1 }
    return kilobytes
}
