import GestureVocabulary
import Testing

@testable import GestureCore

/// Taps, holds, resting fingers, start_edge, eight directions and touch decisions, in the touch-script DSL
/// on the 100 × 160 mm test phone.
@Suite struct TapTests {
    @Test func aSingleTapBeginsAtItsLiftAndEndsAfterTheInterval() throws {
        var s = TouchScript()
        s.down(0, 50, 80); s.frame(); s.frame()
        s.up(0); s.frame()
        s.wait(0.4); s.frame()
        let events = try s.run()
        #expect(events.map(\.phase) == [.begin, .end])
        #expect(events[0].timeMicroseconds == 1_020_000)
        #expect(events[1].timeMicroseconds == 1_320_000)
        #expect(events.allSatisfy { $0.kind == .tap && $0.taps == 1 && $0.fingers == 1 })
        #expect(events[1].committed == true)
        #expect(abs(events[0].positionMM.x - 50) < 0.01 && abs(events[0].positionMM.y - 80) < 0.01)
    }

    @Test func aThreeFingerTapWithStaggeredLandingAndLifting() throws {
        var s = TouchScript()
        s.down(0, 40, 80); s.frame()
        s.down(1, 50, 80); s.frame()
        s.down(2, 60, 80); s.frame()
        s.up(0); s.frame()
        s.up(1); s.up(2); s.frame()
        s.wait(0.4); s.frame()
        let events = try s.run()
        #expect(events.map(\.phase) == [.begin, .end])
        #expect(events.allSatisfy { $0.fingers == 3 && $0.taps == 1 })
        #expect(abs(events[0].positionMM.x - 50) < 0.01)
    }

    @Test func aTripleTapWithMaxTapsThree() throws {
        var settings = RecognizerSettings()
        settings.tap.maxTaps = 3
        var s = TouchScript()
        for i in 0..<3 {
            s.down(0, 50 + Double(i), 80); s.frame()
            s.up(0); s.frame()
            s.wait(0.1)
        }
        let events = try s.run(settings: settings)
        #expect(events.map(\.phase) == [.begin, .update, .update, .end])
        #expect(events.map { $0.taps } == [1, 2, 3, 3])
        #expect(events[2].timeMicroseconds == events[3].timeMicroseconds)  // ends at once at max_taps
    }

    /// A second tap too far away, too late, or with other fingers starts a new sequence; the first ends
    /// as a single tap.
    @Test(arguments: [("far", 30.0, 0.1, 1), ("late", 2.0, 0.5, 1), ("two fingers", 2.0, 0.1, 2)])
    func aTapThatIsNotTheNextOfTheSequence(name: String, distance: Double, pause: Double, fingers: Int) throws {
        var s = TouchScript()
        s.down(0, 40, 80); s.frame()
        s.up(0); s.frame()
        s.wait(pause)
        for f in 0..<fingers { s.down(f, 40 + distance + Double(f) * 10, 80) }
        s.frame()
        for f in 0..<fingers { s.up(f) }
        s.frame()
        s.wait(0.5); s.frame()
        let events = try s.run()
        #expect(events.filter { $0.phase == .begin }.count == 2, "\(name)")
        #expect(events.filter { $0.phase == .end }.map { $0.taps } == [1, 1], "\(name)")
        #expect(Set(events.map(\.id)).count == 2, "\(name)")
    }

    /// Taps by the bottom edge (an on-screen keyboard's last row) are taps, never edge swipes.
    @Test func aTapInTheBottomEdgeZoneIsATap() throws {
        var s = TouchScript()
        s.down(0, 30, 158); s.frame()
        s.move(0, 30.5, 157.5); s.frame()
        s.up(0); s.frame()
        let events = try s.run()
        #expect(events.map(\.kind) == [.tap])
    }

    @Test func aLongPressIsNoTapAndMovingIsNoTap() throws {
        var long = TouchScript()
        long.down(0, 50, 80); long.frame()
        long.wait(0.45); long.frame()
        long.up(0); long.frame()
        var noHold = RecognizerSettings()
        noHold.hold.enabled = false
        #expect(try long.run(settings: noHold).isEmpty)  // 0.45 s: past the 0.4 s tap, before the hold

        var moved = TouchScript()
        moved.down(0, 50, 80); moved.frame()
        moved.drag([0], by: 4, 0, steps: 2)
        moved.drag([0], by: -4, 0, steps: 2)  // back where it landed, but it passed the slop
        moved.up(0); moved.frame()
        #expect(!(try moved.run()).contains { $0.kind == .tap })
    }

    /// A tap waiting for its next tap ends when that touch becomes a hold, with the hold's time: the
    /// deadline's, not the later frame's that fired it (docs/protocol.md, "When events happen").
    @Test func aTapSequenceEndsAtTheHoldItsNextTouchBecomes() throws {
        var s = TouchScript()
        s.down(0, 50, 80); s.frame()  // 1.000 s
        s.up(0); s.frame()  // the lift, 1.010 s: the tap begins
        s.wait(0.1)
        s.down(0, 51, 80); s.frame()  // within the multi-tap interval, 1.120 s
        s.wait(0.7); s.frame()  // 1.830 s: past the hold time
        s.up(0); s.frame()
        let events = try s.run()
        #expect(events.phases == ["tap:begin", "tap:end", "hold:begin", "hold:end"])
        #expect(events[0].timeMicroseconds == 1_010_000)
        #expect(events[1].timeMicroseconds == 1_620_000 && events[2].timeMicroseconds == 1_620_000)
        #expect(events[1].taps == 1 && events[1].committed == true)
    }

    @Test func tapsDisabled() throws {
        var settings = RecognizerSettings()
        settings.tap.enabled = false
        var s = TouchScript()
        s.down(0, 50, 80); s.frame()
        s.up(0); s.frame()
        #expect(try s.run(settings: settings).isEmpty)
    }
}

@Suite struct HoldTests {
    @Test func holdAndDrag() throws {
        var s = TouchScript()
        s.down(0, 50, 80); s.frame()
        s.wait(0.6); s.frame()
        s.drag([0], by: 20, 0)
        s.up(0); s.frame()
        let events = try s.run()
        #expect(events.phases == ["hold:begin", "hold:update", "hold:end"])
        #expect(events[0].timeMicroseconds == 1_500_000)
        #expect(abs(events.last!.translationMM.x - 20) < 0.01)
        #expect(events.last?.committed == true)
    }

    @Test func aFingerThatMovesBeforeTheHoldTimeIsAPan() throws {
        var s = TouchScript()
        s.down(0, 50, 80); s.frame()
        s.wait(0.3); s.frame()
        s.drag([0], by: 20, 0, steps: 40)
        s.up(0); s.frame()
        #expect(try s.run().allSatisfy { $0.kind == .pan })
    }

    /// The hold time counts from the last finger's landing.
    @Test func aTwoFingerHold() throws {
        var s = TouchScript()
        s.down(0, 40, 80); s.frame()
        s.wait(0.1); s.down(1, 60, 80); s.frame()
        s.wait(0.7); s.frame()
        s.up(0); s.up(1); s.frame()
        let events = try s.run()
        #expect(events.map(\.phase) == [.begin, .end])
        #expect(events[0].fingers == 2 && events[0].timeMicroseconds == 1_110_000 + 500_000)
    }
}

@Suite struct RestingFingerTests {
    /// A thumb gripping the edge for a second does not join the other hand's two-finger swipe, nor block
    /// it; its hold is cancelled when the other hand lands.
    @Test func aGrippingThumbNeitherJoinsNorBlocks() throws {
        var s = TouchScript()
        s.down(0, 3, 100); s.frame()
        s.wait(1); s.frame()
        s.down(1, 50, 120); s.down(2, 70, 120); s.frame()
        s.drag([1, 2], by: 0, -60, steps: 30)
        s.up(1); s.up(2); s.frame()
        s.up(0); s.frame()
        let events = try s.run()
        #expect(events.filter { $0.kind == .hold }.map(\.phase) == [.begin, .cancel])
        let pan = events.filter { $0.kind == .pan }
        #expect(pan.phases == ["pan:begin", "pan:update", "pan:end"])
        #expect(pan.allSatisfy { $0.fingers == 2 })
        #expect(pan.last?.direction == .up && pan.last?.committed == true)
    }

    /// Two new fingers pinch while an older finger, left down after its gesture ended, rests.
    @Test func aFingerLeftDownAfterAGestureDoesNotBlockTheNext() throws {
        var s = TouchScript()
        s.down(0, 20, 40); s.down(1, 40, 40); s.frame()
        s.drag([0, 1], by: 0, 40, steps: 20)
        s.up(1); s.frame()  // the pan ends; finger 0 stays down
        s.wait(0.5); s.frame()
        s.down(2, 50, 100); s.down(3, 70, 100); s.frame()
        s.animate([2, 3], steps: 20) { f, t in f == 2 ? (50 - 10 * t, 100) : (70 + 10 * t, 100) }
        s.up(2); s.up(3); s.frame()
        let events = try s.run()
        #expect(events.filter { $0.phase == .end }.map(\.kind) == [.pan, .pinch])
        #expect(events.last?.fingers == 2 && events.last?.committed == true)
    }
}

@Suite struct StartEdgeAndDirectionTests {
    /// A swipe along the bottom edge fails the edge swipe and is a pan that says where it started.
    @Test func aSwipeAlongTheBottomEdgeCarriesStartEdge() throws {
        var s = TouchScript()
        s.down(0, 20, 158); s.frame()
        s.drag([0], by: 60, 0, steps: 6)
        s.up(0); s.frame()
        let events = try s.run()
        #expect(events.allSatisfy { $0.kind == .pan && $0.startEdge == .bottom })
        #expect(events.last?.direction == .right)
    }

    @Test func twoFingersFromTheBottomEdgeCarryStartEdgeAndACornerNamesTheCorner() throws {
        var s = TouchScript()
        s.down(0, 40, 158); s.down(1, 60, 157); s.frame()
        s.drag([0, 1], by: 0, -60, steps: 6)
        s.up(0); s.up(1); s.frame()
        #expect(try s.run().allSatisfy { $0.kind == .pan && $0.fingers == 2 && $0.startEdge == .bottom })

        var c = TouchScript()
        c.down(0, 2, 158); c.frame()
        c.drag([0], by: 50, -2, steps: 6)  // along the bottom from the bottom-left corner: left edge swipe
        c.up(0); c.frame()
        var off = RecognizerSettings()
        off.edgeSwipe.enabled = false
        #expect(try c.run(settings: off).allSatisfy { $0.kind == .pan && $0.startEdge == .bottomLeft })
    }

    @Test func aPanFromTheMiddleHasNoStartEdge() throws {
        var s = TouchScript()
        s.down(0, 50, 80); s.frame()
        s.drag([0], by: 0, 40, steps: 4)
        s.up(0); s.frame()
        #expect(try s.run().allSatisfy { $0.startEdge == nil })
    }

    @Test func eightDirections() throws {
        var settings = RecognizerSettings()
        settings.pan.directions = 8
        let cases: [((Double, Double), SwipeDirection)] = [
            ((30, 0), .right), ((30, 30), .downRight), ((0, 30), .down), ((-30, 30), .downLeft),
            ((-30, 0), .left), ((-30, -30), .upLeft), ((0, -30), .up), ((30, -30), .upRight),
            ((30, 20), .downRight), ((30, 10), .right),  // 33.7° and 18.4° below the horizontal
        ]
        for ((dx, dy), direction) in cases {
            var s = TouchScript()
            s.down(0, 50, 80); s.frame()
            s.drag([0], by: dx, dy, steps: 3)
            s.up(0); s.frame()
            #expect(try s.run(settings: settings).last?.direction == direction, "\(dx), \(dy)")
            // With four, the diagonal has none.
            if dx != 0 && dy != 0 && abs(dx) == abs(dy) { #expect(try s.run().last?.direction == nil) }
        }
    }
}

@Suite struct TouchDecisionTests {
    static var passthrough: RecognizerSettings {
        var s = RecognizerSettings()
        s.withholdsTouches = true
        return s
    }

    static func decisions(_ s: TouchScript, settings: RecognizerSettings = passthrough) throws -> [TouchDecision] {
        var engine = try GestureEngine(device: s.device, settings: settings)
        var out = EngineOutput()
        for e in s.events { engine.process(e, into: &out) }
        return out.touches
    }

    @Test func aCentreTouchIsNeverWithheld() throws {
        var s = TouchScript()
        s.down(0, 50, 80); s.frame()
        s.drag([0], by: 0, 30)
        s.up(0); s.frame()
        #expect(try Self.decisions(s).isEmpty)
    }

    @Test func anEdgeSwipeIsWithheldThenClaimed() throws {
        var s = TouchScript()
        s.down(0, 1, 80); s.frame()
        s.drag([0], by: 40, 0, steps: 4)
        s.up(0); s.frame()
        let d = try Self.decisions(s)
        guard case .withhold(let w) = d.first, case .claim(let c) = d.last else {
            Issue.record("decisions: \(d)")
            return
        }
        #expect(d.count == 2 && w == c && w.count == 1)
    }

    @Test func anEdgeTapIsReleasedAtItsLiftAndAnAlongEdgeStrokeWhenItFails() throws {
        var tap = TouchScript()
        tap.down(0, 1, 80); tap.frame()
        tap.up(0); tap.frame()
        let d = try Self.decisions(tap)
        #expect(d.count == 2)
        if case .withhold(let w) = d.first, case .release(let r) = d.last { #expect(w == r) } else { Issue.record("\(d)") }

        var along = TouchScript()
        along.down(0, 1, 40); along.frame()
        along.drag([0], by: 0, 40, steps: 4)
        along.up(0); along.frame()
        let a = try Self.decisions(along)
        #expect(a.count == 2)
        if case .release = a.last {} else { Issue.record("\(a)") }
    }

    @Test func aStillEdgeTouchIsReleasedAtTheWithholdLimit() throws {
        var s = TouchScript()
        s.down(0, 1, 80); s.frame()
        s.wait(0.2); s.frame()
        #expect(try Self.decisions(s) == [.withhold([1]), .release([1])])
        // Released at 0.12 s: the edge swipe failed, so moving inward now is a pan.
        s.drag([0], by: 40, 0, steps: 4)
        s.up(0); s.frame()
        #expect(try s.run(settings: Self.passthrough).first?.kind == .pan)
    }

    @Test func aClaimedThreeFingerPanClaimsItsTouches() throws {
        var settings = Self.passthrough
        settings.pan.claim = true
        var s = TouchScript()
        s.down(0, 30, 80); s.down(1, 50, 80); s.down(2, 70, 80); s.frame()
        s.drag([0, 1, 2], by: 0, -50, steps: 5)
        s.up(0); s.up(1); s.up(2); s.frame()
        let d = try Self.decisions(s, settings: settings)
        guard d.count == 1, case .claim(let c) = d[0] else {
            Issue.record("decisions: \(d)")
            return
        }
        #expect(c.count == 3)
        // Two fingers are no claimed pan; without passthrough there are no decisions at all.
        var two = TouchScript()
        two.down(0, 30, 80); two.down(1, 50, 80); two.frame()
        two.drag([0, 1], by: 0, -50, steps: 5)
        two.up(0); two.up(1); two.frame()
        #expect(try Self.decisions(two, settings: settings).isEmpty)
        var off = settings
        off.withholdsTouches = false
        #expect(try Self.decisions(s, settings: off).isEmpty)
    }
}
