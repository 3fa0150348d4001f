// A uinput device made with libevdev's uinput support from a template: what gestured's virtual devices
// (the passthrough copy, VirtualTouchscreen; the pointer beside it, VirtualPointer) share.
//
//   final class UinputDevice
//     init(template: OpaquePointer, phys: String) throws(SystemError)   — takes the template over
//     let devnode: String?, syspath: String?
//     func write(_ events: [InputEvent]) throws(SystemError)          — one write(2) for the batch
import CLibevdev
import GestureCore
import Glibc
import SystemCalls

final class UinputDevice {
    /// The uinput node devices are made through.
    static let uinputPath = "/dev/uinput"

    /// What to do when /dev/uinput cannot be used.
    static let hint =
        "passthrough needs write access to /dev/uinput (the uinput module loaded and the udev rule of "
        + "docs/installation.md); the panel is read without passthrough"

    /// The device's event node, as libevdev finds it in sysfs (nil if it could not tell).
    let devnode: String?
    /// Its sysfs path (/sys/devices/virtual/input/inputN).
    let syspath: String?
    private let uinput: OpaquePointer
    private let template: OpaquePointer
    /// The /dev/uinput descriptor the device lives on (closing it destroys the device, as the kernel does
    /// when the daemon dies: its readers see it go, with whatever it had down).
    private let fd: Int32
    private var buffer: [input_event] = []

    /// Creates the device `template` describes (`libevdev_uinput_create_from_device`), with `phys`, which
    /// libevdev sets on none: the descriptor is opened here and given the phys before libevdev creates the
    /// device on it. The template is freed with the device (or now, when it cannot be made).
    init(template: OpaquePointer, phys: String) throws(SystemError) {
        libevdev_set_phys(template, phys)
        let fd: Int32
        do {
            fd = try SystemCall.open(UinputDevice.uinputPath, flags: O_RDWR | O_CLOEXEC)
        } catch {
            libevdev_free(template)
            var error = error
            if [EACCES, EPERM, ENOENT, ENODEV, ENXIO].contains(error.errno) { error.hint = UinputDevice.hint }
            throw error
        }
        if gestured_uinput_set_phys(fd, phys) < 0 {
            let code = Glibc.errno
            libevdev_free(template)
            SystemCall.close(fd)
            throw SystemError(errno: code, operation: "ioctl(UI_SET_PHYS)", path: UinputDevice.uinputPath)
        }
        var uinput: OpaquePointer?
        let rc = libevdev_uinput_create_from_device(template, fd, &uinput)
        guard rc >= 0, let uinput else {
            libevdev_free(template)
            SystemCall.close(fd)
            throw SystemError(
                errno: -rc, operation: "libevdev_uinput_create_from_device", path: UinputDevice.uinputPath,
                hint: -rc == EACCES || -rc == EPERM ? UinputDevice.hint : nil)
        }
        self.fd = fd
        self.template = template
        self.uinput = uinput
        devnode = libevdev_uinput_get_devnode(uinput).map { String(cString: $0) }
        syspath = libevdev_uinput_get_syspath(uinput).map { String(cString: $0) }
        buffer.reserveCapacity(64)
    }

    deinit {
        libevdev_uinput_destroy(uinput)
        libevdev_free(template)
        SystemCall.close(fd)
    }

    /// Writes `events` in one write(2) (uinput takes whole input_events; the kernel stamps them).
    func write(_ events: [InputEvent]) throws(SystemError) {
        guard !events.isEmpty else { return }
        buffer.removeAll(keepingCapacity: true)
        for e in events {
            var raw = input_event()
            gestured_input_event_set(&raw, e.type, e.code, e.value)
            buffer.append(raw)
        }
        let fd = self.fd
        let size = MemoryLayout<input_event>.stride * buffer.count
        let path = devnode ?? UinputDevice.uinputPath
        let result: Result<Int, SystemError> = buffer.withUnsafeBytes { bytes in
            do throws(SystemError) { return .success(try SystemCall.write(fd, bytes, path: path)) } catch { return .failure(error) }
        }
        let written = try result.get()
        if written != size {
            throw SystemError(errno: EIO, operation: "write (\(written) of \(size) bytes)", path: path)
        }
    }
}
