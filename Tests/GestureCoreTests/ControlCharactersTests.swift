import Testing

@testable import GestureCore
import PlainText

/// Issue 28, item 8: the one escaping helper leaves no two texts looking alike, and lets nothing through
/// that drives a terminal or starts a line.
@Suite struct ControlCharactersTests {
    @Test func aWrittenEscapeAndTheCharacterItNamesAreShownApart() {
        let written = "x\\u{a}y"  // the eight characters x, \, u, {, a, }, y
        let newline = "x\ny"
        #expect(escapingControlCharacters(newline) == "x\\u{a}y")
        #expect(escapingControlCharacters(written) == "x\\\\u{a}y")
        #expect(escapingControlCharacters(written) != escapingControlCharacters(newline))
        #expect(escapingControlCharacters("C:\\dir") == "C:\\\\dir")
    }

    @Test(arguments: [
        (0x202e, "right-to-left override"), (0x202a, "left-to-right embedding"), (0x2066, "left-to-right isolate"),
        (0x2069, "pop directional isolate"), (0x200b, "zero width space"), (0x200e, "left-to-right mark"),
        (0xfeff, "byte order mark"), (0x00ad, "soft hyphen"), (0x2028, "line separator"),
        (0x2029, "paragraph separator"), (0x0085, "next line (C1)"), (0x009b, "control sequence introducer (C1)"),
        (0x001b, "escape"), (0x007f, "delete"), (0xe0041, "tag latin capital letter A"),
    ])
    func formatSeparatorAndControlCharactersAreEscaped(value: UInt32, name: String) {
        let scalar = Unicode.Scalar(value)!
        let text = "a" + String(Character(scalar)) + "b"
        #expect(isEscapedInMessages(scalar), "\(name)")
        #expect(escapingControlCharacters(text) == "a\\u{\(String(value, radix: 16))}b", "\(name)")
        // A whole message keeps its backslashes (its values' escapes) but not these.
        #expect(escapingControlCharacters(text, keepingLines: true, keepingBackslashes: true) == "a\\u{\(String(value, radix: 16))}b", "\(name)")
    }

    @Test func ordinaryTextIsLeftAlone() {
        for text in ["Wacom ISDv4 E6 Finger", "Écran tactile", "触摸屏", "Ελληνικά", "עברית", "العربية", "emoji 👍", "tab-less"] {
            #expect(escapingControlCharacters(text) == text)
        }
    }

    @Test func aMessageKeepsItsLinesAndBackslashesOnlyWhenAsked() {
        let message = "device \"x\\\\u{a}y\": warned\nsecond line\tend \u{202e}"
        #expect(
            escapingControlCharacters(message, keepingLines: true, keepingBackslashes: true)
                == "device \"x\\\\u{a}y\": warned\nsecond line\tend \\u{202e}")
        #expect(
            escapingControlCharacters(message, keepingLines: true)
                == "device \"x\\\\\\\\u{a}y\": warned\nsecond line\tend \\u{202e}")
        #expect(
            escapingControlCharacters(message, keepingBackslashes: true)
                == "device \"x\\\\u{a}y\": warned\\u{a}second line\\u{9}end \\u{202e}")
    }
}
