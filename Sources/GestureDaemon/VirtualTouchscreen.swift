// The passthrough's virtual copy of a panel: a uinput device made with libevdev's uinput support.
//
//   final class VirtualTouchscreen
//     init(cloning description: DeviceDescription, from handle: EvdevDevice?, panelNode: String?) throws(SystemError)
//     var devnode: String?            — /dev/input/eventN of the copy
//     func write(_ events: [InputEvent]) throws(SystemError)   — one write(2) for the batch
//
// The copy has the panel's name, ids, properties, event types and codes and absolute axes (ranges,
// resolution), plus ABS_MT_TOOL_TYPE when the panel lacks it (cancelling a touch needs MT_TOOL_PALM). Its
// `phys` starts with `VirtualTouchscreen.physPrefix`, which is how gestured (and the udev rule that copies
// the panel's properties) knows its own devices.
import CLibevdev
import GestureCore
import Glibc
import SystemCalls
import TouchForwarding

public final class VirtualTouchscreen {
    /// The `phys` of every virtual device gestured makes ("gestured-passthrough/<panel node>", and
    /// "gestured-passthrough/<panel node>/pointer" for the pointer beside a copy): gestured never opens a
    /// device whose phys starts with it, and 95-gestured-passthrough.rules matches it.
    public static let physPrefix = "gestured-passthrough"

    /// The uinput node the copies are made through.
    public static let uinputPath = UinputDevice.uinputPath

    private let device: UinputDevice
    /// The copy's event node, as libevdev finds it in sysfs (nil if it could not tell).
    public var devnode: String? { device.devnode }
    /// The copy's sysfs path (/sys/devices/virtual/input/inputN).
    public var syspath: String? { device.syspath }

    /// The phys of a virtual device of the panel at `panelNode` (a replay's: "replay").
    static func phys(panelNode: String?) -> String { physPrefix + "/" + (panelNode ?? "replay") }

    /// Creates the copy of `description` (`libevdev_uinput_create_from_device`). With `panel` (the live
    /// panel's libevdev), the event types and codes it has beyond what `description` holds (MSC_TIMESTAMP,
    /// other keys) are copied too. `panelNode` names the panel in the copy's phys.
    public init(cloning description: DeviceDescription, from panel: EvdevDevice? = nil, panelNode: String?) throws(SystemError) {
        guard let template = libevdev_new() else {
            throw SystemError(errno: ENOMEM, operation: "libevdev_new")
        }
        let copy = TouchForwarder.virtualDescription(of: description)
        libevdev_set_name(template, copy.name)
        libevdev_set_id_bustype(template, Int32(copy.busType))
        libevdev_set_id_vendor(template, Int32(copy.vendor))
        libevdev_set_id_product(template, Int32(copy.product))
        libevdev_set_id_version(template, Int32(copy.version))
        for property in copy.properties { libevdev_enable_property(template, UInt32(property)) }
        for key in copy.keys { libevdev_enable_event_code(template, UInt32(EV.key), UInt32(key), nil) }
        for (code, axis) in copy.axes {
            var info = input_absinfo(
                value: axis.minimum, minimum: axis.minimum, maximum: axis.maximum, fuzz: axis.fuzz, flat: axis.flat,
                resolution: axis.resolution)
            libevdev_enable_event_code(template, UInt32(EV.abs), UInt32(code), &info)
        }
        panel?.copyOtherCodes(into: template)
        device = try UinputDevice(template: template, phys: VirtualTouchscreen.phys(panelNode: panelNode))
    }

    /// Writes `events` to the copy in one write(2) (uinput takes whole input_events; the kernel stamps them).
    public func write(_ events: [InputEvent]) throws(SystemError) { try device.write(events) }
}

extension EvdevDevice {
    /// Enables on `template` the event types and codes the panel has besides keys and absolute axes
    /// (EV_MSC, EV_SW, EV_REL, EV_LED), and keys the description left out.
    func copyOtherCodes(into template: OpaquePointer) {
        withHandle { handle in
            for type in [UInt32(EV_KEY), UInt32(EV_REL), UInt32(EV_MSC), UInt32(EV_SW), UInt32(EV_LED)] {
                guard libevdev_has_event_type(handle, type) != 0 else { continue }
                let max = libevdev_event_type_get_max(type)
                guard max >= 0 else { continue }
                for code in 0...UInt32(max) where libevdev_has_event_code(handle, type, code) != 0 {
                    libevdev_enable_event_code(template, type, code, nil)
                }
            }
        }
    }
}
