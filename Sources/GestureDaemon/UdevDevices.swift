import CLibudev
import GestureProtocol
import Glibc
import SystemCalls

/// An input event node as udev describes it.
public struct UdevInputDevice: Equatable, Sendable {
    /// The device node, e.g. "/dev/input/event5".
    public var devnode: String
    /// The sysfs path, e.g. "/sys/devices/.../input/input12/event5".
    public var syspath: String
    /// The kernel's name for the device (the parent input device's `name` attribute); empty when sysfs no
    /// longer has it (a device being removed).
    public var name: String
    /// udev properties (ID_INPUT_TOUCHSCREEN, ID_VENDOR_ID, ID_PATH, ...).
    public var properties: [String: String]

    public init(devnode: String, syspath: String, name: String, properties: [String: String]) {
        self.devnode = devnode
        self.syspath = syspath
        self.name = name
        self.properties = properties
    }

    /// udev's input_id builtin (or a local rule) says this is a touchscreen: ID_INPUT_TOUCHSCREEN=1.
    public var isTouchscreen: Bool { properties["ID_INPUT_TOUCHSCREEN"] == "1" }
    /// udev has not classified this device at all (no ID_INPUT): udevd is not running or its rules did not
    /// run, as on mdev-based systems. Such a device is opened and kept only when libevdev shows a
    /// direct-touch panel (INPUT_PROP_DIRECT), since nothing else says what it is.
    public var isUnclassified: Bool { properties["ID_INPUT"] == nil }
    /// LIBINPUT_CALIBRATION_MATRIX, six numbers, when udev (hwdb or a local rule) sets it; nil otherwise or
    /// when it is malformed.
    public var calibrationMatrix: [Double]? {
        guard let text = properties["LIBINPUT_CALIBRATION_MATRIX"] else { return nil }
        let numbers = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).compactMap { Double($0) }
        guard numbers.count == 6, numbers.allSatisfy(\.isFinite) else { return nil }
        return numbers
    }
    /// udev says this is a touchpad: ID_INPUT_TOUCHPAD=1.
    public var isTouchpad: Bool { properties["ID_INPUT_TOUCHPAD"] == "1" }

    /// The seat the device belongs to: its `ID_SEAT` property, seat0 when unset or empty (logind's rule).
    public var seat: String {
        guard let seat = properties["ID_SEAT"], !seat.isEmpty else { return DeviceInfo.defaultSeat }
        return seat
    }
    /// The output the device belongs to: its `WL_OUTPUT` property (libinput's convention), nil when unset
    /// or empty.
    public var outputName: String? {
        guard let name = properties["WL_OUTPUT"], !name.isEmpty else { return nil }
        return name
    }
}

/// A udev context (`struct udev *`), released when the object goes away.
final class UdevContext {
    let pointer: OpaquePointer

    /// `udev_new()`.
    init() throws(SystemError) {
        guard let pointer = udev_new() else {
            throw SystemError(errno: errno == 0 ? ENOMEM : errno, operation: "udev_new")
        }
        self.pointer = pointer
    }

    deinit { udev_unref(pointer) }
}

extension UdevInputDevice {
    /// Reads an input event node's description from a `struct udev_device *`; nil for anything that is not
    /// an event node (the parent inputN devices, mouseN, jsN) or has no device node.
    init?(udevDevice device: OpaquePointer) {
        guard let sysnameC = udev_device_get_sysname(device),
            String(cString: sysnameC).hasPrefix("event"),
            let devnodeC = udev_device_get_devnode(device),
            let syspathC = udev_device_get_syspath(device)
        else { return nil }
        var properties: [String: String] = [:]
        var entry = udev_device_get_properties_list_entry(device)
        while let current = entry {
            if let key = udev_list_entry_get_name(current) {
                properties[String(cString: key)] = udev_list_entry_get_value(current).map { String(cString: $0) } ?? ""
            }
            entry = udev_list_entry_get_next(current)
        }
        var name = ""
        // The parent belongs to `device`: not unreferenced here.
        if let parent = udev_device_get_parent_with_subsystem_devtype(device, "input", nil),
            let value = udev_device_get_sysattr_value(parent, "name")
        {
            name = String(cString: value)
        }
        self.init(devnode: String(cString: devnodeC), syspath: String(cString: syspathC), name: name,
                  properties: properties)
    }
}

/// Finding input devices that are present now.
///
/// Create the `UdevMonitor` before enumerating, so that a device plugged in between the two is not missed
/// (it may then be seen twice: `HotplugTracker` ignores an `add` for a node that is already open).
public enum UdevDiscovery {
    /// Every input event node udev knows (subsystem "input", sysname "event*"), in node order, with its
    /// properties: the daemon matches configured device sections against these.
    public static func eventDevices() throws(SystemError) -> [UdevInputDevice] {
        let udev = try UdevContext()
        guard let enumerate = udev_enumerate_new(udev.pointer) else {
            throw SystemError(errno: errno == 0 ? ENOMEM : errno, operation: "udev_enumerate_new")
        }
        defer { udev_enumerate_unref(enumerate) }
        var rc = udev_enumerate_add_match_subsystem(enumerate, "input")
        if rc < 0 { throw SystemError(errno: -rc, operation: "udev_enumerate_add_match_subsystem(input)") }
        rc = udev_enumerate_add_match_sysname(enumerate, "event*")
        if rc < 0 { throw SystemError(errno: -rc, operation: "udev_enumerate_add_match_sysname(event*)") }
        rc = udev_enumerate_scan_devices(enumerate)
        if rc < 0 { throw SystemError(errno: -rc, operation: "udev_enumerate_scan_devices") }

        var devices: [UdevInputDevice] = []
        var entry = udev_enumerate_get_list_entry(enumerate)
        while let current = entry {
            entry = udev_list_entry_get_next(current)
            // A device that disappeared since the scan has no syspath left: skip it.
            guard let syspath = udev_list_entry_get_name(current),
                let device = udev_device_new_from_syspath(udev.pointer, syspath)
            else { continue }
            defer { udev_device_unref(device) }
            if let input = UdevInputDevice(udevDevice: device) { devices.append(input) }
        }
        return devices.sorted { eventNodeOrder($0.devnode, $1.devnode) }
    }

    /// The event nodes udev tags ID_INPUT_TOUCHSCREEN=1.
    public static func touchscreens() throws(SystemError) -> [UdevInputDevice] {
        try eventDevices().filter(\.isTouchscreen)
    }

    /// udev's description of the character device at `devnode` (for a device a configuration section names
    /// by path); nil when udev does not know it as an input event node. Throws when `devnode` cannot be
    /// looked at (ENOENT, ...) or is not a character device (ENOTTY).
    public static func device(devnode: String) throws(SystemError) -> UdevInputDevice? {
        let status = try SystemCall.stat(devnode)
        guard status.st_mode & S_IFMT == S_IFCHR else {
            throw SystemError(errno: ENOTTY, operation: "stat", path: devnode,
                              hint: "not a character device; name a /dev/input/eventN node")
        }
        let udev = try UdevContext()
        guard let device = udev_device_new_from_devnum(udev.pointer, CChar(UInt8(ascii: "c")), status.st_rdev)
        else { return nil }
        defer { udev_device_unref(device) }
        return UdevInputDevice(udevDevice: device)
    }

    /// Orders "/dev/input/event2" before "/dev/input/event10".
    static func eventNodeOrder(_ a: String, _ b: String) -> Bool {
        func split(_ s: String) -> (String, Int?) {
            let digits = s.reversed().prefix { $0.isNumber }
            return (String(s.dropLast(digits.count)), Int(String(digits.reversed())))
        }
        let (prefixA, numberA) = split(a), (prefixB, numberB) = split(b)
        if prefixA != prefixB || numberA == nil || numberB == nil { return a < b }
        return numberA! < numberB!
    }
}

/// What happened to an input event node.
public struct UdevDeviceChange: Equatable, Sendable {
    public enum Action: Equatable, Sendable {
        case add, remove, change
        /// Anything else udev reports (bind, unbind, move, online, offline).
        case other(String)

        init(_ text: String) {
            switch text {
            case "add": self = .add
            case "remove": self = .remove
            case "change": self = .change
            default: self = .other(text)
            }
        }
    }

    public var action: Action
    public var device: UdevInputDevice

    public init(action: Action, device: UdevInputDevice) {
        self.action = action
        self.device = device
    }
}

/// Hotplug events for input event nodes, from udev's netlink monitor (the events udevd sends after its
/// rules ran, so properties and permissions are those the rules set).
public final class UdevMonitor {
    /// Non-blocking descriptor to watch for EPOLLIN; call `receive()` until it returns nil.
    public let fd: Int32
    private let udev: UdevContext
    private let monitor: OpaquePointer

    /// `udev_monitor_new_from_netlink(udev, "udev")`, filtered on subsystem "input", receiving enabled.
    /// Needs AF_NETLINK (the service's RestrictAddressFamilies allows it).
    public init() throws(SystemError) {
        let udev = try UdevContext()
        guard let monitor = udev_monitor_new_from_netlink(udev.pointer, "udev") else {
            throw SystemError(errno: errno == 0 ? EINVAL : errno, operation: "udev_monitor_new_from_netlink(udev)",
                              hint: "hotplug needs a netlink socket (AF_NETLINK)")
        }
        var rc = udev_monitor_filter_add_match_subsystem_devtype(monitor, "input", nil)
        if rc >= 0 { rc = udev_monitor_enable_receiving(monitor) }
        if rc < 0 {
            udev_monitor_unref(monitor)
            throw SystemError(errno: -rc, operation: "udev_monitor_enable_receiving")
        }
        let fd = udev_monitor_get_fd(monitor)
        do throws(SystemError) {
            if fd < 0 { throw SystemError(errno: -fd, operation: "udev_monitor_get_fd") }
            try SystemCall.setNonBlocking(fd)
        } catch {
            udev_monitor_unref(monitor)
            throw error
        }
        self.udev = udev
        self.monitor = monitor
        self.fd = fd
    }

    deinit { udev_monitor_unref(monitor) }

    /// The next change to an input event node, or nil when none is waiting (`udev_monitor_receive_device`
    /// returned NULL: EAGAIN, or a message it discarded). Changes to other input devices (inputN parents,
    /// mouseN, jsN) are skipped.
    public func receive() -> UdevDeviceChange? {
        while let device = udev_monitor_receive_device(monitor) {
            defer { udev_device_unref(device) }
            guard let input = UdevInputDevice(udevDevice: device) else { continue }
            let action = udev_device_get_action(device).map { String(cString: $0) } ?? "change"
            return UdevDeviceChange(action: UdevDeviceChange.Action(action), device: input)
        }
        return nil
    }
}
