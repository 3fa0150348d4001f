import Foundation
import GestureCore
import Glibc
import SystemCalls
import Testing

@testable import GestureDaemon

/// With no touchscreen found at start-up the daemon says what it looked at and why nothing matched
/// (issue 25, item 11). The devices here go through the daemon's own matching (DeviceHub: what it wants,
/// HotplugTracker, opening with EvdevDevice and its touch check) with nodes this machine has (/dev/null, a
/// regular file, a missing path); the real kernel's devices are the QEMU guest's (tests/vm/guest/tests/
/// 22-discovery.sh), and the daemon on this machine is IntegrationTests' DiscoveryTests.
@Suite struct DiscoveryReportTests {
    static func device(_ node: String, _ name: String, _ properties: [String: String]) -> UdevInputDevice {
        UdevInputDevice(devnode: node, syspath: "/sys/devices/virtual/input/input9/" + (node.split(separator: "/").last.map(String.init) ?? ""),
                        name: name, properties: properties)
    }

    static let keyboard = ["ID_INPUT": "1", "ID_INPUT_KEYBOARD": "1", "ID_INPUT_KEY": "1"]
    static let touchscreen = ["ID_INPUT": "1", "ID_INPUT_TOUCHSCREEN": "1"]
    static let tablet = ["ID_INPUT": "1", "ID_INPUT_TABLET": "1"]

    static let noFacts = DiscoveryReport.Facts(devInputExists: true, kernelEventDevices: 6, udevRunning: true, hotplug: true)

    @Test func eachDeviceGoesThroughTheDaemonsMatchingAndTheReportSaysWhy() throws {
        let file = NSTemporaryDirectory() + "gestured-discovery-\(getpid())"
        #expect(FileManager.default.createFile(atPath: file, contents: Data("not a device".utf8)))
        defer { unlink(file) }
        let loop = try EventLoop()
        let watches = Watches(loop: loop)
        // A [[device]] section naming "Named Panel".
        let configuration = DaemonConfiguration(names: { description, _ in description.name == "Named Panel" })
        let clients = ClientHub(watches: watches, limits: configuration.daemon)
        let hub = DeviceHub(watches: watches, delivery: clients, configuration: configuration, discoversDevices: true)
        let present = [
            Self.device("/dev/input/event0", "AT Translated Set 2 keyboard", Self.keyboard),
            Self.device("/dev/null", "Tagged Touchscreen", Self.touchscreen),
            Self.device(file, "Unclassified Thing", [:]),
            Self.device("/nonexistent/event7", "Gone Touchscreen", Self.touchscreen),
            Self.device("/dev/null", "Named Panel", Self.tablet),
            Self.device("/dev/input/event9", "Tablet\n<3>forged line\u{1b}[31m", Self.tablet),
        ]
        let found = hub.discover(present)
        #expect(hub.count == 0)
        let outcomes = found.map(\.outcome)
        #expect(outcomes[0] == .notATouchscreen)  // classified, never opened
        guard case .refused(.notEvdevDevice(let path, _)) = outcomes[1] else {
            Issue.record("a tagged touchscreen that is /dev/null: \(outcomes[1])")
            return
        }
        #expect(path == "/dev/null")
        guard case .refused(.notEvdevDevice) = outcomes[2] else {
            Issue.record("an unclassified regular file is probed: \(outcomes[2])")
            return
        }
        guard case .refused(.system(let cause)) = outcomes[3] else {
            Issue.record("a missing node: \(outcomes[3])")
            return
        }
        #expect(cause.errno == ENOENT)
        guard case .refused(.notEvdevDevice) = outcomes[4] else {  // named by the configuration: opened though a tablet
            Issue.record("a device a section names is opened: \(outcomes[4])")
            return
        }
        #expect(outcomes[5] == .notATouchscreen)

        let report = DiscoveryReport(devices: found, facts: Self.noFacts)
        #expect(report.foundNone)
        let lines = report.lines
        #expect(lines[0].hasPrefix("no touchscreen found among the 6 input event devices udev lists: gestured reads those udev tags ID_INPUT_TOUCHSCREEN=1 or a [[device]] section names"))
        #expect(lines[0].hasSuffix("; one plugged in later is opened then"))
        #expect(lines[1] == "  /dev/input/event0 \"AT Translated Set 2 keyboard\": udev says keyboard, key, not a touchscreen")
        #expect(lines[2].hasPrefix("  /dev/null \"Tagged Touchscreen\": not an evdev device (libevdev_new_from_fd: "))
        #expect(lines[3].hasPrefix("  \(file) \"Unclassified Thing\": udev has not classified it; probed: not an evdev device"))
        #expect(lines[4].hasPrefix("  /nonexistent/event7 \"Gone Touchscreen\": open /nonexistent/event7: No such file or directory"))
        #expect(lines[5].hasPrefix("  /dev/null \"Named Panel\": not an evdev device"))
        // A name cannot forge a log line or drive a terminal.
        #expect(lines[6] == "  /dev/input/event9 \"Tablet\\u{a}<3>forged line\\u{1b}[31m\": udev says tablet, not a touchscreen")
        #expect(lines.last?.hasPrefix("  a touchscreen udev does not tag: tag it with a udev rule") == true)
        #expect(lines.count == 8)
        #expect(lines.allSatisfy { !$0.contains("\n") })
    }

    @Test func whenUdevListsNothingItSaysWhatTheMachineHas() {
        func headline(_ facts: DiscoveryReport.Facts) -> String {
            let lines = DiscoveryReport(devices: [], facts: facts).lines
            #expect(lines.count == 1)
            return lines.first ?? ""
        }
        #expect(headline(.init(devInputExists: false, kernelEventDevices: 0, udevRunning: false, hotplug: true))
            == "no touchscreen found: there is no /dev/input and the kernel has no input event devices (/sys/class/input): "
                + "this machine has no touchscreen; one plugged in later is opened then")
        #expect(headline(.init(devInputExists: false, kernelEventDevices: 3, udevRunning: false, hotplug: false))
            == "no touchscreen found: there is no /dev/input, though the kernel has 3 input event devices (/sys/class/input): "
                + "in a container, give it the host's /dev/input")
        #expect(headline(.init(devInputExists: true, kernelEventDevices: 0, udevRunning: true, hotplug: false))
            == "no touchscreen found: the kernel has no input event devices (/sys/class/input)")
        #expect(headline(.init(devInputExists: true, kernelEventDevices: 1, udevRunning: true, hotplug: false))
            == "no touchscreen found: udev lists none of the 1 input event devices the kernel has (/sys/class/input), "
                + "so none has a device node gestured can open")
    }

    @Test func permissionsUnclassifiedDevicesAndTheCap() {
        let denied = EvdevError.permissionDenied(
            path: "/dev/input/event3", SystemError(errno: EACCES, operation: "open", path: "/dev/input/event3"))
        var devices: [(device: UdevInputDevice, outcome: DiscoveryOutcome)] = [
            (Self.device("/dev/input/event3", "Goodix Capacitive TouchScreen", Self.touchscreen), .refused(denied))
        ]
        for i in 4..<30 {
            let pad = EvdevError.unsupported(path: "/dev/input/event\(i)", name: "Pad \(i)", reason: .touchpad)
            devices.append((Self.device("/dev/input/event\(i)", "Pad \(i)", [:]), .refused(pad)))
        }
        let lines = DiscoveryReport(
            devices: devices, facts: .init(devInputExists: true, kernelEventDevices: 27, udevRunning: false, hotplug: false)
        ).lines
        #expect(lines[0].hasSuffix("for INPUT_PROP_DIRECT"))  // one device is classified: not "none of them"
        #expect(lines[1] == "  /dev/input/event3 \"Goodix Capacitive TouchScreen\": permission denied (Permission denied)")
        #expect(lines[2] == "  /dev/input/event4 \"Pad 4\": udev has not classified it; probed: "
            + UnsupportedDeviceReason.touchpad.description)
        #expect(lines[2].contains("probed: it is a touchpad (an indirect device"))
        #expect(lines.count == 1 + DiscoveryReport.maximumDevices + 2)
        #expect(lines[DiscoveryReport.maximumDevices + 1] == "  and 7 more")
        #expect(lines.last == "  to read a device that refused permission: " + EvdevError.permissionAdvice)
        #expect(EvdevError.permissionAdvice.contains("group 'input'") && EvdevError.permissionAdvice.contains("udev rule"))

        let unclassified = DiscoveryReport(
            devices: Array(devices.dropFirst()), facts: .init(devInputExists: true, kernelEventDevices: 26, udevRunning: false, hotplug: false)
        ).lines
        #expect(unclassified[0].hasSuffix("; udev has classified none of them (/run/udev/control is missing: is systemd-udevd or eudev running?)"))
        let opened = DiscoveryReport(devices: [(Self.device("/dev/input/event5", "ts", Self.touchscreen), .opened)], facts: Self.noFacts)
        #expect(!opened.foundNone)
    }
}
