// `gesturectl orientation`: sets how the screen is turned, on top of the devices' configured geometry.
#if canImport(Glibc)
import Glibc
#endif
import GestureClient
import GestureProtocol

private let orientationUsage = """
    usage: gesturectl orientation [--socket PATH] [--device ID] [--json] ANGLE

    Tells the running gestured how the screen is turned now: ANGLE is 0, 90, 180 or 270, the degrees the
    device is turned clockwise from its natural position with the display following (iio-sensor-proxy's
    normal, left-up, bottom-up, right-up). Gestures in flight are cancelled; edges and directions follow
    at once. It lasts until set again, across reloads; a device plugged in (again) starts at 0.

      --socket PATH    the daemon's socket (default: $GESTURED_SOCKET, else \(ProtocolConstants.defaultSocketPath))
      --device ID      only this device: its id, its name or vvvv:pppp (default: every device)
      --json           print the daemon's reply as one JSON line

    """

func runOrientation(_ args: [String]) -> Int32 {
    var socket: String?
    var device: String?
    var json = false
    var angle: DeviceOrientation?
    var i = 0
    func value(_ option: String) -> String? {
        guard i + 1 < args.count else {
            printError("gesturectl orientation: \(option) needs a value\n")
            return nil
        }
        i += 1
        return args[i]
    }
    while i < args.count {
        let a = args[i]
        switch a {
        case "--help", "-h":
            print(orientationUsage, terminator: "")
            return 0
        case "--socket":
            guard let v = value(a) else { return 2 }
            socket = v
        case "--device":
            guard let v = value(a) else { return 2 }
            guard !v.isEmpty else {
                printError("gesturectl orientation: --device needs a device's id, name or vvvv:pppp (see gesturectl devices)\n")
                return 2
            }
            device = v
        case "--json":
            json = true
        default:
            if a.hasPrefix("-") && Int(a) == nil {
                printError("gesturectl orientation: unknown option '\(a)'\n\n" + orientationUsage)
                return 2
            }
            guard angle == nil else {
                printError("gesturectl orientation: one ANGLE only, got '\(a)' after \(angle!.rawValue)\n")
                return 2
            }
            guard let degrees = Int(a), let parsed = DeviceOrientation(rawValue: degrees) else {
                printError("gesturectl orientation: ANGLE is one of \(DeviceOrientation.allowedText), not '\(a)'\n")
                return 2
            }
            angle = parsed
        }
        i += 1
    }
    guard let angle else {
        printError("gesturectl orientation: which ANGLE? \(DeviceOrientation.allowedText)\n\n" + orientationUsage)
        return 2
    }
    do {
        let client = try GestureClient.connect(path: socket)
        let devices = try client.setOrientation(angle, device: device)
        if json {
            print(ServerMessage.oriented(id: nil, devices: devices).encoded)
        } else if devices.isEmpty {
            print("no devices: the daemon reads none now (a device added later starts at 0)")
        } else {
            for d in devices { print("\(d.id)\t\(d.name)\torientation \(d.orientation.rawValue)") }
        }
        return 0
    } catch {
        printError("gesturectl orientation: \(error)\n")
        return 1
    }
}
