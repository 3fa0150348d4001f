import Foundation
import Glibc
import SystemCalls
import Testing

@testable import GestureDaemon

@Suite struct UdevDiscoveryTests {
    /// The event nodes the kernel lists in sysfs (/sys/class/input/event*) that have a node in /dev/input:
    /// a node udev has not created (no devtmpfs, a container) has no devnode and is not listed.
    static let kernelEventNodes: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: "/sys/class/input")) ?? [])
        .filter { $0.hasPrefix("event") && FileManager.default.fileExists(atPath: "/dev/input/" + $0) }
        .map { "/dev/input/" + $0 }

    /// Where the kernel lists no event device (the build machine: /sys/class/input holds no event*, there is
    /// no /dev/input), enumeration finds none and no touchscreen: it makes up nothing.
    @Test(.enabled(if: kernelEventNodes.isEmpty, "the kernel lists event devices: enumeratesTheEventDevicesTheKernelLists runs"))
    func findsNoDeviceWhereTheKernelListsNone() throws {
        #expect(try UdevDiscovery.eventDevices() == [])
        #expect(try UdevDiscovery.touchscreens() == [])
    }

    /// Enumeration finds exactly the event devices the kernel lists in sysfs, each with its node, syspath
    /// and the name sysfs gives it, in numeric order. It runs only where the kernel has input devices (a
    /// developer's machine), not on the build machine, which has none: there the same comparison against
    /// real devices is the QEMU guest's tests/vm/guest/tests/22-discovery.sh, through the installed
    /// daemon's report of the devices udev lists (every /sys/class/input/event* by node and name).
    @Test(.enabled(if: !kernelEventNodes.isEmpty, "no input event device on this machine: the guest's 22-discovery.sh makes this comparison"))
    func enumeratesTheEventDevicesTheKernelLists() throws {
        let devices = try UdevDiscovery.eventDevices()
        #expect(!devices.isEmpty)
        #expect(Set(devices.map(\.devnode)) == Set(Self.kernelEventNodes))
        #expect(devices.map(\.devnode) == devices.map(\.devnode).sorted(by: UdevDiscovery.eventNodeOrder))
        for device in devices {
            let event = String(device.devnode.split(separator: "/").last!)
            #expect(device.syspath.hasPrefix("/sys/") && device.syspath.hasSuffix("/" + event))
            let name = try? String(contentsOfFile: "/sys/class/input/\(event)/device/name", encoding: .utf8)
            #expect(device.name == name?.trimmingCharacters(in: .newlines), "\(device.devnode)")
        }
        let touchscreens = try UdevDiscovery.touchscreens()
        #expect(touchscreens == devices.filter(\.isTouchscreen))
    }

    @Test func unclassifiedDevicesAreThoseUdevNeverSaw() {
        let bare = UdevInputDevice(devnode: "/dev/input/event3", syspath: "/sys/x", name: "x", properties: [:])
        #expect(bare.isUnclassified && !bare.isTouchscreen)
        let keyboard = UdevInputDevice(
            devnode: "/dev/input/event4", syspath: "/sys/y", name: "kbd", properties: ["ID_INPUT": "1", "ID_INPUT_KEYBOARD": "1"])
        #expect(!keyboard.isUnclassified && !keyboard.isTouchscreen)
        let screen = UdevInputDevice(
            devnode: "/dev/input/event5", syspath: "/sys/z", name: "ts", properties: ["ID_INPUT": "1", "ID_INPUT_TOUCHSCREEN": "1"])
        #expect(!screen.isUnclassified && screen.isTouchscreen)
    }

    /// WL_OUTPUT names the device's output (libinput's convention); unset or empty is none.
    @Test func theOutputComesFromWLOutput() {
        func device(_ value: String?) -> UdevInputDevice {
            UdevInputDevice(devnode: "/dev/input/event5", syspath: "/sys/z", name: "ts", properties: value.map { ["WL_OUTPUT": $0] } ?? [:])
        }
        #expect(device("DSI-1").outputName == "DSI-1")
        #expect(device("").outputName == nil)
        #expect(device(nil).outputName == nil)
    }

    @Test func libinputCalibrationMatrixFromUdev() {
        func device(_ value: String?) -> UdevInputDevice {
            UdevInputDevice(
                devnode: "/dev/input/event5", syspath: "/sys/z", name: "ts",
                properties: value.map { ["LIBINPUT_CALIBRATION_MATRIX": $0] } ?? [:])
        }
        #expect(device("0 -1 1 1 0 0").calibrationMatrix == [0, -1, 1, 1, 0, 0])
        #expect(device(" 1.2  0 -0.1\t0 1 0 ").calibrationMatrix == [1.2, 0, -0.1, 0, 1, 0])
        #expect(device(nil).calibrationMatrix == nil)
        #expect(device("1 0 0 0 1").calibrationMatrix == nil)
        #expect(device("1 0 0 0 1 x").calibrationMatrix == nil)
        #expect(device("1 0 0 0 1 nan").calibrationMatrix == nil)
    }

    @Test func udevCalibrationAppliesOnlyWhereTheConfigurationSetsNoGeometry() {
        let udev: [Double] = [0, -1, 1, 1, 0, 0]
        #expect(DeviceSettings().applyingUdevCalibration(udev).geometry.calibration == udev)
        #expect(DeviceSettings().applyingUdevCalibration(nil).geometry.calibration == nil)
        var rotated = DeviceSettings()
        rotated.geometry.rotation = .upsideDown
        #expect(rotated.applyingUdevCalibration(udev).geometry.calibration == nil)
        var flipped = DeviceSettings()
        flipped.geometry.flipY = true
        #expect(flipped.applyingUdevCalibration(udev).geometry.calibration == nil)
        var calibrated = DeviceSettings()
        calibrated.geometry.calibration = [1, 0, 0, 0, 1, 0]
        #expect(calibrated.applyingUdevCalibration(udev).geometry.calibration == [1, 0, 0, 0, 1, 0])
    }

    @Test func aCharacterDeviceThatIsNotAnInputNodeIsUnknown() throws {
        let device = try UdevDiscovery.device(devnode: "/dev/null")
        #expect(device == nil)
    }

    @Test func aMissingNodeThrowsENOENT() {
        #expect(throws: SystemError(errno: ENOENT, operation: "stat", path: "/nonexistent/event0")) {
            _ = try UdevDiscovery.device(devnode: "/nonexistent/event0")
        }
    }

    @Test func aRegularFileIsNotADeviceNode() throws {
        let path = NSTemporaryDirectory() + "gestured-udev-regular-\(getpid())"
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        defer { unlink(path) }
        do {
            _ = try UdevDiscovery.device(devnode: path)
            Issue.record("a regular file was taken for a device node")
        } catch {
            #expect(error.errno == ENOTTY)
            #expect(error.description.contains("not a character device"))
        }
    }

    @Test func ordersNodesNumerically() {
        let nodes = ["/dev/input/event10", "/dev/input/event2", "/dev/input/event1", "/dev/input/event21"]
        #expect(nodes.sorted(by: UdevDiscovery.eventNodeOrder)
            == ["/dev/input/event1", "/dev/input/event2", "/dev/input/event10", "/dev/input/event21"])
    }

    @Test func readsTouchscreenAndTouchpadTags() {
        let screen = UdevInputDevice(devnode: "/dev/input/event5", syspath: "/sys/x", name: "ts",
                                     properties: ["ID_INPUT": "1", "ID_INPUT_TOUCHSCREEN": "1"])
        let pad = UdevInputDevice(devnode: "/dev/input/event6", syspath: "/sys/y", name: "tp",
                                  properties: ["ID_INPUT": "1", "ID_INPUT_TOUCHPAD": "1"])
        #expect(screen.isTouchscreen && !screen.isTouchpad)
        #expect(pad.isTouchpad && !pad.isTouchscreen)
    }

    @Test func parsesActions() {
        #expect(UdevDeviceChange.Action("add") == .add)
        #expect(UdevDeviceChange.Action("remove") == .remove)
        #expect(UdevDeviceChange.Action("change") == .change)
        #expect(UdevDeviceChange.Action("bind") == .other("bind"))
    }
}

/// Serialized: both tests count this process's udev monitor sockets.
@Suite(.serialized) struct UdevMonitorTests {
    @Test func givesANonBlockingPollableDescriptor() throws {
        let monitor = try UdevMonitor()
        #expect(monitor.fd >= 0)
        let flags = fcntl(monitor.fd, F_GETFL)
        #expect(flags >= 0 && flags & O_NONBLOCK != 0)
        #expect(fcntl(monitor.fd, F_GETFD) & FD_CLOEXEC != 0)
        #expect(UdevMonitorTests.ueventSocketIdentities().contains(UdevMonitorTests.socketIdentity(monitor.fd)))

        // Readable only when udev sent something (nothing, on a machine without udevd), never an error.
        var entry = pollfd(fd: monitor.fd, events: Int16(POLLIN), revents: 0)
        let count = poll(&entry, 1, 0)
        #expect(count == 0 || (count == 1 && Int32(entry.revents) == POLLIN), "poll: \(count), revents \(entry.revents)")
        // Receiving does not block and yields changes of event nodes only, until nil; then the descriptor
        // is no longer readable (the loop watches it level-triggered: a message left behind would spin it).
        var received = 0
        while let change = monitor.receive() {
            #expect(change.device.devnode.hasPrefix("/dev/input/event"))
            received += 1
            try #require(received < 10_000, "receive() never returned nil")
        }
        entry.revents = 0
        #expect(poll(&entry, 1, 0) == 0)
    }

    /// A released monitor leaves no descriptor behind. Counted exactly, though other suites open and close
    /// descriptors in this process at the same time: a monitor's only descriptor is its
    /// NETLINK_KOBJECT_UEVENT socket (libudev opens nothing else, as strace shows), so the check is that
    /// each monitor's own socket is closed once it is released, and that the number of uevent sockets
    /// this process holds is back where it was.
    @Test func monitorsCanBeCreatedAndReleasedRepeatedly() throws {
        let before = UdevMonitorTests.ueventSocketIdentities()
        var released: [String] = []
        for _ in 0..<200 {
            let monitor = try UdevMonitor()
            let identity = UdevMonitorTests.socketIdentity(monitor.fd)
            #expect(UdevMonitorTests.ueventSocketIdentities().count == before.count + 1)
            released.append(identity)
        }
        let after = UdevMonitorTests.ueventSocketIdentities()
        #expect(after == before)
        let open = UdevMonitorTests.openDescriptorTargets()
        #expect(released.filter(open.contains).isEmpty, "monitor sockets still open: \(released.filter(open.contains))")
        #expect(Set(released).count == released.count)  // each monitor had a socket of its own
    }

    /// "socket:[inode]", as /proc/self/fd shows a socket descriptor.
    static func socketIdentity(_ fd: Int32) -> String {
        var status = stat()
        guard fstat(fd, &status) == 0 else { return "fstat failed: errno \(errno)" }
        return "socket:[\(status.st_ino)]"
    }

    /// What each of this process's descriptors refers to (/proc/self/fd's links).
    static func openDescriptorTargets() -> Set<String> {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return Set(entries.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0) })
    }

    /// This process's NETLINK_KOBJECT_UEVENT sockets ("socket:[inode]"): those of /proc/self/fd whose inode
    /// /proc/self/net/netlink lists with protocol 15.
    static func ueventSocketIdentities() -> Set<String> {
        guard let table = try? String(contentsOfFile: "/proc/self/net/netlink", encoding: .utf8) else { return [] }
        // sk  Eth Pid Groups Rmem Wmem Dump Locks Drops Inode
        let uevent = Set(table.split(separator: "\n").dropFirst().compactMap { line -> String? in
            let fields = line.split(separator: " ")
            guard fields.count >= 10, fields[1] == "15" else { return nil }
            return "socket:[\(fields[9])]"
        })
        return openDescriptorTargets().intersection(uevent)
    }
}
