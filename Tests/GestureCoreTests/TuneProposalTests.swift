import Foundation
import GestureVocabulary
import RecordingFormats
import Testing

@testable import GestureCore

/// `gesturectl tune`'s proposal (TuneProposal) on measurements written by hand, each expectation worked
/// out from the margins (zone 1 mm, angle 5°, commit 3 mm, slop 0.5 mm) and the roundings (zones and the
/// slop up to 0.5 mm, the tolerance up to 1°, the commit distance down to 0.5 mm); then on the tuner's
/// recordings (Tests/Fixtures/tune, tools/tune-recordings.py), whose measured values are the generator's
/// and whose proposals are checked by replaying.
@Suite struct TuneProposalTests {
    static let screen = (width: 217.0, height: 136.0)

    /// A one-finger touch landing `landed` mm from `edge` (far from the others), moving `degrees` off
    /// its inward direction (towards larger coordinates along the edge) for `travel` mm, released at
    /// `speed` mm/s along the move.
    static func touch(
        _ edge: Edge, landed: Double, degrees: Double, travel: Double, speed: Double, moved: Double? = nil, seconds: Double = 0.3
    ) -> TouchMeasurement {
        let d = EdgeZones.inward(edge)
        let perp = Vector2(abs(d.y), abs(d.x))
        let r = degrees * .pi / 180
        let dir = Vector2(d.x * cos(r) + perp.x * sin(r), d.y * cos(r) + perp.y * sin(r))
        var distances = SideDistances(left: 100, right: 100, top: 60, bottom: 60)
        switch edge {
        case .left: distances.left = landed
        case .right: distances.right = landed
        case .top: distances.top = landed
        default: distances.bottom = landed
        }
        return TouchMeasurement(
            fingers: 1, startMicroseconds: 0, endMicroseconds: Int64(seconds * 1_000_000), landingDistanceMM: distances,
            moveAtSlopMM: travel >= 3 ? dir * 3 : nil, measuredAtSlopMM: 3, travelMM: dir * travel, releaseVelocityMMPerSecond: dir * speed,
            maximumMoveMM: moved ?? travel)
    }

    static func tap(moved: Double, seconds: Double = 0.1) -> TouchMeasurement {
        TouchMeasurement(
            fingers: 1, startMicroseconds: 0, endMicroseconds: Int64(seconds * 1_000_000), landingDistanceMM: SideDistances(left: 100, right: 117, top: 60, bottom: 76),
            moveAtSlopMM: moved >= 3 ? Vector2(moved, 0) : nil, measuredAtSlopMM: 3, travelMM: Vector2(moved, 0), releaseVelocityMMPerSecond: .zero,
            maximumMoveMM: moved)
    }

    /// Vertical scrolling in the middle: nothing an edge swipe could take.
    static let middleScroll = TouchMeasurement(
        fingers: 1, startMicroseconds: 0, endMicroseconds: 250_000, landingDistanceMM: SideDistances(left: 80, right: 137, top: 100, bottom: 36),
        moveAtSlopMM: Vector2(0, -3), measuredAtSlopMM: 3, travelMM: Vector2(0, -50), releaseVelocityMMPerSecond: Vector2(0, -200), maximumMoveMM: 50)

    static func attempts(_ intent: TuneIntent, _ measurements: [TouchMeasurement]) -> [TuneAttempt] {
        measurements.enumerated().map { TuneAttempt(intent: intent, number: $0.offset + 1, measurement: $0.element) }
    }

    static func propose(_ attempts: [TuneAttempt], edges: [Edge] = [.left], current: RecognizerSettings = RecognizerSettings()) -> TuneProposal {
        TuneProposal(edges: edges, attempts: attempts, current: current, screenSizeMM: screen)
    }

    static let taps = attempts(.tap, [tap(moved: 0.5), tap(moved: 1.2)])
    static let scrolls = attempts(.scroll, [middleScroll, middleScroll])

    @Test func zoneWidensToTheFarthestLandingWithItsMargin() {
        // Farthest 8.8 mm + 1 mm = 9.8, up to 10; the right edge: 8.5 + 1 = 9.5 exactly.
        let left = Self.attempts(.edgeSwipe(.left), [6.0, 7.2, 8.8].map { Self.touch(.left, landed: $0, degrees: 0, travel: 40, speed: 150) })
        let right = Self.attempts(.edgeSwipe(.right), [6.4, 8.5].map { Self.touch(.right, landed: $0, degrees: 0, travel: 40, speed: 150) })
        let p = Self.propose(left + right + Self.taps + Self.scrolls, edges: [.left, .right])
        #expect(
            p.changes == [
                TuneChange(key: "edge_swipe.left.zone_mm", from: 5, to: 10, reason: .swipesLandedFarther(.left, farthestMM: 8.8)),
                TuneChange(key: "edge_swipe.right.zone_mm", from: 5, to: 9.5, reason: .swipesLandedFarther(.right, farthestMM: 8.5)),
            ])
        #expect(p.problems.isEmpty)
        #expect(p.settings.edgeZones.left.widthMM == 10 && p.settings.edgeZones.right.widthMM == 9.5)
        // Under today's settings none of the swipes is one; under the proposal every one commits.
        let today = TunePrediction(settings: RecognizerSettings(), screenSizeMM: Self.screen)
        let proposed = TunePrediction(settings: p.settings, screenSizeMM: Self.screen)
        #expect((left + right).allSatisfy { !today.outcome($0.measurement).fulfils($0.intent) })
        #expect((left + right + Self.taps + Self.scrolls).allSatisfy { proposed.outcome($0.measurement).fulfils($0.intent) })
    }

    @Test func aZoneThatSufficesIsKept() {
        var current = RecognizerSettings()
        current.edgeZones.left.widthMM = 12
        let left = Self.attempts(.edgeSwipe(.left), [6.0, 8.0].map { Self.touch(.left, landed: $0, degrees: 0, travel: 40, speed: 150) })
        let p = Self.propose(left + Self.taps + Self.scrolls, current: current)
        #expect(p.changes.isEmpty)
        #expect(p.problems.isEmpty)
    }

    @Test func aZoneThatTakesScrollingNarrowsToTheLeastWidth() {
        // The zone in force, 12 mm, takes a sideways scroll landing 11.5 mm in; the swipes need 8.8 + 1 →
        // 10, whose margin (11 mm) stops short of 11.5.
        var current = RecognizerSettings()
        current.edgeZones.left.widthMM = 12
        let left = Self.attempts(.edgeSwipe(.left), [6.0, 8.8].map { Self.touch(.left, landed: $0, degrees: 0, travel: 40, speed: 150) })
        let sideways = Self.attempts(.scroll, [Self.touch(.left, landed: 11.5, degrees: 2, travel: 50, speed: 200)])
        let p = Self.propose(left + Self.taps + sideways, current: current)
        #expect(p.changes == [TuneChange(key: "edge_swipe.left.zone_mm", from: 12, to: 10, reason: .zoneTookOtherTouches(.left, nearestMM: 11.5))])
        #expect(p.problems.isEmpty)
    }

    @Test func toleranceWidensToTheMostSlantedSwipe() {
        // 34° + 5° = 39°, over today's 30° (the zone, 3.5 + 1 = 4.5 mm, suffices).
        let left = Self.attempts(
            .edgeSwipe(.left), [(3.0, 12.0), (3.5, 34.0)].map { Self.touch(.left, landed: $0.0, degrees: $0.1, travel: 40, speed: 150) })
        let p = Self.propose(left + Self.taps + Self.scrolls)
        #expect(p.changes.count == 1)
        #expect(p.changes.first?.key == "angle_tolerance_degrees" && p.changes.first?.from == 30 && p.changes.first?.to == 39)
        #expect(p.problems.isEmpty)
        let today = TunePrediction(settings: RecognizerSettings(), screenSizeMM: Self.screen)
        #expect(today.outcome(left[1].measurement) == .other(.pan))
        #expect(TunePrediction(settings: p.settings, screenSizeMM: Self.screen).outcome(left[1].measurement) == .edgeSwipe(.left, committed: true))
    }

    @Test func aToleranceBeyondItsRangeIsSaidAndCapped() {
        // 44° + 5° = 49°: the range ends at 45 (RecognizerSettings.sharedKeys), which the proposal keeps.
        let left = Self.attempts(.edgeSwipe(.left), [Self.touch(.left, landed: 4, degrees: 44, travel: 40, speed: 150)])
        let p = Self.propose(left + Self.taps + Self.scrolls)
        #expect(p.settings.angleToleranceDegrees == 45)
        #expect(p.problems == [.outOfRange(key: "angle_tolerance_degrees", needed: 49, range: 5...45)])
    }

    @Test func aShortTapThatRolledNeedsNoSlop() {
        // 0.1 s, 3.2 mm: past the slop by less than twice it, lifted while a pan still waited for the hand
        // to land: a tap already (docs/gestures.md).
        let left = Self.attempts(.edgeSwipe(.left), [Self.touch(.left, landed: 4, degrees: 0, travel: 40, speed: 150)])
        let taps = Self.attempts(.tap, [Self.tap(moved: 1.0), Self.tap(moved: 3.2)])
        #expect(TunePrediction(settings: RecognizerSettings(), screenSizeMM: Self.screen).outcome(taps[1].measurement) == .tap)
        #expect(Self.propose(left + taps + Self.scrolls).changes.isEmpty)
    }

    @Test func slopRisesAboveTheTapsThatMoved() {
        // A tap of 0.3 s that rolled 3.2 mm (a pan began before it lifted): 3.2 + 0.5 = 3.7, up to 4.
        let left = Self.attempts(.edgeSwipe(.left), [Self.touch(.left, landed: 4, degrees: 0, travel: 40, speed: 150)])
        let taps = Self.attempts(.tap, [Self.tap(moved: 1.0), Self.tap(moved: 3.2, seconds: 0.3)])
        let p = Self.propose(left + taps + Self.scrolls)
        #expect(p.changes == [TuneChange(key: "slop_mm", from: 3, to: 4, reason: .tapsMoved(farthestMM: 3.2))])
        let proposed = TunePrediction(settings: p.settings, screenSizeMM: Self.screen)
        #expect(proposed.outcome(taps[1].measurement) == .tap)
    }

    @Test func commitDistanceFallsBelowTheShortestSwipeReleasedMoving() {
        // 21.5 mm at 120 mm/s on a 217 mm wide screen (progress 0.1): 21.5 - 3 = 18.5.
        let left = Self.attempts(
            .edgeSwipe(.left), [30.0, 21.5].map { Self.touch(.left, landed: 4, degrees: 0, travel: $0, speed: 120) })
        let p = Self.propose(left + Self.taps + Self.scrolls)
        #expect(
            p.changes == [
                TuneChange(key: "edge_swipe.commit_distance_mm", from: 25, to: 18.5, reason: .swipesTravelledShort(shortestMM: 21.5))
            ])
        let today = TunePrediction(settings: RecognizerSettings(), screenSizeMM: Self.screen)
        #expect(today.outcome(left[1].measurement) == .edgeSwipe(.left, committed: false))
        #expect(TunePrediction(settings: p.settings, screenSizeMM: Self.screen).outcome(left[1].measurement) == .edgeSwipe(.left, committed: true))
    }

    @Test func aSwipeReleasedAtRestIsSaidNotTunedFor() {
        let left = Self.attempts(.edgeSwipe(.left), [Self.touch(.left, landed: 4, degrees: 0, travel: 21.7, speed: 5)])
        let p = Self.propose(left + Self.taps + Self.scrolls)
        #expect(p.changes.isEmpty)
        #expect(p.problems.count == 1)
        if case .releasedAtRest(.left, 1, let travel, _, 0.5)? = p.problems.first { #expect(abs(travel - 21.7) < 1e-9) } else {
            Issue.record("\(p.problems)")
        }
    }

    @Test func scrollingThatStartsWhereTheSwipesDoCannotBeSeparated() {
        // Swipes land up to 8.8 mm in and move up to 8° off inward; a carousel scroll lands 7 mm in and
        // moves 3° off: any zone that takes the swipes (≥ 9.8 mm) and any tolerance (≥ 13°) takes it.
        let left = Self.attempts(
            .edgeSwipe(.left), [(6.0, 0.0), (8.8, 8.0)].map { Self.touch(.left, landed: $0.0, degrees: $0.1, travel: 40, speed: 150) })
        let scrolls = Self.attempts(.scroll, [Self.middleScroll, Self.touch(.left, landed: 7, degrees: 3, travel: 50, speed: 200)])
        let p = Self.propose(left + Self.taps + scrolls)
        #expect(p.changes.isEmpty)
        #expect(p.problems.count == 1)
        guard case .inseparable(.left, .scroll, 2, 7, let otherDegrees, 8.8, let swipesDegrees)? = p.problems.first else {
            Issue.record("\(p.problems)")
            return
        }
        #expect(abs(otherDegrees - 3) < 1e-6 && abs(swipesDegrees - 8) < 1e-6)
        #expect("\(p.problems[0])".hasPrefix("no setting separates your left edge swipes from scrolling 2: it landed 7.0 mm from the left edge"))
    }

    @Test func stepsWithoutAttemptsAreSaid() {
        let p = Self.propose(Self.taps, edges: [.left])
        #expect(p.problems == [.noAttempts(.edgeSwipe(.left)), .noAttempts(.scroll)])
        #expect(p.changes.isEmpty)
    }

    @Test func rangesAreTheDecodersOwn() {
        #expect(TuneProposal.range(of: "edge_swipe.left.zone_mm") == 0.5...50)
        #expect(TuneProposal.range(of: "edge_swipe.commit_distance_mm") == 1...500)
        #expect(TuneProposal.range(of: "slop_mm") == 0.5...20)
        #expect(TuneProposal.range(of: "angle_tolerance_degrees") == 5...45)
    }

    // MARK: The tuner's recordings

    static let fixtures: String = {
        var path = #filePath
        for _ in 0..<2 { path = String(path[..<path.lastIndex(of: "/")!]) }
        return path + "/Fixtures/tune/"
    }()

    /// The recording's sequences as the session takes them for --edges left,right: 5 + 5 swipes, 3 taps,
    /// the rest scrolling.
    static func session(_ name: String) throws -> (TuneRecording, [TuneAttempt]) {
        let file = try RecordingFile.load(fixtures + name + ".evemu", description: nil)
        let recording = try TuneRecording(device: file.device, events: file.events, settings: RecognizerSettings(), geometry: GeometrySettings())
        let m = recording.measurements(settings: RecognizerSettings())
        var attempts: [TuneAttempt] = []
        for (i, measurement) in m.enumerated() {
            let intent: TuneIntent = i < 5 ? .edgeSwipe(.left) : i < 10 ? .edgeSwipe(.right) : i < 13 ? .tap : .scroll
            let number = i < 5 ? i + 1 : i < 10 ? i - 4 : i < 13 ? i - 9 : i - 12
            attempts.append(TuneAttempt(intent: intent, number: number, measurement: measurement))
        }
        return (recording, attempts)
    }

    @Test func theNarrowBezelRecordingMeasuresAsWritten() throws {
        let (recording, attempts) = try Self.session("narrow-bezel")
        #expect(recording.screenSizeMM.width == 217 && recording.screenSizeMM.height == 136)
        #expect(attempts.count == 19)
        // tools/tune-recordings.py: left swipes land 6.0, 7.2, 8.1, 6.6, 8.8 mm in; right 6.4, 7.9, 8.5, 7.0, 6.2.
        let left = attempts[0..<5].map { $0.measurement.landingDistanceMM.left }
        let right = attempts[5..<10].map { $0.measurement.landingDistanceMM.right }
        for (got, want) in zip(left + right, [6.0, 7.2, 8.1, 6.6, 8.8, 6.4, 7.9, 8.5, 7.0, 6.2]) { #expect(abs(got - want) < 1e-9) }
        // Taps drift 0.5, 1.2, 0.8 mm.
        for (got, want) in zip(attempts[10..<13].map(\.measurement.maximumMoveMM), [0.5, 1.2, 0.8]) { #expect(abs(got - want) < 1e-9) }
        // A swipe of 40 mm, 10° off inward (the right edge's third), travels 40·cos 10° inward.
        #expect(abs(attempts[7].measurement.inwardTravelMM(.right) - 40 * cos(10 * Double.pi / 180)) < 0.1)
        let p = TuneProposal(edges: [.left, .right], attempts: attempts, current: RecognizerSettings(), screenSizeMM: recording.screenSizeMM)
        #expect(p.changes.map(\.key) == ["edge_swipe.left.zone_mm", "edge_swipe.right.zone_mm"])
        #expect(p.changes.map(\.to) == [10, 9.5])
        #expect(p.problems.isEmpty)
        try Self.checkReplayAgreesWithPrediction(recording, attempts, today: RecognizerSettings(), proposed: p.settings, todayFulfilled: 9)
    }

    /// Each attempt is shown with the recognizer's own reason (explain's Reason, from the engine's
    /// explanation of its touch sequence), with the numbers the generator wrote.
    @Test func attemptsAreReportedWithTheRecognizersReasons() throws {
        let (recording, attempts) = try Self.session("curved-edge")
        let (outcomes, reasons) = recording.replayed(settings: RecognizerSettings())
        let prediction = TunePrediction(settings: RecognizerSettings(), screenSizeMM: recording.screenSizeMM)
        let lines = attempts.indices.map { "\(prediction.report(attempts[$0], outcomes[$0], reasons: reasons[$0]))" }
        // 8.75 mm from the left edge, within twice the 5 mm zone, moving 15° off inward: a near miss.
        #expect(
            lines[2] == "not recognized: near miss, did not start: landed 8.8 mm from the left edge (edge_swipe.left.zone_mm 5) "
                + "and moved inward, 15° from inward (angle_tolerance_degrees 30); it became a pan ✗")
        // The tap that rolled 3.1875 mm in 0.1 s: a tap (a short contact that passed the slop by less
        // than twice it).
        #expect(lines[11] == "tap ✓")
        #expect(lines[10] == "tap ✓" && lines[13] == "scrolling, no edge swipe ✓")
        // With 10 mm zones, the 22 mm swipe (21.5 inward) begins and does not commit: explain's numbers.
        var wide = RecognizerSettings()
        wide.apply(["edge_swipe.zone_mm": .number(10)])
        let (wideOutcomes, wideReasons) = recording.replayed(settings: wide)
        let report = TunePrediction(settings: wide, screenSizeMM: recording.screenSizeMM).report(attempts[1], wideOutcomes[1], reasons: wideReasons[1])
        #expect("\(report)".hasPrefix("left edge swipe, not committed: travelled 21.5 mm (edge_swipe.commit_distance_mm 25)"), "\(report)")
    }

    @Test func theCurvedEdgeRecordingNeedsEveryKindOfSetting() throws {
        let (recording, attempts) = try Self.session("curved-edge")
        // Landing 8.75 and 8.625 mm in: 9.75 → 10 and 9.625 → 10. A tap rolled 3.2 mm (51 units at 16
        // units/mm: 3.1875) in 0.1 s: a tap already, no slop needed. The shortest swipe, 22 mm at 12° off
        // inward: 21.52 mm inward, - 3 → 18.5.
        let p = TuneProposal(edges: [.left, .right], attempts: attempts, current: RecognizerSettings(), screenSizeMM: recording.screenSizeMM)
        #expect(p.changes.map(\.key) == ["edge_swipe.left.zone_mm", "edge_swipe.right.zone_mm", "edge_swipe.commit_distance_mm"])
        #expect(p.changes.map(\.to) == [10, 10, 18.5])
        #expect(p.problems.isEmpty)
        #expect(abs(attempts[11].measurement.maximumMoveMM - 3.1875) < 1e-9)
        try Self.checkReplayAgreesWithPrediction(recording, attempts, today: RecognizerSettings(), proposed: p.settings, todayFulfilled: 9)
    }

    @Test func theInseparableRecordingIsSaidSo() throws {
        let (recording, attempts) = try Self.session("inseparable")
        let p = TuneProposal(edges: [.left, .right], attempts: attempts, current: RecognizerSettings(), screenSizeMM: recording.screenSizeMM)
        #expect(p.changes.map(\.key) == ["edge_swipe.right.zone_mm"])
        #expect(p.problems.count == 1)
        guard case .inseparable(.left, .scroll, 2, let landed, _, let swipes, _)? = p.problems.first else {
            Issue.record("\(p.problems)")
            return
        }
        #expect(abs(landed - 7) < 1e-9 && abs(swipes - 8.8) < 1e-9)
    }

    /// The outcome predicted from the measurements is the engine's, under today's settings and the
    /// proposed ones: one proposal algorithm serves live sessions (measurements only) and recordings.
    static func checkReplayAgreesWithPrediction(
        _ recording: TuneRecording, _ attempts: [TuneAttempt], today: RecognizerSettings, proposed: RecognizerSettings, todayFulfilled: Int
    ) throws {
        for settings in [today, proposed] {
            let replayed = recording.outcomes(settings: settings)
            let predicted = TunePrediction(settings: settings, screenSizeMM: recording.screenSizeMM)
            for (i, a) in attempts.enumerated() {
                #expect(replayed[i].fulfils(a.intent) == predicted.outcome(a.measurement).fulfils(a.intent), "attempt \(i): \(replayed[i])")
                if case .edgeSwipe = replayed[i] { #expect(replayed[i] == predicted.outcome(a.measurement), "attempt \(i)") }
            }
        }
        #expect(zip(attempts, recording.outcomes(settings: today)).filter { $0.1.fulfils($0.0.intent) }.count == todayFulfilled)
        #expect(zip(attempts, recording.outcomes(settings: proposed)).allSatisfy { $0.1.fulfils($0.0.intent) })
    }
}
