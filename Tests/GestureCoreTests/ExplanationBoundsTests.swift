import Testing
@testable import GestureCore
import GestureProtocol
import GestureVocabulary

/// What one explanation holds (issue 36): a finger resting while another taps makes one touch sequence of
/// any length; its explanation lists at most `Explanation.listLimit` fingers, gestures and touches and
/// `Explanation.reasonLimit` reasons, and counts the rest (`Unlisted`), in the engine, the JSON and the
/// text. And a touch already down when explaining starts (issue 38): said to be so, never given a landing.
@Suite struct ExplanationBoundsTests {
    /// Finger 0 rests at (30, 80) mm for a second (a hold, cancelled by the first tap), then finger 1 taps
    /// `taps` times at (70, 80) mm, 40 ms down and 210 ms up (each tap a hand of its own), then finger 0
    /// lifts.
    static func restingFingerTapping(_ taps: Int) -> TouchScript {
        var s = TouchScript()
        s.down(0, 30, 80); s.frame()
        s.wait(1)
        for i in 0..<taps {
            s.down(1, 70 + Double(i % 10) * 0.1, 80); s.frame()
            s.wait(0.03); s.frame()
            s.up(1); s.frame()
            s.wait(0.2)
        }
        s.up(0); s.frame()
        return s
    }

    @Test func aRestingFingerAndManyTapsMakeOneBoundedExplanation() throws {
        let taps = 300
        let (xs, outputs) = try ExplanationTests.explain(Self.restingFingerTapping(taps))
        #expect(xs.count == 1)
        let x = try #require(xs.first)
        // Every gesture the engine made is listed or counted: a hold, then double taps.
        let begun = outputs.gestures.filter { $0.phase == .begin }
        #expect(begun.count == 1 + taps / 2)
        #expect(x.fingers.count == Explanation.listLimit)
        #expect(x.unlisted.fingers == taps + 1 - Explanation.listLimit)
        #expect(x.fingerCount == taps + 1)
        #expect(x.gestures.count == Explanation.listLimit)
        #expect(x.gestures.first?.kind == .hold && x.gestures.first?.outcome == .cancelled)
        #expect(x.unlisted.gestures == [GestureTally(kind: .tap, outcome: .committed, count: begun.count - Explanation.listLimit)])
        #expect(x.touches.count <= Explanation.listLimit)
        #expect(x.reasons.count <= Explanation.reasonLimit)
        // The first fingers are the ones listed, in the order they landed.
        #expect(abs(x.fingers[0].fromLeftMM - 30) < 1e-9 && abs(x.fingers[1].fromLeftMM - 70) < 1e-9)
    }

    @Test func theBoundedExplanationIsWellFormedJSONWithItsSummary() throws {
        let (xs, _) = try ExplanationTests.explain(Self.restingFingerTapping(2_000))
        let x = try #require(xs.first)
        let line = ExplanationJSON.encode(x)
        // A few tens of kilobytes whatever the sequence's length (2 000 taps made 340 KB before the bound).
        #expect(line.utf8.count < 64 * 1024, "\(line.utf8.count) bytes")
        #expect(!line.utf8.contains(0x0a))
        let value = try JSONParser.parse(line)
        let unlisted = try #require(value["unlisted"])
        #expect(unlisted["fingers"]?.intValue == 2_001 - Explanation.listLimit)
        #expect(unlisted["gestures"]?.arrayValue?.first?["gesture"]?.stringValue == "tap")
        #expect(unlisted["gestures"]?.arrayValue?.first?["count"]?.intValue == 1 + 1_000 - Explanation.listLimit)
        #expect(value["fingers"]?.arrayValue?.count == Explanation.listLimit)
        // Read back as it was written (numbers to the JSON's 1e-4).
        let decoded = try #require(ExplanationJSON.decode(value)).explanation
        #expect(decoded.unlisted == x.unlisted)
        #expect(decoded.fingers.count == x.fingers.count && decoded.gestures == x.gestures && decoded.touches.count == x.touches.count)
    }

    /// The largest explanation the bounds allow: every list full, every reason with three measurements,
    /// a landing and an exclusion named by a long source. Its line is under 32 KiB, half the smallest
    /// client_buffer_bytes (64 KiB), so no explanation can drop the client it is sent to.
    @Test func theLargestExplanationFitsHalfTheSmallestClientBuffer() throws {
        let landing = Landing(positionMM: Vector2(123.4567, 234.5678), screenSizeMM: (345.6789, 456.7891), zones: [.left, .top])
        let measurement = Measurement(.distanceFromEdge, 12345.6789, key: "edge_swipe.bottom-right.zone_mm", setting: 123.456789)
        let reason = Reason(
            kind: .edgeSwipe, cause: .excluded, edge: .bottomRight, measurements: [measurement, measurement, measurement],
            gestureID: UInt64.max, other: .edgeSwipe, excludedRange: 0.123456...0.987654,
            exclusionSource: "client 123456 (uid 4294967294, pid 4194304 org.example.a-very-long-app-name)", landing: landing,
            timeMicroseconds: Int64.max / 2)
        let touch = TouchMeasurement(
            fingers: 10, startMicroseconds: Int64.max / 2, endMicroseconds: Int64.max / 2,
            landingDistanceMM: SideDistances(left: 1234.5678, right: 1234.5678, top: 1234.5678, bottom: 1234.5678), moveAtSlopMM: Vector2(-123.4567, -123.4567),
            measuredAtSlopMM: 12.3456, travelMM: Vector2(-1234.5678, -1234.5678), releaseVelocityMMPerSecond: Vector2(-12345.6789, -12345.6789),
            maximumMoveMM: 1234.5678)
        let gesture = ExplainedGesture(
            kind: .edgeSwipe, id: UInt64.max, fingers: 10, edge: .bottomRight, direction: .downRight, taps: 10, outcome: .notCommitted,
            beganBeforeExplaining: true)
        let x = Explanation(
            startMicroseconds: Int64.max / 2, endMicroseconds: Int64.max / 2, fingers: Array(repeating: landing, count: Explanation.listLimit),
            gestures: Array(repeating: gesture, count: Explanation.listLimit), reasons: Array(repeating: reason, count: Explanation.reasonLimit),
            touches: Array(repeating: touch, count: Explanation.listLimit), fingersAlreadyDown: 10,
            unlisted: Unlisted(
                fingers: Int.max, gestures: GestureKind.allCases.map { GestureTally(kind: $0, outcome: .notCommitted, count: Int.max) },
                touches: Int.max, reasons: Int.max))
        let bytes = ExplanationJSON.encode(x, device: "event123").utf8.count
        #expect(bytes < 32 * 1024, "\(bytes) bytes")
    }

    @Test func theTextSaysWhatIsNotListed() throws {
        let (xs, _) = try ExplanationTests.explain(Self.restingFingerTapping(100))
        let x = try #require(xs.first)
        let text = x.text(relativeToMicroseconds: x.startMicroseconds)
        #expect(text.hasPrefix("touch at 0.000 s to "))
        #expect(text.contains(", 101 fingers:\n"))
        #expect(text.contains("\n  and \(101 - Explanation.listLimit) more fingers (not listed)\n"))
        #expect(text.contains("\n  and then (not listed): tap, committed ×\(51 - Explanation.listLimit)\n"))
        let line = x.line(number: 1, relativeToMicroseconds: x.startMicroseconds)
        #expect(line == "touch 1 at 0.000 s, 101 fingers: hold, cancelled; then tap, 2 taps, committed; then tap, 2 taps, committed; and then tap, committed ×48")
    }

    @Test func aResetForgetsTheFingersOfTheSequenceItEnded() throws {
        // After a replay's pass (the engine reset), contacts are numbered from 1 again: the next pass's
        // first finger is a landing, not a finger already down.
        let s = Self.restingFingerTapping(3)
        var engine = try GestureEngine(device: s.device)
        engine.explaining = true
        var out = EngineOutput()
        engine.process(s.events, into: &out)
        engine.reset(atMicroseconds: s.time + 1_000_000, into: &out)
        out.events.removeAll()
        var again = TouchScript()
        again.down(0, 30, 80); again.frame()
        again.up(0); again.frame()
        engine.process(again.events.map { var e = $0; e.timeMicroseconds += s.time + 2_000_000; return e }, into: &out)
        engine.advance(toMicroseconds: s.time + 4_000_000, into: &out)
        let xs = out.events.compactMap { o -> Explanation? in if case .explanation(let x) = o { return x } else { return nil } }
        #expect(xs.count == 1)
        #expect(xs.first?.fingers.count == 1 && xs.first?.fingersAlreadyDown == 0)
    }

    // MARK: Explaining started while a finger is down (issue 38, item 7)

    /// A left edge swipe, from 2 mm in, 40 mm inward in 10 frames; explaining is switched on after
    /// `framesBefore` frames of it.
    static func swipeExplainedFrom(frame framesBefore: Int, updates: Bool = true) throws -> [Explanation] {
        var s = TouchScript()
        s.down(0, 2, 80); s.frame()
        s.drag([0], by: 40, 0, steps: 10)
        s.up(0); s.frame()
        // A tap afterwards, wholly explained.
        s.wait(1)
        s.down(0, 50, 50); s.frame()
        s.up(0); s.frame()
        var engine = try GestureEngine(device: s.device)
        engine.reportsUpdates = updates
        var out = EngineOutput()
        // Frames end at SYN_REPORT: split after the framesBefore-th one.
        let reports = s.events.indices.filter { s.events[$0].type == 0 && s.events[$0].code == 0 }
        let split = reports[framesBefore] + 1
        engine.process(Array(s.events[..<split]), into: &out)
        out.events.removeAll()
        engine.explaining = true
        engine.process(Array(s.events[split...]), into: &out)
        engine.advance(toMicroseconds: s.time + 2_000_000, into: &out)
        return out.events.compactMap { o -> Explanation? in if case .explanation(let x) = o { return x } else { return nil } }
    }

    @Test func aTouchDownBeforeExplainingIsSaidToBeSoWithoutALanding() throws {
        let xs = try Self.swipeExplainedFrom(frame: 5)
        #expect(xs.count == 2)
        let swipe = try #require(xs.first)
        #expect(swipe.fingers.isEmpty, "a landing was invented: \(swipe.fingers)")
        #expect(swipe.fingersAlreadyDown == 1)
        #expect(swipe.touches.isEmpty, "a touch seen from its middle was measured")
        #expect(swipe.gestures.count == 1)
        let g = try #require(swipe.gestures.first)
        #expect(g.kind == .edgeSwipe && g.edge == .left && g.outcome == .committed && g.beganBeforeExplaining)
        #expect(swipe.line(number: 1, relativeToMicroseconds: swipe.startMicroseconds)
            == "touch 1 at 0.000 s, 1 finger (1 already down when explaining started): edge-swipe from the left, committed (began before explaining started)")
        let text = swipe.text()
        #expect(text.contains("1 finger was already down when explaining started: where it landed is not known"))
        #expect(!text.contains("landed 2"))
        let json = try JSONParser.parse(ExplanationJSON.encode(swipe))
        #expect(json["fingers_already_down"]?.intValue == 1)
        #expect(json["fingers"]?.arrayValue?.isEmpty == true)
        #expect(json["gestures"]?.arrayValue?.first?["began_before_explaining"]?.boolValue == true)
        // The next touch is explained whole.
        let tap = xs[1]
        #expect(tap.fingersAlreadyDown == 0 && tap.fingers.count == 1 && tap.touches.count == 1)
        #expect(abs(tap.fingers[0].fromLeftMM - 50) < 1e-9)
        #expect(tap.gestures.map(\.kind) == [.tap] && tap.gestures.first?.beganBeforeExplaining == false)
    }

    @Test func withUpdatesOffTheFingerDownBeforeIsStillCounted() throws {
        // No update opens the sequence while the finger is down (the daemon without a client taking
        // updates): it opens at the end, in the frame the finger lifts; the finger is counted all the same.
        let xs = try Self.swipeExplainedFrom(frame: 5, updates: false)
        let swipe = try #require(xs.first)
        #expect(swipe.fingersAlreadyDown == 1 && swipe.fingers.isEmpty && swipe.touches.isEmpty)
        #expect(swipe.gestures.first?.beganBeforeExplaining == true && swipe.gestures.first?.outcome == .committed)
        #expect(xs.count == 2 && xs[1].fingersAlreadyDown == 0 && xs[1].fingers.count == 1)
    }

    @Test func explainingFromTheLandingFrameIsAWholeTouch() throws {
        // Switched on after the landing frame, before any motion: the finger was down already.
        let xs = try Self.swipeExplainedFrom(frame: 0)
        #expect(xs.first?.fingersAlreadyDown == 1 && xs.first?.fingers.isEmpty == true)
    }
}
