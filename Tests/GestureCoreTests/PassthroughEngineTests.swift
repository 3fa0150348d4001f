import Testing
@testable import GestureCore
import GestureVocabulary
import TouchForwarding

/// Passthrough end to end in the core: scripted touches through the recognizer's real decisions
/// (`withholdsTouches`) and the forwarder, as `gesturectl replay --forward` and the daemon run them, read
/// back as a compositor would read the virtual device.
@Suite struct PassthroughEngineTests {
    static func forwarded(
        _ s: TouchScript, configure: (inout RecognizerSettings) -> Void = { _ in }
    ) throws -> (written: [InputEvent], frames: [TouchForwarderTests.Seen], gestures: [GestureEvent]) {
        var settings = RecognizerSettings()
        settings.withholdsTouches = true
        configure(&settings)
        var replay = RecordingReplay(engine: try GestureEngine(device: s.device, settings: settings))
        var forwarder: TouchForwarder? = try TouchForwarder(device: s.device)
        var written: [InputEvent] = []
        var gestures: [GestureEvent] = []
        replay.run(s.events, forwarder: &forwarder, written: &written) { gestures += $0.gestures }
        let frames = TouchForwarderTests.read(written, device: TouchForwarder.virtualDescription(of: s.device))
        return (written, frames, gestures)
    }

    @Test func centrePanIsForwardedIdentically() throws {
        let s = TouchForwarderTests.centrePan()
        let r = try Self.forwarded(s)
        #expect(r.written == s.events)
        #expect(r.gestures.first?.kind == .pan)
    }

    @Test func edgeSwipeIsNeverDelivered() throws {
        var s = TouchScript()
        s.down(0, 1, 80); s.raw(EV.key, BTN.touch, 1); s.frame()
        s.drag([0], by: 60, 0, steps: 20)
        s.up(0); s.raw(EV.key, BTN.touch, 0); s.frame()
        let r = try Self.forwarded(s)
        #expect(r.gestures.first?.kind == .edgeSwipe)
        #expect(r.written.isEmpty)
    }

    @Test func edgeTapIsDeliveredAsATap() throws {
        var s = TouchScript()
        s.down(0, 1, 80); s.frame()
        s.frame()
        s.up(0); s.frame()
        let r = try Self.forwarded(s)
        #expect(r.frames.map(\.down.count) == [1, 0])
        #expect(r.frames.last?.lifted.count == 1)
    }

    @Test func alongEdgeStrokeIsDeliveredWhole() throws {
        var s = TouchScript()
        s.down(0, 2, 40); s.frame()
        s.drag([0], by: 0, 60, steps: 20)
        s.up(0); s.frame()
        let r = try Self.forwarded(s)
        #expect(!r.gestures.contains { $0.kind == .edgeSwipe })
        let ys = TouchForwarderTests.yPositions(r.written)
        #expect(ys.first == 400 && ys.last == 1000)
        let lift = try #require(r.frames.firstIndex { $0.lifted.count == 1 })
        #expect(r.frames[..<lift].allSatisfy { $0.down.count == 1 })
        #expect(r.frames.last?.down == [])
    }

    @Test func claimedThreeFingerPanIsCancelled() throws {
        var s = TouchScript()
        s.down(0, 30, 80); s.down(1, 50, 80); s.down(2, 70, 80); s.frame()
        s.drag([0, 1, 2], by: 0, -40, steps: 10)
        s.up(0); s.up(1); s.up(2); s.frame()
        let r = try Self.forwarded(s) { $0.pan.claim = true; $0.pan.claimMinFingers = 3 }
        #expect(r.gestures.first?.kind == .pan && r.gestures.first?.fingers == 3)
        #expect(r.frames.contains { $0.lost.count == 3 })
        #expect(!r.frames.contains { !$0.lifted.isEmpty })
        #expect(r.frames.last?.down == [])
        // Unclaimed, the same pan reaches the apps whole.
        let plain = try Self.forwarded(s)
        #expect(plain.written == s.events)
    }

    /// A touch held back in an edge zone when the engine is reconfigured (the screen turned, the
    /// configuration reloaded) or its events are dropped is claimed, never released to the application:
    /// it rests until it lifts, and the copy never shows it, however it moves.
    @Test(arguments: ["orientation", "reload", "dropped"])
    func aCancelledRecognitionClaimsTheWithheldTouch(_ cause: String) throws {
        var settings = RecognizerSettings()
        settings.withholdsTouches = true
        var s = TouchScript()
        s.down(0, 1, 80); s.frame()
        var engine = try GestureEngine(device: s.device, settings: settings)
        var forwarder = try TouchForwarder(device: s.device)
        var written: [InputEvent] = []
        var out = EngineOutput()
        func feed(_ events: [InputEvent]) {
            for e in events {
                out.touches.removeAll()
                engine.process(e, into: &out)
                let current = engine
                forwarder.process(e, decisions: out.touches, serial: { current.contactSerial(inSlot: $0) }, into: &written)
            }
        }
        feed(s.events)
        #expect(written.isEmpty)
        out.touches.removeAll()
        let time = s.time
        switch cause {
        case "orientation":
            var turned = GeometrySettings()
            turned.rotation = .clockwise90
            engine.reconfigure(settings: settings, geometry: turned, atMicroseconds: time, into: &out)
        case "reload":
            var other = settings
            other.slopMM = 2
            engine.reconfigure(settings: other, geometry: GeometrySettings(), atMicroseconds: time, into: &out)
        default:
            engine.eventsDropped(atMicroseconds: time, into: &out)
            forwarder.eventsDropped()
        }
        #expect(out.touches == [.claim([1])])
        forwarder.apply(out.touches, atMicroseconds: time, into: &written)
        var rest = TouchScript()
        rest.down(0, 1, 80); rest.frame()  // the same finger, as the panel keeps reporting it
        let start = rest.events.count
        rest.drag([0], by: 40, 0, steps: 8)
        rest.up(0); rest.frame()
        feed(rest.events[start...].map { var e = $0; e.timeMicroseconds += time; return e })
        #expect(written.isEmpty, "the copy got \(written.count) events of a touch the application must never see")
        #expect(!out.gestures.contains { $0.phase == .begin })
        forwarder.finish(atMicroseconds: time + 1_000_000, into: &written)
        #expect(!forwarder.hasContactsDown)
    }

    @Test func restingEdgeTouchIsReleasedAtTheLimit() throws {
        var s = TouchScript()
        s.down(0, 1, 80); s.frame()
        for _ in 0..<30 { s.frame() }  // 0.3 s resting in the zone, a frame every 10 ms
        s.drag([0], by: 30, 0, steps: 10)
        s.up(0); s.frame()
        let r = try Self.forwarded(s)
        #expect(!r.gestures.contains { $0.kind == .edgeSwipe })
        let first = try #require(r.written.first)
        // Released at the limit (0.12 s after landing, within a frame), not at the lift.
        #expect(first.timeMicroseconds >= 1_000_000 + 120_000 && first.timeMicroseconds <= 1_000_000 + 140_000)
        #expect(r.frames.contains { $0.lifted.count == 1 })
        #expect(r.frames.last?.down == [])
    }
}
