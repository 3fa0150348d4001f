import PlainText

/// A rectangle of the screen as the user sees it, x from the left and y from the top: where a binding's tap
/// or hold must be (`region`, `region_mm` in the bindings file), and where a client keeps one-finger holds
/// for itself (the `claim` request), tested against a gesture's fingers' centre.
public enum ScreenRegion: Equatable, Sendable {
    /// Fractions of the screen's width and height, 0 to 1.
    case normalized(x: ClosedRange<Double>, y: ClosedRange<Double>)
    /// Millimetres.
    case millimetres(x: ClosedRange<Double>, y: ClosedRange<Double>)

    public func contains(_ e: GestureEvent) -> Bool { contains(position: e.position, positionMM: e.positionMM) }

    /// Whether the point, normalised and in millimetres, is inside.
    public func contains(position: Vector2, positionMM: Vector2) -> Bool {
        switch self {
        case .normalized(let x, let y): return x.contains(position.x) && y.contains(position.y)
        case .millimetres(let x, let y): return x.contains(positionMM.x) && y.contains(positionMM.y)
        }
    }

    public var isMillimetres: Bool {
        if case .millimetres = self { return true }
        return false
    }

    public var described: String {
        switch self {
        case .normalized(let x, let y): return "region x \(formatNumber(x.lowerBound))-\(formatNumber(x.upperBound)), y \(formatNumber(y.lowerBound))-\(formatNumber(y.upperBound))"
        case .millimetres(let x, let y):
            return "region x \(formatNumber(x.lowerBound))-\(formatNumber(x.upperBound)) mm, y \(formatNumber(y.lowerBound))-\(formatNumber(y.upperBound)) mm"
        }
    }
}
