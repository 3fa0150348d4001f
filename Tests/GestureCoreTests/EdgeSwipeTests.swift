import Testing
@testable import GestureCore
import GestureVocabulary

@Suite struct EdgeSwipeTests {
    @Test func leftEdgeSwipePastHalfCommits() throws {
        var s = TouchScript()
        s.down(0, 1, 80); s.frame()
        s.drag([0], by: 60, 0, steps: 20)
        s.up(0); s.frame()
        let events = try s.run()
        #expect(events.phases == ["edge-swipe:begin", "edge-swipe:update", "edge-swipe:end"])
        #expect(events.allSatisfy { $0.edge == .left && $0.fingers == 1 })
        let end = try #require(events.last)
        #expect(end.committed == true)
        #expect(abs(end.progress! - 0.6) < 0.01)
        #expect(abs(end.translationMM.x - 60) < 0.01)
        // Progress grows monotonically with the finger.
        let progress = events.compactMap(\.progress)
        #expect(progress == progress.sorted())
    }

    @Test(arguments: [
        (Edge.right, (99.0, 80.0), (-60.0, 0.0)),
        (Edge.top, (50.0, 1.0), (0.0, 90.0)),
        (Edge.bottom, (50.0, 159.0), (0.0, -90.0)),
    ])
    func everyEdge(edge: Edge, start: (Double, Double), move: (Double, Double)) throws {
        var s = TouchScript()
        s.down(0, start.0, start.1); s.frame()
        s.drag([0], by: move.0, move.1, steps: 20)
        s.up(0); s.frame()
        let events = try s.run()
        #expect(events.first?.kind == .edgeSwipe)
        #expect(events.first?.edge == edge)
        #expect(events.last?.committed == true)
    }

    @Test func shortSlowSwipeDoesNotCommit() throws {
        var s = TouchScript()
        s.down(0, 1, 80); s.frame()
        s.drag([0], by: 20, 0, steps: 40)  // 20 mm over 0.4 s: 50 mm/s
        s.wait(0.2)  // finger rests before lifting: no fling
        s.up(0); s.frame()
        let end = try #require(try s.run().last)
        #expect(end.phase == .end && end.kind == .edgeSwipe)
        #expect(end.committed == false)
        #expect(end.velocityMMPerSecond == .zero)
    }

    @Test func shortFlingCommits() throws {
        var s = TouchScript()
        s.down(0, 1, 80); s.frame()
        s.drag([0], by: 20, 0, steps: 4)  // 20 mm in 40 ms: 500 mm/s
        s.up(0); s.frame()
        let end = try #require(try s.run().last)
        #expect(end.kind == .edgeSwipe && end.phase == .end)
        #expect(end.progress! < 0.5)
        #expect(end.committed == true)
        #expect(end.velocityMMPerSecond.x > 200)
    }

    @Test func flingBackOutwardCancelsCommit() throws {
        var s = TouchScript()
        s.down(0, 1, 80); s.frame()
        s.drag([0], by: 90, 0, steps: 30)
        s.drag([0], by: -30, 0, steps: 6)  // flung back toward the edge at 500 mm/s, still past half
        s.up(0); s.frame()
        let end = try #require(try s.run().last)
        #expect(end.progress! > 0.5)
        #expect(end.committed == false)
    }

    @Test func movingAlongTheEdgeIsNotAnEdgeSwipe() throws {
        var s = TouchScript()
        s.down(0, 2, 40); s.frame()
        s.drag([0], by: 0, 60, steps: 20)
        s.up(0); s.frame()
        let events = try s.run()
        #expect(!events.contains { $0.kind == .edgeSwipe })
        // The edge swipe failed, so pan (which waited for it) recognizes the drag.
        #expect(events.phases == ["pan:begin", "pan:update", "pan:end"])
        #expect(events.last?.direction == .down)
    }

    @Test func edgeSwipeAndPanNeverBothBeginForOneTouch() throws {
        var s = TouchScript()
        s.down(0, 1, 80); s.frame()
        s.drag([0], by: 30, 5, steps: 10)
        s.drag([0], by: 0, 40, steps: 10)  // turns down after beginning: still the same edge swipe
        s.up(0); s.frame()
        let events = try s.run()
        #expect(Set(events.map(\.kind)) == [.edgeSwipe])
        #expect(Set(events.map(\.id)).count == 1)
    }

    @Test func touchOutsideTheZoneIsAPan() throws {
        var s = TouchScript()
        s.down(0, 10, 80); s.frame()  // 10 mm from the left edge; the zone is 5 mm
        s.drag([0], by: 40, 0)
        s.up(0); s.frame()
        #expect(try s.run().phases == ["pan:begin", "pan:update", "pan:end"])
    }

    @Test func disabledEdgeIsAPan() throws {
        var settings = RecognizerSettings()
        settings.edgeZones[.left] = EdgeZone(enabled: false, widthMM: 5)
        var s = TouchScript()
        s.down(0, 1, 80); s.frame()
        s.drag([0], by: 40, 0)
        s.up(0); s.frame()
        #expect(try s.run(settings: settings).first?.kind == .pan)
    }

    @Test func wideZoneFromConfiguration() throws {
        var settings = RecognizerSettings()
        settings.edgeZones[.left] = EdgeZone(enabled: true, widthMM: 15)
        var s = TouchScript()
        s.down(0, 10, 80); s.frame()
        s.drag([0], by: 40, 0)
        s.up(0); s.frame()
        #expect(try s.run(settings: settings).first?.edge == .left)
    }

    @Test func twoFingersFromTheEdgeAreAPanByDefault() throws {
        var s = TouchScript()
        s.down(0, 1, 70); s.down(1, 2, 90); s.frame()
        s.drag([0, 1], by: 50, 0)
        s.up(0); s.up(1); s.frame()
        let events = try s.run()
        #expect(events.first?.kind == .pan && events.first?.fingers == 2)

        var settings = RecognizerSettings()
        settings.edgeSwipe.maxFingers = 2
        let edge = try s.run(settings: settings)
        #expect(edge.first?.kind == .edgeSwipe && edge.first?.fingers == 2)
    }

    @Test func angleTolerance() throws {
        // 25° off the inward direction: an edge swipe; 40° off: not.
        for (angle, expectEdge) in [(25.0, true), (40.0, false)] {
            var s = TouchScript()
            s.down(0, 1, 80); s.frame()
            let slope = angle == 25 ? 0.4663 : 0.8391  // tan 25°, tan 40°
            s.drag([0], by: 30, 30 * slope)
            s.up(0); s.frame()
            #expect((try s.run().first?.kind == .edgeSwipe) == expectEdge, "angle \(angle)")
        }
    }

    // MARK: Corners and where along the edge

    /// From a corner, diagonally inward: a corner swipe, each of the four, with where it landed along the
    /// horizontal edge.
    @Test func cornerSwipesFromEachCorner() throws {
        let cases: [(Edge, (Double, Double), (Double, Double))] = [
            (.topLeft, (2, 2), (25, 25)), (.topRight, (98, 3), (-25, 25)),
            (.bottomLeft, (3, 158), (25, -25)), (.bottomRight, (98, 157), (-25, -25)),
        ]
        for (corner, at, by) in cases {
            var s = TouchScript()
            s.down(0, at.0, at.1); s.frame()
            s.drag([0], by: by.0, by.1)
            s.up(0); s.frame()
            let events = try s.run()
            #expect(events.phases == ["edge-swipe:begin", "edge-swipe:update", "edge-swipe:end"], "\(corner)")
            #expect(events.allSatisfy { $0.edge == corner }, "\(corner)")
            #expect(abs((events.first?.edgePosition ?? -1) - at.0 / 100) < 1e-9, "\(corner)")
            // 25 mm along both axes: 35 mm along the diagonal, past the 25 mm commit distance: progress 1.
            #expect(events.last?.progress == 1, "\(corner)")
            #expect(events.last?.committed == true, "\(corner)")
        }
    }

    /// In a corner, a stroke along one edge's inward axis goes to that edge; 50° from the top's axis is
    /// within 45° of the diagonal: the corner; with corners off, it is no edge swipe at all.
    @Test func aCornerStrokeAlongOneAxisIsThatEdgesSwipe() throws {
        var down = TouchScript()
        down.down(0, 3, 3); down.frame()
        down.drag([0], by: 2, 30)
        down.up(0); down.frame()
        #expect(try down.run().first?.edge == .top)

        var diagonal = TouchScript()
        diagonal.down(0, 3, 3); diagonal.frame()
        diagonal.drag([0], by: 30 * 0.766, 30 * 0.643)  // 50° from straight down, 40° from straight right
        diagonal.up(0); diagonal.frame()
        #expect(try diagonal.run().first?.edge == .topLeft)
        var off = RecognizerSettings()
        off.edgeSwipe.corners = false
        #expect(try diagonal.run(settings: off).first?.kind == .pan)
    }

    /// From the top-left corner along the top edge is inward from the left edge: a left edge swipe, not a
    /// corner swipe.
    @Test func aCornerStrokeAlongTheTopIsALeftEdgeSwipe() throws {
        var s = TouchScript()
        s.down(0, 3, 3); s.frame()
        s.drag([0], by: 40, -1)  // along the top edge: right, slightly up
        s.up(0); s.frame()
        let events = try s.run()
        #expect(events.first?.kind == .edgeSwipe && events.first?.edge == .left)
    }

    @Test func edgePositionIsWhereTheFingerLandedAlongTheEdge() throws {
        for (edge, at, by, position) in [
            (Edge.left, (1.0, 40.0), (30.0, 0.0), 0.25), (.right, (99, 120), (-30, 0), 0.75),
            (.top, (80, 1), (0, 30), 0.8), (.bottom, (10, 159), (0, -30), 0.1),
        ] {
            var s = TouchScript()
            s.down(0, at.0, at.1); s.frame()
            s.drag([0], by: by.0, by.1)
            s.up(0); s.frame()
            let events = try s.run()
            #expect(events.first?.edge == edge)
            #expect(events.allSatisfy { abs(($0.edgePosition ?? -1) - position) < 1e-9 }, "\(edge)")
        }
    }
}
