import Testing
@testable import GestureCore
import GestureVocabulary

/// Who receives a gesture (issue 36, hole 2): decided where each of its touches landed, by what its kind
/// declares, never by the kind alone or its first touch. On the 100 × 160 mm test panel the edge zones are
/// 5 mm wide.
@Suite struct AudienceTests {
    /// The engine's begins, each with the audience the engine said for it (`EngineEvent.audience`, which
    /// comes right before the begin), and every gesture event.
    static func begins(_ s: TouchScript, exclusions: EdgeExclusions = EdgeExclusions()) throws -> [(audience: GestureAudience?, event: GestureEvent)] {
        try run(s, exclusions: exclusions).begins
    }

    static func run(_ s: TouchScript, exclusions: EdgeExclusions = EdgeExclusions()) throws
        -> (begins: [(audience: GestureAudience?, event: GestureEvent)], events: [(audience: GestureAudience, event: GestureEvent)])
    {
        var engine = try GestureEngine(device: s.device)
        engine.setExclusions(exclusions)
        var replay = RecordingReplay(engine: engine)
        var begins: [(audience: GestureAudience?, event: GestureEvent)] = []
        var events: [(audience: GestureAudience, event: GestureEvent)] = []
        var said: GestureAudience?
        var audienceByID: [UInt64: GestureAudience] = [:]
        replay.run(s.events) { outputs in
            for output in outputs {
                switch output {
                case .audience(let a): said = a
                case .gesture(let e):
                    if e.phase == .begin {
                        begins.append((said, e))
                        audienceByID[e.id] = said ?? .seat
                        said = nil
                    }
                    events.append((audienceByID[e.id] ?? .seat, e))
                case .warning, .trace, .stopped, .explanation, .reason: break
                }
            }
        }
        return (begins, events)
    }

    static func tap(_ s: inout TouchScript, at x: Double, _ y: Double, fingers: Int = 1) {
        for f in 0..<fingers { s.down(f, x + Double(f) * 12, y) }
        s.frame()
        s.wait(0.05)
        for f in 0..<fingers { s.up(f) }
        s.frame()
    }

    @Test func aTapInTheEdgeZoneThenOneAboveItAreTwoGesturesWithTheirOwnAudiences() throws {
        // The attack: a tap 2 mm from the bottom edge (the keyboard's bottom row lies along that zone),
        // then 0.15 s later a tap 12 mm above it, out of the zone.
        var s = TouchScript()
        Self.tap(&s, at: 50, 158)
        s.wait(0.15)
        Self.tap(&s, at: 50, 146)
        s.wait(1)
        s.frame()
        let r = try Self.run(s)
        #expect(r.begins.map(\.audience) == [.everyone, .seat])
        // No public event carries the second tap's position, nor counts it.
        let publicEvents = r.events.filter { $0.audience == .everyone }.map(\.event)
        #expect(!publicEvents.isEmpty)
        #expect(publicEvents.allSatisfy { $0.positionMM.y > 155 && ($0.taps ?? 1) == 1 }, "\(publicEvents.map { "\($0.phase) \($0.positionMM) \($0.taps ?? 0)" })")
    }

    @Test func tapsOnTheSameSideOfTheZoneStillMakeOneSequence() throws {
        var inZone = TouchScript()
        Self.tap(&inZone, at: 50, 158)
        inZone.wait(0.15)
        Self.tap(&inZone, at: 52, 157)
        let zone = try Self.run(inZone)
        #expect(zone.begins.map(\.audience) == [.everyone])
        #expect(zone.events.last?.event.taps == 2)
        var inApp = TouchScript()
        Self.tap(&inApp, at: 50, 100)
        inApp.wait(0.15)
        Self.tap(&inApp, at: 52, 108)
        let app = try Self.run(inApp)
        #expect(app.begins.map(\.audience) == [.seat])
        #expect(app.events.last?.event.taps == 2)
    }

    @Test func moreFingersAndSystemKindsArePublic() throws {
        var twoFingers = TouchScript()
        Self.tap(&twoFingers, at: 40, 100, fingers: 2)
        #expect(try Self.begins(twoFingers).map(\.audience) == [.everyone])
        var pan = TouchScript()
        pan.down(0, 50, 100); pan.frame()
        pan.drag([0], by: 0, -40)
        pan.up(0); pan.frame()
        #expect(try Self.begins(pan).map(\.audience) == [.seat])
        var fromEdge = TouchScript()
        fromEdge.down(0, 50, 158); fromEdge.frame()
        fromEdge.drag([0], by: 30, 0)
        fromEdge.up(0); fromEdge.frame()
        let edgePan = try Self.begins(fromEdge)
        #expect(edgePan.first?.event.startEdge == .bottom && edgePan.first?.audience == .everyone)
    }

    @Test func aHoldIsJudgedWhereItLandedNotWhereItCrept() throws {
        // Landed 4.6 mm from the left edge (in its 5 mm zone), crept 1 mm inward before the hold time.
        var s = TouchScript()
        s.down(0, 4.6, 80); s.frame()
        s.wait(0.1)
        s.move(0, 5.6, 80); s.frame()
        s.wait(0.8)
        s.frame()
        s.up(0); s.frame()
        let r = try Self.begins(s)
        let hold = try #require(r.first { $0.event.kind == .hold })
        #expect(hold.event.positionMM.x > 5, "the hold begins where the finger is now, out of the zone")
        #expect(hold.audience == .everyone)
    }

    @Test func aKindIsPrivateUnlessItsDescriptorDeclaresItPublic() {
        let undeclared = GestureKind("tap-and-drag")
        #expect(undeclared.descriptor.audience == .seat)
        #expect(undeclared.descriptor.audience.resolve(fingers: 3, landedInEdgeZone: true) == .seat)
        #expect(GestureKind.edgeSwipe.descriptor.audience == .everyone)
        #expect(GestureKind.pinch.descriptor.audience == .everyone)
        for kind in [GestureKind.tap, .hold, .pan] {
            #expect(kind.descriptor.audience.resolve(fingers: 1, landedInEdgeZone: false) == .seat)
            #expect(kind.descriptor.audience.resolve(fingers: 1, landedInEdgeZone: true) == .everyone)
            #expect(kind.descriptor.audience.resolve(fingers: 2, landedInEdgeZone: false) == .everyone)
        }
    }
}
