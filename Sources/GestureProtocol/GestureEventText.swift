import GestureVocabulary

/// A readable one-line rendering of gesture events, for people watching `gesturectl monitor` or
/// `gesturectl replay --pretty`. The JSON lines are the machine interface; this is not parsed.
public enum GestureEventText {
    public static func format(_ e: GestureEvent, device: String? = nil, relativeToMicroseconds origin: Int64 = 0) -> String {
        var s = pad(GestureEventJSON.seconds(e.timeMicroseconds - origin), 11, left: true) + "s  "
        s += pad("#\(e.id)", 5) + pad(e.kind.rawValue, 11) + pad(e.phase.rawValue, 7)
        s += "\(e.fingers) finger" + (e.fingers == 1 ? " " : "s")
        let fields = e.kind.fields.fields
        for field in fields where field.place == .beforeCommitted { append(field, of: e, to: &s) }
        switch e.phase {
        case .end:
            s += (e.committed ?? false) ? "  COMMITTED" : "  not committed"
            for field in fields where field.place == .atEnd { append(field, of: e, to: &s) }
        case .cancel:
            s += "  CANCELLED"
        case .begin, .update:
            break
        }
        s += "  at (\(fixed(e.position.x, 3)), \(fixed(e.position.y, 3)))"
        s += "  moved (\(fixed(e.translationMM.x, 1)), \(fixed(e.translationMM.y, 1))) mm"
        s += "  v (\(fixed(e.velocityMMPerSecond.x, 0)), \(fixed(e.velocityMMPerSecond.y, 0))) mm/s"
        for field in fields where field.place == .afterMotion { append(field, of: e, to: &s) }
        if let device { s += "  [\(device)]" }
        return s
    }

    /// One of the kind's own fields as its declaration shows it (`EventField.text`), when the event has
    /// a value for it (or the declaration says what to show without one).
    static func append(_ field: EventField, of e: GestureEvent, to s: inout String) {
        guard let text = field.text else { return }
        let shown: String?
        var count: Int?
        switch field.value {
        case .edge(let get): shown = get(e)?.rawValue
        case .direction(let get): shown = get(e)?.rawValue
        case .integer(let get):
            count = get(e)
            shown = count.map { String($0) }
        case .number(let get, _, _):
            guard case .phrase(_, let decimals, _) = text else { shown = get(e).map { fixed($0, 2) }; break }
            shown = get(e).map { fixed($0, decimals) }
        }
        switch text {
        case .phrase(let prefix, _, let suffix):
            guard let shown else { return }
            s += "\(prefix)\(shown)\(suffix)"
        case .count(let prefix, let singular, let plural):
            guard let shown else { return }
            s += "\(prefix)\(shown)\(count == 1 ? singular : plural)"
        case .orNone(let prefix, let none):
            s += "\(prefix)\(shown ?? none.description)"
        }
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
