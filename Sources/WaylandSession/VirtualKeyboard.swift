// Keys typed into the focused app through zwp_virtual_keyboard_v1, the protocol on-screen keyboards use.
// The keymap is our own, compiled by libxkbcommon: one keycode for each modifier (Shift_L, Control_L,
// Alt_L, Super_L on Shift, Control, Mod1, Mod4) and one for each keysym the bindings type, so any keysym
// can be typed whatever the user's layout. The compositor hands it to the focused client with the keys.
import CWaylandProtocols
import CXkbCommon
import GestureBindings
import Glibc
import SystemCalls

/// A keymap for a set of keysyms: its text as libxkbcommon wrote it and which key types what.
public struct TypingKeymap: Equatable, Sendable {
    /// The compiled keymap, as xkb_keymap_get_as_string writes it (what the compositor receives).
    public var text: String
    /// The evdev code (xkb keycode - 8) of each keysym.
    public var codes: [UInt32: UInt32]
    /// The evdev code of each modifier's key and the bit it sets in the depressed-modifiers mask.
    public var modifierCodes: [KeyModifier: UInt32]
    public var modifierMasks: [KeyModifier: UInt32]

    /// Keysyms one keymap holds at most (keycodes 13 to 255).
    public static let maximumKeysyms = 243

    static let modifierKeys: [(KeyModifier, name: String, keysym: String, realModifier: String, mask: String)] = [
        (.shift, "SHFT", "Shift_L", "Shift", "Shift"), (.ctrl, "CTRL", "Control_L", "Control", "Control"),
        (.alt, "ALT", "Alt_L", "Mod1", "Mod1"), (.super, "SUPR", "Super_L", "Mod4", "Mod4"),
    ]

    /// The xkb source compiled by `compile`: keycodes 9 to 12 are the modifiers, 13 on the keysyms in order.
    public static func source(keysyms: [UInt32]) -> String {
        var keycodes = ["    minimum = 8;", "    maximum = 255;"]
        var symbols: [String] = []
        for (i, m) in modifierKeys.enumerated() {
            keycodes.append("    <\(m.name)> = \(9 + i);")
            symbols.append("    key <\(m.name)> { [ \(m.keysym) ] };")
            symbols.append("    modifier_map \(m.realModifier) { <\(m.name)> };")
        }
        for (i, sym) in keysyms.enumerated() {
            keycodes.append("    <K\(13 + i)> = \(13 + i);")
            symbols.append("    key <K\(13 + i)> { [ 0x\(String(sym, radix: 16)) ] };")
        }
        return """
            xkb_keymap {
            xkb_keycodes "gesturectl" {
            \(keycodes.joined(separator: "\n"))
            };
            xkb_types "gesturectl" { include "complete" };
            xkb_compatibility "gesturectl" { include "complete" };
            xkb_symbols "gesturectl" {
            \(symbols.joined(separator: "\n"))
            };
            };

            """
    }

    /// Compiles the keymap for `keysyms` (duplicates ignored) with libxkbcommon.
    public static func compile(keysyms: [UInt32]) throws(CompositorError) -> TypingKeymap {
        var unique: [UInt32] = []
        for sym in keysyms where !unique.contains(sym) { unique.append(sym) }
        guard unique.count <= maximumKeysyms else {
            throw CompositorError("the bindings type \(unique.count) different keys; one keymap holds at most \(maximumKeysyms)")
        }
        guard let context = xkb_context_new(XKB_CONTEXT_NO_FLAGS) else {
            throw CompositorError("libxkbcommon cannot create a context (xkb_context_new)")
        }
        defer { xkb_context_unref(context) }
        guard let keymap = xkb_keymap_new_from_string(context, source(keysyms: unique), XKB_KEYMAP_FORMAT_TEXT_V1, XKB_KEYMAP_COMPILE_NO_FLAGS)
        else {
            throw CompositorError(
                "libxkbcommon cannot compile the typing keymap (is xkb-data installed, /usr/share/X11/xkb?)")
        }
        defer { xkb_keymap_unref(keymap) }
        guard let written = xkb_keymap_get_as_string(keymap, XKB_KEYMAP_FORMAT_TEXT_V1) else {
            throw CompositorError("libxkbcommon cannot write the typing keymap")
        }
        defer { free(written) }
        var result = TypingKeymap(text: String(cString: written), codes: [:], modifierCodes: [:], modifierMasks: [:])
        for (i, m) in modifierKeys.enumerated() {
            result.modifierCodes[m.0] = UInt32(9 + i - 8)
            let index = xkb_keymap_mod_get_index(keymap, m.mask)
            guard index != XKB_MOD_INVALID else { throw CompositorError("the typing keymap has no modifier \(m.mask)") }
            result.modifierMasks[m.0] = 1 << index
        }
        for (i, sym) in unique.enumerated() { result.codes[sym] = UInt32(13 + i - 8) }
        return result
    }
}

/// A virtual keyboard on the compositor's first seat.
public final class VirtualKeyboard {
    // Strong: the display must outlive the keyboard's proxy.
    private let compositor: Compositor
    private let proxy: OpaquePointer
    public private(set) var keymap: TypingKeymap

    /// Creates the keyboard and sends a keymap that can type `keysyms`.
    public init(compositor: Compositor, keysyms: [UInt32]) throws(CompositorError) {
        self.compositor = compositor
        let keymap = try TypingKeymap.compile(keysyms: keysyms)
        switch compositor.createVirtualKeyboard() {
        case .success(let proxy): self.proxy = proxy
        case .failure(let error): throw error
        }
        self.keymap = keymap
        try send(keymap)
    }

    deinit { zwp_virtual_keyboard_v1_destroy(proxy) }

    /// Sends a new keymap when `keysyms` has one the current keymap cannot type (a reload).
    public func cover(_ keysyms: [UInt32]) throws(CompositorError) {
        let missing = keysyms.filter { keymap.codes[$0] == nil }
        guard !missing.isEmpty else { return }
        let new = try TypingKeymap.compile(keysyms: keysyms)
        try send(new)
        keymap = new
    }

    private func send(_ keymap: TypingKeymap) throws(CompositorError) {
        let bytes = Array(keymap.text.utf8) + [0]
        let fd: Int32
        do {
            fd = try SystemCall.memoryFile(name: "gesturectl-keymap", contents: bytes)
        } catch {
            throw CompositorError("cannot hand the keymap to the compositor: \(error)")
        }
        // libwayland duplicates the descriptor when it queues the request.
        zwp_virtual_keyboard_v1_keymap(proxy, WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1.rawValue, fd, UInt32(bytes.count))
        SystemCall.close(fd)
        try compositor.flush()
    }

    /// Bytes of the requests `write` makes for a chord with `modifiers` modifiers: for each modifier its
    /// key's press and the state (20 + 24 bytes), the same again to release it, and the key's press and
    /// release (20 bytes each).
    public static func requestBytes(modifiers: Int) -> Int { 40 + 88 * modifiers }

    /// Whether the keymap has a key for `keysym`.
    public func canType(_ keysym: UInt32) -> Bool { keymap.codes[keysym] != nil }

    /// Makes the requests that type the chords in order, in libwayland's buffer; the caller flushes (the
    /// next poll's `beforePoll`, or `Compositor.flush`). Each chord presses its modifiers, presses and
    /// releases its key and releases its modifiers, with the modifier state sent after each change as a
    /// real keyboard's would be. A keysym the keymap cannot type (not given to `init` or `cover`) is an
    /// error and nothing is written. Whole chords go to libwayland only when the caller made sure they fit
    /// (`TypingQueue` and `Compositor.flush`): a request that does not fit makes libwayland write what it
    /// holds, which could end in the middle of a chord.
    public func write(_ chords: [(modifiers: [KeyModifier], keysym: UInt32)]) throws(CompositorError) {
        for chord in chords where keymap.codes[chord.keysym] == nil {
            throw CompositorError("the keymap has no key for \(XkbKeyNames.name(of: chord.keysym))")
        }
        let time = UInt32(truncatingIfNeeded: SystemCall.monotonicMicroseconds() / 1000)
        let pressed = WL_KEYBOARD_KEY_STATE_PRESSED.rawValue
        let released = WL_KEYBOARD_KEY_STATE_RELEASED.rawValue
        for chord in chords {
            var mask: UInt32 = 0
            for m in chord.modifiers {
                zwp_virtual_keyboard_v1_key(proxy, time, keymap.modifierCodes[m]!, pressed)
                mask |= keymap.modifierMasks[m]!
                zwp_virtual_keyboard_v1_modifiers(proxy, mask, 0, 0, 0)
            }
            let code = keymap.codes[chord.keysym]!
            zwp_virtual_keyboard_v1_key(proxy, time, code, pressed)
            zwp_virtual_keyboard_v1_key(proxy, time, code, released)
            for m in chord.modifiers.reversed() {
                zwp_virtual_keyboard_v1_key(proxy, time, keymap.modifierCodes[m]!, released)
                mask &= ~keymap.modifierMasks[m]!
                zwp_virtual_keyboard_v1_modifiers(proxy, mask, 0, 0, 0)
            }
        }
    }
}
