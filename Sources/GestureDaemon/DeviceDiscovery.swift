import GestureConfig
import GestureCore
import GestureProtocol
import SystemCalls
import PlainText

/// udev's side of the devices: the monitor hotplug listens on, the `HotplugTracker` that says what each
/// device found or change means, which devices the configuration wants, and opening them (an
/// `EvdevDevice` with its resolved settings). The hub adds what opens (`DeviceHub`) and tells the tracker
/// when a device it follows closes.
final class DeviceDiscovery {
    /// Whether udev is used at all (`--no-udev`: replays only).
    let enabled: Bool
    private(set) var monitor: UdevMonitor?
    private(set) var tracker = HotplugTracker()

    init(enabled: Bool) { self.enabled = enabled }

    /// A device that opened, with what the configuration resolves for it; the hub adds it.
    struct OpenedDevice {
        var evdev: EvdevDevice
        var id: String
        var paths: [String]
        var settings: DeviceSettings
        var udevCalibration: [Double]?
        var output: String?
        var seat: String
    }

    /// Creates the udev monitor (before enumerating, so a device plugged in meanwhile is not missed).
    /// Without udev (a container) the daemon runs on with what it has.
    func startMonitor(watches: Watches) {
        guard enabled else { return }
        do {
            let monitor = try UdevMonitor()
            try watches.add(monitor.fd, .udev, interest: .readable)
            self.monitor = monitor
        } catch {
            Log.warning("hotplug is off: cannot monitor udev (\(error)); touchscreens plugged in later are not seen")
        }
    }

    /// Every input event device udev lists now; nil when udev could not list them (logged), or is not used.
    func present() -> [UdevInputDevice]? {
        guard enabled else { return nil }
        do {
            return try UdevDiscovery.eventDevices()
        } catch {
            Log.warning("cannot enumerate input devices with udev: \(error)")
            return nil
        }
    }

    /// What to do with a device discovery found (the same as a udev `add`).
    func discovered(_ device: UdevInputDevice, wanted: Bool) -> HotplugTracker.Action {
        tracker.discovered(device, wanted: wanted)
    }

    /// What udev announced since the last call, each with what to do about it.
    /// `each` sees every change first (the hub follows pens through it).
    func changes(wanted: (UdevInputDevice) -> Bool, each: (UdevDeviceChange) -> Void = { _ in }) -> [HotplugTracker.Action] {
        guard let monitor else { return [] }
        var actions: [HotplugTracker.Action] = []
        while let change = monitor.receive() {
            Log.debug("udev: \(change.action) \(change.device.devnode) (\(escapingControlCharacters(change.device.name)))")
            each(change)
            actions.append(tracker.handle(change, wanted: wanted(change.device)))
        }
        return actions
    }

    /// The device on `node` was closed (removed, a failed read, ignored now, or not usable after all).
    func closed(_ node: String) { tracker.closed(node) }

    /// Whether the daemon uses a udev device: a touchscreen (or a device a configuration section names)
    /// that the configuration does not ignore. Ignoring is decided on the opened device's description.
    static func wants(_ device: UdevInputDevice, _ configuration: DaemonConfiguration) -> Bool {
        if device.isTouchscreen || device.isUnclassified { return true }
        var description = DeviceDescription(name: device.name)
        if let vendor = device.properties["ID_VENDOR_ID"].flatMap({ UInt16($0, radix: 16) }),
            let product = device.properties["ID_MODEL_ID"].flatMap({ UInt16($0, radix: 16) })
        {
            description.vendor = vendor
            description.product = product
        }
        return configuration.names(description, paths(of: device))
    }

    /// The node and its udev links (by-id, by-path), which `match_path` sections may name.
    static func paths(of device: UdevInputDevice) -> [String] {
        var paths = [device.devnode]
        if let links = device.properties["DEVLINKS"] {
            paths += links.split(separator: " ").map(String.init)
        }
        return paths
    }

    /// Opens `udevDevice` and resolves its settings; or says why not (logged, and the tracker told).
    func open(_ udevDevice: UdevInputDevice, _ configuration: DaemonConfiguration) -> Result<OpenedDevice, DiscoveryRefusal> {
        let paths = DeviceDiscovery.paths(of: udevDevice)
        // The grab setting needs the description, which needs the device open: open, resolve, and reopen
        // with the grab when asked for (rare; off by default).
        do {
            var evdev = try EvdevDevice(path: udevDevice.devnode, udevTouchscreen: udevDevice.isTouchscreen)
            let udevCalibration = udevDevice.calibrationMatrix
            let settings = configuration.resolve(evdev.description, paths).applyingUdevCalibration(udevCalibration)
            if settings.ignore {
                Log.info("ignoring \(udevDevice.devnode) (\(escapingControlCharacters(evdev.description.name))): the configuration says ignore = true")
                tracker.refused(udevDevice.devnode)
                return .failure(.ignoredByConfiguration)
            }
            if settings.grab {
                evdev = try EvdevDevice(path: udevDevice.devnode, grab: true, udevTouchscreen: udevDevice.isTouchscreen)
            }
            tracker.opened(udevDevice.devnode)
            let id = String(udevDevice.devnode.split(separator: "/").last ?? "event")
            if let udevCalibration, settings.geometry.calibration == udevCalibration {
                Log.info("\(id): using udev's LIBINPUT_CALIBRATION_MATRIX \(udevCalibration.map { "\($0)" }.joined(separator: " "))")
            }
            return .success(
                OpenedDevice(
                    evdev: evdev, id: id, paths: paths, settings: settings, udevCalibration: udevCalibration,
                    output: udevDevice.outputName, seat: udevDevice.seat))
        } catch {
            switch error {
            case .ownPassthroughCopy:
                // One of our own passthrough copies, announced by udev like any touchscreen.
                tracker.openFailed(udevDevice.devnode, error)
                Log.debug(error.description)
            case .unsupported where udevDevice.isUnclassified:
                // Probing a device udev did not classify: a keyboard or mouse refused here is expected.
                tracker.openFailed(udevDevice.devnode, error)
                Log.debug("\(error.description) (udev has not classified it; probed)")
            case .permissionDenied, .notEvdevDevice, .unsupported, .grabFailed, .removed, .system:
                if tracker.openFailed(udevDevice.devnode, error) {
                    Log.warning(error.description)
                } else {
                    Log.debug(error.description)
                }
            }
            return .failure(.evdev(error))
        }
    }

    /// With no touchscreen found at start-up, says what was looked at and why nothing matched (notice);
    /// otherwise, at debug, why each device not read is not.
    func report(_ found: [(device: UdevInputDevice, outcome: DiscoveryOutcome)]) {
        let report = DiscoveryReport(devices: found, facts: .gather(hotplug: monitor != nil))
        if report.foundNone {
            Log.notice(report.lines.joined(separator: "\n"))
        } else if Log.enabled(.debug) {
            for (device, outcome) in found.prefix(DiscoveryReport.maximumDevices) {
                guard let reason = DiscoveryReport.reason(device, outcome) else { continue }
                Log.debug("not reading \(device.devnode) \"\(escapingControlCharacters(device.name))\": \(reason)")
            }
        }
    }
}

/// Why a device udev lists is not opened.
enum DiscoveryRefusal: Error, Equatable {
    /// Opening it failed, or it is not a device gestured can use (not direct touch, ...).
    case evdev(EvdevError)
    /// The configuration says `ignore = true` for it.
    case ignoredByConfiguration
}

/// Why an opened device cannot be read.
enum DeviceAddFailure: Error, Equatable, CustomStringConvertible {
    /// The recognizer cannot use it (multitouch protocol A, ...).
    case unsupported(UnsupportedDeviceError)
    /// Its descriptor cannot be watched.
    case cannotWatch(SystemError)

    var description: String {
        switch self {
        case .unsupported(let error): return error.description
        case .cannotWatch(let error): return "cannot watch it: \(error)"
        }
    }
}

extension UdevDiscovery {
    /// The touchscreens udev knows, as `gestured --check-config` says the values in force for them: their
    /// name and ids from udev (no device is opened), their node and links. Empty, with why, when udev
    /// cannot be asked.
    public static func touchscreensToCheck() -> (devices: [CheckedDevice], problem: String?) {
        do {
            let devices = try touchscreens().map { device -> CheckedDevice in
                var description = DeviceDescription(name: device.name)
                let ids = device.vendorProduct?.split(separator: ":").compactMap { UInt16($0, radix: 16) } ?? []
                if ids.count == 2 {
                    (description.vendor, description.product) = (ids[0], ids[1])
                } else if let vendor = device.properties["ID_VENDOR_ID"].flatMap({ UInt16($0, radix: 16) }),
                    let product = device.properties["ID_MODEL_ID"].flatMap({ UInt16($0, radix: 16) })
                {
                    (description.vendor, description.product) = (vendor, product)
                }
                return CheckedDevice(label: device.devnode, description: description, paths: DeviceDiscovery.paths(of: device))
            }
            return (devices, nil)
        } catch {
            return ([], "\(error)")
        }
    }
}
