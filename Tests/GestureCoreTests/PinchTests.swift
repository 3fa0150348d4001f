import Testing
@testable import GestureCore
import GestureVocabulary

@Suite struct PinchTests {
    @Test func spreadingFingersIsAPinchThatCommits() throws {
        var s = TouchScript()
        s.down(0, 40, 80); s.down(1, 60, 80); s.frame()
        s.animate([0, 1], steps: 20) { finger, f in finger == 0 ? (40 - 15 * f, 80) : (60 + 15 * f, 80) }
        s.up(0); s.up(1); s.frame()
        let events = try s.run()
        #expect(events.phases == ["pinch:begin", "pinch:update", "pinch:end"])
        #expect(events[0].scale == 1)
        #expect(events[0].rotationDegrees == 0)
        let end = try #require(events.last)
        // Span (mean distance from the centroid) 10 mm at landing and 25 mm at the end; the pinch began
        // when each finger had moved the 3 mm slop, at a span of 13 mm.
        #expect(abs(end.scale! - 25.0 / 13.0) < 1e-9)
        #expect(abs(end.spanMM! - 25) < 0.01)
        #expect(abs(end.rotationDegrees!) < 0.01)
        #expect(end.committed == true)
        #expect(end.position == Vector2(0.5, 0.5))
    }

    @Test func smallPinchDoesNotCommit() throws {
        var s = TouchScript()
        s.down(0, 30, 80); s.down(1, 70, 80); s.frame()
        s.animate([0, 1], steps: 10) { finger, f in finger == 0 ? (30 + 4 * f, 80) : (70 - 4 * f, 80) }
        s.up(0); s.up(1); s.frame()
        let end = try #require(try s.run().last)
        #expect(end.kind == .pinch && end.phase == .end)
        #expect(end.scale! < 1 && end.scale! > 0.85)
        #expect(end.committed == false)
    }

    @Test func rotationIsClockwisePositiveOnScreen() throws {
        // Two fingers 40 mm apart turn a quarter turn clockwise as seen on screen (y grows downward).
        var s = TouchScript()
        let c = (50.0, 80.0)
        let r = 20.0
        s.down(0, c.0 - r, c.1); s.down(1, c.0 + r, c.1); s.frame()
        s.animate([0, 1], steps: 30) { finger, f in
            let a = Double.pi * (finger == 0 ? 1 : 0) + f * Double.pi / 2
            return (c.0 + r * TouchMath.cos(a), c.1 + r * TouchMath.sin(a))
        }
        s.up(0); s.up(1); s.frame()
        let events = try s.run()
        #expect(events.first?.kind == .pinch)
        let end = try #require(events.last)
        // The pinch began after ~10° of turning; the rest is reported.
        #expect(end.rotationDegrees! > 75 && end.rotationDegrees! < 82)
        #expect(abs(end.scale! - 1) < 0.01)
        #expect(end.committed == true)
        #expect(events.compactMap(\.rotationDegrees) == events.compactMap(\.rotationDegrees).sorted())
    }

    @Test func counterClockwiseIsNegative() throws {
        var s = TouchScript()
        s.down(0, 30, 80); s.down(1, 70, 80); s.frame()
        s.animate([0, 1], steps: 30) { finger, f in
            let a = Double.pi * (finger == 0 ? 1 : 0) - f * Double.pi / 3
            return (50 + 20 * TouchMath.cos(a), 80 + 20 * TouchMath.sin(a))
        }
        s.up(0); s.up(1); s.frame()
        let end = try #require(try s.run().last)
        #expect(end.rotationDegrees! < -40)
    }

    @Test func oneFingerAnchoredOtherMovingAwayIsAPinch() throws {
        var s = TouchScript()
        s.down(0, 40, 80); s.down(1, 60, 80); s.frame()
        s.drag([1], by: 30, 0)
        s.up(0); s.up(1); s.frame()
        #expect(try s.run().first?.kind == .pinch)
    }

    @Test func threeFingerPinch() throws {
        var s = TouchScript()
        let pts = [(50.0, 60.0), (35.0, 90.0), (65.0, 90.0)]
        for (i, p) in pts.enumerated() { s.down(i, p.0, p.1) }
        s.frame()
        s.animate([0, 1, 2], steps: 20) { finger, f in
            let p = pts[finger]
            let c = (50.0, 80.0)
            let k = 1 - 0.6 * f
            return (c.0 + (p.0 - c.0) * k, c.1 + (p.1 - c.1) * k)
        }
        s.up(0); s.up(1); s.up(2); s.frame()
        let events = try s.run()
        #expect(events.first?.kind == .pinch && events.first?.fingers == 3)
        #expect(events.last?.scale ?? 1 < 0.5)
        #expect(events.last?.committed == true)
    }

    @Test func pinchDisabledMeansNoGestureForSpreadingFingers() throws {
        var settings = RecognizerSettings()
        settings.pinch.enabled = false
        var s = TouchScript()
        s.down(0, 40, 80); s.down(1, 60, 80); s.frame()
        s.animate([0, 1], steps: 20) { finger, f in finger == 0 ? (40 - 15 * f, 80) : (60 + 15 * f, 80) }
        s.up(0); s.up(1); s.frame()
        #expect(try s.run(settings: settings).isEmpty)
    }
}

/// sin and cos for the test scripts (the core has no libm), by Taylor series after range reduction.
enum TouchMath {
    static func sin(_ x: Double) -> Double {
        var a = x.truncatingRemainder(dividingBy: 2 * Double.pi)
        if a > Double.pi { a -= 2 * Double.pi }
        if a < -Double.pi { a += 2 * Double.pi }
        var term = a
        var sum = a
        for n in stride(from: 3, through: 31, by: 2) {
            term *= -a * a / Double((n - 1) * n)
            sum += term
        }
        return sum
    }

    static func cos(_ x: Double) -> Double { sin(x + Double.pi / 2) }
}
