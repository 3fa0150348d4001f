import Testing
@testable import GestureCore
import GestureVocabulary
import TouchForwarding

/// Exclusions (issue 29): a part of an edge an app keeps is no edge zone. A swipe from it is no edge swipe,
/// the same swipe from the rest of the edge still is, and with passthrough its touch is forwarded at the
/// frame it landed, never withheld.
@Suite struct ExclusionTests {
    /// The lower half of the left edge, as `edge_position = [0.5, 1]` names it.
    static let lowerLeft = EdgeExclusions([EdgeExclusion(edge: .left, from: 0.5, to: 1)])

    /// A swipe inward from 1 mm by the left edge, `y` mm down the 160 mm tall test panel.
    static func swipe(fromY y: Double) -> TouchScript {
        var s = TouchScript()
        s.down(0, 1, y); s.raw(EV.key, BTN.touch, 1); s.frame()
        s.drag([0], by: 60, 0, steps: 20)
        s.up(0); s.raw(EV.key, BTN.touch, 0); s.frame()
        return s
    }

    static func run(
        _ s: TouchScript, exclusions: EdgeExclusions, passthrough: Bool
    ) throws -> (written: [InputEvent], frames: [TouchForwarderTests.Seen], gestures: [GestureEvent], engine: GestureEngine) {
        var settings = RecognizerSettings()
        settings.withholdsTouches = passthrough
        var engine = try GestureEngine(device: s.device, settings: settings)
        engine.setExclusions(exclusions)
        var replay = RecordingReplay(engine: engine)
        var forwarder: TouchForwarder? = passthrough ? try TouchForwarder(device: s.device) : nil
        var written: [InputEvent] = []
        var gestures: [GestureEvent] = []
        replay.run(s.events, forwarder: &forwarder, written: &written) { gestures += $0.gestures }
        let frames = passthrough ? TouchForwarderTests.read(written, device: TouchForwarder.virtualDescription(of: s.device)) : []
        return (written, frames, gestures, engine)
    }

    @Test func swipeFromAnExcludedPartIsNoEdgeSwipe() throws {
        let r = try Self.run(Self.swipe(fromY: 120), exclusions: Self.lowerLeft, passthrough: false)
        #expect(!r.gestures.contains { $0.kind == .edgeSwipe })
        // An ordinary touch: a one-finger pan, from no edge.
        let pan = try #require(r.gestures.first)
        #expect(pan.kind == .pan && pan.startEdge == nil)
    }

    @Test func sameSwipeFromTheRestOfTheEdgeStillIs() throws {
        let r = try Self.run(Self.swipe(fromY: 40), exclusions: Self.lowerLeft, passthrough: false)
        #expect(r.gestures.first?.kind == .edgeSwipe && r.gestures.first?.edge == .left)
        // And without exclusions, the excluded swipe is one too (the test can fail).
        let plain = try Self.run(Self.swipe(fromY: 120), exclusions: EdgeExclusions(), passthrough: false)
        #expect(plain.gestures.first?.kind == .edgeSwipe)
    }

    @Test func forwarderForwardsTheExcludedTouchAtItsLandingFrame() throws {
        let s = Self.swipe(fromY: 120)
        let r = try Self.run(s, exclusions: Self.lowerLeft, passthrough: true)
        // Forwarded as it came, from the landing frame on: nothing withheld, nothing claimed.
        #expect(r.written == s.events)
        #expect(r.frames.first?.down.count == 1)
        // The same touch from the rest of the edge is withheld and claimed: the copy sees nothing.
        let kept = try Self.run(Self.swipe(fromY: 40), exclusions: Self.lowerLeft, passthrough: true)
        #expect(kept.written.isEmpty)
        #expect(kept.gestures.first?.kind == .edgeSwipe)
    }

    @Test func excludedCornerTakesItsSquareOutOfBothSides() throws {
        let corner = EdgeExclusions([EdgeExclusion(edge: .bottomLeft)])
        // Landing 1 mm from the left, 1 mm from the bottom: in the left and the bottom zones, so in the corner.
        var s = TouchScript()
        s.down(0, 1, 159); s.frame()
        s.drag([0], by: 60, 0, steps: 20)
        s.up(0); s.frame()
        let r = try Self.run(s, exclusions: corner, passthrough: false)
        #expect(!r.gestures.contains { $0.kind == .edgeSwipe })
        // The rest of the left edge is untouched.
        let rest = try Self.run(Self.swipe(fromY: 80), exclusions: corner, passthrough: false)
        #expect(rest.gestures.first?.kind == .edgeSwipe)
    }

    @Test func appTouchesAreOneFingerTouchesAwayFromTheZonesInForce() throws {
        var tap = TouchScript()
        tap.down(0, 50, 120); tap.frame(); tap.up(0); tap.frame()
        #expect(try AudienceTests.begins(tap).first?.audience == .seat)
        var edgeTap = TouchScript()
        edgeTap.down(0, 1, 120); edgeTap.frame(); edgeTap.up(0); edgeTap.frame()
        #expect(try AudienceTests.begins(edgeTap).first?.audience == .everyone)
        // Excluded, the edge is the app's: its tap there is an app touch.
        #expect(try AudienceTests.begins(edgeTap, exclusions: Self.lowerLeft).first?.audience == .seat)
        #expect(try AudienceTests.begins(Self.swipe(fromY: 40)).first?.audience == .everyone)
    }

    @Test func reconfigureKeepsTheExclusions() throws {
        var engine = try GestureEngine(device: TouchScript().device)
        engine.setExclusions(Self.lowerLeft)
        var out = EngineOutput()
        engine.reconfigure(settings: engine.settings, geometry: GeometrySettings(), atMicroseconds: 0, into: &out)
        var recognizerExclusions = engine.recognizer.context.exclusions
        #expect(recognizerExclusions == Self.lowerLeft)
        engine.reset(atMicroseconds: 1, into: &out)
        recognizerExclusions = engine.recognizer.context.exclusions
        #expect(recognizerExclusions == Self.lowerLeft)
    }
}
