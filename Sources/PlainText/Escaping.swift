// Values from outside (device names, app_ids, a recording's or a file's text) made safe to show in a message,
// a log line or a terminal: the one escaping helper of every message, log and report.

/// Whether `scalar` is shown escaped in a message, a log line or a terminal: a control character (Unicode
/// general category Cc: C0, DEL and C1), a format character (Cf: the bidirectional overrides and isolates
/// such as U+202E, zero-width characters, the byte order mark), a line separator (Zl, U+2028) or a
/// paragraph separator (Zp, U+2029). Each of them can drive a terminal, start a line, or make a text
/// read as another.
public func isEscapedInMessages(_ scalar: Unicode.Scalar) -> Bool {
    let value = scalar.value
    if value < 0x80 { return value < 0x20 || value == 0x7f }
    if value <= 0x9f { return true }
    switch scalar.properties.generalCategory {
    case .control, .format, .lineSeparator, .paragraphSeparator: return true
    default: return false
    }
}

/// `text` made safe to show, the one escaping helper of every message, log and report:
///
/// - a value from outside (a recording's lines, a device's name, an app_id, a file's text), the default:
///   every character `isEscapedInMessages` names is written as `\u{202e}`, and a backslash as `\\`, so the
///   result reads back to exactly one text (the app_id `x\u{a}y`, written so, and one holding a real
///   newline differ) and can neither drive a terminal nor forge a line of a log;
/// - a whole message (`keepingBackslashes`), whose values were escaped where they were put in: its
///   backslashes are those escapes, and are kept; the rest is escaped as for a value, so a value that was
///   not escaped still cannot drive a terminal. With `keepingLines`, newlines and tabs stay as they are
///   (a message of several lines).
public func escapingControlCharacters(
    _ text: some StringProtocol, keepingLines: Bool = false, keepingBackslashes: Bool = false
) -> String {
    func isEscaped(_ scalar: Unicode.Scalar) -> Bool {
        if scalar == "\\" { return !keepingBackslashes }
        if keepingLines && (scalar == "\n" || scalar == "\t") { return false }
        return isEscapedInMessages(scalar)
    }
    guard text.unicodeScalars.contains(where: isEscaped) else { return String(text) }
    var out = ""
    for scalar in text.unicodeScalars {
        if scalar == "\\" && !keepingBackslashes {
            out += "\\\\"
        } else if isEscaped(scalar) {
            out += "\\u{\(String(scalar.value, radix: 16))}"
        } else {
            out.unicodeScalars.append(scalar)
        }
    }
    return out
}
