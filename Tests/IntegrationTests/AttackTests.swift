// What an adversarial pass (a hostile user, a careless admin) found against the real binaries, each kept
// as a regression test: real processes, real files and sockets.
import GestureClient
import GestureProtocol
import Glibc
import Testing

/// One line `[a.a.a…]` 20,000 levels deep: it used to overflow the stack of the configuration loader.
let deepTOML = "[" + Array(repeating: "a", count: 20_000).joined(separator: ".") + "]\n"

@Suite(.serialized) struct AttackTests {
    @Test func aDeeplyNestedConfigurationIsAnErrorNotACrash() throws {
        let directory = TemporaryDirectory()
        let deep = directory.write("deep.toml", deepTOML)
        let place = "\(deep):1:\(1 + 2 * 64): "
        let check = try run(try Paths.gestured(), ["--check-config", deep], in: directory)
        #expect(check.status == 1)
        #expect(check.output.contains(place + "the file is refused: tables and arrays nest more than 64 levels deep"), "\(check.output.prefix(400))")
        let replay = try run(
            try Paths.gesturectl(), ["replay", "--config", deep, Paths.recordings + dellRecording], in: directory)
        #expect(replay.status == 1)
        #expect(replay.output.hasPrefix("gesturectl replay: " + place), "\(replay.output.prefix(400))")
    }

    @Test func sighupWithADeeplyNestedConfigurationKeepsTheDaemonAndItsConfiguration() throws {
        let directory = TemporaryDirectory()
        let notify = NotifySocket(in: directory)
        let config = directory.write("gestured.toml", "[daemon]\nsocket_group = \"\"\nmax_clients = 2\n")
        let daemon = try Daemon(dell + ["--loop", "--speed", "10", "--config", config], directory: directory, notify: notify)
        let ready = try notify.waitFor("READY=1", log: { daemon.log })
        let client = try daemon.connect()
        try client.subscribe()
        _ = directory.write("gestured.toml", deepTOML)
        daemon.signal(SIGHUP)
        let reloading = try notify.waitFor("RELOADING=1", after: ready, log: { daemon.log })
        _ = try notify.waitFor("READY=1", after: reloading, log: { daemon.log })
        try daemon.waitForLog("configuration not reloaded, keeping the running one: \(config):1:129: ")
        #expect(try daemon.isRunning())
        _ = try nextGesture(client, from: daemon)
        // Still the old limit of two clients.
        let second = try daemon.connect()
        try second.ping()
        guard case .daemon(let e)? = connectError(daemon) else {
            Issue.record("a third client was accepted after the refused reload")
            return
        }
        #expect(e.code == .tooManyClients)
        #expect(try daemon.terminate() == 0)
        #expect(access(daemon.socketPath, F_OK) != 0)
    }
}
