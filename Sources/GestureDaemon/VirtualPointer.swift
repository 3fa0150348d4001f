// Touch that points: the virtual pointer beside a passthrough copy (docs/gestures.md, "Touch that points").
//
//   final class VirtualPointer: PassthroughCopy
//     init(panel: DeviceDescription, panelNode: String?) throws(SystemError)
//
// An absolute pointer made through uinput: ABS_X and ABS_Y with the panel's own position axes (range and
// resolution), BTN_LEFT, BTN_RIGHT and BTN_MIDDLE, REL_WHEEL and REL_HWHEEL with their high-resolution twins
// (REL_WHEEL_HI_RES, REL_HWHEEL_HI_RES), no INPUT_PROP_DIRECT. udev's input_id takes absolute axes with a
// mouse button and no touch for a mouse (ID_INPUT_MOUSE, as QEMU's and VMware's tablets), and libinput makes
// it a pointer whose motion is absolute (LIBINPUT_EVENT_POINTER_MOTION_ABSOLUTE) and whose calibration
// matrix applies as it does to the panel. Its phys is the copy's with "/pointer" after it, which
// 95-gestured-passthrough.rules gives the panel's output and calibration (WL_OUTPUT,
// LIBINPUT_CALIBRATION_MATRIX), so that a compositor maps it exactly as it maps the panel, and which
// gestured never opens. Its name is the panel's with " pointer" after it, its ids the panel's on the
// virtual bus.
import CLibevdev
import GestureCore
import Glibc
import SystemCalls
import TouchForwarding

final class VirtualPointer: PassthroughCopy {
    /// What ends the phys of a pointer: "gestured-passthrough/<panel node>/pointer".
    static let physSuffix = "/pointer"
    /// BUS_VIRTUAL.
    static let busVirtual: Int32 = 0x06

    private let device: UinputDevice
    var devnode: String? { device.devnode }
    var syspath: String? { device.syspath }

    init(panel: DeviceDescription, panelNode: String?) throws(SystemError) {
        guard let axes = TouchPointer.axes(of: panel) else {
            throw SystemError(errno: EINVAL, operation: "the virtual pointer of a panel without position axes")
        }
        guard let template = libevdev_new() else { throw SystemError(errno: ENOMEM, operation: "libevdev_new") }
        // The kernel keeps 80 bytes of a name (UINPUT_MAX_NAME_SIZE), libevdev cuts it there.
        libevdev_set_name(template, panel.name + " pointer")
        libevdev_set_id_bustype(template, VirtualPointer.busVirtual)
        libevdev_set_id_vendor(template, Int32(panel.vendor))
        libevdev_set_id_product(template, Int32(panel.product))
        libevdev_set_id_version(template, Int32(panel.version))
        for (code, axis) in [(ABS.x, axes.x), (ABS.y, axes.y)] {
            var info = input_absinfo(value: axis.minimum, minimum: axis.minimum, maximum: axis.maximum, fuzz: 0, flat: 0, resolution: axis.resolution)
            libevdev_enable_event_code(template, UInt32(EV.abs), UInt32(code), &info)
        }
        for button in TouchPointer.buttons { libevdev_enable_event_code(template, UInt32(EV.key), UInt32(button), nil) }
        for wheel in TouchPointer.wheels { libevdev_enable_event_code(template, UInt32(EV.rel), UInt32(wheel), nil) }
        device = try UinputDevice(template: template, phys: VirtualTouchscreen.phys(panelNode: panelNode) + VirtualPointer.physSuffix)
    }

    func write(_ events: [InputEvent]) throws(SystemError) { try device.write(events) }
}
