import GestureConfig
// The `keys` of a binding: chords such as "alt+Left", "super+2", "XF86Back", typed into the focused app by
// `gesturectl bind` through the compositor's virtual keyboard. The syntax is checked here; the key names
// are xkb's keysym names, checked by whoever loads the file with libxkbcommon (`KeyNameChecking`; gesturectl
// passes WaylandSession's), so the daemon, which shares this module, links no xkbcommon.

/// A modifier held while a chord's key is typed.
public enum KeyModifier: String, CaseIterable, Equatable, Hashable, Sendable {
    case ctrl, alt, shift, `super`
}

/// One chord: modifiers held, one key pressed and released, the modifiers released.
public struct KeyChord: Equatable, Hashable, Sendable {
    /// In the order written (and pressed), each once.
    public var modifiers: [KeyModifier]
    /// An xkb keysym name ("Left", "2", "XF86Back").
    public var key: String

    public init(modifiers: [KeyModifier] = [], key: String) {
        self.modifiers = modifiers
        self.key = key
    }

    /// As written in the file: "alt+Left".
    public var described: String { (modifiers.map(\.rawValue) + [key]).joined(separator: "+") }

    /// Reads "mod+mod+Key". A problem is returned as a message; modifiers are case-insensitive ("Ctrl",
    /// "ALT"), key names are not (xkb's "Left" and "left" differ).
    public static func parse(_ text: String) -> Result<KeyChord, ChordProblem> {
        let parts = text.split(separator: "+", omittingEmptySubsequences: false).map(String.init)
        // "plus" is the keysym of '+'; a trailing "+" alone ("ctrl++") is read as that key.
        var names = parts
        if text.hasSuffix("++") || text == "+" {
            names = Array(parts.dropLast(2)) + ["plus"]
        }
        guard let key = names.last, !key.isEmpty else {
            return .failure(.init("\(quoted(text)) has no key after its modifiers (a chord is like \"alt+Left\")"))
        }
        var modifiers: [KeyModifier] = []
        for name in names.dropLast() {
            guard !name.isEmpty else { return .failure(.init("\(quoted(text)) has an empty name between two '+'")) }
            guard let modifier = KeyModifier.named(name) else {
                // "atl" is "alt" with two letters swapped.
                let anagram = KeyModifier.allCases.first { $0.rawValue.sorted() == name.lowercased().sorted() }?.rawValue
                let hint = (anagram ?? closest(to: name.lowercased(), among: KeyModifier.allCases.map(\.rawValue) + KeyModifier.aliases.map(\.0)))
                    .map { "; did you mean \(quoted(KeyModifier.named($0)!.rawValue))?" } ?? ""
                return .failure(.init("\(quoted(name)) in \(quoted(text)) is not a modifier (ctrl, alt, shift, super)\(hint)"))
            }
            if modifiers.contains(modifier) { return .failure(.init("\(quoted(text)) names \(modifier.rawValue) twice")) }
            modifiers.append(modifier)
        }
        if let modifier = KeyModifier.named(key) {
            return .failure(.init("\(quoted(text)) ends with a modifier; it needs a key to type (like \"\(modifier.rawValue)+Left\")"))
        }
        return .success(KeyChord(modifiers: modifiers, key: key))
    }
}

/// What is wrong with a chord's text.
public struct ChordProblem: Error, Equatable, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}

extension KeyModifier {
    /// Other spellings people write, and what they mean.
    static let aliases: [(String, KeyModifier)] = [
        ("control", .ctrl), ("logo", .super), ("win", .super), ("meta", .super), ("mod4", .super), ("mod1", .alt),
    ]

    static func named(_ name: String) -> KeyModifier? {
        let lower = name.lowercased()
        if let m = KeyModifier(rawValue: lower) { return m }
        return aliases.first { $0.0 == lower }?.1
    }
}

/// The authority on key names (xkb's keysym names, through libxkbcommon).
public protocol KeyNameChecking {
    /// Whether `name` is a keysym name, exactly as written.
    func isKnown(_ name: String) -> Bool
    /// The keysym name `name` means when case is ignored ("left" -> "Left"), if any.
    func caseInsensitiveMatch(_ name: String) -> String?
    /// Every keysym name, for did-you-mean suggestions (asked only when a name is unknown).
    func allNames() -> [String]
}

extension KeyNameChecking {
    /// The name most like `name`, for a did-you-mean.
    public func suggestion(for name: String) -> String? {
        if let match = caseInsensitiveMatch(name) { return match }
        let lower = name.lowercased()
        var best: (String, Int)?
        for candidate in allNames() {
            let d = editDistance(lower, candidate.lowercased())
            if d < (best?.1 ?? Int.max) { best = (candidate, d) }
        }
        guard let (candidate, distance) = best, distance <= max(2, name.count / 3) else { return nil }
        return candidate
    }
}
