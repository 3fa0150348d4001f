import CLibevdev
import GestureCore

/// Builds GestureCore's `DeviceDescription` from a libevdev handle.
public enum EvdevDescription {
    /// Reads name, ids, INPUT_PROP_* properties, absolute axes (with `struct input_absinfo`) and EV_KEY codes
    /// from `handle` (a `struct libevdev *`, from `libevdev_new_from_fd` or built with `libevdev_new`).
    public static func describe(_ handle: OpaquePointer) -> DeviceDescription {
        let name = libevdev_get_name(handle).map { String(cString: $0) } ?? ""
        var properties = Set<Int>()
        for property in 0..<UInt32(INPUT_PROP_CNT) where libevdev_has_property(handle, property) == 1 {
            properties.insert(Int(property))
        }
        var axes: [UInt16: AxisInfo] = [:]
        if libevdev_has_event_type(handle, UInt32(EV_ABS)) == 1 {
            for code in 0..<UInt32(ABS_CNT) where libevdev_has_event_code(handle, UInt32(EV_ABS), code) == 1 {
                guard let info = libevdev_get_abs_info(handle, code)?.pointee else { continue }
                axes[UInt16(code)] = AxisInfo(
                    minimum: info.minimum, maximum: info.maximum, fuzz: info.fuzz, flat: info.flat,
                    resolution: info.resolution)
            }
        }
        var keys = Set<UInt16>()
        if libevdev_has_event_type(handle, UInt32(EV_KEY)) == 1 {
            for code in 0..<UInt32(KEY_CNT) where libevdev_has_event_code(handle, UInt32(EV_KEY), code) == 1 {
                keys.insert(UInt16(code))
            }
        }
        return DeviceDescription(
            name: name,
            busType: UInt16(truncatingIfNeeded: libevdev_get_id_bustype(handle)),
            vendor: UInt16(truncatingIfNeeded: libevdev_get_id_vendor(handle)),
            product: UInt16(truncatingIfNeeded: libevdev_get_id_product(handle)),
            version: UInt16(truncatingIfNeeded: libevdev_get_id_version(handle)),
            properties: properties, axes: axes, keys: keys)
    }
}

/// Decides whether a device is a direct-touch device gestured handles.
public enum EvdevTouchCheck {
    /// INPUT_PROP_BUTTONPAD and INPUT_PROP_SEMI_MT: touchpad properties.
    static let buttonpadProperty = Int(INPUT_PROP_BUTTONPAD)
    static let semiMTProperty = Int(INPUT_PROP_SEMI_MT)

    /// Nil when gestured can use the device; otherwise why not.
    ///
    /// A device qualifies when it has absolute X/Y (or MT position) axes and is direct: it declares
    /// INPUT_PROP_DIRECT, or udev tags it ID_INPUT_TOUCHSCREEN=1 (`udevTouchscreen`). Touchpads and
    /// tablets, which move a pointer instead of touching the screen under the finger, are refused.
    /// Multitouch protocol A is refused later, by `GestureEngine`, with its own message.
    public static func refusalReason(_ device: DeviceDescription, udevTouchscreen: Bool) -> UnsupportedDeviceReason? {
        if device.positionAxes == nil { return .noPositionAxes }
        if device.isDirect || udevTouchscreen { return nil }
        if device.properties.contains(INPUT_PROP.pointer) || device.properties.contains(buttonpadProperty)
            || device.properties.contains(semiMTProperty) || device.keys.contains(BTN.toolFinger)
        {
            return .touchpad
        }
        if device.keys.contains(BTN.toolPen) { return .tablet }
        return .notDeclaredDirect
    }
}

/// Why gestured does not handle an input device (`EvdevError.unsupported`); its description says it in
/// words for the log, with what to do where something can be done.
public enum UnsupportedDeviceReason: Equatable, Sendable, CustomStringConvertible {
    /// No absolute X/Y (or MT position) axes: not a touch device at all.
    case noPositionAxes
    /// A touchpad (INPUT_PROP_POINTER, INPUT_PROP_BUTTONPAD, INPUT_PROP_SEMI_MT or BTN_TOOL_FINGER, and
    /// not direct): libinput's.
    case touchpad
    /// A graphics tablet (BTN_TOOL_PEN, not direct).
    case tablet
    /// Neither INPUT_PROP_DIRECT nor udev's ID_INPUT_TOUCHSCREEN=1, and nothing else that says what it is.
    case notDeclaredDirect
    /// Read as a pen (touch arbitration), but it has neither BTN_TOOL_PEN nor BTN_TOOL_RUBBER.
    case noPenTool

    public var description: String {
        switch self {
        case .noPositionAxes:
            return "it has no absolute X/Y axes, so it is not a touch device"
        case .touchpad:
            return "it is a touchpad (an indirect device: INPUT_PROP_DIRECT is not set); gestured handles "
                + "touchscreens, libinput handles touchpad gestures"
        case .tablet:
            return "it is a graphics tablet (an indirect device: INPUT_PROP_DIRECT is not set)"
        case .notDeclaredDirect:
            return "it declares neither INPUT_PROP_DIRECT nor udev's ID_INPUT_TOUCHSCREEN=1; if it is a "
                + "touchscreen, tag it with a udev rule (ENV{ID_INPUT_TOUCHSCREEN}=\"1\", see docs/installation.md)"
        case .noPenTool:
            return "udev calls it a tablet, but it has neither BTN_TOOL_PEN nor BTN_TOOL_RUBBER, so it is no pen to arbitrate touches with"
        }
    }
}
