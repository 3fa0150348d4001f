// gesturectl's daemon commands and gestured's command line, as a user runs them.
import GestureProtocol
import Glibc
import Testing

@Suite(.serialized) struct CommandLineTests {
    @Test func gesturectlDevicesFindsTheSocketThroughTheEnvironment() throws {
        let daemon = try Daemon(dell)
        let ctl = try Paths.gesturectl()
        let plain = try run(ctl, ["devices"], environment: ["GESTURED_SOCKET=\(daemon.socketPath)"], in: daemon.directory)
        #expect(plain.status == 0)
        #expect(plain.output.hasPrefix("replay1\tAdvanced Silicon S.A. CoolTouch® System\t2575:0204\t5 slots\treplay\t"))
        let json = try run(ctl, ["devices", "--json", "--socket", daemon.socketPath], in: daemon.directory)
        #expect(json.status == 0)
        let message = try ServerMessage.decode(line: Array(json.output.split(separator: "\n").first.map(String.init)!.utf8))
        guard case .devices(_, let devices) = message else {
            Issue.record("gesturectl devices --json printed \(json.output)")
            return
        }
        #expect(devices.map(\.id) == ["replay1"])
    }

    @Test func gesturectlMonitorPrintsFilteredEventsAndStopsAfterCount() throws {
        let daemon = try Daemon(dell + ["--loop", "--speed", "10"])
        let ctl = try Paths.gesturectl()
        let json = try run(
            ctl, ["monitor", "--socket", daemon.socketPath, "--json", "--kinds", "pinch", "--no-updates", "--count", "2"],
            in: daemon.directory)
        #expect(json.status == 0)
        let lines = json.output.split(separator: "\n")
        #expect(lines.count == 4)  // hello, subscribed, two gestures
        var gestures: [DeviceGestureEvent] = []
        for line in lines {
            if case .gesture(let g) = try ServerMessage.decode(line: Array(line.utf8)) { gestures.append(g) }
        }
        #expect(gestures.map(\.event.phase) == [.begin, .end])
        #expect(gestures.allSatisfy { $0.event.kind == .pinch && $0.device == "replay1" })

        let readable = try run(ctl, ["monitor", "--socket", daemon.socketPath, "--fingers", "4", "--count", "3"], in: daemon.directory)
        #expect(readable.status == 0)
        let text = readable.output.split(separator: "\n")
        #expect(text.first?.hasPrefix("connected to gestured") == true)
        #expect(text.dropFirst().allSatisfy { $0.contains("pan") && $0.contains("4 fingers") && $0.hasSuffix("[replay1]") })
    }

    @Test func gesturectlExplainsAMissingDaemonAndBadOptions() throws {
        let directory = TemporaryDirectory()
        let ctl = try Paths.gesturectl()
        let missing = try run(ctl, ["monitor", "--socket", directory.path + "/none.sock"], in: directory)
        #expect(missing.status == 1)
        #expect(missing.output.contains("is gestured running?"))
        let badKind = try run(ctl, ["monitor", "--kinds", "swipe"], in: directory)
        #expect(badKind.status == 2)
        #expect(badKind.output.contains("--kinds 'swipe' is not one of: edge-swipe, pan, pinch"))
    }

    @Test func gesturedRefusesAReplayItCannotPlay() throws {
        let directory = TemporaryDirectory()
        let noDescription = try Daemon(
            ["--replay", Paths.recordings + "Wacom_ISDv4_E6_Finger.single-tap-center.events"], directory: directory,
            waitForSocket: false)
        #expect(try noDescription.waitForExit() == 1)
        #expect(noDescription.log.contains("pass the device's .desc file with --device"))
        #expect(access(noDescription.socketPath, F_OK) != 0)  // the socket it made is gone again
        let gestured = try Paths.gestured()
        let badSpeed = try run(gestured, ["--replay", "x.events", "--speed", "fast"], in: directory)
        #expect(badSpeed.status == 2)
        #expect(badSpeed.output.contains("--speed fast: give a number"))
        let orphan = try run(gestured, ["--loop"], in: directory)
        #expect(orphan.status == 2)
        #expect(orphan.output.contains("--loop applies to a --replay"))
        // The reader gesturectl uses too: the same messages, the program named first.
        let missing = try run(gestured, ["--config"], in: directory)
        #expect(missing.status == 2)
        #expect(missing.output.contains("gestured: --config needs a value"))
        let unknown = try run(gestured, ["--frobnicate"], in: directory)
        #expect(unknown.status == 2)
        #expect(unknown.output.contains("gestured: unknown option '--frobnicate'") && unknown.output.contains("usage: gestured"))
    }
}
