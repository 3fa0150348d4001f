// xkb's keysym names, through libxkbcommon: what a binding's `keys` may name.
import CXkbCommon
import GestureBindings

/// libxkbcommon's keysym names, for checking a bindings file (`BindingsFile.load(path:keyNames:)`).
public struct XkbKeyNames: KeyNameChecking, Sendable {
    public init() {}

    /// The keysym `name` stands for, exactly as written; nil when xkb knows no such name.
    public static func keysym(named name: String) -> UInt32? {
        let sym = xkb_keysym_from_name(name, XKB_KEYSYM_NO_FLAGS)
        return sym == 0 ? nil : sym
    }

    /// xkb's canonical name of `keysym`.
    public static func name(of keysym: UInt32) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        let n = xkb_keysym_get_name(keysym, &buffer, buffer.count)
        guard n > 0 else { return "0x" + String(keysym, radix: 16) }
        return String(decoding: buffer[0..<min(Int(n), buffer.count - 1)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public func isKnown(_ name: String) -> Bool { Self.keysym(named: name) != nil }

    public func caseInsensitiveMatch(_ name: String) -> String? {
        let sym = xkb_keysym_from_name(name, XKB_KEYSYM_CASE_INSENSITIVE)
        return sym == 0 ? nil : Self.name(of: sym)
    }

    /// The named keysyms of the X11 ranges (Latin, function keys, XF86 media keys); Unicode keysyms
    /// ("U20AC") and unnamed values are left out. The keys bindings type most (function and cursor keys,
    /// XF86 keys) come first, so a suggestion prefers "Left" to the technical symbol "leftt".
    public func allNames() -> [String] {
        var names: [String] = []
        let ranges: [ClosedRange<UInt32>] = [0xfe00...0xffff, 0x1008fe00...0x1008ffff, 0x20...0x13ff, 0x20a0...0x20ff]
        for range in ranges {
            for sym in range {
                let name = Self.name(of: sym)
                if !name.hasPrefix("0x") { names.append(name) }
            }
        }
        return names
    }
}
