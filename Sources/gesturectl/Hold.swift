// `gesturectl focus` and `gesturectl exclude`: the requests an app or the session companion holds (a
// focus, exclusions), sent from the command line for trying exclusions out without a compositor. What a
// client sets goes when it disconnects (docs/protocol.md), so each holds its connection until stopped.
#if canImport(Glibc)
import Glibc
#endif
import CommandLineArguments
import GestureClient
import GestureProtocol
import GestureVocabulary
import PlainText
import SystemCalls

private let focusUsage = """
    usage: gesturectl focus [--socket PATH] [--for SECONDS] APP
           gesturectl focus [--socket PATH] [--for SECONDS] --none

    Tells the running gestured that APP (an app_id, as the compositor names the focused window) has the
    focus, as the session companion (`gesturectl session`) does from the compositor: the [[exclusion]]
    sections naming APP, and the exclusions clients keep for it, apply while it does. The focus is this
    command's until it stops (Ctrl-C, SIGTERM, or after --for SECONDS), then the daemon forgets it, as it
    forgets any client's when it goes; the devices say it meanwhile (`gesturectl devices`). For trying
    exclusions out without a compositor; in a session, the companion sends the real focus.

    gestured takes it only from the user of the active session on the touchscreen's seat, root and its own
    user; anyone else is told why, and nothing changes.

      --socket PATH    the daemon's socket (default: $GESTURED_SOCKET, else $XDG_RUNTIME_DIR/gestured.sock,
                       else \(ProtocolConstants.defaultSocketPath))
      --for SECONDS    hold it that long, then stop (default: until stopped)
      --none           no app has the focus

    """

private let excludeUsage = """
    usage: gesturectl exclude [--socket PATH] [--device ID] [--app GLOB] [--for SECONDS] [--json] EDGE[:FROM-TO]...
           gesturectl exclude [--socket PATH] --clear

    Keeps parts of the edges for an app, as an app's own `exclude` request does: no edge swipe starts
    there, and a touch landing there is an ordinary touch (with passthrough it reaches the app at once).
    EDGE is left, right, top, bottom or a corner (top-left, top-right, bottom-left, bottom-right, excluded
    whole); FROM-TO the part of a side, 0 to 1 from the top along left and right and from the left along
    top and bottom, as a binding's edge_position (the whole side without it): `left:0.5-1` is the lower
    half of the left edge. The exclusions are this command's until it stops (Ctrl-C, SIGTERM, or after
    --for SECONDS), then they go, as any client's do when it goes.

    The clients of a seat may take at most 32 mm of each edge together; what would pass it is refused
    with how much is left, and `gesturectl devices` lists what is in force on each device. gestured takes
    exclusions only from the user of the active session on the touchscreen's seat, root and its own user.

      --socket PATH    the daemon's socket (default: $GESTURED_SOCKET, else $XDG_RUNTIME_DIR/gestured.sock,
                       else \(ProtocolConstants.defaultSocketPath))
      --device ID      only on this device: its id, its name or vvvv:pppp (default: every device)
      --app GLOB       only while this app has the focus (an app_id, or a glob of them; case-sensitive)
      --for SECONDS    hold them that long, then stop (default: until stopped)
      --json           print the daemon's reply as one JSON line
      --clear          ask for none and stop: what an app sends when it no longer needs its exclusions
                       (another client's cannot be cleared: they go with it)

    """

func runFocus(_ args: [String]) -> Int32 {
    var socket: String?
    var seconds: Double?
    var app: String?
    var none = false
    var arguments = Arguments(args, command: "focus", usage: focusUsage)
    if let status = arguments.read({ (a, option) throws(UsageError) in
        switch option {
        case "--socket": socket = try a.path(of: option)
        case "--for": seconds = try a.number(of: option, in: 0...(86_400 * 365))
        case "--none": none = true
        default:
            if option.hasPrefix("-") { throw a.unknown(option) }
            if let app { throw UsageError("one APP only, got '\(shown(option))' after '\(shown(app))'") }
            guard !option.isEmpty, option.utf8.count <= 512 else { throw UsageError("APP is an app_id of at most 512 bytes") }
            app = option
        }
    }) {
        return status
    }
    guard none != (app != nil) else {
        printError("gesturectl focus: name the focused APP, or --none\n\n" + focusUsage)
        return 2
    }
    return hold("focus", socket: socket, seconds: seconds, request: .focus(appID: app)) { reply in
        guard case .focused(_, let focused) = reply else { return false }
        print(
            "focused app: \(focused.map { "'\(shown($0))'" } ?? "none"), on the seats where you may set it; "
                + "held until this stops (Ctrl-C\(seconds.map { ", or \(formatSeconds($0))" } ?? ""))")
        return true
    }
}

func runExclude(_ args: [String]) -> Int32 {
    var socket: String?
    var seconds: Double?
    var device: String?
    var app: String?
    var json = false
    var clear = false
    var parts: [String] = []
    var arguments = Arguments(args, command: "exclude", usage: excludeUsage)
    if let status = arguments.read({ (a, option) throws(UsageError) in
        switch option {
        case "--socket": socket = try a.path(of: option)
        case "--for": seconds = try a.number(of: option, in: 0...(86_400 * 365))
        case "--device":
            let v = try a.value(of: option)
            guard !v.isEmpty else { throw UsageError("--device needs a device's id, name or vvvv:pppp (see gesturectl devices)") }
            device = v
        case "--app":
            let v = try a.value(of: option)
            guard !v.isEmpty, v.utf8.count <= 512 else { throw UsageError("--app needs an app_id or a glob of them, at most 512 bytes") }
            app = v
        case "--json": json = true
        case "--clear": clear = true
        default:
            if option.hasPrefix("-") { throw a.unknown(option) }
            parts.append(option)
        }
    }) {
        return status
    }
    if clear {
        guard parts.isEmpty, device == nil, app == nil, seconds == nil else {
            printError("gesturectl exclude: --clear takes no edges and no other option but --socket\n")
            return 2
        }
    } else if parts.isEmpty {
        printError("gesturectl exclude: which EDGE? left, right, top, bottom or a corner, with :FROM-TO for a part of a side\n\n" + excludeUsage)
        return 2
    }
    var list: [RequestedExclusion] = []
    for part in parts {
        switch parseExclusion(part, device: device, app: app) {
        case .success(let exclusion): list.append(exclusion)
        case .failure(let error):
            printError("gesturectl exclude: \(error.message)\n")
            return 2
        }
    }
    guard list.count <= RequestedExclusion.maximumPerRequest else {
        printError("gesturectl exclude: at most \(RequestedExclusion.maximumPerRequest) exclusions at once\n")
        return 2
    }
    return hold("exclude", socket: socket, seconds: clear ? 0 : seconds, request: .exclude(list)) { reply in
        guard case .excluded(_, let accepted, let refused) = reply else { return false }
        if json {
            print(reply.encoded)
        } else {
            if clear { print("no exclusions of this command's (another client's go with it)") }
            for e in accepted { print("excluded \(describe(e))") }
            for r in refused { print("refused \(describe(r.exclusion)): \(shown(r.message))") }
            if !clear && !accepted.isEmpty {
                print("held until this stops (Ctrl-C\(seconds.map { ", or \(formatSeconds($0))" } ?? "")); `gesturectl devices` lists what is in force")
            }
        }
        fflush(nil)
        return refused.isEmpty || !accepted.isEmpty
    }
}

/// `EDGE` or `EDGE:FROM-TO`.
private func parseExclusion(_ text: String, device: String?, app: String?) -> Result<RequestedExclusion, UsageError> {
    let pieces = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
    let names = Edge.allCases.map(\.rawValue).joined(separator: ", ")
    guard let edge = Edge(rawValue: String(pieces[0])) else {
        return .failure(UsageError("'\(shown(String(pieces[0])))' is no edge: one of \(names)"))
    }
    guard pieces.count == 2 else { return .success(RequestedExclusion(edge: edge, device: device, app: app)) }
    if edge.isCorner { return .failure(UsageError("\(edge.rawValue) is a corner, excluded whole: drop :\(shown(String(pieces[1])))")) }
    let bounds = pieces[1].split(separator: "-", omittingEmptySubsequences: false)
    guard bounds.count == 2, let from = Double(bounds[0]), let to = Double(bounds[1]), 0 <= from, from < to, to <= 1 else {
        return .failure(UsageError("'\(shown(text))': the part of a side is FROM-TO with 0 <= FROM < TO <= 1, such as left:0.5-1"))
    }
    return .success(RequestedExclusion(edge: edge, from: from, to: to, device: device, app: app))
}

/// "left 0.5...1 on event5 while org.sketch.* has the focus".
private func describe(_ e: RequestedExclusion) -> String {
    var text = e.edge.rawValue + (e.edge.isCorner ? "" : " \(formatNumber(e.from))...\(formatNumber(e.to))")
    if let device = e.device { text += " on \(shown(device))" }
    if let app = e.app { text += " while \(shown(app)) has the focus" }
    return text
}

private func formatSeconds(_ seconds: Double) -> String { "after \(formatNumber(seconds)) s" }

/// Sends `request`, shows its reply (`show` returns false for a reply of another type, true when what
/// the command asked holds), then holds the connection until SIGINT or SIGTERM, `seconds` (0: at once)
/// or the daemon going; status 0, or 1 when the daemon refused or went.
private func hold(
    _ command: String, socket: String?, seconds: Double?, request: Request, show: (ServerMessage) -> Bool
) -> Int32 {
    let signals: Int32
    do {
        signals = try SystemCall.signalDescriptor(blocking: [SIGINT, SIGTERM])
    } catch {
        printError("gesturectl \(command): \(shown("\(error)"))\n")
        return 1
    }
    let client: GestureClient
    do {
        client = try GestureClient.connect(path: socket)
    } catch {
        printError("gesturectl \(command): \(shown("\(error)"))\n")
        return 1
    }
    defer { client.close() }
    do {
        let reply = try client.request(request)
        guard show(reply) else {
            printError("gesturectl \(command): the daemon answered \(shown(reply.encoded))\n")
            return 1
        }
    } catch {
        if case .daemon(let refusal) = error {
            printError("gesturectl \(command): gestured refused: \(shown(refusal.message))\n")
        } else {
            printError("gesturectl \(command): \(shown("\(error)"))\n")
        }
        return 1
    }
    fflush(nil)
    let deadline = seconds.map { SystemCall.monotonicMicroseconds() + Int64($0 * 1_000_000) }
    while true {
        let left: Int32
        if let deadline {
            let remaining = deadline - SystemCall.monotonicMicroseconds()
            if remaining <= 0 { return 0 }
            left = Int32(clamping: (remaining + 999) / 1000)
        } else {
            left = -1
        }
        var fds = [pollfd(fd: signals, events: Int16(POLLIN), revents: 0), pollfd(fd: client.fd, events: Int16(POLLIN), revents: 0)]
        do {
            _ = try SystemCall.poll(&fds, timeoutMilliseconds: left)
        } catch {
            printError("gesturectl \(command): \(shown("\(error)"))\n")
            return 1
        }
        if fds[0].revents != 0 { return 0 }
        if fds[1].revents != 0 {
            // Replies and notifications nobody asked for are read and dropped; the daemon going ends it.
            do {
                while try client.next(timeoutMilliseconds: 0) != nil {}
            } catch {
                printError("gesturectl \(command): the daemon went (\(shown("\(error)"))): what this command set went with it\n")
                return 1
            }
        }
    }
}
