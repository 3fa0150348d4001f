// `gesturectl bind`'s side of the compositor: which app is focused (for bindings with `app`) and a virtual
// keyboard (for bindings with `keys`), connected only when some binding needs them. The runner polls it
// with the daemon's socket; the bindings source asks it which app is focused.
#if canImport(Glibc)
import Glibc
#endif
import GestureBindings
import GestureConfig
import WaylandSession

final class CompositorLink {
    let compositor: Compositor
    private(set) var keyboard: VirtualKeyboard?
    /// Why keys cannot be typed (nil when they can, or when no binding types keys).
    private(set) var keyboardProblem: String?

    init(_ compositor: Compositor) {
        self.compositor = compositor
    }

    /// The focused app for matching: unknown without wlr-foreign-toplevel-management.
    var focusedApp: FocusedApp {
        guard compositor.offersToplevelManagement else { return .unknown }
        return compositor.focusedApp.map { .app($0) } ?? .none
    }

    /// Makes sure the keyboard can type every key of `file`'s `keys` bindings: creates it, or sends a keymap
    /// with the new keys. Returns the problem when it cannot.
    @discardableResult
    func prepareKeyboard(for file: BindingsFile) -> String? {
        let keysyms = file.keyBindings.flatMap { $0.command.chords ?? [] }.compactMap { XkbKeyNames.keysym(named: $0.key) }
        guard !keysyms.isEmpty else { return nil }
        do {
            if let keyboard {
                try keyboard.cover(keysyms)
            } else {
                keyboard = try VirtualKeyboard(compositor: compositor, keysyms: keysyms)
            }
            keyboardProblem = nil
        } catch {
            keyboardProblem = error.message
        }
        return keyboardProblem
    }

    /// Types `chords`; the problem when it cannot.
    func type(_ chords: [KeyChord]) -> String? {
        guard let keyboard else { return keyboardProblem ?? "no virtual keyboard" }
        var resolved: [(modifiers: [KeyModifier], keysym: UInt32)] = []
        for chord in chords {
            guard let sym = XkbKeyNames.keysym(named: chord.key) else { return "\(chord.key) is not an xkb key name" }
            resolved.append((chord.modifiers, sym))
        }
        do {
            try keyboard.type(resolved)
            return nil
        } catch {
            return error.message
        }
    }
}

/// What the compositor offers `bind`, or why it cannot: said once at start (and by `bind --check`), with the
/// bindings each missing piece disables.
struct CompositorSupport {
    var link: CompositorLink?
    /// Why app matching cannot work (no display, no protocol); nil when it can or no binding uses `app`.
    var appProblem: String?
    /// Why keys cannot be typed; nil when they can or no binding uses `keys`.
    var keysProblem: String?

    /// Connects when `file` has bindings with `app` or `keys` (or keeps `existing`, on a reload);
    /// `environment` gives WAYLAND_DISPLAY.
    static func connect(for file: BindingsFile, environment: [String: String], reusing existing: CompositorLink? = nil) -> CompositorSupport {
        var support = CompositorSupport()
        support.link = existing
        let needsApp = !file.appBindings.isEmpty
        let needsKeys = !file.keyBindings.isEmpty
        guard needsApp || needsKeys else { return support }
        let link: CompositorLink
        if let existing {
            link = existing
        } else {
            guard let display = environment["WAYLAND_DISPLAY"], !display.isEmpty else {
                let reason = "no Wayland display (WAYLAND_DISPLAY is not set)"
                if needsApp { support.appProblem = reason }
                if needsKeys { support.keysProblem = reason }
                return support
            }
            do {
                link = CompositorLink(try Compositor(name: display))
            } catch {
                if needsApp { support.appProblem = error.message }
                if needsKeys { support.keysProblem = error.message }
                return support
            }
            support.link = link
        }
        let compositor = link.compositor
        if needsApp && !compositor.offersToplevelManagement {
            support.appProblem =
                "the compositor at '\(compositor.displayName)' does not offer zwlr_foreign_toplevel_manager_v1 "
                + "(wlr-foreign-toplevel-management-unstable-v1), which says which app is focused"
        }
        if needsKeys { support.keysProblem = link.prepareKeyboard(for: file) }
        return support
    }

    /// After the compositor went away: nothing that needs it works until it is reached again.
    static func lost(_ error: CompositorError, for file: BindingsFile) -> CompositorSupport {
        var support = CompositorSupport()
        let reason = "the compositor went away (\(error))"
        if !file.appBindings.isEmpty { support.appProblem = reason }
        if !file.keyBindings.isEmpty { support.keysProblem = reason }
        return support
    }

    /// The lines that say what cannot work and which bindings it disables (none when all works).
    func notes(for file: BindingsFile) -> [String] {
        var lines: [String] = []
        if let appProblem, !file.appBindings.isEmpty {
            lines.append(
                "app matching cannot work here: \(appProblem); these bindings never match: "
                    + file.appBindings.map(\.label).joined(separator: ", "))
        }
        if let keysProblem, !file.keyBindings.isEmpty {
            lines.append(
                "keys cannot be typed here: \(keysProblem); these bindings never match: "
                    + file.keyBindings.map(\.label).joined(separator: ", "))
        }
        return lines
    }

    /// The bindings that can fire here: those with `keys` are left out when keys cannot be typed (bindings
    /// with `app` stay: they never match an unknown app by themselves).
    func usableBindings(of file: BindingsFile) -> [Binding] {
        guard keysProblem != nil else { return file.bindings }
        return file.bindings.filter { $0.command.chords == nil }
    }
}
