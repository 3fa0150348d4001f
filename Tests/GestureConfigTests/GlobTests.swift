import Testing

@testable import GestureConfig

@Suite("Globs (match_name, match_path)")
struct GlobTests {
    func name(_ pattern: String, _ text: String) -> Bool { Glob(pattern, pathname: false).matches(text) }
    func path(_ pattern: String, _ text: String) -> Bool { Glob(pattern, pathname: true).matches(text) }

    @Test func literalsMatchExactly() {
        #expect(name("Goodix Capacitive TouchScreen", "Goodix Capacitive TouchScreen"))
        #expect(!name("Goodix", "Goodix Capacitive TouchScreen"))
        #expect(!name("goodix*", "Goodix Capacitive TouchScreen"))  // case matters, as with fnmatch
        #expect(name("", ""))
        #expect(!name("", "x"))
    }

    @Test func starMatchesAnyRun() {
        #expect(name("*", ""))
        #expect(name("*", "anything at all"))
        #expect(name("Goodix*", "Goodix Capacitive TouchScreen"))
        #expect(name("*TouchScreen", "Goodix Capacitive TouchScreen"))
        #expect(name("*Capacitive*", "Goodix Capacitive TouchScreen"))
        #expect(name("G*x*n", "Goodix Capacitive TouchScreen"))
        #expect(!name("G*x*z", "Goodix Capacitive TouchScreen"))
        #expect(name("a**b", "ab"))
        #expect(name("*/*", "a/b"))  // in names, * crosses /
    }

    @Test func questionMarkMatchesOneCharacter() {
        #expect(name("ELAN900?:00 04F3:2A1C", "ELAN9008:00 04F3:2A1C"))
        #expect(!name("a?c", "ac"))
        #expect(name("ü?", "üx"))
    }

    @Test func bracketsMatchSetsAndRanges() {
        #expect(name("event[0-9]", "event7"))
        #expect(!name("event[0-9]", "eventx"))
        #expect(name("[!a-z]x", "9x"))
        #expect(name("[^a-z]x", "9x"))
        #expect(!name("[!a-z]x", "bx"))
        #expect(name("[]]", "]"))
        #expect(name("[!]]", "a"))
        #expect(name("[a-]", "-"))
        #expect(name("[abc]", "b"))
    }

    @Test func backslashEscapes() {
        #expect(name("\\*", "*"))
        #expect(!name("\\*", "x"))
        #expect(name("a\\[b", "a[b"))
    }

    @Test func pathGlobsDoNotCrossSlashes() {
        #expect(path("/dev/input/event*", "/dev/input/event12"))
        #expect(path("/dev/input/by-path/platform-*-event", "/dev/input/by-path/platform-1c2ac00.i2c-event"))
        #expect(!path("/dev/*", "/dev/input/event3"))
        #expect(!path("/dev/input?event3", "/dev/input/event3"))
        #expect(!path("/dev/input[/]event3", "/dev/input/event3"))
        #expect(path("/dev/*/event3", "/dev/input/event3"))
    }

    @Test func invalidPatternsSayWhy() {
        #expect(Glob.problem(in: "Goodix*") == nil)
        #expect(Glob.problem(in: "[abc") == "a [ is not closed by ] (write \\[ for a bracket)")
        #expect(Glob.problem(in: "abc\\") == "the pattern ends with a lone \\ (write \\\\ for a backslash)")
        #expect(Glob.problem(in: "[z-a]") == "the range z-a is backwards")
        #expect(
            Glob.problem(in: "[[:digit:]]") == "character classes such as [:digit:] are not supported; write [0-9]")
    }

    @Test func editDistanceCountsEdits() {
        #expect(editDistance("", "abc") == 3)
        #expect(editDistance("kitten", "sitting") == 3)
        #expect(editDistance("slop_mm", "slop_mm") == 0)
        #expect(closest(to: "slop", among: ["slop_mm", "pan"]) == "slop_mm")
        #expect(closest(to: "xyzzy", among: ["slop_mm", "pan"]) == nil)
    }
}
