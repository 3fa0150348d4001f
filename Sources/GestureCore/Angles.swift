import GestureVocabulary

/// Angle arithmetic without libm, so the core stays free of Glibc and bit-for-bit deterministic.
enum Angles {
    static let pi = 3.141592653589793
    static let degreesPerRadian = 180 / pi

    /// atan(z) for |z| <= tan(π/8), by its Taylor series to z^17: the series alternates, so the error is
    /// below the first term left out, tan(π/8)^19 / 19 = 2.8e-9 rad.
    @inline(__always)
    private static func atanSmall(_ z: Double) -> Double {
        let z2 = z * z
        var term = z
        var sum = z
        var n = 3.0
        var sign = -1.0
        while n <= 17 {
            term *= z2
            sum += sign * term / n
            sign = -sign
            n += 2
        }
        return sum
    }

    /// atan(z) for 0 <= z <= 1.
    @inline(__always)
    private static func atanUnit(_ z: Double) -> Double {
        let tanPiOver8 = 0.41421356237309503
        if z <= tanPiOver8 { return atanSmall(z) }
        // atan(z) = π/4 + atan((z - 1) / (z + 1)), and (z-1)/(z+1) is within ±tan(π/8) for z in [tan(π/8), 1].
        return pi / 4 + atanSmall((z - 1) / (z + 1))
    }

    /// The angle of (x, y) in radians, in (-π, π]; 0 for (0, 0). On screen coordinates (y down), a
    /// growing angle turns clockwise.
    ///
    /// For finite arguments it is within 3e-9 rad of libm's atan2 (the series' error; the largest a dense
    /// sweep finds, AnglesTests, is 2.43e-9 rad, at |y/x| = tan(π/8)). Where it differs from libm on
    /// purpose: a negative zero y with x < 0 gives π (libm: -π), the result staying in (-π, π]; (±0, ±0)
    /// gives 0 (libm: ±0 or ±π); (±∞, ±∞) gives NaN (libm: an odd multiple of π/4: the recognizer's
    /// vectors are differences of finite positions). NaN in gives NaN out.
    static func atan2(_ y: Double, _ x: Double) -> Double {
        if x == 0 && y == 0 { return 0 }
        let ax = abs(x)
        let ay = abs(y)
        var a = ay <= ax ? atanUnit(ay / ax) : pi / 2 - atanUnit(ax / ay)
        if x < 0 { a = pi - a }
        return y < 0 ? -a : a
    }

    /// The angle of a vector in degrees, in (-180, 180].
    static func degrees(of v: Vector2) -> Double { atan2(v.y, v.x) * degreesPerRadian }

    /// `a` wrapped into (-180, 180].
    static func wrapDegrees(_ a: Double) -> Double {
        var x = a
        while x > 180 { x -= 360 }
        while x <= -180 { x += 360 }
        return x
    }
}

extension Angles {
    /// cos(x) for x in degrees (clamped to 0...180), found by bisection on the libm-free `degrees(of:)`;
    /// runs once per recognizer (the angle tolerance), never per frame. Within 3e-9 of libm's cos (atan2's
    /// error carried over: a sweep every 0.01° finds at most 2.25e-9, at 112.5°).
    static func cosine(degrees: Double) -> Double {
        let clamped = min(max(degrees, 0), 180)
        // Find the unit vector whose angle is `clamped`: bisection on x in [-1, 1].
        var lo = -1.0
        var hi = 1.0
        for _ in 0..<60 {
            let mid = (lo + hi) / 2
            let angle = Angles.degrees(of: Vector2(mid, (max(0, 1 - mid * mid)).squareRoot()))
            if angle > clamped { lo = mid } else { hi = mid }
        }
        return (lo + hi) / 2
    }
}
