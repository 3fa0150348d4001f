// `gesturectl monitor` and `gesturectl devices`: clients of the running daemon.
#if canImport(Glibc)
import Glibc
#endif
import GestureClient
import GestureCore
import GestureProtocol
import GestureVocabulary
import CommandLineArguments

private let monitorUsage = """
    usage: gesturectl monitor [--socket PATH] [--json] [--kinds LIST] [--edges LIST] [--fingers LIST]
                              [--device ID]... [--no-updates] [--count N]

    Subscribes to the running gestured and prints its gesture events as they happen, one line each, and
    the devices that come and go. Stops on Ctrl-C, or after --count gesture events.

      --socket PATH    the daemon's socket (default: $GESTURED_SOCKET, else $XDG_RUNTIME_DIR/gestured.sock,
                       else \(ProtocolConstants.defaultSocketPath))
      --json           print the daemon's JSON lines as they arrive (hello and replies included)
      --kinds LIST     only these gestures: comma-separated \(KindCatalog.names())
      --edges LIST     only edge swipes from these edges or corners: left, right, top, bottom,
                       top-left, top-right, bottom-left, bottom-right
      --fingers LIST   only gestures with these finger counts, e.g. 2,3
      --device ID      only this device: its id, name, vvvv:pppp, or its node or a symlink to it
                       (/dev/input/by-path/…); may be repeated
      --no-updates     begin, end and cancel only
      --count N        exit after N gesture events

    """

private let devicesUsage = """
    usage: gesturectl devices [--socket PATH] [--json]

    Lists the devices the running gestured reads, one line each, its fields separated by tabs: id, name,
    vendor:product, touch slots, source (evdev or replay), device node (or recording), the orientation set
    at run time, the panel's size in use and where it came from, then when they apply: `passthrough` and
    the node of its virtual copy, `pointer` and the node of its virtual pointer (touch that points) with
    what touch does for the focused app now (touch, long-press or mouse), `focused` and the app the
    session companion (or a `focus` request) says has the focus, `pen arbitration off`, and the seat when
    not seat0. Under a device's line:
      pen PATH "NAME"  paired by HOW        a pen it makes no gestures near, and how it was found
      excluded EDGE FROM...TO  from SOURCE  a part of an edge that is no edge zone now (a corner whole),
                                            and who keeps it: an [[exclusion]] section (file:line:column)
                                            or a client ("client 3 (uid 1000, pid 4242 sketch)")
    The focused app, the exclusions and the pointer's mode are shown only to the user of the active session
    on the device's seat, root and the daemon's own user (others are not told what that user is doing).

      --socket PATH    the daemon's socket (default: $GESTURED_SOCKET, else $XDG_RUNTIME_DIR/gestured.sock,
                       else \(ProtocolConstants.defaultSocketPath))
      --json           print the daemon's reply as one JSON line

    """

/// Splits "a,b,c" and maps each item, naming the option and the allowed values when one is wrong.
func parseList<T>(_ text: String, option: String, allowed: [String], _ make: (String) -> T?) throws(UsageError) -> Set<T>
where T: Hashable {
    var set = Set<T>()
    for item in text.split(separator: ",", omittingEmptySubsequences: true) {
        let trimmed = item.trimmingSpaces
        guard let value = make(trimmed) else {
            throw UsageError("\(option) '\(trimmed)' is not one of: \(allowed.joined(separator: ", "))")
        }
        set.insert(value)
    }
    return set
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        var s = self
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}

func runMonitor(_ args: [String]) -> Int32 {
    var socket: String?
    var json = false
    var filter = SubscriptionFilter(appTouches: true)
    var count: Int?
    var arguments = Arguments(args, command: "monitor", usage: monitorUsage)
    if let status = arguments.read({ (a, option) throws(UsageError) in
        switch option {
        case "--socket": socket = try a.value(of: option)
        case "--json": json = true
        case "--no-updates": filter.updates = false
        case "--kinds":
            filter.kinds = try parseList(
                try a.value(of: option), option: option, allowed: GestureKind.allCases.map(\.rawValue), { GestureKind(rawValue: $0) })
        case "--edges":
            filter.edges = try parseList(try a.value(of: option), option: option, allowed: Edge.allCases.map(\.rawValue), { Edge(rawValue: $0) })
        case "--fingers":
            filter.fingers = try parseList(
                try a.value(of: option), option: option, allowed: ["1", "2", "…", "20"], { Int($0).flatMap { (1...20).contains($0) ? $0 : nil } })
        case "--device":
            let v = try a.value(of: option)
            if v.isEmpty { throw UsageError("--device needs a device's id, name, vvvv:pppp or node (see gesturectl devices)") }
            if let problem = DeviceSelector(v).problem { throw UsageError("--device \(v): \(problem)") }
            filter.devices = (filter.devices ?? []).union([v])
        case "--count":
            let v = try a.value(of: option)
            guard let n = Int(v), n > 0 else { throw UsageError("--count needs a positive whole number, not '\(v)'") }
            count = n
        default: throw a.unknown(option)
        }
    }) {
        return status
    }

    return reportingDaemonErrors("monitor") {
        let client = try GestureClient.connect(path: socket)
        if json {
            print(ServerMessage.hello(client.hello).encoded)
        } else {
            let names = client.hello.devices.map { "\(shown($0.id)) \"\(shown($0.name))\"" }
            print(
                "connected to gestured \(client.hello.daemonVersion) at \(client.path); devices: "
                    + (names.isEmpty ? "none" : names.joined(separator: ", ")))
        }
        // A --device that is a path (a symlink such as /dev/input/by-path/…) is the id of the device it
        // resolves to; one that names no device now is said, with the devices there are.
        if let wanted = filter.devices {
            var ids = Set<String>()
            for text in wanted.sorted() {
                let selector = DeviceSelector(text)
                let matching = client.hello.devices.filter(selector.matches)
                if matching.isEmpty { printError("gesturectl monitor: --device \(shown(text)): \(shown(selector.noMatch(among: client.hello.devices)))\n") }
                ids.formUnion(selector.isPath ? Set(matching.map(\.id)).union(matching.isEmpty ? [text] : []) : [text])
            }
            filter.devices = ids
        }
        let applied = try client.subscribe(filter)
        if json {
            print(ServerMessage.subscribed(id: nil, filter: applied, appTouchAccess: client.appTouchAccess).encoded)
        } else if let access = client.appTouchAccess, !access.isGranted {
            printError("gesturectl monitor: \(shown(access.description))\n")
        }
        fflush(nil)
        var gestures = 0
        // The devices as last seen, so a change says what changed.
        var seen: [String: DeviceInfo] = [:]
        for d in client.hello.devices { seen[d.id] = d }
        while let message = try client.next() {
            if json {
                print(message.encoded)
            } else {
                switch message {
                case .gesture(let g):
                    print(GestureEventText.format(g.event, device: g.device.map { shown($0) }))
                case .deviceAdded(let d):
                    seen[d.id] = d
                    print("device added: \(shown(d.id)) \"\(shown(d.name))\" (\(shown(d.vendorProduct))) from \(shown(d.path ?? "?"))")
                case .deviceRemoved(let d):
                    seen[d.id] = nil
                    print("device removed: \(shown(d.id)) \"\(shown(d.name))\"")
                case .deviceChanged(let d):
                    print("device changed: \(shown(d.id)) \"\(shown(d.name))\": " + deviceChanges(from: seen[d.id], to: d).joined(separator: "; "))
                    seen[d.id] = d
                case .error(let e):
                    printError("gesturectl monitor: the daemon says: \(shown(e.message))\n")
                case .appTouchAccessChanged(let access):
                    printError("gesturectl monitor: \(shown(access.description))\n")
                case .hello, .subscribed, .unsubscribed, .devices, .pong, .oriented, .focused, .excluded, .reloaded, .claimed, .unknown, .explanation:
                    break
                }
            }
            fflush(nil)
            if case .gesture = message {
                gestures += 1
                if let count, gestures >= count { return 0 }
            }
        }
        return 0
    }
}

/// What changed of a device, for `monitor`'s line: its orientation, passthrough, focused app, exclusions
/// (each with who keeps it), pens and pen arbitration; everything it has when the earlier state is unknown.
func deviceChanges(from before: DeviceInfo?, to after: DeviceInfo) -> [String] {
    var changes: [String] = []
    if before?.orientation != after.orientation { changes.append("orientation \(after.orientation.rawValue)") }
    if before?.virtualPath != after.virtualPath {
        changes.append(after.virtualPath.map { "passthrough on (copy \(shown($0)))" } ?? "passthrough off")
    }
    if before?.pointerPath != after.pointerPath {
        changes.append(after.pointerPath.map { "virtual pointer \(shown($0))" } ?? "no virtual pointer")
    }
    if before?.pointerMode != after.pointerMode, let mode = after.pointerMode { changes.append("pointer \(mode.rawValue)") }
    if before?.focusedApp != after.focusedApp {
        changes.append("focused app \(after.focusedApp.map { "'\(shown($0))'" } ?? "none")")
    }
    if before?.exclusions != after.exclusions {
        changes.append(
            after.exclusions.isEmpty
                ? "no exclusions"
                : "excluded " + after.exclusions.map { e in
                    e.edge.rawValue + (e.edge.isCorner ? "" : " \(e.from)...\(e.to)") + " (from \(shown(e.source)))"
                }.joined(separator: ", "))
    }
    if before?.pens != after.pens { changes.append(after.pens.isEmpty ? "no pens" : "pens " + after.pens.map { shown($0.path) }.joined(separator: ", ")) }
    if before?.penArbitration != after.penArbitration, let arbitration = after.penArbitration {
        changes.append("pen arbitration \(arbitration.rawValue)")
    }
    if before?.size != after.size, let size = after.size { changes.append("panel \(size)") }
    return changes.isEmpty ? ["nothing this client can see"] : changes
}

/// Runs `body`, a command following the daemon's messages, and ends it with exit status 1 on an error:
/// "gesturectl COMMAND: the daemon closed the connection" when the daemon did, else the error itself.
func reportingDaemonErrors(_ command: String, _ body: () throws -> Int32) -> Int32 {
    do {
        return try body()
    } catch GestureClientError.closed {
        printError("gesturectl \(command): the daemon closed the connection\n")
        return 1
    } catch {
        printError("gesturectl \(command): \(shown("\(error)"))\n")
        return 1
    }
}

func runDevices(_ args: [String]) -> Int32 {
    var socket: String?
    var json = false
    var arguments = Arguments(args, command: "devices", usage: devicesUsage)
    if let status = arguments.read({ (a, option) throws(UsageError) in
        switch option {
        case "--socket": socket = try a.path(of: option)
        case "--json": json = true
        default: throw a.unknown(option)
        }
    }) {
        return status
    }
    do {
        let client = try GestureClient.connect(path: socket)
        let devices = try client.devices()
        if json {
            print(ServerMessage.devices(id: nil, devices: devices).encoded)
            return 0
        }
        if devices.isEmpty {
            print("no devices")
            return 0
        }
        for d in devices {
            // Each value escaped: a name cannot add a line or a column.
            var line =
                "\(shown(d.id))\t\(shown(d.name))\t\(shown(d.vendorProduct))\t\(d.slots) slot\(d.slots == 1 ? "" : "s")\t\(d.source.rawValue)\t\(shown(d.path ?? ""))"
                + "\torientation \(d.orientation.rawValue)"
            if let size = d.size { line += "\tpanel \(size)" }
            if let virtualPath = d.virtualPath { line += "\tpassthrough \(shown(virtualPath))" }
            if let pointerPath = d.pointerPath { line += "\tpointer \(shown(pointerPath))" + (d.pointerMode.map { " \($0.rawValue)" } ?? "") }
            if let app = d.focusedApp { line += "\tfocused \(shown(app))" }
            if d.penArbitration == .off { line += "\tpen arbitration off" }
            if d.seat != DeviceInfo.defaultSeat { line += "\tseat \(shown(d.seat))" }
            print(line)
            // The pens it makes no gestures near, one line each, with how each was found.
            for pen in d.pens {
                print("\tpen \(shown(pen.path)) \"\(shown(pen.name))\"\tpaired by \(pen.pairedBy.rawValue) (\(pen.how))")
            }
            // The parts of its edges that are no edge zone now, one line each, with where each came from.
            for e in d.exclusions {
                let part = e.edge.isCorner ? "" : " \(e.from)...\(e.to)"
                print("\texcluded \(e.edge.rawValue)\(part)\tfrom \(shown(e.source))")
            }
        }
        return 0
    } catch {
        printError("gesturectl devices: \(shown("\(error)"))\n")
        return 1
    }
}
