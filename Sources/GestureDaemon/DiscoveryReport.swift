import GestureCore
import Glibc
import SystemCalls
import PlainText

/// What start-up discovery made of one input event device udev lists.
enum DiscoveryOutcome: Equatable, Sendable {
    /// gestured reads it.
    case opened
    /// Already open when discovery came to it (announced by hotplug as well).
    case alreadyOpen
    /// Not opened: udev has classified it, not as a touchscreen (no ID_INPUT_TOUCHSCREEN=1), and no
    /// `[[device]]` section names it.
    case notATouchscreen
    /// Opening it failed, or it is not a device gestured can use (not direct touch, ...).
    case refused(EvdevError)
    /// The configuration says `ignore = true` for it.
    case ignoredByConfiguration
    /// Opened, but it cannot be read (the recognizer cannot use it: multitouch protocol A, ...).
    case unusable(DeviceAddFailure)
}

/// Why no touchscreen was found, in words for the log: what gestured looked for, among what, and for each
/// input event device there why it is not used, with what to do about it. Bounded: at most
/// `maximumDevices` device lines (a count of the rest), each device's name escaped.
struct DiscoveryReport {
    /// What the machine has, for when udev lists nothing.
    struct Facts: Equatable {
        /// /dev/input exists.
        var devInputExists: Bool
        /// The kernel's input event devices (/sys/class/input/event*).
        var kernelEventDevices: Int
        /// udevd runs (its control socket, /run/udev/control, exists): without it nothing is classified.
        var udevRunning: Bool
        /// udev's monitor is on: a touchscreen plugged in later is opened.
        var hotplug: Bool

        /// The facts of this machine.
        static func gather(hotplug: Bool) -> Facts {
            let events = (try? SystemCall.directoryEntries("/sys/class/input", limit: 4096))?.filter { $0.hasPrefix("event") }
            return Facts(
                devInputExists: (try? SystemCall.stat("/dev/input")) != nil, kernelEventDevices: events?.count ?? 0,
                udevRunning: (try? SystemCall.stat("/run/udev/control")) != nil, hotplug: hotplug)
        }
    }

    static let maximumDevices = 20

    var devices: [(device: UdevInputDevice, outcome: DiscoveryOutcome)]
    var facts: Facts

    /// Whether discovery found no touchscreen to read.
    var foundNone: Bool {
        !devices.contains { $0.outcome == .opened || $0.outcome == .alreadyOpen }
    }

    /// The lines to log when no touchscreen was found: a headline, then a line per device (indented).
    var lines: [String] {
        var lines: [String] = []
        let waiting = facts.hotplug ? "; one plugged in later is opened then" : ""
        guard !devices.isEmpty else {
            if !facts.devInputExists {
                var line = "no touchscreen found: there is no /dev/input"
                line += facts.kernelEventDevices > 0
                    ? ", though the kernel has \(facts.kernelEventDevices) input event device\(facts.kernelEventDevices == 1 ? "" : "s") "
                        + "(/sys/class/input): in a container, give it the host's /dev/input"
                    : " and the kernel has no input event devices (/sys/class/input): this machine has no touchscreen"
                lines.append(line + waiting)
            } else if facts.kernelEventDevices == 0 {
                lines.append("no touchscreen found: the kernel has no input event devices (/sys/class/input)" + waiting)
            } else {
                lines.append(
                    "no touchscreen found: udev lists none of the \(facts.kernelEventDevices) input event devices the kernel has "
                        + "(/sys/class/input), so none has a device node gestured can open" + waiting)
            }
            return lines
        }
        let count = devices.count
        var headline = "no touchscreen found among the \(count) input event device\(count == 1 ? "" : "s") udev lists: "
            + "gestured reads those udev tags ID_INPUT_TOUCHSCREEN=1 or a [[device]] section names, and probes those "
            + "udev has not classified for INPUT_PROP_DIRECT"
        if devices.allSatisfy(\.device.isUnclassified) {
            headline += "; udev has classified none of them"
            if !facts.udevRunning { headline += " (/run/udev/control is missing: is systemd-udevd or eudev running?)" }
        }
        lines.append(headline + waiting)
        for (device, outcome) in devices.prefix(DiscoveryReport.maximumDevices) {
            guard let reason = DiscoveryReport.reason(device, outcome) else { continue }
            lines.append("  \(device.devnode) \"\(escapingControlCharacters(device.name))\": \(reason)")
        }
        if count > DiscoveryReport.maximumDevices {
            lines.append("  and \(count - DiscoveryReport.maximumDevices) more")
        }
        // What to do, once for each kind of problem there is.
        if devices.contains(where: { if case .refused(.permissionDenied) = $0.outcome { return true } else { return false } }) {
            lines.append("  to read a device that refused permission: " + EvdevError.permissionAdvice)
        }
        if devices.contains(where: { $0.outcome == .notATouchscreen }) {
            lines.append(
                "  a touchscreen udev does not tag: tag it with a udev rule (ENV{ID_INPUT_TOUCHSCREEN}=\"1\", "
                    + "docs/installation.md) or name it in a [[device]] section (match_name, match_id or match_path)")
        }
        return lines
    }

    /// Why `device` is not read, in a few words; nil when it is.
    static func reason(_ device: UdevInputDevice, _ outcome: DiscoveryOutcome) -> String? {
        switch outcome {
        case .opened, .alreadyOpen:
            return nil
        case .notATouchscreen:
            return "udev says \(classes(device)), not a touchscreen"
        case .ignoredByConfiguration:
            return "the configuration says ignore = true"
        case .unusable(let failure):
            return failure.description
        case .refused(let error):
            let probed = device.isUnclassified ? "udev has not classified it; probed: " : ""
            return probed + refusal(error)
        }
    }

    /// Why opening a device failed or it was refused, in a few words.
    static func refusal(_ error: EvdevError) -> String {
        switch error {
        case .permissionDenied(_, let cause):
            return "permission denied (\(cause.message))"
        case .unsupported(_, _, let reason):
            return reason.description
        case .notEvdevDevice(_, let cause):
            return "not an evdev device (\(cause.operation): \(cause.message))"
        case .ownPassthroughCopy:
            return "gestured's own passthrough copy of a panel"
        case .removed:
            return "it went away while it was being opened"
        case .grabFailed, .system:
            return error.description
        }
    }

    /// udev's classification of the device: "keyboard, key", "mouse", ... (its ID_INPUT_* tags).
    static func classes(_ device: UdevInputDevice) -> String {
        let tags = [
            "KEYBOARD", "KEY", "MOUSE", "POINTINGSTICK", "TRACKBALL", "TOUCHPAD", "TABLET", "TABLET_PAD", "JOYSTICK",
            "ACCELEROMETER", "SWITCH",
        ]
        let found = tags.filter { device.properties["ID_INPUT_" + $0] == "1" }
            .map { $0.lowercased().split(separator: "_").joined(separator: " ") }
        return found.isEmpty ? "an input device of no kind it knows" : found.joined(separator: ", ")
    }
}
