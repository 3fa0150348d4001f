/// `text` with every control character (C0, DEL and C1) written as `\u{1b}`, so that what a file or a
/// device says (a recording's lines, a device name) shown in a message can neither drive a terminal nor
/// forge lines of a log. With `keepingLines`, newlines and tabs stay as they are (for whole messages).
public func escapingControlCharacters(_ text: some StringProtocol, keepingLines: Bool = false) -> String {
    func isControl(_ scalar: Unicode.Scalar) -> Bool {
        if keepingLines && (scalar == "\n" || scalar == "\t") { return false }
        return scalar.value < 0x20 || (0x7f...0x9f).contains(scalar.value)
    }
    guard text.unicodeScalars.contains(where: isControl) else { return String(text) }
    var out = ""
    for scalar in text.unicodeScalars {
        if isControl(scalar) {
            out += "\\u{\(String(scalar.value, radix: 16))}"
        } else {
            out.unicodeScalars.append(scalar)
        }
    }
    return out
}
