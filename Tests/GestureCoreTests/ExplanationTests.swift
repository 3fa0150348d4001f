import Testing
@testable import GestureCore
import GestureVocabulary

/// Each rule's reasons, with the numbers computed by hand from the script's millimetres (TouchScript's
/// 100 × 160 mm panel at 10 units/mm, frames 10 ms apart), and the engine's explanations of whole
/// touch sequences.
@Suite struct ExplanationTests {
    /// Runs the script through an explaining engine to its end (what is still open is cancelled there).
    static func explain(
        _ s: TouchScript, settings: RecognizerSettings = RecognizerSettings(), exclusions: EdgeExclusions = EdgeExclusions(),
        tracing: Bool = false
    ) throws -> (explanations: [Explanation], outputs: [EngineEvent]) {
        var engine = try GestureEngine(device: s.device, settings: settings, tracing: tracing)
        engine.explaining = true
        engine.setExclusions(exclusions)
        var replay = RecordingReplay(engine: engine)
        var outputs: [EngineEvent] = []
        replay.run(s.events) { outputs += $0 }
        let explanations = outputs.compactMap { o -> Explanation? in if case .explanation(let x) = o { return x } else { return nil } }
        return (explanations, outputs)
    }

    static func reason(_ x: Explanation, _ kind: GestureKind) -> Reason? { x.reasons.first { $0.kind == kind && $0.gestureID == nil } }

    // MARK: Near misses

    @Test func aTouchJustOutsideTheZoneMovingInwardIsANearMiss() throws {
        // Lands 7 mm from the left (zone 5 mm, twice is 10) and moves 40 mm right: a pan, and an edge swipe
        // that did not start by 2 mm.
        var s = TouchScript()
        s.down(0, 7, 80); s.frame()
        s.drag([0], by: 40, 0, steps: 10)
        s.up(0); s.frame()
        let (xs, _) = try Self.explain(s)
        let x = try #require(xs.first)
        #expect(xs.count == 1)
        #expect(x.gestures.map(\.kind) == [.pan])
        let miss = try #require(Self.reason(x, .edgeSwipe))
        #expect(miss.cause == .nearMiss)
        #expect(miss.edge == .left)
        let zone = try #require(miss.measurement(.distanceFromEdge))
        #expect(abs(zone.value - 7) < 1e-9)
        #expect(zone.key == "edge_swipe.left.zone_mm" && zone.setting == 5)
        #expect(abs(try #require(miss.measurement(.angleFromInward)).value) < 1e-6)
        #expect(abs(try #require(miss.landing).fromLeftMM - 7) < 1e-9)
        #expect(x.nearMisses == [miss])
        #expect(miss.description == "edge-swipe: near miss, did not start: landed 7.0 mm from the left edge (edge_swipe.left.zone_mm 5) and moved inward, 0° from inward (angle_tolerance_degrees 30)")
    }

    @Test func fartherThanTwiceTheZoneIsNoNearMiss() throws {
        var s = TouchScript()
        s.down(0, 10.5, 80); s.frame()
        s.drag([0], by: 40, 0, steps: 10)
        s.up(0); s.frame()
        let x = try #require(try Self.explain(s).explanations.first)
        let r = try #require(Self.reason(x, .edgeSwipe))
        #expect(r.cause == .outsideZone)
        #expect(abs(try #require(r.measurement(.distanceFromEdge)).value - 10.5) < 1e-9)
        #expect(r.text == "landed 10.5 mm from the left edge (edge_swipe.left.zone_mm 5)")
        #expect(x.nearMisses.isEmpty)
    }

    @Test func justOutsideButMovingAlongTheEdgeIsNoNearMiss() throws {
        var s = TouchScript()
        s.down(0, 7, 40); s.frame()
        s.drag([0], by: 0, 40, steps: 10)
        s.up(0); s.frame()
        let x = try #require(try Self.explain(s).explanations.first)
        #expect(Self.reason(x, .edgeSwipe)?.cause == .outsideZone)
    }

    @Test func aSideWithItsOwnWidthIsNamedByItsOwnKey() throws {
        var settings = RecognizerSettings()
        settings.edgeZones.left.widthMM = 4
        var s = TouchScript()
        s.down(0, 6, 80); s.frame()
        s.drag([0], by: 30, 0, steps: 10)
        s.up(0); s.frame()
        let x = try #require(try Self.explain(s, settings: settings).explanations.first)
        let r = try #require(Self.reason(x, .edgeSwipe))
        #expect(r.cause == .nearMiss)
        #expect(r.measurements.first?.key == "edge_swipe.left.zone_mm")
        #expect(r.measurements.first?.setting == 4)
    }

    // MARK: Edge swipes

    @Test func movingOffInwardGivesTheAngle() throws {
        // From 1 mm, 20 mm at 60° from inward (dx = 10, dy = 17.3205): the edge swipe fails at the slop.
        var s = TouchScript()
        s.down(0, 1, 60); s.frame()
        s.drag([0], by: 10, 17.320508, steps: 20)
        s.up(0); s.frame()
        let x = try #require(try Self.explain(s).explanations.first)
        let r = try #require(Self.reason(x, .edgeSwipe))
        #expect(r.cause == .notInward)
        let angle = try #require(r.measurement(.angleFromInward))
        // Device units round the positions to 0.1 mm; the slop is passed at the 4th frame: (2, 3.5) mm.
        #expect(abs(angle.value - 60) < 1)
        #expect(angle.key == "angle_tolerance_degrees" && angle.setting == 30)
        #expect(r.text.hasPrefix("moved 6"))
        #expect(r.text.hasSuffix("° from inward of the left edge (angle_tolerance_degrees 30)"))
    }

    @Test func anEdgeSwipeReleasedShortSaysWhyItDidNotCommit() throws {
        // 20 mm inward from 1 mm, then still for 0.2 s (velocity 0): progress 0.2 of the 100 mm width.
        var s = TouchScript()
        s.down(0, 1, 80); s.frame()
        s.drag([0], by: 20, 0, steps: 10)
        s.wait(0.2); s.frame()
        s.up(0); s.frame()
        let x = try #require(try Self.explain(s).explanations.first)
        #expect(x.gestures.map(\.outcome) == [.notCommitted])
        let r = try #require(x.reasons.first { $0.gestureID == x.gestures.first?.id })
        #expect(r.cause == .notCommitted)
        #expect(r.measurements.map(\.key) == ["edge_swipe.commit_distance_mm", "edge_swipe.fling_velocity_mm_per_s", "edge_swipe.commit_progress"])
        #expect(abs(r.measurements[0].value - 20) < 1e-6)
        #expect(r.measurements[1].value == 0)
        #expect(abs(r.measurements[2].value - 0.2) < 1e-6)
        #expect(r.description == "edge-swipe #1: not committed: travelled 20.0 mm (edge_swipe.commit_distance_mm 25), released at 0 mm/s (edge_swipe.fling_velocity_mm_per_s 200), progress 0.20 (edge_swipe.commit_progress 0.5)")
    }

    @Test func anExcludedPartOfTheEdgeIsSaid() throws {
        var s = TouchScript()
        s.down(0, 1, 80); s.frame()
        s.drag([0], by: 30, 0, steps: 10)
        s.up(0); s.frame()
        let x = try #require(try Self.explain(s, exclusions: EdgeExclusions([EdgeExclusion(edge: .left, from: 0.25, to: 0.75)])).explanations.first)
        #expect(x.gestures.map(\.kind) == [.pan])
        let r = try #require(Self.reason(x, .edgeSwipe))
        #expect(r.cause == .excluded)
        #expect(r.excludedRange == 0.25...0.75)
        #expect(r.text == "edge swipes are excluded here (exclusion from 0.25 to 0.75 of the left edge)")
        #expect(x.fingers.first?.zones == [])
    }

    @Test func anExcludedPartNamesWhoKeepsIt() throws {
        var s = TouchScript()
        s.down(0, 1, 80); s.frame()
        s.drag([0], by: 30, 0, steps: 10)
        s.up(0); s.frame()
        let exclusions = EdgeExclusions([
            EdgeExclusion(edge: .left, from: 0, to: 0.2, source: "gestured.toml:3:1"),
            EdgeExclusion(edge: .left, from: 0.25, to: 0.75, source: "client 3 (uid 1000, pid 42 kiosk)"),
        ])
        let x = try #require(try Self.explain(s, exclusions: exclusions).explanations.first)
        let r = try #require(Self.reason(x, .edgeSwipe))
        #expect(r.cause == .excluded)
        #expect(r.exclusionSource == "client 3 (uid 1000, pid 42 kiosk)")
        #expect(r.text == "edge swipes are excluded here (exclusion from 0.25 to 0.75 of the left edge, set by client 3 (uid 1000, pid 42 kiosk))")
    }

    // MARK: Tap, hold, pan, pinch

    @Test func aTapThatMovedSaysHowFar() throws {
        // 8.1 mm to the right in 5 frames: the 4th (6.48 mm, 65 device units at 10 a mm: 6.5 mm) passes
        // twice the slop (a contact that passed the slop by less and lifted at once would be a tap); the
        // tap's reason is what it measured then.
        var s = TouchScript()
        s.down(0, 50, 80); s.frame()
        s.drag([0], by: 8.1, 0, steps: 5)
        s.up(0); s.frame()
        let x = try #require(try Self.explain(s).explanations.first)
        let r = try #require(Self.reason(x, .tap))
        #expect(r.cause == .moved)
        #expect(abs(r.measurements[0].value - 6.5) < 1e-9)
        #expect(r.description == "tap: moved 6.5 mm (slop_mm 3)")
    }

    @Test func aHoldLiftedEarlySaysWhen() throws {
        // Lands in the frame at 1.000 s, a frame at 1.420 s, lifts in the next (1.430 s): too long for a tap
        // (0.4 s), too short for a hold (0.5 s).
        var s = TouchScript()
        s.down(0, 50, 80); s.frame()
        s.wait(0.41); s.frame()
        s.up(0); s.frame()
        let x = try #require(try Self.explain(s).explanations.first)
        #expect(x.gestures.isEmpty)
        #expect(Self.reason(x, .hold)?.description == "hold: lifted after 0.43 s (hold.hold_seconds 0.5)")
        #expect(Self.reason(x, .tap)?.description == "tap: down 0.43 s (tap.max_duration_seconds 0.4)")
        #expect(Self.reason(x, .pan)?.description == "pan: moved 0.0 mm (slop_mm 3)")
        #expect(Self.reason(x, .pinch)?.description == "pinch: 1 finger (pinch.min_fingers 2)")
        #expect(x.text(relativeToMicroseconds: 1_000_000).hasPrefix("touch at 0.000 s to 0.430 s, 1 finger:\n  finger 1 landed 50.0 mm from the left, 80.0 mm from the top (no edge zone)\n  became: nothing\n"))
    }

    @Test func aPanOffAxisSaysHowFarOff() throws {
        // 30 mm at 40° below the horizontal: committed, but 40° off the nearest axis (tolerance 30°).
        var s = TouchScript()
        s.down(0, 30, 40); s.frame()
        s.drag([0], by: 22.98, 19.28, steps: 10)
        s.wait(0.2); s.frame()
        s.up(0); s.frame()
        let x = try #require(try Self.explain(s).explanations.first)
        let r = try #require(x.reasons.first { $0.cause == .offAxis })
        #expect(abs(r.measurements[0].value - 40) < 0.5)
        #expect(r.kind == .pan && r.gestureID == x.gestures.first?.id)
    }

    @Test func twoFingersMovingTogetherAreNoPinchAndSaySo() throws {
        var s = TouchScript()
        s.down(0, 40, 80); s.down(1, 60, 80); s.frame()
        s.drag([0, 1], by: 0, 30, steps: 10)
        s.up(0); s.up(1); s.frame()
        let x = try #require(try Self.explain(s).explanations.first)
        #expect(x.gestures.map(\.kind) == [.pan])
        let r = try #require(Self.reason(x, .pinch))
        #expect(r.cause == .movedTogether)
        #expect(r.measurements.first?.key == "pinch_differential_ratio")
        #expect(Self.reason(x, .edgeSwipe)?.description == "edge-swipe: 2 fingers (edge_swipe.max_fingers 1)")
    }

    @Test func aFingerThatBecomesAPalmCancelsWithAReason() throws {
        var s = TouchScript()
        s.down(0, 50, 80); s.frame()
        s.drag([0], by: 20, 0, steps: 5)
        s.tool(0, 2); s.frame()  // MT_TOOL_PALM
        s.up(0); s.frame()
        let x = try #require(try Self.explain(s).explanations.first)
        #expect(x.gestures.map(\.outcome) == [.cancelled])
        let palm = try #require(x.reasons.first { $0.cause == .palm && $0.gestureID == x.gestures.first?.id })
        #expect(palm.landing?.fromLeftMM == 50)
    }

    // MARK: The engine

    @Test func explainingChangesNoGestureAndCostsNothingOff() throws {
        var s = TouchScript()
        s.down(0, 7, 80); s.frame()
        s.drag([0], by: 40, 0, steps: 10)
        s.up(0); s.frame()
        s.down(0, 1, 80); s.frame()
        s.drag([0], by: 20, 0, steps: 10)
        s.up(0); s.frame()
        let plain = try s.run()
        let (xs, outputs) = try Self.explain(s)
        #expect(outputs.gestures == plain)
        #expect(xs.count == 2)
        // Off: no explanation, no reason, no stop.
        var engine = try GestureEngine(device: s.device)
        var out = EngineOutput()
        engine.process(s.events, into: &out)
        #expect(out.events.allSatisfy { if case .gesture = $0 { return true } else if case .audience = $0 { return true } else { return false } })
    }

    @Test func theTraceSaysTheReasonsWithTheirNumbers() throws {
        var s = TouchScript()
        s.down(0, 1, 60); s.frame()
        s.drag([0], by: 10, 17.320508, steps: 20)
        s.up(0); s.frame()
        var engine = try GestureEngine(device: s.device, tracing: true)
        var out = EngineOutput()
        engine.process(s.events, into: &out)
        #expect(out.events.traces.contains { $0.hasPrefix("edge-swipe: moved 6") && $0.hasSuffix("from inward of the left edge (angle_tolerance_degrees 30)") })
        #expect(!out.events.contains { if case .reason = $0 { return true } else { return false } })
    }

    @Test func everyKeyNamedIsARealKey() throws {
        let keys = Set(RecognizerSettings.keys.map(\.key) + RecognizerSettings.shorthandKeys.map(\.key))
        var s = TouchScript()
        s.down(0, 7, 80); s.frame(); s.drag([0], by: 40, 0, steps: 10); s.up(0); s.frame()
        s.down(0, 1, 60); s.frame(); s.drag([0], by: 10, 17.3, steps: 20); s.up(0); s.frame()
        s.down(0, 1, 80); s.frame(); s.drag([0], by: 20, 0, steps: 10); s.wait(0.2); s.frame(); s.up(0); s.frame()
        s.down(0, 50, 80); s.frame(); s.wait(0.41); s.frame(); s.up(0); s.frame()
        s.down(0, 40, 80); s.down(1, 60, 80); s.frame(); s.drag([0, 1], by: 0, 30, steps: 10); s.up(0); s.up(1); s.frame()
        s.down(0, 40, 80); s.down(1, 60, 80); s.frame(); s.drag([0], by: -5, 0, steps: 5); s.up(0); s.up(1); s.frame()
        let (xs, _) = try Self.explain(s)
        let named = xs.flatMap(\.reasons).flatMap(\.measurements).map(\.key)
        #expect(named.count > 10)
        for key in named { #expect(keys.contains(key), "\(key) is no [recognizer] key") }
    }
}

extension ExplanationTests {
    /// A landing nearer another side (along which it moves) is still a near miss of the side it moved
    /// inward from: 6 mm from the top, 8 mm from the left (zones 5 mm), moving right.
    @Test func aNearMissOfTheSideMovedInwardFromNotTheNearest() throws {
        var s = TouchScript()
        s.down(0, 8, 6); s.frame()
        s.drag([0], by: 40, 0, steps: 10)
        s.up(0); s.frame()
        let x = try #require(try Self.explain(s).explanations.first)
        let r = try #require(Self.reason(x, .edgeSwipe))
        #expect(r.cause == .nearMiss)
        #expect(r.edge == .left)
        #expect(abs(try #require(r.measurement(.distanceFromEdge)).value - 8) < 1e-9)
    }
}

extension ExplanationTests {
    /// The pen coming into proximity cancels the pan with a typed reason, in the explanation; without
    /// tracing no `.stopped` reaches the driver.
    @Test func thePenStopsAGestureWithAReason() throws {
        var s = TouchScript()
        s.down(0, 50, 80); s.frame()
        s.drag([0], by: 20, 0, steps: 5)
        var engine = try GestureEngine(device: s.device)
        engine.explaining = true
        var out = EngineOutput()
        engine.process(s.events, into: &out)
        engine.penProximity(true, atMicroseconds: s.time, into: &out)
        engine.cancelAll(atMicroseconds: s.time + 10_000, into: &out)
        #expect(!out.events.contains { if case .stopped = $0 { return true } else { return false } })
        let x = try #require(out.events.compactMap { o -> Explanation? in if case .explanation(let x) = o { return x } else { return nil } }.first)
        #expect(x.gestures.map(\.outcome) == [.cancelled])
        let pen = try #require(x.reasons.first { $0.cause == .penInProximity })
        #expect(pen.kind == .pan && pen.gestureID == x.gestures.first?.id)
        #expect(pen.landing?.fromLeftMM == 50)
        #expect(pen.description == "pan #1: cancelled: a pen came into proximity")
    }
}
