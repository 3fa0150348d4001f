// The connection to the Wayland compositor, for `gesturectl bind` and `gesturectl orientation --follow`: the
// outputs with their names and transforms (wl_output, xdg-output for the name before wl_output 4), the
// focused app (wlr-foreign-toplevel-management-unstable-v1: the toplevel whose state has `activated`) and a
// virtual keyboard (zwp_virtual_keyboard_v1). It runs in the caller's poll loop: `beforePoll()` flushes
// and prepares the read, the caller polls `fd` for `pollEvents` with its other descriptors,
// `afterPoll(revents:)` reads, dispatches and (when the socket was full) flushes again; what changed is
// queued in `events`. No thread, and nothing here waits except the two round trips at connection: a
// socket the compositor does not read (it is stopped, or busy) keeps the rest in libwayland's buffer and
// `writeBlocked` set until POLLOUT says there is room.
import CWaylandProtocols
import Glibc
import SystemCalls

/// An output as the compositor describes it (after its `done`).
public struct WaylandOutput: Equatable, Sendable {
    /// The registry's name of the wl_output global (unique while the compositor runs).
    public var globalName: UInt32
    /// The connector's name ("HEADLESS-1", "DSI-1", "eDP-1"): wl_output 4's `name`, else xdg-output's.
    public var name: String?
    public var transform: OutputTransform
    public var make: String
    public var model: String

    public init(globalName: UInt32, name: String?, transform: OutputTransform, make: String = "", model: String = "") {
        self.globalName = globalName
        self.name = name
        self.transform = transform
        self.make = make
        self.model = model
    }
}

/// What changed on the compositor's side since the caller last took `events`.
public enum CompositorEvent: Equatable, Sendable {
    /// An output appeared (with its first `done`) or changed its name or transform.
    case outputChanged(WaylandOutput)
    /// An output went away (its global was removed: unplugged, disabled).
    case outputRemoved(WaylandOutput)
    /// Another app was focused (nil: none is).
    case focusedAppChanged(String?)
}

/// A failure of the connection; `message` says what to do, with the errno (also in `errno`) when a
/// system call failed.
public struct CompositorError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public var errno: Int32?
    public init(_ message: String, errno: Int32? = nil) {
        self.message = message
        self.errno = errno
    }
    public var description: String { message }
}

public final class Compositor {
    /// The display's name as connected ($WAYLAND_DISPLAY, else "wayland-0").
    public let displayName: String
    /// The connection's descriptor, to poll for reading.
    public let fd: Int32
    /// What changed, oldest first; the caller takes them after `afterPoll`. Bounded: an output or app
    /// flapping faster than the caller reads keeps the latest `maximumEvents`.
    public private(set) var events: [CompositorEvent] = []
    public static let maximumEvents = 256

    /// The globals this compositor offers that gesturectl uses.
    public private(set) var offersToplevelManagement = false
    public private(set) var offersVirtualKeyboard = false
    public private(set) var offersOutputNames = false

    /// The app_id of the focused toplevel, nil when none is (or the compositor does not say).
    public private(set) var focusedApp: String?

    private let display: OpaquePointer
    private var registry: OpaquePointer?
    private var seat: OpaquePointer?
    private var xdgOutputManager: OpaquePointer?
    private var toplevelManager: OpaquePointer?
    private(set) var keyboardManager: OpaquePointer?
    private var outputs: [UInt32: OutputRecord] = [:]
    private var toplevels: [OpaquePointer: ToplevelRecord] = [:]
    private var activations = 0
    private var readPrepared = false
    private var failure: CompositorError?
    /// Whether the last flush left requests in libwayland's buffer (the socket was full: EAGAIN).
    public private(set) var writeBlocked = false
    /// wl_display_sync requests made, and those whose `done` came back (in order: the compositor has
    /// handled every request sent before the `confirmations`th one).
    public private(set) var confirmationsRequested = 0
    public private(set) var confirmations = 0

    fileprivate final class OutputRecord {
        let globalName: UInt32
        let proxy: OpaquePointer
        var xdgOutput: OpaquePointer?
        var pending: WaylandOutput
        /// The last state told to the caller (nil before the first `done`).
        var current: WaylandOutput?
        init(globalName: UInt32, proxy: OpaquePointer) {
            self.globalName = globalName
            self.proxy = proxy
            pending = WaylandOutput(globalName: globalName, name: nil, transform: .normal)
        }
    }

    fileprivate final class ToplevelRecord {
        var appID = ""
        var activated = false
        var pendingAppID = ""
        var pendingActivated = false
        /// When it was last activated (a counter), to pick the latest when several say so (several seats).
        var activatedAt = 0
    }

    /// Connects to `name` (nil: $WAYLAND_DISPLAY, else "wayland-0"), binds the globals gesturectl uses
    /// and waits for the outputs' and toplevels' first description (two round trips).
    public init(name: String? = nil) throws(CompositorError) {
        let shown = name ?? (getenv("WAYLAND_DISPLAY").map { String(cString: $0) } ?? "wayland-0")
        guard let display = wl_display_connect(name) else {
            let code = errno
            let runtime = getenv("XDG_RUNTIME_DIR").map { String(cString: $0) }
            throw CompositorError(
                "cannot connect to the Wayland compositor at '\(shown)'"
                    + (runtime.map { " in \($0)" } ?? " (XDG_RUNTIME_DIR is not set)")
                    + ": \(String(cString: strerror(code))); is a Wayland session running, and WAYLAND_DISPLAY set?")
        }
        self.display = display
        self.displayName = shown
        self.fd = wl_display_get_fd(display)
        registry = wl_display_get_registry(display)
        wl_registry_add_listener(registry, registryListener, Unmanaged.passUnretained(self).toOpaque())
        try roundTrip()
        // xdg-output's manager may be announced after the outputs.
        for record in outputs.values where record.xdgOutput == nil { attachXdgOutput(record) }
        try roundTrip()
        events.removeAll { if case .focusedAppChanged(nil) = $0 { return true } else { return false } }
    }

    deinit {
        if readPrepared { wl_display_cancel_read(display) }
        wl_display_disconnect(display)
    }

    /// The outputs described so far, in the order the compositor announced them.
    public var currentOutputs: [WaylandOutput] {
        outputs.values.compactMap(\.current).sorted { $0.globalName < $1.globalName }
    }

    /// Takes the queued events.
    public func takeEvents() -> [CompositorEvent] {
        defer { events.removeAll() }
        return events
    }

    // MARK: The poll loop

    /// Dispatches what is queued, flushes requests and prepares to read: call right before `poll`.
    public func beforePoll() throws(CompositorError) {
        try checkFailure()
        guard !readPrepared else { return }
        while wl_display_prepare_read(display) != 0 {
            if wl_display_dispatch_pending(display) < 0 { throw lost("dispatching") }
        }
        readPrepared = true
        try flush()
    }

    /// What to poll `fd` for: POLLIN, and POLLOUT while `writeBlocked`.
    public var pollEvents: Int16 { Int16(POLLIN) | (writeBlocked ? Int16(POLLOUT) : 0) }

    /// Reads (when `fd` was readable) or gives up the prepared read, then dispatches, then flushes what the
    /// socket had no room for when it has (POLLOUT): call after `poll`, whatever woke it, with `fd`'s
    /// `revents` (0 when poll said nothing of it).
    public func afterPoll(revents: Int16) throws(CompositorError) {
        if readPrepared {
            readPrepared = false
            if revents & ~Int16(POLLOUT) != 0 {
                if wl_display_read_events(display) < 0 { throw lost("reading") }
            } else {
                wl_display_cancel_read(display)
            }
        }
        if wl_display_dispatch_pending(display) < 0 { throw lost("dispatching") }
        try checkFailure()
        if writeBlocked && revents & Int16(POLLOUT) != 0 { try flush() }
    }

    /// Sends the requests made so far now, without waiting for the next poll (wl_display_flush). When the
    /// socket is full (EAGAIN) libwayland keeps the rest: `writeBlocked` is set, `pollEvents` asks for
    /// POLLOUT and `afterPoll` sends the rest; returns whether everything went. Any other failure loses the
    /// connection. A caller that must not have libwayland write part of a message sequence (a chord's press
    /// without its release) makes the sequence only while `writeBlocked` is false, and keeps it well
    /// within libwayland's buffer (4096 bytes in libwayland 1.21: a request that does not fit makes it
    /// flush on its own, and fail the connection with EAGAIN when the socket is full).
    @discardableResult
    public func flush() throws(CompositorError) -> Bool {
        if wl_display_flush(display) < 0 {
            let code = errno
            guard code == EAGAIN else { throw lost("writing", errno: code) }
            writeBlocked = true
            return false
        }
        writeBlocked = false
        return true
    }

    /// Asks the compositor to say when it has handled every request made before this one
    /// (wl_display_sync); `confirmations` reaches the number returned when its `done` is dispatched.
    public func requestConfirmation() throws(CompositorError) -> Int {
        guard let callback = wl_display_sync(display) else {
            throw lost("asking for a confirmation (wl_display_sync)", errno: errno)
        }
        wl_callback_add_listener(callback, callbackListener, Unmanaged.passUnretained(self).toOpaque())
        confirmationsRequested += 1
        return confirmationsRequested
    }

    fileprivate func confirmed(_ callback: OpaquePointer?) {
        if let callback { wl_callback_destroy(callback) }
        confirmations += 1
    }

    private func roundTrip() throws(CompositorError) {
        if wl_display_roundtrip(display) < 0 { throw lost("the first round trip") }
        try checkFailure()
    }

    private func checkFailure() throws(CompositorError) {
        if let failure { throw failure }
    }

    /// The connection's failure while `doing`: libwayland's error (wl_display_get_error), else `errno`
    /// (the failed call's, when libwayland keeps none: EPIPE from a flush).
    private func lost(_ doing: String, errno callErrno: Int32? = nil) -> CompositorError {
        var code = wl_display_get_error(display)
        if code == 0, let callErrno, callErrno != 0 { code = callErrno }
        var interface: UnsafePointer<wl_interface>?
        var id: UInt32 = 0
        let protocolCode = wl_display_get_protocol_error(display, &interface, &id)
        if code == EPROTO, let interface {
            return CompositorError(
                "the compositor at '\(displayName)' ended the connection: protocol error \(protocolCode) on "
                    + "\(String(cString: interface.pointee.name)) \(id)")
        }
        let reason = code == 0 ? "connection lost" : "\(String(cString: strerror(code))) (errno \(code))"
        return CompositorError("lost the compositor at '\(displayName)' while \(doing): \(reason)", errno: code == 0 ? nil : code)
    }

    // MARK: Events from libwayland

    fileprivate func global(name: UInt32, interface: String, version: UInt32) {
        switch interface {
        case "wl_output":
            // Version 4 has the connector's name; 2 is the least with `done`.
            guard version >= 2, let proxy = bind(name, gestured_wl_output_interface(), min(version, 4)) else { return }
            let record = OutputRecord(globalName: name, proxy: proxy)
            outputs[name] = record
            if version >= 4 { offersOutputNames = true }
            wl_output_add_listener(proxy, outputListener, Unmanaged.passUnretained(self).toOpaque())
            attachXdgOutput(record)
        case "zxdg_output_manager_v1":
            // Version 2 has the output's name.
            guard version >= 2 else { return }
            xdgOutputManager = bind(name, gestured_zxdg_output_manager_v1_interface(), min(version, 3))
            if xdgOutputManager != nil { offersOutputNames = true }
        case "wl_seat":
            if seat == nil { seat = bind(name, gestured_wl_seat_interface(), 1) }
        case "zwlr_foreign_toplevel_manager_v1":
            guard toplevelManager == nil, let proxy = bind(name, gestured_zwlr_foreign_toplevel_manager_v1_interface(), min(version, 3))
            else { return }
            toplevelManager = proxy
            offersToplevelManagement = true
            zwlr_foreign_toplevel_manager_v1_add_listener(proxy, toplevelManagerListener, Unmanaged.passUnretained(self).toOpaque())
        case "zwp_virtual_keyboard_manager_v1":
            guard keyboardManager == nil else { return }
            keyboardManager = bind(name, gestured_zwp_virtual_keyboard_manager_v1_interface(), 1)
            offersVirtualKeyboard = keyboardManager != nil
        default:
            break
        }
    }

    private func bind(_ name: UInt32, _ interface: UnsafePointer<wl_interface>, _ version: UInt32) -> OpaquePointer? {
        wl_registry_bind(registry, name, interface, version).map(OpaquePointer.init)
    }

    private func attachXdgOutput(_ record: OutputRecord) {
        guard let xdgOutputManager, record.xdgOutput == nil,
            wl_proxy_get_version(record.proxy) < 4,
            let xdg = zxdg_output_manager_v1_get_xdg_output(xdgOutputManager, record.proxy)
        else { return }
        record.xdgOutput = xdg
        zxdg_output_v1_add_listener(xdg, xdgOutputListener, Unmanaged.passUnretained(self).toOpaque())
    }

    fileprivate func globalRemoved(_ name: UInt32) {
        guard let record = outputs.removeValue(forKey: name) else { return }
        if let xdg = record.xdgOutput { zxdg_output_v1_destroy(xdg) }
        if wl_proxy_get_version(record.proxy) >= 3 { wl_output_release(record.proxy) } else { wl_output_destroy(record.proxy) }
        if let current = record.current { queue(.outputRemoved(current)) }
    }

    fileprivate func output(_ proxy: OpaquePointer?, _ change: (inout WaylandOutput) -> Void) {
        guard let record = outputs.values.first(where: { $0.proxy == proxy }) else { return }
        change(&record.pending)
    }

    fileprivate func outputDone(_ proxy: OpaquePointer?) {
        guard let record = outputs.values.first(where: { $0.proxy == proxy }) else { return }
        if record.current != record.pending {
            record.current = record.pending
            queue(.outputChanged(record.pending))
        }
    }

    fileprivate func xdgOutputName(_ xdg: OpaquePointer?, _ name: String) {
        outputs.values.first { $0.xdgOutput == xdg }?.pending.name = name
    }

    /// xdg-output 3 relies on wl_output's `done`; older versions send their own, handled the same way.
    fileprivate func xdgOutputDone(_ xdg: OpaquePointer?) {
        if let record = outputs.values.first(where: { $0.xdgOutput == xdg }) { outputDone(record.proxy) }
    }

    fileprivate func toplevelCreated(_ handle: OpaquePointer?) {
        guard let handle else { return }
        toplevels[handle] = ToplevelRecord()
        zwlr_foreign_toplevel_handle_v1_add_listener(handle, toplevelListener, Unmanaged.passUnretained(self).toOpaque())
    }

    fileprivate func toplevel(_ handle: OpaquePointer?, _ change: (ToplevelRecord) -> Void) {
        guard let handle, let record = toplevels[handle] else { return }
        change(record)
    }

    fileprivate func toplevelDone(_ handle: OpaquePointer?) {
        guard let handle, let record = toplevels[handle] else { return }
        if record.pendingActivated && !record.activated {
            activations += 1
            record.activatedAt = activations
        }
        record.appID = record.pendingAppID
        record.activated = record.pendingActivated
        updateFocusedApp()
    }

    fileprivate func toplevelClosed(_ handle: OpaquePointer?) {
        guard let handle, toplevels.removeValue(forKey: handle) != nil else { return }
        zwlr_foreign_toplevel_handle_v1_destroy(handle)
        updateFocusedApp()
    }

    fileprivate func toplevelManagerFinished() {
        if let toplevelManager { zwlr_foreign_toplevel_manager_v1_destroy(toplevelManager) }
        toplevelManager = nil
        offersToplevelManagement = false
        updateFocusedApp()
    }

    private func updateFocusedApp() {
        let latest = toplevels.values.filter(\.activated).max { $0.activatedAt < $1.activatedAt }
        let app = latest.map(\.appID)
        if app != focusedApp {
            focusedApp = app
            queue(.focusedAppChanged(app))
        }
    }

    private func queue(_ event: CompositorEvent) {
        if events.count >= Self.maximumEvents { events.removeFirst() }
        events.append(event)
    }

    // MARK: The virtual keyboard

    /// A new virtual keyboard on the first seat; nil with the reason when the compositor offers none.
    func createVirtualKeyboard() -> Result<OpaquePointer, CompositorError> {
        guard let keyboardManager else {
            return .failure(
                CompositorError("the compositor at '\(displayName)' does not offer zwp_virtual_keyboard_manager_v1 (virtual-keyboard-unstable-v1)"))
        }
        guard let seat else { return .failure(CompositorError("the compositor at '\(displayName)' has no seat")) }
        guard let keyboard = zwp_virtual_keyboard_manager_v1_create_virtual_keyboard(keyboardManager, seat) else {
            return .failure(CompositorError("cannot create a virtual keyboard: \(String(cString: strerror(errno)))"))
        }
        return .success(keyboard)
    }
}

// MARK: Listeners (C function tables that outlive every proxy)

private func compositor(_ data: UnsafeMutableRawPointer?) -> Compositor {
    Unmanaged<Compositor>.fromOpaque(data!).takeUnretainedValue()
}

private func string(_ p: UnsafePointer<CChar>?) -> String { p.map { String(cString: $0) } ?? "" }

nonisolated(unsafe) private let registryListener: UnsafeMutablePointer<wl_registry_listener> = {
    let p = UnsafeMutablePointer<wl_registry_listener>.allocate(capacity: 1)
    p.initialize(to: wl_registry_listener())
    p.pointee.global = { data, _, name, interface, version in
        compositor(data).global(name: name, interface: string(interface), version: version)
    }
    p.pointee.global_remove = { data, _, name in compositor(data).globalRemoved(name) }
    return p
}()

nonisolated(unsafe) private let callbackListener: UnsafeMutablePointer<wl_callback_listener> = {
    let p = UnsafeMutablePointer<wl_callback_listener>.allocate(capacity: 1)
    p.initialize(to: wl_callback_listener())
    p.pointee.done = { data, callback, _ in compositor(data).confirmed(callback) }
    return p
}()

nonisolated(unsafe) private let outputListener: UnsafeMutablePointer<wl_output_listener> = {
    let p = UnsafeMutablePointer<wl_output_listener>.allocate(capacity: 1)
    p.initialize(to: wl_output_listener())
    p.pointee.geometry = { data, output, _, _, _, _, _, make, model, transform in
        compositor(data).output(output) {
            $0.transform = OutputTransform(rawValue: UInt32(bitPattern: transform)) ?? .normal
            $0.make = string(make)
            $0.model = string(model)
        }
    }
    p.pointee.mode = { _, _, _, _, _, _ in }
    p.pointee.done = { data, output in compositor(data).outputDone(output) }
    p.pointee.scale = { _, _, _ in }
    p.pointee.name = { data, output, name in compositor(data).output(output) { $0.name = string(name) } }
    p.pointee.description = { _, _, _ in }
    return p
}()

nonisolated(unsafe) private let xdgOutputListener: UnsafeMutablePointer<zxdg_output_v1_listener> = {
    let p = UnsafeMutablePointer<zxdg_output_v1_listener>.allocate(capacity: 1)
    p.initialize(to: zxdg_output_v1_listener())
    p.pointee.logical_position = { _, _, _, _ in }
    p.pointee.logical_size = { _, _, _, _ in }
    p.pointee.done = { data, xdg in compositor(data).xdgOutputDone(xdg) }
    p.pointee.name = { data, xdg, name in compositor(data).xdgOutputName(xdg, string(name)) }
    p.pointee.description = { _, _, _ in }
    return p
}()

nonisolated(unsafe) private let toplevelManagerListener: UnsafeMutablePointer<zwlr_foreign_toplevel_manager_v1_listener> = {
    let p = UnsafeMutablePointer<zwlr_foreign_toplevel_manager_v1_listener>.allocate(capacity: 1)
    p.initialize(to: zwlr_foreign_toplevel_manager_v1_listener())
    p.pointee.toplevel = { data, _, handle in compositor(data).toplevelCreated(handle) }
    p.pointee.finished = { data, _ in compositor(data).toplevelManagerFinished() }
    return p
}()

nonisolated(unsafe) private let toplevelListener: UnsafeMutablePointer<zwlr_foreign_toplevel_handle_v1_listener> = {
    let p = UnsafeMutablePointer<zwlr_foreign_toplevel_handle_v1_listener>.allocate(capacity: 1)
    p.initialize(to: zwlr_foreign_toplevel_handle_v1_listener())
    p.pointee.title = { _, _, _ in }
    p.pointee.app_id = { data, handle, appID in compositor(data).toplevel(handle) { $0.pendingAppID = string(appID) } }
    p.pointee.output_enter = { _, _, _ in }
    p.pointee.output_leave = { _, _, _ in }
    p.pointee.state = { data, handle, states in
        var activated = false
        if let states, let base = states.pointee.data {
            let count = states.pointee.size / MemoryLayout<UInt32>.stride
            let values = base.bindMemory(to: UInt32.self, capacity: count)
            for i in 0..<count where values[i] == ZWLR_FOREIGN_TOPLEVEL_HANDLE_V1_STATE_ACTIVATED.rawValue { activated = true }
        }
        compositor(data).toplevel(handle) { $0.pendingActivated = activated }
    }
    p.pointee.done = { data, handle in compositor(data).toplevelDone(handle) }
    p.pointee.closed = { data, handle in compositor(data).toplevelClosed(handle) }
    p.pointee.parent = { _, _, _ in }
    return p
}()
