// `gesturectl explain`: why each touch became what it did, with the numbers each rule measured and the
// setting it held them against (issue 30) — over a recording offline, or live from the running daemon.
#if canImport(Glibc)
import Glibc
#endif
import GestureClient
import GestureCore
import GestureProtocol
import GestureVocabulary
import RecordingFormats
import CommandLineArguments

private let explainUsage = """
    usage: gesturectl explain [--device DESC] [--config FILE [--focus APP]] [--all] [--kinds LIST] [--edges LIST] [--json] RECORDING
           gesturectl explain [--socket PATH] [--device ID]... [--all] [--kinds LIST] [--edges LIST] [--json] [--count N]

    Explains every touch sequence (from the first finger landing until every finger lifted and nothing
    waits for a further tap), one line each: what it became and the one reason that decided it, with the
    number measured and the setting it was held against, by the key to write in gestured.toml:

      touch 2 at 1.204 s, 1 finger: nothing; edge-swipe: near miss: landed 6.2 mm from the left edge,
      just outside its zone, and moved inward (edge_swipe.left.zone_mm is 5)

    A touch that landed just outside an edge zone (within twice its width) and moved inward is a near
    miss. Times count from the first touch shown. --all gives the whole reasoning instead: where each
    finger landed (millimetres from the nearest edges, and which edge zone), every gesture, and for every
    kind that did not happen its first reason.

    With RECORDING (evemu's or `libinput record`'s, - for standard input), the recognizer runs over it
    offline as `gesturectl replay` does. Without, the running gestured sends its explanations as touches
    happen, only to clients that may see app touches (root, the daemon's user, the user of the seat's
    active session, those app_touches_for names): they show where every finger lands. A touch already
    down when explaining starts is said to be so, without a landing.

      --all           every landing, gesture and reason of each touch, not one line
      --kinds LIST    only touches that became one of these kinds (\(GestureKind.allCases.map(\.rawValue).joined(separator: ", ")))
                      or came close to one (a near miss, a move not inward, a tap held too long...);
                      their reasons only
      --edges LIST    only touches that became an edge swipe from these edges (left, right, top,
                      bottom, top-left, ...), landed in their zones or came close; their reasons only
      --device DESC   with RECORDING: the device description when RECORDING has only events
      --device ID     live: only this device (its id, name or vvvv:pppp); may be repeated
      --config FILE   with RECORDING: thresholds, device settings and [[exclusion]] sections from a
                      gestured.toml, as for replay
      --focus APP     with --config: APP is the focused app, so the [[exclusion]] sections naming it apply
                      (app globs are case-sensitive; one that names no section is said)
      --socket PATH   live: the daemon's socket (default: $GESTURED_SOCKET, else
                      $XDG_RUNTIME_DIR/gestured.sock, else \(ProtocolConstants.defaultSocketPath))
      --json          one JSON object per touch sequence (docs/protocol.md, "Explanations"), whole
      --count N       live: exit after N explanations shown

    """

/// How `explain` shows the explanations it is given: one line each or the whole block (`--all`), JSON,
/// only those of the focus (`--kinds`, `--edges`), numbered and timed from the first one shown.
struct ExplanationPrinter {
    var all = false
    var json = false
    var focus = ExplanationFocus()
    private(set) var shown = 0
    private var origin: Int64?

    /// Prints `x` (with `prefix`, the device of a live explanation) when the focus shows it; whether it did.
    mutating func print(_ x: Explanation, jsonLine: @autoclosure () -> String, prefix: String = "") -> Bool {
        guard focus.shows(x) else { return false }
        shown += 1
        if json {
            Swift.print(jsonLine())
            return true
        }
        let origin = self.origin ?? x.startMicroseconds
        self.origin = origin
        if all {
            var shownX = x
            shownX.reasons = x.reasons.filter(focus.admits)
            let block = shownX.text(relativeToMicroseconds: origin)
            Swift.print((shown > 1 ? "\n" : "") + prefix + "touch \(shown)" + block.dropFirst("touch".count), terminator: "")
        } else {
            Swift.print(prefix + x.line(number: shown, relativeToMicroseconds: origin, focus: focus))
        }
        return true
    }

    /// The focus as options: "--kinds edge-swipe --edges top".
    var focusOptions: String {
        var parts: [String] = []
        if !focus.kinds.isEmpty { parts.append("--kinds " + focus.kinds.map(\.rawValue).joined(separator: ",")) }
        if !focus.edges.isEmpty { parts.append("--edges " + focus.edges.map(\.rawValue).joined(separator: ",")) }
        return parts.joined(separator: " ")
    }

    /// Reads `--all`, `--kinds`, `--edges` and `--json`; false for any other option.
    mutating func read(_ option: String, _ a: inout Arguments) throws(UsageError) -> Bool {
        switch option {
        case "--all": all = true
        case "--json": json = true
        case "--kinds":
            let kinds = try parseList(
                try a.value(of: option), option: option, allowed: GestureKind.allCases.map(\.rawValue), { GestureKind(rawValue: $0) })
            focus.kinds = GestureKind.allCases.filter { kinds.contains($0) }
        case "--edges":
            let edges = try parseList(try a.value(of: option), option: option, allowed: Edge.allCases.map(\.rawValue), { Edge(rawValue: $0) })
            focus.edges = Edge.allCases.filter { edges.contains($0) }
        default: return false
        }
        return true
    }
}

func runExplain(_ args: [String]) -> Int32 {
    var device: [String] = []
    var configPath: String?
    var focus: String?
    var socket: String?
    var recordingPath: String?
    var printer = ExplanationPrinter()
    var count: Int?
    var arguments = Arguments(args, command: "explain", usage: explainUsage)
    if let status = arguments.read({ (a, option) throws(UsageError) in
        if try printer.read(option, &a) { return }
        switch option {
        case "--device": device.append(try a.value(of: option, missing: "\(option) needs a file name (with a recording) or a device's id"))
        case "--config": configPath = try a.fileName(of: option)
        case "--focus": focus = try a.appID(of: option)
        case "--socket": socket = try a.path(of: option)
        case "--count":
            let v = try a.value(of: option)
            guard let n = Int(v), n > 0 else { throw UsageError("--count needs a positive whole number, not '\(v)'") }
            count = n
        default: try recordingPath = a.operand(option, after: recordingPath)
        }
    }) {
        return status
    }
    guard let recordingPath else {
        if configPath != nil || focus != nil {
            printError("gesturectl explain: --config and --focus go with a recording; live, the daemon's own configuration applies\n\n" + explainUsage)
            return 2
        }
        return explainLive(socket: socket, devices: device, printer: printer, count: count)
    }
    if socket != nil || count != nil {
        printError("gesturectl explain: --socket and --count are for the running daemon, not a recording\n\n" + explainUsage)
        return 2
    }
    if device.count > 1 {
        printError("gesturectl explain: with a recording, --device names one description file\n\n" + explainUsage)
        return 2
    }
    return reportingInputErrors("explain") {
        let recording = try RecordingFile.load(recordingPath, description: device.first, allowingStandardInput: true)
        let (settings, geometry, exclusions) = try replaySettings(configPath: configPath, device: recording.device, focus: focus)
        var engine = try GestureEngine(device: recording.device, settings: settings, geometry: geometry)
        engine.setExclusions(exclusions)
        engine.explaining = true
        printError("panel: \(engine.geometry.sizeDescription)\n")
        var replay = RecordingReplay(engine: engine)
        var explained = 0
        replay.run(recording.events) { outputs in
            for output in outputs {
                switch output {
                case .explanation(let x):
                    explained += 1
                    _ = printer.print(x, jsonLine: ExplanationJSON.encode(x))
                case .warning(let w): printError("warning: \(w.message)\n")
                case .gesture, .trace, .stopped, .reason, .audience: break
                }
            }
        }
        if !printer.json {
            if explained == 0 {
                print("no touches")
            } else if printer.shown == 0 {
                print("no touches for \(printer.focusOptions) (\(explained) touch\(explained == 1 ? "" : "es") explained)")
            }
        }
        fflush(nil)
        return 0
    }
}

/// Explanations from the running daemon, as they come.
private func explainLive(socket: String?, devices: [String], printer: ExplanationPrinter, count: Int?) -> Int32 {
    var printer = printer
    return reportingDaemonErrors("explain") {
        let client = try GestureClient.connect(path: socket)
        if let why = try subscribeToExplanations(client, devices: devices.isEmpty ? nil : Set(devices)) {
            printError(
                "gesturectl explain: the daemon sends explanations only to clients that may see app touches (they show where "
                    + "every finger lands)\(why)\n")
            return 1
        }
        if !printer.json {
            let names = client.hello.devices.map { "\(shown($0.id)) \"\(shown($0.name))\"" }
            print("explaining the touches of gestured at \(client.path); devices: " + (names.isEmpty ? "none" : names.joined(separator: ", ")))
        }
        fflush(nil)
        while let message = try client.next() {
            switch message {
            case .explanation(let x, let device):
                _ = printer.print(x, jsonLine: message.encoded, prefix: "\(shown(device ?? "?")): ")
            case .error(let e):
                printError("gesturectl explain: the daemon says: \(shown(e.message))\n")
            case .appTouchAccessChanged(let access):
                printError("gesturectl explain: \(shown(access.description))\n")
            case .hello, .subscribed, .unsubscribed, .devices, .pong, .oriented, .focused, .excluded, .reloaded, .claimed, .unknown, .gesture, .deviceAdded,
                .deviceRemoved, .deviceChanged:
                break
            }
            fflush(nil)
            if let count, printer.shown >= count { return 0 }
        }
        return 0
    }
}

/// Subscribes `client` to explanations alone (no gestures, no updates) of the touches on `devices` (every
/// device's where nil). Nil when the daemon sends them; else why it does not, to end the command's
/// message: ": " and the daemon's own reason (app_touch_access), or ": this daemon sends no explanations"
/// (an older daemon knows none).
func subscribeToExplanations(_ client: GestureClient, devices: Set<String>?) throws(GestureClientError) -> String? {
    var filter = SubscriptionFilter(kinds: [], updates: false, explanations: true)
    filter.devices = devices
    let applied = try client.subscribe(filter)
    guard applied.explanations else {
        return client.appTouchAccess.map { ": \(shown($0.description))" } ?? ": this daemon sends no explanations"
    }
    return nil
}
