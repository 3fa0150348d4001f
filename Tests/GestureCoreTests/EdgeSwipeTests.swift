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
        settings.edgeSwipe.zones[.left] = EdgeZone(enabled: false, widthMM: 5)
        var s = TouchScript()
        s.down(0, 1, 80); s.frame()
        s.drag([0], by: 40, 0)
        s.up(0); s.frame()
        #expect(try s.run(settings: settings).first?.kind == .pan)
    }

    @Test func wideZoneFromConfiguration() throws {
        var settings = RecognizerSettings()
        settings.edgeSwipe.zones[.left] = EdgeZone(enabled: true, widthMM: 15)
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
}
