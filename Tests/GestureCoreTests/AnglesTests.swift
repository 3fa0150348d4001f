import Glibc
import GestureVocabulary
import Testing

@testable import GestureCore

/// GestureCore computes angles without libm (Angles.swift), so that a recording replays bit for bit
/// wherever it runs. These sweeps hold its replacements to libm's functions over dense grids, to the
/// error bounds their doc comments state.
@Suite struct AnglesTests {
    /// The bound Angles.atan2's doc comment states, radians.
    static let atan2Bound = 3e-9

    /// The largest difference from libm over `pairs`. A zero y is given to libm as +0: Angles.atan2 gives
    /// π for a negative zero on the negative x axis where libm gives -π, as `atan2DiffersFromLibmOnlyWhereItSays` shows.
    private func worstAtan2Error(_ pairs: [(y: Double, x: Double)]) -> (error: Double, y: Double, x: Double) {
        var worst = (error: 0.0, y: 0.0, x: 0.0)
        for (y, x) in pairs {
            let error = abs(Angles.atan2(y, x) - Glibc.atan2(y == 0 ? 0 : y, x))
            if !(error <= worst.error) { worst = (error, y, x) }  // a NaN is the worst of all
        }
        return worst
    }

    /// All four quadrants and the axes, on a dense circle at magnitudes from subnormal to near the largest
    /// double; the seams of the series (tan(π/8) and 1 as |y|/|x| or |x|/|y|) approached from both sides;
    /// an integer grid (the differences of touch positions); extreme ratios.
    @Test func atan2AgreesWithLibmWithinItsStatedBound() {
        var pairs: [(y: Double, x: Double)] = []
        let radii = [5e-324, 1e-310, 1e-300, 1e-150, 1e-10, 1e-3, 1, 7.5, 1e3, 1e10, 1e150, 1e300, 1.7e308]
        let steps = 72_000  // 0.005° apart
        for k in 0..<steps {
            let theta = Double(k) * 2 * Double.pi / Double(steps) - Double.pi
            let (c, s) = (Glibc.cos(theta), Glibc.sin(theta))
            for r in radii where r * abs(c) <= Double.greatestFiniteMagnitude {
                pairs.append((r * s, r * c))
            }
        }
        for r in radii {
            pairs += [(0, r), (0, -r), (r, 0), (-r, 0), (r, r), (-r, r), (r, -r), (-r, -r)]
        }
        // The seams: |y|/|x| or |x|/|y| just below, at and just above tan(π/8) and 1.
        let tanPiOver8 = Glibc.tan(Double.pi / 8)
        for seam in [tanPiOver8, 1.0] {
            var z = seam
            for _ in 0..<64 { z = z.nextDown }
            for _ in 0..<128 {
                for (sy, sx) in [(1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0)] {
                    pairs.append((sy * z, sx))
                    pairs.append((sy, sx * z))
                }
                z = z.nextUp
            }
        }
        for y in -300...300 {
            for x in -300...300 where x != 0 || y != 0 {
                pairs.append((Double(y), Double(x)))
            }
        }
        // Ratios that underflow or overflow.
        for (y, x) in [(1e-300, 1e300), (1e300, 1e-300), (5e-324, 1), (1, 5e-324), (-5e-324, -1.7e308), (1.7e308, -5e-324)] {
            pairs += [(y, x), (-y, x), (y, -x), (-y, -x)]
        }
        let worst = worstAtan2Error(pairs)
        #expect(worst.error <= AnglesTests.atan2Bound, "atan2(\(worst.y), \(worst.x)) is off by \(worst.error) rad")
        // The bound is the stated one, not a loose one: the sweep comes within a factor 2 of it.
        #expect(worst.error > AnglesTests.atan2Bound / 2, "the worst error, \(worst.error) rad, is far inside the stated bound")
    }

    /// Where Angles.atan2 means to differ from libm, as its doc comment says: the result is in (-π, π], so
    /// a negative zero y on the negative x axis gives π (libm: -π), and (±0, ±0) gives 0 (libm: ±0 or ±π);
    /// both infinite gives NaN (libm: an odd multiple of π/4). Everything else infinite or NaN is as libm.
    @Test func atan2DiffersFromLibmOnlyWhereItSays() {
        #expect(Angles.atan2(-0.0, -1) == Double.pi)
        #expect(Glibc.atan2(-0.0, -1) == -Double.pi)
        #expect(Angles.atan2(0.0, -1) == Double.pi)
        for (y, x) in [(0.0, 0.0), (-0.0, 0.0), (0.0, -0.0), (-0.0, -0.0)] {
            #expect(Angles.atan2(y, x) == 0)
        }
        #expect(Glibc.atan2(0.0, -0.0) == Double.pi)
        #expect(Angles.atan2(.infinity, .infinity).isNaN)
        #expect(Angles.atan2(-.infinity, .infinity).isNaN)
        #expect(Glibc.atan2(.infinity, .infinity) == Double.pi / 4)
        for (y, x) in [(Double.infinity, 1.0), (-.infinity, 1), (1, .infinity), (1, -.infinity), (-1, -.infinity), (.infinity, 0)] {
            #expect(abs(Angles.atan2(y, x) - Glibc.atan2(y, x)) <= AnglesTests.atan2Bound, "atan2(\(y), \(x))")
        }
        for (y, x) in [(Double.nan, 1.0), (1, .nan), (.nan, .nan)] {
            #expect(Angles.atan2(y, x).isNaN)
        }
    }

    /// `cosine(degrees:)` (the angle tolerance's cosine, found by bisection on atan2) against libm's cos,
    /// every 0.01° of its domain, within the bound its doc comment states.
    @Test func cosineAgreesWithLibmWithinItsStatedBound() {
        var worst = (error: 0.0, degrees: 0.0)
        for k in 0...18_000 {
            let degrees = Double(k) / 100
            let error = abs(Angles.cosine(degrees: degrees) - Glibc.cos(degrees * Double.pi / 180))
            if !(error <= worst.error) { worst = (error, degrees) }
        }
        #expect(worst.error <= AnglesTests.cosineBound, "cosine(degrees: \(worst.degrees)) is off by \(worst.error)")
        #expect(worst.error > AnglesTests.cosineBound / 2, "the worst error, \(worst.error), is far inside the stated bound")
        #expect(Angles.cosine(degrees: -10) == Angles.cosine(degrees: 0))
        #expect(Angles.cosine(degrees: 200) == Angles.cosine(degrees: 180))
    }

    /// The bound Angles.cosine's doc comment states.
    static let cosineBound = 3e-9
}
