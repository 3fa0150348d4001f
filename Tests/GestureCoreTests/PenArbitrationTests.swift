import GestureCore
import GestureVocabulary
import Testing

/// Touch arbitration with the panel's pen: replays of a touchscreen with a pen's proximity stream beside
/// it (BTN_TOOL_PEN / BTN_TOOL_RUBBER frames, read through `PenProximity`).
@Suite struct PenArbitrationTests {
    /// A pen's events: each (seconds after the script's start, tool, in proximity) as one frame.
    static func pen(_ frames: [(Double, UInt16, Bool)], start: Int64 = 1_000_000) -> [InputEvent] {
        frames.flatMap { (t, tool, down) -> [InputEvent] in
            let time = start + Int64(t * 1_000_000)
            return [
                InputEvent(timeMicroseconds: time, type: EV.key, code: tool, value: down ? 1 : 0),
                InputEvent(timeMicroseconds: time, type: EV.abs, code: ABS.x, value: 100),
                InputEvent(timeMicroseconds: time, type: EV.syn, code: SYN.report, value: 0),
            ]
        }
    }

    struct Result {
        var out = EngineOutput()
        var touches: [TouchDecision] { out.touches }
        var gestures: [GestureEvent] { out.gestures }
    }

    /// Feeds the touches and the pen's events in time order (the pen's first at equal times), as the
    /// daemon does with two devices read in one loop.
    static func replay(
        _ s: TouchScript, pen: [InputEvent], settings: RecognizerSettings = RecognizerSettings(), tracing: Bool = true
    ) throws -> Result {
        var engine = try GestureEngine(device: s.device, settings: settings, tracing: tracing)
        var proximity = PenProximity()
        var r = Result()
        var p = 0
        for e in s.events {
            while p < pen.count && pen[p].timeMicroseconds <= e.timeMicroseconds {
                if let change = proximity.process(pen[p]) {
                    engine.penProximity(change, atMicroseconds: pen[p].timeMicroseconds, into: &r.out)
                }
                p += 1
            }
            engine.process(e, into: &r.out)
        }
        return r
    }

    /// A left-edge swipe starting `at` seconds after the script's start.
    static func edgeSwipe(at seconds: Double) -> TouchScript {
        var s = TouchScript()
        s.wait(seconds)
        s.down(0, 1, 80); s.frame()
        s.drag([0], by: 60, 0, steps: 20)
        s.up(0); s.frame()
        return s
    }

    @Test func proximityFollowsPenAndRubber() {
        var p = PenProximity()
        func frame(_ code: UInt16, _ v: Int32) -> [Bool?] {
            [p.process(InputEvent(timeMicroseconds: 0, type: EV.key, code: code, value: v)),
             p.process(InputEvent(timeMicroseconds: 0, type: EV.syn, code: SYN.report, value: 0))]
        }
        #expect(frame(BTN.toolPen, 1) == [nil, true])
        #expect(frame(BTN.toolRubber, 1) == [nil, nil])
        #expect(frame(BTN.toolPen, 0) == [nil, nil])  // the rubber is still in proximity
        #expect(frame(BTN.toolRubber, 0) == [nil, false])
        #expect(p.lost() == nil)
        _ = frame(BTN.toolPen, 1)
        #expect(p.lost() == false)
        #expect(!p.inProximity)
    }

    @Test func noEdgeSwipeWhilePenInProximity() throws {
        // The pen hovers from before the wrist slides in from the edge until after it lifted.
        let s = Self.edgeSwipe(at: 0.5)
        let r = try Self.replay(s, pen: Self.pen([(0.1, BTN.toolPen, true), (2, BTN.toolPen, false)]))
        #expect(r.gestures.isEmpty)
        // The same without the pen: an edge swipe (the test would pass for nothing otherwise).
        #expect(try Self.replay(s, pen: []).gestures.first?.kind == .edgeSwipe)
    }

    @Test func rubberArbitratesToo() throws {
        let s = Self.edgeSwipe(at: 0.5)
        let r = try Self.replay(s, pen: Self.pen([(0.1, BTN.toolRubber, true)]))
        #expect(r.gestures.isEmpty)
    }

    @Test func swipeJustAfterThePenLeftIsNone() throws {
        let s = Self.edgeSwipe(at: 0.6)
        let r = try Self.replay(s, pen: Self.pen([(0.1, BTN.toolPen, true), (0.5, BTN.toolPen, false)]))
        #expect(r.gestures.isEmpty)
    }

    @Test func swipeAfterTheArbitrationTimeIsAnEdgeSwipe() throws {
        let left = 0.5
        let s = Self.edgeSwipe(at: left + GestureEngine.penArbitrationSeconds + 0.01)
        let r = try Self.replay(s, pen: Self.pen([(0.1, BTN.toolPen, true), (left, BTN.toolPen, false)]))
        #expect(r.gestures.phases == ["edge-swipe:begin", "edge-swipe:update", "edge-swipe:end"])
    }

    @Test func runningGestureIsCancelledWithATypedReason() throws {
        var s = TouchScript()
        s.down(0, 50, 80); s.frame()
        s.drag([0], by: 30, 0, steps: 10)  // a pan, 0.1 s
        s.drag([0], by: 30, 0, steps: 10)
        s.up(0); s.frame()
        let penIn = 0.15
        let r = try Self.replay(s, pen: Self.pen([(penIn, BTN.toolPen, true)]))
        #expect(r.gestures.phases == ["pan:begin", "pan:update", "pan:cancel"])
        let stop = try #require(r.out.stops.first)
        #expect(stop.reason == .penInProximity)
        #expect(stop.kind == .pan)
        #expect(stop.id == r.gestures.first?.id)
        #expect(stop.timeMicroseconds == 1_000_000 + Int64(penIn * 1_000_000))
        #expect(stop.description.hasPrefix("the pen in proximity stopped pan #"))
        // Not tracing: no stop output, the same gestures.
        let quiet = try Self.replay(s, pen: Self.pen([(penIn, BTN.toolPen, true)]), tracing: false)
        #expect(quiet.out.stops.isEmpty)
        #expect(quiet.gestures == r.gestures)
    }

    @Test func palmStopIsTyped() throws {
        var s = TouchScript()
        s.down(0, 30, 80, tool: MTTool.finger); s.frame()
        s.drag([0], by: 30, 0)
        s.tool(0, MTTool.palm); s.frame()
        s.up(0); s.frame()
        let r = try Self.replay(s, pen: [])
        #expect(r.out.stops.map(\.reason) == [.palm])
        #expect(r.out.stops.first?.kind == .pan)
    }

    @Test func tapAfterTheTimeIsATapAgain() throws {
        var s = TouchScript()
        // A tap while the pen is in proximity, one just after it left, one after the time.
        for start in [0.3, 0.45, 1.2] {
            let target = 1_000_000 + Int64(start * 1_000_000)
            s.wait(Double(target - s.time) / 1_000_000)
            s.down(0, 50, 80); s.frame()
            s.frame()
            s.up(0); s.frame()
        }
        s.wait(1); s.frame()  // past the multi-tap interval: the tap ends
        let r = try Self.replay(s, pen: Self.pen([(0.1, BTN.toolPen, true), (0.4, BTN.toolPen, false)]))
        #expect(r.gestures.phases == ["tap:begin", "tap:end"])
        #expect(r.gestures.first.map { $0.timeMicroseconds >= 2_200_000 } == true)
    }

    @Test func touchLandedDuringArbitrationRestsUntilItLifts() throws {
        // The wrist lands while the pen hovers and is still down, moving, after the time: no gesture.
        var s = TouchScript()
        s.wait(0.2)
        s.down(0, 1, 80); s.frame()
        for _ in 0..<5 { s.drag([0], by: 20, 0, steps: 20) }
        s.up(0); s.frame()
        let r = try Self.replay(s, pen: Self.pen([(0.1, BTN.toolPen, true), (0.3, BTN.toolPen, false)]))
        #expect(s.time > 1_000_000 + 1_000_000)  // the touch outlasts the arbitration
        #expect(r.gestures.isEmpty)
    }

    @Test func passthroughNothingWithheldOrClaimed() throws {
        var settings = RecognizerSettings()
        settings.withholdsTouches = true
        // Without the pen the edge touch is held back, then claimed by the swipe.
        let s = Self.edgeSwipe(at: 0.5)
        let free = try Self.replay(s, pen: [], settings: settings)
        #expect(free.touches.contains { if case .withhold = $0 { return true } else { return false } })
        // With the pen in proximity: no decision at all, so every touch goes to the copy as it comes.
        let r = try Self.replay(s, pen: Self.pen([(0.1, BTN.toolPen, true)]), settings: settings)
        #expect(r.touches.isEmpty)
        #expect(r.gestures.isEmpty)
    }

    @Test func penArrivingWhileATouchIsHeldBackReleasesIt() throws {
        var settings = RecognizerSettings()
        settings.withholdsTouches = true
        var s = TouchScript()
        s.down(0, 1, 80); s.frame()  // held back: it may become an edge swipe
        s.frame(); s.frame()
        s.drag([0], by: 40, 0, steps: 10)
        s.up(0); s.frame()
        let r = try Self.replay(s, pen: Self.pen([(0.015, BTN.toolPen, true)]), settings: settings)
        #expect(r.touches.first == .withhold([1]))
        #expect(r.touches.dropFirst().elementsEqual([.release([1])]))
        #expect(!r.touches.contains { if case .claim = $0 { return true } else { return false } })
        #expect(r.gestures.isEmpty)
    }
}
