import Testing
@testable import GestureCore
import GestureVocabulary

@Suite struct PanTests {
    @Test func oneFingerPanRight() throws {
        var s = TouchScript()
        s.down(0, 30, 80); s.frame()
        s.drag([0], by: 40, 2, steps: 10)
        s.up(0); s.frame()
        let events = try s.run()
        #expect(events.phases == ["pan:begin", "pan:update", "pan:end"])
        let begin = events[0]
        #expect(begin.translationMM.x >= 3)  // begins once past the 3 mm slop
        let end = try #require(events.last)
        #expect(end.committed == true)
        #expect(end.direction == .right)
        #expect(abs(end.translationMM.x - 40) < 0.01)
        #expect(abs(end.position.x - 0.7) < 0.001)
        #expect(end.positionMM.y == 82)
        #expect(Set(events.map(\.id)).count == 1)
    }

    @Test(arguments: [
        ((0.0, -40.0), SwipeDirection.up), ((0.0, 40.0), .down), ((-40.0, 0.0), .left), ((40.0, 0.0), .right),
    ])
    func directions(move: (Double, Double), direction: SwipeDirection) throws {
        var s = TouchScript()
        s.down(0, 50, 80); s.frame()
        s.drag([0], by: move.0, move.1)
        s.up(0); s.frame()
        #expect(try s.run().last?.direction == direction)
    }

    @Test func diagonalHasNoDirection() throws {
        var s = TouchScript()
        s.down(0, 30, 60); s.frame()
        s.drag([0], by: 30, 30)
        s.up(0); s.frame()
        let end = try #require(try s.run().last)
        #expect(end.committed == true)
        #expect(end.direction == nil)
    }

    @Test func shortSlowPanDoesNotCommit() throws {
        var s = TouchScript()
        s.down(0, 50, 80); s.frame()
        s.drag([0], by: 8, 0, steps: 20)
        s.wait(0.2)
        s.up(0); s.frame()
        let end = try #require(try s.run().last)
        #expect(end.kind == .pan && end.phase == .end)
        #expect(end.committed == false)
        #expect(end.direction == nil)
    }

    @Test func aTapIsATapNotAPan() throws {
        var s = TouchScript()
        s.down(0, 50, 80); s.frame()
        s.move(0, 50.5, 80.3); s.frame()
        s.up(0); s.frame()
        let events = try s.run()
        #expect(events.phases == ["tap:begin"])  // its end comes when the multi-tap interval has passed
        #expect(events.allSatisfy { $0.kind == .tap && $0.taps == 1 && $0.fingers == 1 })
    }

    /// Two seconds of jitter within the slop: a hold (after 0.5 s) that ends at the lift, never a pan.
    @Test func restingFingerWithJitterIsAHoldNotAPan() throws {
        var s = TouchScript()
        s.down(0, 50, 80); s.frame()
        // Two seconds of ±1 mm jitter, deterministic.
        var seed: UInt64 = 42
        for _ in 0..<200 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            let dx = Double(Int(seed >> 33) % 21 - 10) / 10
            let dy = Double(Int(seed >> 45) % 21 - 10) / 10
            s.move(0, 50 + dx, 80 + dy); s.frame()
        }
        s.up(0); s.frame()
        let events = try s.run()
        #expect(events.phases == ["hold:begin", "hold:update", "hold:end"])
        #expect(events.first.map { $0.timeMicroseconds } == Int64(1_500_000))
        #expect(events.last?.committed == true)
        var noHold = RecognizerSettings()
        noHold.hold.enabled = false
        #expect(try s.run(settings: noHold).isEmpty)
    }

    @Test func twoFingersInParallelArePanNotPinch() throws {
        var s = TouchScript()
        s.down(0, 40, 80); s.down(1, 60, 82); s.frame()
        s.animate([0, 1], steps: 20) { finger, f in
            // Parallel, with a little drift between the fingers as real hands have.
            finger == 0 ? (40, 80 - 50 * f) : (60 + 2 * f, 82 - 48 * f)
        }
        s.up(0); s.frame()
        s.up(1); s.frame()
        let events = try s.run()
        #expect(events.phases == ["pan:begin", "pan:update", "pan:end"])
        #expect(events.allSatisfy { $0.fingers == 2 })
        #expect(events.last?.direction == .up)
    }

    @Test func fingersLandingAtDifferentTimes() throws {
        var s = TouchScript()
        s.down(0, 40, 80); s.frame()
        s.drag([0], by: 0, 4, steps: 4)  // the first finger already moves past the slop...
        s.down(1, 60, 84); s.frame()  // ...when the second lands, 50 ms after it
        s.drag([0, 1], by: 0, 40, steps: 40)  // 100 mm/s: slower than a fling
        s.up(0); s.up(1); s.frame()
        let events = try s.run()
        // One hand: the one-finger pan is held back while the hand lands, so clients see one two-finger
        // pan, never a one-finger pan begun and cancelled.
        #expect(events.phases == ["pan:begin", "pan:update", "pan:end"])
        #expect(events.allSatisfy { $0.fingers == 2 })
        #expect(events.last?.committed == true && events.last?.direction == .down)
        // It begins when the landing window has passed since the second finger landed, with the
        // translation since then.
        #expect(events.first.map { $0.timeMicroseconds } == Int64(1_250_000))
    }

    /// A quick one-finger flick (faster than the fling velocity) begins at once, as before.
    @Test func aFlickIsNotHeldBack() throws {
        var s = TouchScript()
        s.down(0, 50, 140); s.frame()
        s.drag([0], by: 0, -60, steps: 6)  // 60 mm in 60 ms: 1 m/s
        s.up(0); s.frame()
        let events = try s.run()
        #expect(events.phases == ["pan:begin", "pan:update", "pan:end"])
        #expect(events.first!.timeMicroseconds <= 1_000_000 + 20_000)
        #expect(events.last?.direction == .up)
    }

    /// A slow one-finger drag lifted before the landing window passed still happens: it begins and ends
    /// at the lift.
    @Test func aShortSlowDragHeldBackBeginsAndEndsAtTheLift() throws {
        var s = TouchScript()
        s.down(0, 50, 80); s.frame()
        s.drag([0], by: 20, 0, steps: 12)  // 20 mm in 120 ms: 167 mm/s
        s.up(0); s.frame()
        let events = try s.run()
        #expect(events.phases == ["pan:begin", "pan:end"])
        #expect(events[0].timeMicroseconds == events[1].timeMicroseconds)
        #expect(events.last?.committed == true && events.last?.direction == .right)
    }

    @Test func fingerAddedMidGestureCancels() throws {
        var s = TouchScript()
        s.down(0, 40, 80); s.frame()
        s.drag([0], by: 0, 30, steps: 30)  // 300 ms: well past the landing window
        s.down(1, 70, 80); s.frame()
        s.drag([0, 1], by: 0, 20)
        s.up(0); s.up(1); s.frame()
        let events = try s.run()
        // The pan is cancelled; its finger rests, and the finger that landed late pans on its own.
        #expect(events.phases == ["pan:begin", "pan:update", "pan:cancel", "pan:begin", "pan:update", "pan:end"])
        #expect(events.ends.first?.phase == .cancel && events.ends.first?.committed == nil)
        #expect(events.allSatisfy { $0.fingers == 1 })
        #expect(events.last?.positionMM.x == 70)
        // After every finger lifted, recognition works again.
        var t = s
        t.down(0, 40, 80); t.frame()
        t.drag([0], by: 30, 0)
        t.up(0); t.frame()
        #expect(try t.run().phases.suffix(3) == ["pan:begin", "pan:update", "pan:end"])
    }

    @Test func liftingOneOfTwoFingersEndsThePan() throws {
        var s = TouchScript()
        s.down(0, 40, 80); s.down(1, 60, 80); s.frame()
        s.drag([0, 1], by: 0, -40)
        s.up(0); s.frame()
        s.drag([1], by: 0, 30)  // the remaining finger moves on: nothing new begins
        s.up(1); s.frame()
        let events = try s.run()
        #expect(events.phases == ["pan:begin", "pan:update", "pan:end"])
        #expect(events.last?.committed == true)
        #expect(events.last?.direction == .up)
    }

    @Test func fingerCountLimits() throws {
        var settings = RecognizerSettings()
        settings.pan.maxFingers = 2
        var s = TouchScript()
        s.down(0, 20, 80); s.down(1, 40, 80); s.down(2, 60, 80); s.frame()
        s.drag([0, 1, 2], by: 0, 40)
        s.up(0); s.up(1); s.up(2); s.frame()
        #expect(try s.run(settings: settings).isEmpty)
        #expect(try s.run().last?.fingers == 3)
    }

    @Test func stoppedFingersReportZeroVelocityAtTheDeadline() throws {
        var s = TouchScript()
        s.down(0, 30, 80); s.frame()
        s.drag([0], by: 30, 0, steps: 10)
        var engine = try GestureEngine(device: s.device)
        var out = EngineOutput()
        engine.process(s.events, into: &out)
        let last = try #require(out.gestures.last)
        #expect(last.velocityMMPerSecond.x > 100)
        let deadline = try #require(engine.nextDeadlineMicroseconds)
        #expect(deadline == last.timeMicroseconds + 80_000)
        out.removeAll()
        engine.advance(toMicroseconds: deadline - 1, into: &out)
        #expect(out.gestures.isEmpty)
        engine.advance(toMicroseconds: deadline, into: &out)
        #expect(out.gestures.count == 1)
        #expect(out.gestures[0].phase == .update && out.gestures[0].velocityMMPerSecond == .zero)
        #expect(out.gestures[0].positionMM == last.positionMM)
        #expect(engine.nextDeadlineMicroseconds == nil)  // idle until the fingers move again
    }

    @Test func panDisabled() throws {
        var settings = RecognizerSettings()
        settings.pan.enabled = false
        var s = TouchScript()
        s.down(0, 30, 80); s.frame()
        s.drag([0], by: 30, 0)
        s.up(0); s.frame()
        #expect(try s.run(settings: settings).isEmpty)
    }
}
