import GestureVocabulary

/// A readable one-line rendering of gesture events, for people watching `gesturectl monitor` or
/// `gesturectl replay --pretty`. The JSON lines are the machine interface; this is not parsed.
public enum GestureEventText {
    public static func format(_ e: GestureEvent, device: String? = nil, relativeToMicroseconds origin: Int64 = 0) -> String {
        var s = pad(GestureEventJSON.seconds(e.timeMicroseconds - origin), 11, left: true) + "s  "
        s += pad("#\(e.id)", 5) + pad(e.kind.rawValue, 11) + pad(e.phase.rawValue, 7)
        s += "\(e.fingers) finger" + (e.fingers == 1 ? " " : "s")
        let declared = e.kind.descriptor
        for field in declared.beforeCommitted { s += text(field, of: e) }
        switch e.phase {
        case .end:
            s += (e.committed ?? false) ? "  COMMITTED" : "  not committed"
            for field in declared.atEnd { s += text(field, of: e) }
        case .cancel:
            s += "  CANCELLED"
        case .begin, .update:
            break
        }
        s += "  at (\(fixed(e.position.x, 3)), \(fixed(e.position.y, 3)))"
        s += "  moved (\(fixed(e.translationMM.x, 1)), \(fixed(e.translationMM.y, 1))) mm"
        s += "  v (\(fixed(e.velocityMMPerSecond.x, 0)), \(fixed(e.velocityMMPerSecond.y, 0))) mm/s"
        for field in declared.afterMotion { s += text(field, of: e) }
        if let device { s += "  [\(device)]" }
        return s
    }

    /// How the line shows a declared field (its `text`); nothing when the event does not carry it, unless
    /// the field says what to show then.
    static func text(_ field: EventField, of e: GestureEvent) -> String {
        let value = e[field]
        switch field.text {
        case .hidden:
            return ""
        case .phrase(let prefix, let decimals, let suffix):
            guard let value else { return "" }
            return "\(prefix)\(words(value, decimals: decimals))\(suffix)"
        case .count(let singular, let plural):
            guard let value else { return "" }
            let one: Bool
            if case .integer(let n) = value { one = n == 1 } else { one = false }
            return "  \(words(value, decimals: 0))\(one ? singular : plural)"
        case .orNone(let prefix, let none):
            return "\(prefix)\(value.map { words($0, decimals: 0) } ?? none.description)"
        }
    }

    /// A field's value as the line writes it.
    public static func words(_ value: EventFieldValue, decimals: Int) -> String {
        switch value {
        case .edge(let v): return v.rawValue
        case .direction(let v): return v.rawValue
        case .integer(let v): return String(v)
        case .number(let v): return fixed(v, decimals)
        case .flag(let v): return v ? "yes" : "no"
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
