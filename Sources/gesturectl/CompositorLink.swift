// `gesturectl bind`'s side of the compositor: which app is focused (for bindings with `app`) and a virtual
// keyboard (for bindings with `keys`), connected only when some binding needs them. The runner polls it
// with the daemon's socket; the bindings source asks it which app is focused. Keys go through a
// TypingQueue: whole chords in batches the compositor confirms, a small queue while it does not read,
// and "typed" said only of what it confirmed (issue 28).
#if canImport(Glibc)
import Glibc
#endif
import GestureBindings
import GestureConfig
import SystemCalls
import WaylandSession

/// Which firing chords belong to, for the log.
struct TypingTag {
    /// Unique to the firing (its chords are grouped by it).
    var firing: Int
    /// The binding (`Action.key`) and how log lines name it.
    var key: Int
    var label: String
    /// "gesture 12 on replay1", for --verbose lines.
    var gesture: String?
}

/// What became of chords handed to `CompositorLink.type`, for the log.
enum TypingReport {
    /// The compositor confirmed it handled them (they reached the focused app, if one has the focus).
    case typed(TypingTag, [KeyChord])
    /// They waited for the compositor longer than the bound and were dropped, never written.
    case late(TypingTag, [KeyChord])
    /// They were written but the compositor went away (or gesturectl stopped) before confirming them.
    case unconfirmed(TypingTag, [KeyChord], reason: String)
    /// They were never written: the compositor went away, or gesturectl stopped.
    case notTyped(TypingTag, [KeyChord], reason: String)
}

/// Why `CompositorLink.type` refused chords.
enum TypingRefusal {
    /// They cannot be typed here (no keyboard, a key the keymap lacks): the message says why.
    case cannotType(String)
    /// `waiting` chords already wait for a compositor that does not read them (TypingQueue.maximumWaiting).
    case queueFull(waiting: Int)
}

final class CompositorLink {
    let compositor: Compositor
    private(set) var keyboard: VirtualKeyboard?
    /// Why keys cannot be typed (nil when they can, or when no binding types keys).
    private(set) var keyboardProblem: String?
    private var typing = TypingQueue<TypingTag>()
    private var reports: [TypingReport] = []

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
                // The chords still waiting keep their keys in the new keymap.
                try keyboard.cover(keysyms + typing.waiting.map(\.keysym))
            } else {
                keyboard = try VirtualKeyboard(compositor: compositor, keysyms: keysyms)
            }
            keyboardProblem = nil
        } catch {
            keyboardProblem = error.message
        }
        return keyboardProblem
    }

    /// Queues `chords` to be typed, whole: the problem when they cannot be (no keyboard, an unknown key,
    /// the queue full while the compositor does not read). Chords that waited since before `staleBefore`
    /// are dropped first (reported as `late`). What becomes of them comes through `takeReports`.
    func type(_ chords: [KeyChord], tag: TypingTag, due: Int64, staleBefore: Int64) -> TypingRefusal? {
        guard keyboard != nil else { return .cannotType(keyboardProblem ?? "no virtual keyboard") }
        var entries: [TypingQueue<TypingTag>.Chord] = []
        for chord in chords {
            guard let sym = XkbKeyNames.keysym(named: chord.key) else { return .cannotType("\(chord.key) is not an xkb key name") }
            entries.append(.init(tag: tag, chord: chord, keysym: sym, due: due))
        }
        let (admitted, stale) = typing.add(entries, staleBefore: staleBefore)
        report(stale, as: { .late($0, $1) })
        return admitted ? nil : .queueFull(waiting: typing.waiting.count)
    }

    /// Writes the next batch of chords when the compositor has confirmed the last and the socket has room,
    /// then prepares the read: call right before `poll`, then poll `compositor.fd` for
    /// `compositor.pollEvents`.
    func beforePoll(staleBefore: Int64) throws(CompositorError) {
        if let keyboard, !compositor.writeBlocked {
            let (batch, stale) = typing.nextBatch(staleBefore: staleBefore)
            report(stale, as: { .late($0, $1) })
            let writable = batch.filter { keyboard.canType($0.keysym) }
            if writable.count < batch.count {
                report(batch.filter { !keyboard.canType($0.keysym) }, as: { .notTyped($0, $1, reason: "the keymap lost its key (a reload)") })
            }
            if !writable.isEmpty {
                try keyboard.write(writable.map { ($0.chord.modifiers, $0.keysym) })
                typing.written(writable, confirmation: try compositor.requestConfirmation())
                try compositor.flush()
            }
        }
        try compositor.beforePoll()
    }

    /// Reads, dispatches and flushes after `poll` (`revents`: the compositor's descriptor's); the batch the
    /// compositor confirmed is reported `typed`.
    func afterPoll(revents: Int16) throws(CompositorError) {
        try compositor.afterPoll(revents: revents)
        report(typing.confirmed(through: compositor.confirmations), as: { .typed($0, $1) })
    }

    /// What became of chords since the last call.
    func takeReports() -> [TypingReport] {
        defer { reports.removeAll() }
        return reports
    }

    /// The compositor is gone: the chords in flight and waiting are reported.
    func abandon(_ reason: String) {
        let (unconfirmed, waiting) = typing.abandon()
        report(unconfirmed, as: { .unconfirmed($0, $1, reason: reason) })
        report(waiting, as: { .notTyped($0, $1, reason: reason) })
    }

    /// Before gesturectl exits: waits (polling the compositor alone, until `deadline`, ms monotonic) for the
    /// batch in flight to be flushed and confirmed, so the compositor has handled each chord's releases
    /// before the keyboard goes; the chords still waiting are not typed. Then destroys the keyboard.
    func close(deadline: Int64) {
        while awaitsCompositor {
            let left = deadline - SystemCall.monotonicMicroseconds() / 1000
            guard left > 0 else { break }
            do {
                try compositor.beforePoll()
                var fds = [pollfd(fd: compositor.fd, events: compositor.pollEvents, revents: 0)]
                let n = try SystemCall.poll(&fds, timeoutMilliseconds: Int32(clamping: left))
                try afterPoll(revents: n > 0 ? fds[0].revents : 0)
            } catch {
                abandon("\(error)")
                return
            }
        }
        abandon("gesturectl is stopping")
        keyboard = nil
        _ = try? compositor.flush()
    }

    /// Whether a batch awaits the compositor's confirmation, or requests wait for room in its socket.
    private var awaitsCompositor: Bool {
        if case .confirming = typing.state { return true }
        return compositor.writeBlocked
    }

    /// Reports `chords` grouped by firing, in order.
    private func report(_ chords: [TypingQueue<TypingTag>.Chord], as make: (TypingTag, [KeyChord]) -> TypingReport) {
        var start = chords.startIndex
        while start < chords.endIndex {
            let firing = chords[start].tag.firing
            let end = chords[start...].firstIndex { $0.tag.firing != firing } ?? chords.endIndex
            reports.append(make(chords[start].tag, chords[start..<end].map(\.chord)))
            start = end
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
