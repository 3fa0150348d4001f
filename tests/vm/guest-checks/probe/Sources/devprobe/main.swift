// devprobe — exercises the device adapters on a real kernel and prints one line per fact, for
// ../probe-guest.sh to check.
//
//   devprobe watch [--all] [--grab]   enumerate + follow udev like the daemon: open touchscreens (and with
//                                     --all also devices named "gestured-test*"), read them, report hotplug,
//                                     drops, removals and refusals (warning: lines are what the daemon logs)
//   devprobe open PATH [--grab]       open one node without udev, print its description, report reads
import Devices
import GestureCore
import Glibc

setvbuf(stdout, nil, _IOLBF, 0)

func monotonicMicroseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
}

func opened(_ device: EvdevDevice) -> String {
    let d = device.description
    return "opened \(device.path) name=\"\(d.name)\" protocol=\(d.touchProtocol) direct=\(d.isDirect) "
        + "id=\(d.vendorProduct) axes=\(d.axes.keys.sorted()) keys=\(d.keys.sorted()) grabbed=\(device.isGrabbed)"
}

/// Reads what is available; prints a summary line (count, worst distance of an event's time from
/// CLOCK_MONOTONIC now, and after a drop how many resync events followed). Returns false once removed.
func read(_ device: EvdevDevice) -> Bool {
    var count = 0, worstSkew: Int64 = 0, dropped = false, afterDrop = 0
    do {
        // One read(2) a call; another while a read fills the device's buffer.
        while try device.readAvailable({ result in
            switch result {
            case .event(let event):
                count += 1
                if dropped { afterDrop += 1 }
                worstSkew = max(worstSkew, abs(monotonicMicroseconds() - event.timeMicroseconds))
            case .dropped(let time):
                dropped = true
                print("dropped \(device.path) at=\(time)")
            }
        }) {}
        print("read \(device.path) events=\(count) max-clock-skew-us=\(worstSkew)"
            + (dropped ? " after-drop=\(afterDrop)" : ""))
        return true
    } catch {
        print("read-error \(device.path): \(error) removed=\(error == .removed(path: device.path))")
        return false
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
let grab = arguments.contains("--grab")

switch arguments.first {
case "open":
    guard arguments.count >= 2 else { print("usage: devprobe open PATH [--grab]"); exit(2) }
    let device: EvdevDevice
    do { device = try EvdevDevice(path: arguments[1], grab: grab) } catch {
        print("open-error \(error)")
        exit(1)
    }
    print(opened(device))
    var entry = pollfd(fd: device.fd, events: Int16(POLLIN), revents: 0)
    while true {
        if poll(&entry, 1, -1) < 0 && errno != EINTR { exit(1) }
        if !read(device) { exit(0) }
    }

case "watch":
    let all = arguments.contains("--all")
    func wanted(_ device: UdevInputDevice) -> Bool { device.isTouchscreen || (all && device.name.hasPrefix("gestured-test")) }
    var tracker = HotplugTracker()
    var devices: [String: EvdevDevice] = [:]

    func perform(_ action: HotplugTracker.Action) {
        switch action {
        case .ignore:
            break
        case .close(let node):
            devices[node] = nil
            tracker.closed(node)
            print("closed \(node)")
        case .open(let udevDevice):
            do {
                let device = try EvdevDevice(
                    path: udevDevice.devnode, grab: grab, udevTouchscreen: udevDevice.isTouchscreen)
                devices[udevDevice.devnode] = device
                tracker.opened(udevDevice.devnode)
                print(opened(device))
            } catch {
                print("\(tracker.openFailed(udevDevice.devnode, error) ? "warning" : "debug"): \(error)")
            }
        }
    }

    let monitor: UdevMonitor
    do { monitor = try UdevMonitor() } catch {
        print("monitor-error \(error)")
        exit(1)
    }
    do {
        let present = try UdevDiscovery.eventDevices()
        print("enumerated \(present.count) event devices, \(present.filter(\.isTouchscreen).count) touchscreens")
        for device in present { perform(tracker.discovered(device, wanted: wanted(device))) }
    } catch {
        print("enumerate-error \(error)")
    }
    while true {
        let nodes = devices.keys.sorted()
        var entries = [pollfd(fd: monitor.fd, events: Int16(POLLIN), revents: 0)]
        for node in nodes { entries.append(pollfd(fd: devices[node]!.fd, events: Int16(POLLIN), revents: 0)) }
        if poll(&entries, nfds_t(entries.count), -1) < 0 {
            if errno == EINTR { continue }
            exit(1)
        }
        if entries[0].revents != 0 {
            while let change = monitor.receive() {
                print("udev \(change.action) \(change.device.devnode) name=\"\(change.device.name)\" "
                    + "touchscreen=\(change.device.isTouchscreen) touchpad=\(change.device.isTouchpad)")
                perform(tracker.handle(change, wanted: wanted(change.device)))
            }
        }
        for (index, node) in nodes.enumerated() where entries[index + 1].revents != 0 {
            guard let device = devices[node] else { continue }
            if !read(device) {
                devices[node] = nil
                tracker.closed(node)
            }
        }
    }

default:
    print("usage: devprobe watch [--all] [--grab] | devprobe open PATH [--grab]")
    exit(2)
}
