import GestureVocabulary

/// A readable one-line rendering of gesture events, for people watching `gesturectl monitor` or
/// `gesturectl replay --pretty`. The JSON lines are the machine interface; this is not parsed.
public enum GestureEventText {
    public static func format(_ e: GestureEvent, device: String? = nil, relativeToMicroseconds origin: Int64 = 0) -> String {
        var s = pad(GestureEventJSON.seconds(e.timeMicroseconds - origin), 11, left: true) + "s  "
        s += pad("#\(e.id)", 5) + pad(e.kind.rawValue, 11) + pad(e.phase.rawValue, 7)
        s += "\(e.fingers) finger" + (e.fingers == 1 ? " " : "s")
        if let edge = e.edge { s += "  from \(edge.rawValue)" }
        if let position = e.edgePosition { s += " at \(fixed(position, 2)) along it" }
        if let start = e.startEdge { s += "  started at the \(start.rawValue) edge" }
        if let taps = e.taps { s += "  \(taps) tap\(taps == 1 ? "" : "s")" }
        switch e.phase {
        case .end:
            s += (e.committed ?? false) ? "  COMMITTED" : "  not committed"
            if e.kind == .pan { s += "  direction \(e.direction?.rawValue ?? "none")" }
        case .cancel:
            s += "  CANCELLED"
        case .begin, .update:
            break
        }
        s += "  at (\(fixed(e.position.x, 3)), \(fixed(e.position.y, 3)))"
        s += "  moved (\(fixed(e.translationMM.x, 1)), \(fixed(e.translationMM.y, 1))) mm"
        s += "  v (\(fixed(e.velocityMMPerSecond.x, 0)), \(fixed(e.velocityMMPerSecond.y, 0))) mm/s"
        if let p = e.progress { s += "  progress \(fixed(p, 2))" }
        if let scale = e.scale { s += "  scale \(fixed(scale, 2))" }
        if let r = e.rotationDegrees { s += "  rotation \(fixed(r, 1))°" }
        if let device { s += "  [\(device)]" }
        return s
    }

    static func fixed(_ v: Double, _ decimals: Int) -> String {
        var out = ""
        JSONObjectWriter.appendFixed(v, decimals: decimals, to: &out)
        return out
    }

    static func pad(_ s: String, _ width: Int, left: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, width - s.count))
        return left ? fill + s : s + fill
    }
}
