/// An fnmatch-style glob: `*` matches any run of characters, `?` any one character, `[abc]`, `[a-z]`
/// and `[!a-z]` (or `[^a-z]`) one character of (or not of) a set, and `\x` the character x itself.
/// In pathname mode (`match_path`) none of `*`, `?` and brackets match a `/`, as with FNM_PATHNAME.
///
/// A valid pattern matches exactly what glibc's fnmatch(3) matches in a UTF-8 locale (C.UTF-8: one
/// character is one Unicode scalar, ranges are by code point), with flags 0 or FNM_PATHNAME; a test
/// sweeps generated patterns and names against fnmatch. Where fnmatch reads a pattern leniently or has
/// more syntax, `problem(in:)` refuses the pattern instead (validation says why): POSIX classes
/// (`[[:digit:]]`), collating symbols (`[[.a.]]`) and equivalence classes (`[[=a=]]`); a `[` with no
/// `]` (fnmatch: a literal bracket); a trailing lone `\` (fnmatch: matches nothing); a backwards range
/// such as `[z-a]` (fnmatch: matches nothing). One difference remains, in pathname mode: a `*` followed by
/// an escaped slash (`*\/`) matches as `*/` does, where glibc's fnmatch matches nothing (it looks for the
/// character after the star only before the next `/`); a slash needs no backslash.
package struct Glob: Sendable {
    private enum Token: Sendable {
        case literal(Unicode.Scalar)
        case anyOne
        case anyRun
        case set(ranges: [ClosedRange<UInt32>], negated: Bool)
    }

    private let tokens: [Token]
    private let pathname: Bool

    package init(_ pattern: String, pathname: Bool) {
        self.tokens = (try? Glob.tokenize(pattern).get()) ?? pattern.unicodeScalars.map { .literal($0) }
        self.pathname = pathname
    }

    /// Why `pattern` is not a valid glob, or nil when it is.
    package static func problem(in pattern: String) -> String? {
        switch tokenize(pattern) {
        case .success: return nil
        case .failure(let error): return error.message
        }
    }

    struct SyntaxError: Error { var message: String }

    private static func tokenize(_ pattern: String) -> Result<[Token], SyntaxError> {
        let s = Array(pattern.unicodeScalars)
        var tokens: [Token] = []
        var i = 0
        while i < s.count {
            let c = s[i]
            switch c {
            case "*":
                // Consecutive stars mean the same as one.
                if case .anyRun = tokens.last {} else { tokens.append(.anyRun) }
                i += 1
            case "?":
                tokens.append(.anyOne)
                i += 1
            case "\\":
                guard i + 1 < s.count else {
                    return .failure(SyntaxError(message: "the pattern ends with a lone \\ (write \\\\ for a backslash)"))
                }
                tokens.append(.literal(s[i + 1]))
                i += 2
            case "[":
                var j = i + 1
                var negated = false
                if j < s.count, s[j] == "!" || s[j] == "^" {
                    negated = true
                    j += 1
                }
                var ranges: [ClosedRange<UInt32>] = []
                var first = true
                var closed = false
                // fnmatch reads "[:", "[." and "[=" inside brackets (an item or a range's end) as the start of
                // a class, a collating symbol or an equivalence class, which Glob does not have.
                func unsupportedSyntax(at k: Int) -> SyntaxError? {
                    guard s[k] == "[", k + 1 < s.count else { return nil }
                    switch s[k + 1] {
                    case ":":
                        return SyntaxError(message: "character classes such as [:digit:] are not supported; write [0-9]")
                    case ".", "=":
                        return SyntaxError(
                            message: "collating symbols and equivalence classes such as [.a.] and [=a=] are not supported; "
                                + "write the characters (\\[ for a bracket)")
                    default:
                        return nil
                    }
                }
                while j < s.count {
                    var low = s[j]
                    if low == "]" && !first {
                        closed = true
                        j += 1
                        break
                    }
                    if let error = unsupportedSyntax(at: j) { return .failure(error) }
                    if low == "\\" && j + 1 < s.count {
                        j += 1
                        low = s[j]
                    }
                    first = false
                    j += 1
                    if j + 1 < s.count, s[j] == "-", s[j + 1] != "]" {
                        if let error = unsupportedSyntax(at: j + 1) { return .failure(error) }
                        var high = s[j + 1]
                        j += 2
                        if high == "\\" && j < s.count {
                            high = s[j]
                            j += 1
                        }
                        guard low.value <= high.value else {
                            return .failure(SyntaxError(message: "the range \(low)-\(high) is backwards"))
                        }
                        ranges.append(low.value...high.value)
                    } else {
                        ranges.append(low.value...low.value)
                    }
                }
                guard closed else {
                    return .failure(SyntaxError(message: "a [ is not closed by ] (write \\[ for a bracket)"))
                }
                tokens.append(.set(ranges: ranges, negated: negated))
                i = j
            default:
                tokens.append(.literal(c))
                i += 1
            }
        }
        return .success(tokens)
    }

    package func matches(_ text: String) -> Bool {
        let t = Array(text.unicodeScalars)
        let slash: Unicode.Scalar = "/"
        // reachable[j]: the tokens so far can match exactly the first j characters.
        var reachable = [Bool](repeating: false, count: t.count + 1)
        reachable[0] = true
        for token in tokens {
            var next = [Bool](repeating: false, count: t.count + 1)
            switch token {
            case .anyRun:
                for j in 0...t.count {
                    if reachable[j] {
                        next[j] = true
                    } else if j > 0, next[j - 1], !(pathname && t[j - 1] == slash) {
                        next[j] = true
                    }
                }
            case .anyOne, .literal, .set:
                for j in 0..<t.count where reachable[j] && matchesOne(token, t[j]) {
                    next[j + 1] = true
                }
            }
            reachable = next
        }
        return reachable[t.count]
    }

    private func matchesOne(_ token: Token, _ c: Unicode.Scalar) -> Bool {
        switch token {
        case .literal(let l): return l == c
        case .anyOne: return !(pathname && c == "/")
        case .anyRun: return false
        case .set(let ranges, let negated):
            if pathname && c == "/" { return false }
            return ranges.contains { $0.contains(c.value) } != negated
        }
    }
}
