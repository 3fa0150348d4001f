import Glibc
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

/// Glob against glibc's fnmatch(3), which it reimplements: generated patterns (stars, `?`, brackets with
/// ranges and negation, escapes in and out of brackets, slashes) over generated names, in name mode
/// (flags 0) and path mode (FNM_PATHNAME), in the C.UTF-8 locale (one character is one Unicode scalar,
/// ranges by code point, as Glob has them). Every valid pattern must agree on every name; the patterns
/// Glob refuses are the ones its doc comment lists, each shown against fnmatch below.
///
/// With characters outside ASCII, Debian's glibc (2.36) matches a name that matches as characters or,
/// failing that, byte by byte (`??` matches "ü", two bytes, as `?` does); Glob matches characters
/// only. So where a pattern or name has such characters, the sweep expects from fnmatch Glob's answer,
/// or a match when fnmatch's single-byte reading (in the C locale) matches.
@Suite("Globs against glibc's fnmatch")
struct GlobFnmatchTests {
    /// The same patterns on every run.
    typealias Generator = RobustnessTests.Generator

    /// Characters of names and of the patterns' literals: letters, the metacharacters, a slash, a dot,
    /// and two letters outside ASCII (ä < ö < ü by code point).
    static let characters: [String] = ["a", "b", "c", "z", "-", "/", ".", "]", "[", "!", "^", "*", "?", "\\", "ä", "ö", "ü"]

    /// One of the characters; `plain` leaves out those that mean something in a pattern.
    static func character(_ g: inout Generator, plain: Bool = false) -> String {
        let pool = plain ? characters.filter { !["*", "?", "[", "\\"].contains($0) } : characters
        return pool.randomElement(using: &g)!
    }

    /// A pattern of 0 to 6 pieces, mostly valid.
    static func pattern(_ g: inout Generator) -> String {
        var p = ""
        for _ in 0..<Int.random(in: 0...6, using: &g) {
            switch Int.random(in: 0..<10, using: &g) {
            case 0..<3: p += character(&g, plain: true)
            case 3: p += "*"
            case 4: p += "?"
            case 5: p += "\\" + character(&g)
            default:
                p += "["
                if Bool.random(using: &g) { p += ["!", "^"].randomElement(using: &g)! }
                for _ in 0..<Int.random(in: 1...3, using: &g) {
                    switch Int.random(in: 0..<5, using: &g) {
                    case 0: p += "\\" + character(&g)
                    case 1, 2:
                        // Mostly in order; a backwards range now and then, which Glob refuses.
                        var ends = [character(&g), character(&g)]
                        if Int.random(in: 0..<8, using: &g) > 0 {
                            ends.sort { $0.unicodeScalars.first!.value < $1.unicodeScalars.first!.value }
                        }
                        p += ends[0] + "-" + ends[1]
                    default: p += character(&g)
                    }
                }
                p += "]"
            }
        }
        return p
    }

    /// A name made to match `pattern` (for its plainest reading), so that matches are as common as
    /// mismatches; the caller mutates some.
    static func instance(of pattern: String, _ g: inout Generator) -> String {
        let s = Array(pattern.unicodeScalars).map(String.init)
        var name = ""
        var i = 0
        while i < s.count {
            switch s[i] {
            case "*":
                for _ in 0..<Int.random(in: 0...3, using: &g) { name += character(&g) }
                i += 1
            case "?":
                name += character(&g)
                i += 1
            case "\\" where i + 1 < s.count:
                name += s[i + 1]
                i += 2
            case "[":
                // Some character named inside the brackets, or any.
                var j = i + 1
                var inside: [String] = []
                while j < s.count && (s[j] != "]" || j == i + 1) {
                    if s[j] != "\\" && s[j] != "-" { inside.append(s[j]) }
                    j += 1
                }
                name += Bool.random(using: &g) ? (inside.randomElement(using: &g) ?? "a") : character(&g)
                i = j + 1
            default:
                name += s[i]
                i += 1
            }
        }
        return name
    }

    static func names(for pattern: String, _ g: inout Generator) -> [String] {
        var names: [String] = []
        for _ in 0..<12 {
            var name = instance(of: pattern, &g)
            if Int.random(in: 0..<3, using: &g) == 0, !name.isEmpty {
                var scalars = Array(name.unicodeScalars).map(String.init)
                let at = Int.random(in: 0..<scalars.count, using: &g)
                switch Int.random(in: 0..<3, using: &g) {
                case 0: scalars[at] = character(&g)
                case 1: scalars.remove(at: at)
                default: scalars.insert(["/", character(&g)].randomElement(using: &g)!, at: at)
                }
                name = scalars.joined()
            }
            names.append(name)
        }
        for _ in 0..<8 {
            names.append((0..<Int.random(in: 0...5, using: &g)).map { _ in character(&g) }.joined())
        }
        return names
    }

    /// fnmatch in C.UTF-8, on this thread only (uselocale), so other tests running meanwhile keep theirs.
    static func withUTF8Locale<T>(_ body: () throws -> T) throws -> T {
        let locale = try #require(newlocale((1 << LC_CTYPE) | (1 << LC_COLLATE), "C.UTF-8", nil), "no C.UTF-8 locale")
        defer { freelocale(locale) }
        let previous = uselocale(locale)
        defer { uselocale(previous) }
        return try body()
    }

    static func fnmatches(_ pattern: String, _ name: String, pathname: Bool) -> Bool {
        fnmatch(pattern, name, pathname ? FNM_PATHNAME : 0) == 0
    }

    /// `text` with every `target` replaced (without Foundation's string search, on scalars).
    static func replacing(_ target: String, with replacement: String, in text: String) -> String {
        let t = Array(target.unicodeScalars)
        let s = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        var i = 0
        while i < s.count {
            if i + t.count <= s.count && Array(s[i..<(i + t.count)]) == t {
                out.append(contentsOf: replacement.unicodeScalars)
                i += t.count
            } else {
                out.append(s[i])
                i += 1
            }
        }
        return String(out)
    }

    /// fnmatch's single-byte reading: in the C locale, on this thread for the one call.
    static func fnmatchesBytewise(_ pattern: String, _ name: String, pathname: Bool, c: locale_t) -> Bool {
        let previous = uselocale(c)
        defer { uselocale(previous) }
        return fnmatches(pattern, name, pathname: pathname)
    }

    @Test func validPatternsMatchWhatFnmatchMatches() throws {
        var g = Generator(state: 0x5EED_610B)
        var compared = 0
        var matched = 0
        var refused = 0
        var outsideASCII = 0
        var bytewiseOnly = 0
        var disagreements: [String] = []
        let c = try #require(newlocale((1 << LC_CTYPE) | (1 << LC_COLLATE), "C", nil))
        defer { freelocale(c) }
        try GlobFnmatchTests.withUTF8Locale {
            for _ in 0..<6000 {
                let pattern = GlobFnmatchTests.pattern(&g)
                if let problem = Glob.problem(in: pattern) {
                    refused += 1
                    #expect(GlobFnmatchTests.refusals.contains { problem.hasPrefix($0) }, "\(pattern): \(problem)")
                    continue
                }
                for pathname in [false, true] {
                    let glob = Glob(pattern, pathname: pathname)
                    for name in GlobFnmatchTests.names(for: pattern, &g) {
                        let ours = glob.matches(name)
                        // glibc never matches `*\/` in pathname mode (Glob's doc comment): asked with `*/`.
                        let asked = pathname ? GlobFnmatchTests.replacing("*\\/", with: "*/", in: pattern) : pattern
                        let theirs = GlobFnmatchTests.fnmatches(asked, name, pathname: pathname)
                        compared += 1
                        if theirs { matched += 1 }
                        var expected = ours
                        if !(pattern + name).unicodeScalars.allSatisfy(\.isASCII) {
                            outsideASCII += 1
                            // fnmatch also takes a byte-by-byte match (see above).
                            if !ours && GlobFnmatchTests.fnmatchesBytewise(asked, name, pathname: pathname, c: c) {
                                expected = true
                                bytewiseOnly += 1
                            }
                        }
                        if expected != theirs && disagreements.count < 20 {
                            disagreements.append("\(pathname ? "path" : "name") \(pattern) on \(name): Glob \(ours), fnmatch \(theirs)")
                        }
                    }
                }
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.joined(separator: "\n"))")
        // The sweep means something: many comparisons, matches and mismatches both common, characters
        // outside ASCII in many, the refused patterns a minority, and the byte-by-byte reading an exception.
        #expect(compared > 150_000)
        #expect(matched > compared / 5 && matched < compared * 4 / 5, "\(matched) of \(compared) matched")
        #expect(outsideASCII > compared / 4, "\(outsideASCII) of \(compared) outside ASCII")
        #expect(refused > 0 && refused < 6000 / 4, "\(refused) of 6000 patterns refused")
        #expect(bytewiseOnly < compared / 50, "\(bytewiseOnly) of \(compared) matched by fnmatch byte by byte only")
    }

    /// The beginnings of the messages `Glob.problem(in:)` gives.
    static let refusals = [
        "character classes such as [:digit:]", "collating symbols and equivalence classes", "a [ is not closed",
        "the pattern ends with a lone \\", "the range",
    ]

    /// What fnmatch makes of each pattern Glob refuses: accepted syntax Glob does not have, or a lenient
    /// reading a configuration should not rely on.
    @Test func patternsGlobRefusesAreThoseItsDocCommentLists() throws {
        try GlobFnmatchTests.withUTF8Locale {
            // More syntax: classes, collating symbols, equivalence classes.
            #expect(GlobFnmatchTests.fnmatches("event[[:digit:]]", "event7", pathname: false))
            #expect(Glob.problem(in: "event[[:digit:]]") == "character classes such as [:digit:] are not supported; write [0-9]")
            for pattern in ["[[.a.]]", "[[=a=]]", "x[![.-.]]"] {
                #expect(GlobFnmatchTests.fnmatches(pattern, pattern == "x[![.-.]]" ? "xa" : "a", pathname: false), "\(pattern)")
                #expect(
                    Glob.problem(in: pattern)
                        == "collating symbols and equivalence classes such as [.a.] and [=a=] are not supported; write the characters (\\[ for a bracket)")
            }
            // Lenient readings: a bracket never closed is a literal to fnmatch...
            #expect(GlobFnmatchTests.fnmatches("ev[ent", "ev[ent", pathname: false))
            #expect(Glob.problem(in: "ev[ent") == "a [ is not closed by ] (write \\[ for a bracket)")
            #expect(GlobFnmatchTests.fnmatches("[!]", "[!]", pathname: false))
            #expect(Glob.problem(in: "[!]") != nil)
            // ...a trailing backslash and a backwards range match nothing, not even themselves.
            #expect(!GlobFnmatchTests.fnmatches("ab\\", "ab\\", pathname: false))
            #expect(!GlobFnmatchTests.fnmatches("ab\\", "ab", pathname: false))
            #expect(Glob.problem(in: "ab\\") == "the pattern ends with a lone \\ (write \\\\ for a backslash)")
            for name in ["a", "m", "z", "[z-a]"] {
                #expect(!GlobFnmatchTests.fnmatches("[z-a]", name, pathname: false), "\(name)")
            }
            #expect(Glob.problem(in: "[z-a]") == "the range z-a is backwards")
            // In pathname mode, a star and an escaped slash: Glob as with `*/`, glibc never.
            for (pattern, name) in [("*\\/b", "a/b"), ("a*\\/", "a/"), ("*\\/", "/")] {
                #expect(Glob(pattern, pathname: true).matches(name), "\(pattern) on \(name)")
                #expect(!GlobFnmatchTests.fnmatches(pattern, name, pathname: true), "\(pattern) on \(name)")
                #expect(GlobFnmatchTests.fnmatches(pattern, name, pathname: false), "\(pattern) on \(name)")
            }
            #expect(GlobFnmatchTests.fnmatches("a\\/b", "a/b", pathname: true) && Glob("a\\/b", pathname: true).matches("a/b"))
            // A range's end that opens a collating symbol.
            #expect(!GlobFnmatchTests.fnmatches("[.-[.]x", ".x", pathname: false))
            #expect(Glob.problem(in: "[.-[.]x")?.hasPrefix("collating symbols") == true)
            #expect(GlobFnmatchTests.fnmatches("[*-[]", "[", pathname: false) && Glob("[*-[]", pathname: false).matches("["))
            // Outside ASCII: one character for Glob; fnmatch also accepts a byte-by-byte match.
            #expect(Glob("?", pathname: false).matches("ü") && GlobFnmatchTests.fnmatches("?", "ü", pathname: false))
            #expect(!Glob("??", pathname: false).matches("ü") && GlobFnmatchTests.fnmatches("??", "ü", pathname: false))
            #expect(Glob("[ä-ü]", pathname: false).matches("ö") && GlobFnmatchTests.fnmatches("[ä-ü]", "ö", pathname: false))
            // The same characters written so that Glob takes them: escaped, or not opening a class.
            for (pattern, name) in [("[\\[.]", "."), ("[\\[.]", "["), ("[.[]", "["), ("a[[]b", "a[b"), ("ab\\\\", "ab\\")] {
                #expect(Glob.problem(in: pattern) == nil, "\(pattern)")
                #expect(Glob(pattern, pathname: false).matches(name), "\(pattern) on \(name)")
                #expect(GlobFnmatchTests.fnmatches(pattern, name, pathname: false), "\(pattern) on \(name)")
            }
        }
    }
}
