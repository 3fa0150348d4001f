// wayland-test-client APP_ID: a window for the tests of gesturectl's compositor side. It maps a small
// toplevel with the given app_id and prints, one line each, flushed at once:
//   ready                     the window is mapped (its first buffer committed)
//   enter / leave             it got or lost the keyboard focus
//   key NAME pressed MODS     a key, decoded with the keymap the compositor sent (MODS: ctrl+alt, or none)
//   key NAME released MODS
//   modifiers MODS            the compositor's modifier state changed (its `modifiers` event)
//   keyboard gone: down NAMES, modifiers MODS
//                             the seat lost its keyboard (the last virtual keyboard was destroyed): the
//                             keys pressed and never released (NAMES: Control_L+Left, or none) and the last
//                             modifier state; every key event of that keyboard came before this line
// It runs until the compositor closes the window or the connection.
import CWaylandProtocols
import CXkbCommon
import Glibc

/// One line on a descriptor, in one write(2): the test reads the lines while the client runs.
func emit(_ fd: Int32, _ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
}

guard CommandLine.arguments.count == 2 else {
    emit(2, "usage: wayland-test-client APP_ID")
    exit(2)
}

final class Client {
    let appID: String
    let display: OpaquePointer
    var compositor: OpaquePointer?
    var shm: OpaquePointer?
    var wmBase: OpaquePointer?
    var seat: OpaquePointer?
    var keyboard: OpaquePointer?
    var surface: OpaquePointer?
    var buffer: OpaquePointer?
    var mapped = false
    let xkbContext = xkb_context_new(XKB_CONTEXT_NO_FLAGS)
    var xkbState: OpaquePointer?
    /// The keys pressed and not released yet (evdev code -> name), whatever `enter` and `leave` say.
    var down: [UInt32: String] = [:]

    init(appID: String) {
        self.appID = appID
        guard let display = wl_display_connect(nil) else {
            emit(2, "wayland-test-client: cannot connect to the compositor")
            exit(1)
        }
        self.display = display
    }

    func say(_ line: String) { emit(1, line) }

    func modifiers() -> String {
        guard let xkbState else { return "none" }
        let names = [("ctrl", "Control"), ("alt", "Mod1"), ("shift", "Shift"), ("super", "Mod4")]
        let active = names.filter { xkb_state_mod_name_is_active(xkbState, $0.1, XKB_STATE_MODS_EFFECTIVE) > 0 }.map(\.0)
        return active.isEmpty ? "none" : active.joined(separator: "+")
    }

    func keymap(fd: Int32, size: UInt32) {
        defer { close(fd) }
        guard let map = mmap(nil, Int(size), PROT_READ, MAP_PRIVATE, fd, 0), map != MAP_FAILED else { return }
        defer { munmap(map, Int(size)) }
        let text = map.assumingMemoryBound(to: CChar.self)
        guard let keymap = xkb_keymap_new_from_string(xkbContext, text, XKB_KEYMAP_FORMAT_TEXT_V1, XKB_KEYMAP_COMPILE_NO_FLAGS)
        else {
            say("keymap unreadable")
            return
        }
        if let xkbState { xkb_state_unref(xkbState) }
        xkbState = xkb_state_new(keymap)
        xkb_keymap_unref(keymap)
    }

    func key(_ code: UInt32, pressed: Bool) {
        guard let xkbState else { return }
        let sym = xkb_state_key_get_one_sym(xkbState, code + 8)
        var buffer = [CChar](repeating: 0, count: 64)
        xkb_keysym_get_name(sym, &buffer, buffer.count)
        let name = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        down[code] = pressed ? name : nil
        say("key \(name) \(pressed ? "pressed" : "released") \(modifiers())")
    }

    func modifiersChanged(depressed: UInt32, latched: UInt32, locked: UInt32, group: UInt32) {
        guard let xkbState else { return }
        xkb_state_update_mask(xkbState, depressed, latched, locked, 0, 0, group)
        say("modifiers \(modifiers())")
    }

    /// The seat's capabilities changed: a keyboard that went away is reported with what it left down.
    func capabilities(_ capabilities: UInt32) {
        let hasKeyboard = capabilities & WL_SEAT_CAPABILITY_KEYBOARD.rawValue != 0
        if hasKeyboard, keyboard == nil {
            keyboard = wl_seat_get_keyboard(seat)
            wl_keyboard_add_listener(keyboard, keyboardListener, Unmanaged.passUnretained(self).toOpaque())
        } else if !hasKeyboard, let old = keyboard {
            if wl_proxy_get_version(old) >= 3 { wl_keyboard_release(old) } else { wl_keyboard_destroy(old) }
            keyboard = nil
            let keys = down.keys.sorted().map { down[$0]! }
            say("keyboard gone: down \(keys.isEmpty ? "none" : keys.joined(separator: "+")), modifiers \(modifiers())")
        }
    }

    /// A 64 x 64 grey buffer in shared memory.
    func makeBuffer() -> OpaquePointer? {
        let (width, height) = (Int32(64), Int32(64))
        let stride = width * 4
        let size = Int(stride * height)
        var template = Array("/tmp/wayland-test-client-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { return nil }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        defer { close(fd) }
        guard ftruncate(fd, off_t(size)) == 0, let data = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), data != MAP_FAILED
        else { return nil }
        memset(data, 0x80, size)
        munmap(data, size)
        guard let pool = wl_shm_create_pool(shm, fd, Int32(size)) else { return nil }
        defer { wl_shm_pool_destroy(pool) }
        return wl_shm_pool_create_buffer(pool, 0, width, height, stride, WL_SHM_FORMAT_XRGB8888.rawValue)
    }

    func configured(_ xdgSurface: OpaquePointer?, serial: UInt32) {
        xdg_surface_ack_configure(xdgSurface, serial)
        if !mapped, let buffer = buffer ?? makeBuffer() {
            self.buffer = buffer
            wl_surface_attach(surface, buffer, 0, 0)
            wl_surface_commit(surface)
            mapped = true
            say("ready")
        } else {
            wl_surface_commit(surface)
        }
    }

    func run() -> Int32 {
        let registry = wl_display_get_registry(display)
        wl_registry_add_listener(registry, registryListener, Unmanaged.passUnretained(self).toOpaque())
        wl_display_roundtrip(display)
        guard compositor != nil, shm != nil, wmBase != nil else {
            emit(2, "wayland-test-client: the compositor lacks wl_compositor, wl_shm or xdg_wm_base")
            return 1
        }
        xdg_wm_base_add_listener(wmBase, wmBaseListener, Unmanaged.passUnretained(self).toOpaque())
        if let seat { wl_seat_add_listener(seat, seatListener, Unmanaged.passUnretained(self).toOpaque()) }
        surface = wl_compositor_create_surface(compositor)
        let xdgSurface = xdg_wm_base_get_xdg_surface(wmBase, surface)
        xdg_surface_add_listener(xdgSurface, xdgSurfaceListener, Unmanaged.passUnretained(self).toOpaque())
        let toplevel = xdg_surface_get_toplevel(xdgSurface)
        xdg_toplevel_add_listener(toplevel, toplevelListener, Unmanaged.passUnretained(self).toOpaque())
        xdg_toplevel_set_app_id(toplevel, appID)
        xdg_toplevel_set_title(toplevel, appID)
        wl_surface_commit(surface)
        while wl_display_dispatch(display) != -1 {}
        return 0
    }
}

func client(_ data: UnsafeMutableRawPointer?) -> Client { Unmanaged<Client>.fromOpaque(data!).takeUnretainedValue() }

nonisolated(unsafe) let registryListener: UnsafeMutablePointer<wl_registry_listener> = {
    let p = UnsafeMutablePointer<wl_registry_listener>.allocate(capacity: 1)
    p.initialize(to: wl_registry_listener())
    p.pointee.global = { data, registry, name, interface, version in
        let c = client(data)
        func bind(_ i: UnsafePointer<wl_interface>, _ v: UInt32) -> OpaquePointer? {
            wl_registry_bind(registry, name, i, v).map(OpaquePointer.init)
        }
        switch String(cString: interface!) {
        case "wl_compositor": c.compositor = bind(gestured_wl_compositor_interface(), min(version, 4))
        case "wl_shm": c.shm = bind(gestured_wl_shm_interface(), 1)
        case "xdg_wm_base": c.wmBase = bind(gestured_xdg_wm_base_interface(), 1)
        case "wl_seat": if c.seat == nil { c.seat = bind(gestured_wl_seat_interface(), min(version, 5)) }
        default: break
        }
    }
    p.pointee.global_remove = { _, _, _ in }
    return p
}()

nonisolated(unsafe) let wmBaseListener: UnsafeMutablePointer<xdg_wm_base_listener> = {
    let p = UnsafeMutablePointer<xdg_wm_base_listener>.allocate(capacity: 1)
    p.initialize(to: xdg_wm_base_listener())
    p.pointee.ping = { _, base, serial in xdg_wm_base_pong(base, serial) }
    return p
}()

nonisolated(unsafe) let xdgSurfaceListener: UnsafeMutablePointer<xdg_surface_listener> = {
    let p = UnsafeMutablePointer<xdg_surface_listener>.allocate(capacity: 1)
    p.initialize(to: xdg_surface_listener())
    p.pointee.configure = { data, surface, serial in client(data).configured(surface, serial: serial) }
    return p
}()

nonisolated(unsafe) let toplevelListener: UnsafeMutablePointer<xdg_toplevel_listener> = {
    let p = UnsafeMutablePointer<xdg_toplevel_listener>.allocate(capacity: 1)
    p.initialize(to: xdg_toplevel_listener())
    p.pointee.configure = { _, _, _, _, _ in }
    p.pointee.close = { _, _ in exit(0) }
    p.pointee.configure_bounds = { _, _, _, _ in }
    p.pointee.wm_capabilities = { _, _, _ in }
    return p
}()

nonisolated(unsafe) let seatListener: UnsafeMutablePointer<wl_seat_listener> = {
    let p = UnsafeMutablePointer<wl_seat_listener>.allocate(capacity: 1)
    p.initialize(to: wl_seat_listener())
    p.pointee.capabilities = { data, _, capabilities in client(data).capabilities(capabilities) }
    p.pointee.name = { _, _, _ in }
    return p
}()

nonisolated(unsafe) let keyboardListener: UnsafeMutablePointer<wl_keyboard_listener> = {
    let p = UnsafeMutablePointer<wl_keyboard_listener>.allocate(capacity: 1)
    p.initialize(to: wl_keyboard_listener())
    p.pointee.keymap = { data, _, _, fd, size in client(data).keymap(fd: fd, size: size) }
    p.pointee.enter = { data, _, _, _, _ in client(data).say("enter") }
    p.pointee.leave = { data, _, _, _ in client(data).say("leave") }
    p.pointee.key = { data, _, _, _, key, state in
        client(data).key(key, pressed: state == WL_KEYBOARD_KEY_STATE_PRESSED.rawValue)
    }
    p.pointee.modifiers = { data, _, _, depressed, latched, locked, group in
        client(data).modifiersChanged(depressed: depressed, latched: latched, locked: locked, group: group)
    }
    p.pointee.repeat_info = { _, _, _, _ in }
    return p
}()

exit(Client(appID: CommandLine.arguments[1]).run())
