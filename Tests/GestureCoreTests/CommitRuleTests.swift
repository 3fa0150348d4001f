import GestureVocabulary
import Testing

@testable import GestureCore

/// When an edge swipe, a corner swipe and a hold by the edge happen, on the panels people bring: a phone, a
/// tablet, a 27-inch and a 32-inch monitor, with axis resolution and without it (the size configured).
@Suite struct CommitRuleTests {
    struct Panel: CustomTestStringConvertible, Sendable {
        var name: String
        var widthMM: Double
        var heightMM: Double
        /// false: the panel reports no resolution, and its size comes from the configuration.
        var resolution: Bool
        var testDescription: String { "\(name) \(Int(widthMM))x\(Int(heightMM)) mm\(resolution ? "" : ", no resolution")" }

        var script: TouchScript {
            let w = Int32(widthMM * 10)
            let h = Int32(heightMM * 10)
            let r: Int32 = resolution ? 10 : 0
            let device = DeviceDescription(
                name: name, properties: [INPUT_PROP.direct],
                axes: [
                    ABS.mtSlot: AxisInfo(minimum: 0, maximum: 9),
                    ABS.mtPositionX: AxisInfo(minimum: 0, maximum: w, resolution: r),
                    ABS.mtPositionY: AxisInfo(minimum: 0, maximum: h, resolution: r),
                    ABS.mtTrackingID: AxisInfo(minimum: 0, maximum: 65535),
                ],
                keys: [BTN.touch])
            return TouchScript(device: device)
        }

        var geometry: GeometrySettings {
            var g = GeometrySettings()
            if !resolution { g.panelSizeMM = (widthMM, heightMM) }
            return g
        }
    }

    static let panels: [Panel] = [
        Panel(name: "phone", widthMM: 68, heightMM: 136, resolution: true),
        Panel(name: "phone", widthMM: 68, heightMM: 136, resolution: false),
        Panel(name: "tablet", widthMM: 250, heightMM: 160, resolution: true),
        Panel(name: "27-inch", widthMM: 596, heightMM: 336, resolution: true),
        Panel(name: "32-inch", widthMM: 708, heightMM: 398, resolution: false),
        Panel(name: "14-inch laptop", widthMM: 309, heightMM: 174, resolution: true),
    ]

    /// A finger lands 2 mm inside `edge`'s side at the middle of it and moves `travelMM` inward over
    /// `seconds`, then rests `restSeconds` (0: it lifts while still moving) and lifts.
    static func swipe(
        _ panel: Panel, from edge: Edge, travelMM: Double, seconds: Double, restSeconds: Double = 0
    ) throws -> [GestureEvent] {
        var s = panel.script
        let (x, y, dx, dy): (Double, Double, Double, Double)
        switch edge {
        case .bottom: (x, y, dx, dy) = (panel.widthMM / 2, panel.heightMM - 2, 0, -travelMM)
        case .top: (x, y, dx, dy) = (panel.widthMM / 2, 2, 0, travelMM)
        case .left: (x, y, dx, dy) = (2, panel.heightMM / 2, travelMM, 0)
        default: (x, y, dx, dy) = (panel.widthMM - 2, panel.heightMM / 2, -travelMM, 0)
        }
        s.down(0, x, y); s.frame()
        s.drag([0], by: dx, dy, steps: Int(seconds * 100))
        if restSeconds > 0 {
            s.wait(restSeconds)
            s.frame()
        }
        s.up(0); s.frame()
        return try s.run(geometry: panel.geometry)
    }

    // MARK: Edge swipes

    /// A deliberate 48 mm swipe up from the bottom, released while still moving inward, slowly (84 mm/s,
    /// far from a fling): it commits on every panel, where half the screen is 68 mm on the phone and
    /// 168 mm on the 27-inch monitor; `progress` stays the fraction of the screen.
    @Test(arguments: panels)
    func aDeliberateEdgeSwipeCommitsOnEveryPanel(_ panel: Panel) throws {
        let events = try Self.swipe(panel, from: .bottom, travelMM: 48, seconds: 0.57)
        #expect(events.first?.kind == .edgeSwipe && events.first?.edge == .bottom)
        let end = try #require(events.last)
        #expect(end.phase == .end && end.committed == true)
        #expect(abs(end.progress! - 48 / panel.heightMM) < 0.01)
        #expect(end.velocityMMPerSecond.length > 50 && end.velocityMMPerSecond.length < 200)
    }

    /// The pull of issue 28: 56 mm up from the bottom over 1.6 s (35 mm/s), come to rest for 0.4 s, then
    /// lifted. Released at rest short of half the screen (0.41 of the phone's height, 0.32 of the 14-inch
    /// laptop's, 0.17 of the 27-inch monitor's), it is abandoned on each, though it travelled past
    /// `commit_distance_mm`; the same pull lifted while still moving commits on each.
    @Test(arguments: [panels[0], panels[5], panels[3]])
    func aPullThatComesToRestShortOfHalfWayIsAbandoned(_ panel: Panel) throws {
        let rested = try Self.swipe(panel, from: .bottom, travelMM: 56, seconds: 1.6, restSeconds: 0.4)
        let end = try #require(rested.last)
        #expect(end.kind == .edgeSwipe && end.phase == .end && end.committed == false)
        #expect(end.progress! < 0.5 && end.translationMM.y < -55)
        let moving = try #require(try Self.swipe(panel, from: .bottom, travelMM: 56, seconds: 1.6).last)
        #expect(moving.kind == .edgeSwipe && moving.committed == true)
        #expect(moving.velocityMMPerSecond.y < -30 && moving.velocityMMPerSecond.y > -40)
    }

    /// Released at rest past half the screen, a pull commits: up 80 mm of the phone's 136, rested 0.4 s;
    /// on the laptop, 100 mm of its 174 mm height.
    @Test(arguments: [panels[0], panels[5]])
    func aPullAtRestPastHalfWayCommits(_ panel: Panel) throws {
        let travel = panel.heightMM * 0.58
        let end = try #require(try Self.swipe(panel, from: .bottom, travelMM: travel, seconds: 1.6, restSeconds: 0.4).last)
        #expect(end.kind == .edgeSwipe && end.committed == true && end.progress! > 0.5)
        #expect(end.velocityMMPerSecond == .zero)
    }

    /// A slow pull past the commit distance released at a creep (below the rest speed, 20 mm/s) is released
    /// at rest: 30 mm over 2.5 s (12 mm/s) on the laptop.
    @Test func aCreepIsAtRest() throws {
        let end = try #require(try Self.swipe(Self.panels[5], from: .left, travelMM: 30, seconds: 2.5).last)
        #expect(end.kind == .edgeSwipe && end.committed == false)
        #expect(end.velocityMMPerSecond.x > 5 && end.velocityMMPerSecond.x < EdgeSwipeRule.restSpeedMMPerSecond)
    }

    /// The slow release of the issue: 84 mm/s at the lift, on the 68 × 136 mm phone.
    @Test func theIssuesPhoneSwipeCommits() throws {
        var s = Self.panels[0].script
        s.down(0, 34, 134); s.frame()
        s.drag([0], by: 0, -44, steps: 40)
        s.drag([0], by: 0, -4, steps: 5)  // 0.8 mm a frame at the end: 80–84 mm/s
        s.up(0); s.frame()
        let end = try #require(try s.run().last)
        #expect(end.kind == .edgeSwipe && end.committed == true)
        #expect(end.velocityMMPerSecond.length < 200)  // not a fling
        #expect(end.progress! < 0.5)
    }

    /// A short pull (15 mm) released at rest animates back on every panel.
    @Test(arguments: panels)
    func aShortPullDoesNotCommit(_ panel: Panel) throws {
        let events = try Self.swipe(panel, from: .left, travelMM: 15, seconds: 0.3, restSeconds: 0.2)
        let end = try #require(events.last)
        #expect(end.kind == .edgeSwipe && end.phase == .end && end.committed == false)
    }

    /// Past the commit distance but pulled back before the release: what counts is where it is released.
    @Test func pulledBackBelowTheDistanceDoesNotCommit() throws {
        var s = Self.panels[3].script
        s.down(0, 2, 150); s.frame()
        s.drag([0], by: 40, 0, steps: 40)
        s.drag([0], by: -30, 0, steps: 60)  // back to 10 mm, slowly
        s.wait(0.2); s.frame()
        s.up(0); s.frame()
        let end = try #require(try s.run().last)
        #expect(end.kind == .edgeSwipe && end.committed == false)
    }

    // MARK: Corner swipes

    /// A deliberate 40 × 40 mm diagonal from each corner, released while slowing down, commits on every
    /// panel; its progress runs to 1 against the commit distance.
    @Test(arguments: panels)
    func aDeliberateCornerSwipeCommits(_ panel: Panel) throws {
        let w = panel.widthMM
        let h = panel.heightMM
        for (corner, at, sign) in [
            (Edge.topLeft, (3.0, 3.0), (1.0, 1.0)), (.topRight, (w - 3, 3), (-1, 1)),
            (.bottomLeft, (3, h - 3), (1, -1)), (.bottomRight, (w - 3, h - 3), (-1, -1)),
        ] {
            var s = panel.script
            s.down(0, at.0, at.1); s.frame()
            s.drag([0], by: 32 * sign.0, 32 * sign.1, steps: 20)
            s.drag([0], by: 8 * sign.0, 8 * sign.1, steps: 20)  // slowing down: 57 mm/s along the diagonal
            s.up(0); s.frame()
            let events = try s.run(geometry: panel.geometry)
            #expect(events.first?.edge == corner, "\(corner)")
            let end = try #require(events.last)
            #expect(end.kind == .edgeSwipe && end.committed == true, "\(corner)")
            #expect(end.velocityMMPerSecond.length < 200, "\(corner)")
            #expect(end.progress == 1, "\(corner)")
            let progress = events.compactMap(\.progress)
            #expect(progress == progress.sorted(), "\(corner)")
        }
    }

    /// A 10 mm twitch from a corner does not commit: progress 0.4 of the 25 mm.
    @Test(arguments: panels)
    func aCornerTwitchDoesNotCommit(_ panel: Panel) throws {
        var s = panel.script
        s.down(0, 3, 3); s.frame()
        s.drag([0], by: 7.07, 7.07, steps: 20)
        s.wait(0.2); s.frame()
        s.up(0); s.frame()
        let events = try s.run(geometry: panel.geometry)
        let end = try #require(events.last)
        #expect(end.edge == .topLeft && end.committed == false)
        #expect(abs(end.progress! - 0.4) < 0.01)
    }

    /// Flung from a corner, it commits however short.
    @Test func aFlungCornerSwipeCommits() throws {
        var s = Self.panels[3].script
        s.down(0, 3, 3); s.frame()
        s.drag([0], by: 10, 10, steps: 4)  // 350 mm/s along the diagonal
        s.up(0); s.frame()
        let end = try #require(try s.run().last)
        #expect(end.edge == .topLeft && end.committed == true && end.progress! < 1)
    }

    @Test func theCommitDistanceIsAKey() throws {
        var settings = RecognizerSettings()
        settings.edgeSwipe.commitDistanceMM = 60
        let events = try Self.swipe(Self.panels[3], from: .bottom, travelMM: 48, seconds: 0.57)
        #expect(events.last?.committed == true)
        var s = Self.panels[3].script
        s.down(0, 300, 334); s.frame()
        s.drag([0], by: 0, -48, steps: 57)  // released while moving, as above
        s.up(0); s.frame()
        #expect(try s.run(settings: settings).last?.committed == false)
    }

    // MARK: A slow pull is not a hold

    /// A finger landing in the left zone and creeping inward from rest (3 mm in the first half second,
    /// 13 mm over 1.6 s), held, lifted: an edge swipe that ends uncommitted, never a hold.
    @Test(arguments: panels)
    func aSlowEdgePullIsAnEdgeSwipe(_ panel: Panel) throws {
        var s = panel.script
        s.down(0, 2, panel.heightMM / 2); s.frame()
        s.drag([0], by: 3, 0, steps: 50)  // 6 mm/s
        s.drag([0], by: 10, 0, steps: 110)  // 9 mm/s
        s.wait(0.5); s.frame()
        s.up(0); s.frame()
        let events = try s.run(geometry: panel.geometry)
        #expect(!events.contains { $0.kind == .hold })
        #expect(events.phases == ["edge-swipe:begin", "edge-swipe:update", "edge-swipe:end"])
        #expect(events.last?.committed == false)
        #expect(abs(events.last!.translationMM.x - 13) < 0.1)
    }

    /// A long press by the edge (a key of a keyboard's bottom row, a button by the bezel) is a hold: the
    /// finger jitters, rolls a little inward, or slides along the edge.
    @Test(arguments: [(0.3, 0.0), (0.0, 2.5), (1.0, 1.0)])
    func aLongPressByTheEdgeIsAHold(inwardMM: Double, alongMM: Double) throws {
        var s = Self.panels[0].script
        s.down(0, 34, 134); s.frame()  // 2 mm above the bottom edge
        for i in 1...60 {  // 0.6 s of jitter (±0.2 mm) while rolling and sliding
            let f = Double(i) / 60
            let jitter = i % 2 == 0 ? 0.2 : -0.2
            s.move(0, 34 + alongMM * f + jitter, 134 - inwardMM * f)
            s.frame()
        }
        s.wait(0.3); s.frame()
        s.up(0); s.frame()
        let events = try s.run()
        #expect(events.phases == ["hold:begin", "hold:update", "hold:end"] || events.phases == ["hold:begin", "hold:end"])
        #expect(events.last?.committed == true)
    }

    /// Away from the edges the hold's tolerance is the whole slop, in every direction.
    @Test func aPressAwayFromTheEdgesMayMoveTheWholeSlop() throws {
        var s = Self.panels[0].script
        s.down(0, 34, 68); s.frame()
        s.drag([0], by: 2.5, 0, steps: 30)
        s.wait(0.4); s.frame()
        s.up(0); s.frame()
        #expect(try s.run().first?.kind == .hold)
    }
}
