import GestureConfig
import GestureCore
import GestureProtocol
import Glibc
import Testing

@testable import GestureDaemon

/// The order the timer's expiry serves the devices in: every wake-up that has come, earliest first, and
/// for a live device its waiting events before its deadline (they were stamped earlier).
@Suite struct ServiceOrderTests {
    /// A hub with no udev and a delivery that logs (kept with it: the hub does not own its delivery).
    struct Rig {
        let delivery: RecordingDelivery
        let hub: DeviceHub
        init(_ log: ServiceLog) throws {
            delivery = RecordingDelivery(log: log)
            hub = DeviceHub(
                watches: Watches(loop: try EventLoop()), delivery: delivery, configuration: DaemonConfiguration(),
                discoversDevices: false)
        }
    }

    /// A descriptor the loop can watch, standing in for a device node.
    static func pipeEnd() -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        _ = pipe(&fds)
        return (fds[0], fds[1])
    }

    @Test func deadlinesOfTwoDevicesAndAReplaysNextEventAreServedInTimeOrder() throws {
        let log = ServiceLog()
        let rig = try Rig(log)
        let hub = rig.hub
        let pipeA = Self.pipeEnd(), pipeB = Self.pipeEnd()
        defer { for fd in [pipeA.read, pipeA.write, pipeB.read, pipeB.write] { close(fd) } }
        // Added A, then the replay R, then B; B's finger lands first, so its deadline comes first.
        let a = ScriptedPanel("a", log: log, pollDescriptor: pipeA.read)
        let r = ScriptedPanel("r", log: log)
        let b = ScriptedPanel("b", log: log, pollDescriptor: pipeB.read)
        for source in [a, r, b] { #expect(hub.add(source: source, id: source.name, paths: [source.path], settings: DeviceSettings()) == nil) }
        let (runtimeA, runtimeR, runtimeB) = (hub.runtimes[0], hub.runtimes[1], hub.runtimes[2])
        a.land(at: 1_100_000)
        b.land(at: 1_000_000)
        hub.pump(runtimeA, now: 0)
        hub.pump(runtimeB, now: 0)
        let deadlineA = try #require(runtimeA.deadlineMicroseconds)
        let deadlineB = try #require(runtimeB.deadlineMicroseconds)
        #expect(deadlineB < deadlineA)
        // The replay's next event falls between the two.
        let replayEvent = (deadlineA + deadlineB) / 2
        r.schedule(landingAt: replayEvent)
        hub.pump(runtimeR, now: 0)  // as a replay's read does, this one tells the runtime its schedule
        #expect(runtimeR.nextWakeMicroseconds == replayEvent)
        #expect(hub.nextWake().earliest == deadlineB)
        log.entries.removeAll()
        hub.serviceDue(now: deadlineA)
        // Each served once, in time order: B's deadline (its waiting events read first), the replay's event,
        // A's deadline; not in the order they were added.
        #expect(log.entries.filter { $0.hasSuffix(" read") } == ["b read", "r read", "a read"])
        #expect(runtimeA.engine.nextDeadlineMicroseconds != deadlineA)
        #expect(runtimeB.engine.nextDeadlineMicroseconds != deadlineB)
        withExtendedLifetime(rig) {}
    }

    @Test func aLiveDevicesWaitingEventsAreReadBeforeItsDeadline() throws {
        let log = ServiceLog()
        let rig = try Rig(log)
        let hub = rig.hub
        let pipe = Self.pipeEnd()
        defer { close(pipe.read); close(pipe.write) }
        let source = ScriptedPanel("a", log: log, pollDescriptor: pipe.read)
        #expect(hub.add(source: source, id: "a", paths: [source.path], settings: DeviceSettings()) == nil)
        let runtime = hub.runtimes[0]
        source.land(at: 1_000_000)
        hub.pump(runtime, now: 0)
        let deadline = try #require(runtime.deadlineMicroseconds)
        // The finger lifted before the deadline; the loop has not read it yet when the timer fires.
        source.lift(at: deadline - 1)
        log.entries.removeAll()
        hub.serviceDue(now: deadline)
        #expect(log.entries.first == "a read")
        // The lift came first: the deadline found no finger resting, so no hold began.
        #expect(!log.entries.contains { $0.contains("hold") })
        withExtendedLifetime(rig) {}
    }
}
