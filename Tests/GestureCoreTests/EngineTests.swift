import Testing
@testable import GestureCore

/// What the engine owns: gesture ids, deadlines, tracing, resets, and one stream of outputs.
@Suite struct EngineTests {
    static func swipe() -> TouchScript {
        var s = TouchScript()
        s.down(0, 50, 80); s.frame()
        s.drag([0], by: 30, 0)
        s.up(0); s.frame()
        return s
    }

    @Test func enginesSharingAnIDSourceNeverReuseAnID() throws {
        let ids = GestureIDSource(first: 40)
        var a = try GestureEngine(device: TouchScript.phone, ids: ids)
        var b = try GestureEngine(device: TouchScript.phone, ids: ids)
        var out = EngineOutput()
        a.process(Self.swipe().events, into: &out)
        b.process(Self.swipe().events, into: &out)
        a.process(Self.swipe().events, into: &out)
        let begins = out.gestures.filter { $0.phase == .begin }.map(\.id)
        #expect(begins == [40, 41, 42])
        #expect(ids.upcoming == 43)
    }

    @Test func tracesAreOutputOnlyWhileTracing() throws {
        var engine = try GestureEngine(device: TouchScript.phone)
        var out = EngineOutput()
        engine.process(Self.swipe().events, into: &out)
        #expect(out.events.traces.isEmpty)
        engine.tracing = true
        engine.process(Self.swipe().events, into: &out)
        #expect(out.events.traces.contains("idle -> 1 finger down -> possible"))
        #expect(out.events.traces.contains("possible -> fingers moved together -> pan #2"))
        #expect(out.events.traces.contains("pan #2 -> fingers lifted -> end -> idle"))
        let traced = out.events.traces.count
        engine.tracing = false
        engine.process(Self.swipe().events, into: &out)
        #expect(out.events.traces.count == traced)
        #expect(out.gestures.filter { $0.phase == .end }.count == 3)
    }

    /// The engine fires a passed deadline before the event that passed it: feeding events one by one
    /// gives the zero-velocity update with the deadline's time, before the lift.
    @Test func aPassedDeadlineFiresBeforeTheEvent() throws {
        var s = TouchScript()
        s.down(0, 50, 80); s.frame()
        s.drag([0], by: 30, 0)
        s.wait(0.5)
        s.up(0); s.frame()
        var engine = try GestureEngine(device: TouchScript.phone)
        var out = EngineOutput()
        engine.process(s.events, into: &out)
        let g = out.gestures
        let stop = try #require(g.dropLast().last)
        #expect(stop.phase == .update && stop.velocityMMPerSecond == .zero)
        #expect(stop.timeMicroseconds == g[g.count - 3].timeMicroseconds + 80_000)
        #expect(g.last?.phase == .end && g.last?.committed == true)
        #expect(g.last?.velocityMMPerSecond == .zero)  // released after stopping: not a fling
        #expect(engine.nextDeadlineMicroseconds == nil)
    }

    @Test func deadlinesAreDisarmedWhenTheGestureEnds() throws {
        var s = TouchScript()
        s.down(0, 50, 80); s.frame()
        s.drag([0], by: 30, 0)
        var engine = try GestureEngine(device: TouchScript.phone)
        var out = EngineOutput()
        engine.process(s.events, into: &out)
        #expect(engine.nextDeadlineMicroseconds != nil)  // moving: a stop is due if it stops
        s.up(0); s.frame()
        engine.process(Array(s.events.suffix(3)), into: &out)
        #expect(out.gestures.last?.phase == .end)
        #expect(engine.nextDeadlineMicroseconds == nil)  // idle: nothing wakes the daemon
        #expect(!out.warnings.contains { $0.message.contains("internal error") })
    }

    /// A reset (a replay pass ended) cancels and forgets every touch: a finger still down in the old
    /// pass does not block the next.
    @Test func aResetForgetsEveryTouch() throws {
        var s = TouchScript()
        s.down(0, 50, 80); s.frame()
        s.drag([0], by: 30, 0)
        var engine = try GestureEngine(device: TouchScript.phone)
        var out = EngineOutput()
        engine.process(s.events, into: &out)
        engine.reset(atMicroseconds: s.time, into: &out)
        #expect(out.gestures.last?.phase == .cancel)
        #expect(engine.nextDeadlineMicroseconds == nil)
        var next = TouchScript()  // the same tracking ids and slot again, as a looping replay sends them
        next.down(0, 20, 40); next.frame()
        next.drag([0], by: 0, 40)
        next.up(0); next.frame()
        engine.process(next.events.map { var e = $0; e.timeMicroseconds += s.time; return e }, into: &out)
        #expect(out.gestures.phases.suffix(3) == ["pan:begin", "pan:update", "pan:end"])
        #expect(out.gestures.last?.direction == .down)
    }

    /// Warnings about the device are kept apart; warnings about input come in the output stream, where
    /// they happened.
    @Test func warningsComeInOrderWithTheGestures() throws {
        var device = TouchScript.phone
        device.axes[ABS.mtPositionX]?.resolution = 0
        device.axes[ABS.mtPositionY]?.resolution = 0
        var s = TouchScript(device: device)
        s.down(0, 50, 80); s.frame()
        s.raw(EV.syn, SYN.dropped, 0)
        s.frame()
        var engine = try GestureEngine(device: device)
        #expect(engine.deviceWarnings.count == 1)
        #expect(engine.deviceWarnings[0].message.contains("assuming"))
        var out = EngineOutput()
        engine.process(s.events, into: &out)
        #expect(out.warnings.count == 1)
        #expect(out.warnings[0].message.contains("SYN_DROPPED"))
    }
}
