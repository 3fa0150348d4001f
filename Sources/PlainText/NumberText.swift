// Numbers written for people, the one home of number formatting: the configuration's messages and
// `--check-config`, the plot, the explanations and the tuner, the protocol's explanation JSON.

/// A number as a person writes it: "500" rather than "500.0", "0.08" as is (the configuration's messages,
/// `--check-config`, the plot).
public func formatNumber(_ d: Double) -> String {
    if d.isNaN { return "nan" }
    if d.isInfinite { return d < 0 ? "-inf" : "inf" }
    if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
    return String(d)
}

/// Numbers with fixed decimals, as the explanations, the tuner and the explanation JSON print them: no
/// exponent, "-0" never.
public enum NumberText {
    /// `value` rounded half away from zero to `decimals` places.
    public static func fixed(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded(.toNearestOrAwayFromZero)
        guard scaled < 9e15 else { return String(value) }
        let units = Int64(scaled)
        let negative = value < 0 && units != 0
        let whole = units / Int64(scale)
        var s = (negative ? "-" : "") + String(whole)
        if decimals > 0 {
            let fraction = String(units % Int64(scale))
            s += "." + String(repeating: "0", count: decimals - fraction.count) + fraction
        }
        return s
    }

    /// A setting's value as a user writes it: "5", "0.5", "0.12".
    public static func setting(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        var s = fixed(value, decimals: 6)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s
    }
}
