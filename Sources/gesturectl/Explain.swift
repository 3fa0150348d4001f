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
    usage: gesturectl explain [--device DESC] [--config FILE [--focus APP]] [--json] RECORDING
           gesturectl explain [--socket PATH] [--device ID]... [--json] [--count N]

    Explains every touch sequence (from the first finger landing until every finger lifted and nothing
    waits for a further tap): where each finger landed (millimetres from the nearest edges, and which edge
    zone), what it became (the gesture, committed or not), and, for every kind that did not happen, its
    first reason with the number measured and the setting it was held against, by the key to write in
    gestured.toml ("edge-swipe: landed 6.2 mm from the left edge (edge_swipe.zone_mm 5)"). A touch that
    landed just outside an edge zone (within twice its width) and moved inward is a near miss.

    With RECORDING (evemu's or `libinput record`'s, - for standard input), the recognizer runs over it
    offline as `gesturectl replay` does. Without, the running gestured sends its explanations as touches
    happen, only to clients that may see app touches (root, the daemon's user, the user of the seat's
    active session, those app_touches_for names): they show where every finger lands.

      --device DESC   with RECORDING: the device description when RECORDING has only events
      --device ID     live: only this device (its id, name or vvvv:pppp); may be repeated
      --config FILE   with RECORDING: thresholds, device settings and [[exclusion]] sections from a
                      gestured.toml, as for replay
      --focus APP     with --config: APP is the focused app, so the [[exclusion]] sections naming it apply
      --socket PATH   live: the daemon's socket (default: $GESTURED_SOCKET, else
                      $XDG_RUNTIME_DIR/gestured.sock, else \(ProtocolConstants.defaultSocketPath))
      --json          one JSON object per touch sequence (docs/protocol.md, "Explanations")
      --count N       live: exit after N explanations

    """

func runExplain(_ args: [String]) -> Int32 {
    var device: [String] = []
    var configPath: String?
    var focus: String?
    var socket: String?
    var recordingPath: String?
    var json = false
    var count: Int?
    var arguments = Arguments(args, command: "explain", usage: explainUsage)
    if let status = arguments.read({ (a, option) throws(UsageError) in
        switch option {
        case "--device": device.append(try a.value(of: option, missing: "\(option) needs a file name (with a recording) or a device's id"))
        case "--config": configPath = try a.fileName(of: option)
        case "--focus": focus = try a.appID(of: option)
        case "--socket": socket = try a.path(of: option)
        case "--json": json = true
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
        return explainLive(socket: socket, devices: device, json: json, count: count)
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
        let origin = recording.events.first?.timeMicroseconds ?? 0
        var replay = RecordingReplay(engine: engine)
        var first = true
        replay.run(recording.events) { outputs in
            for output in outputs {
                switch output {
                case .explanation(let x):
                    if json {
                        print(ExplanationJSON.encode(x))
                    } else {
                        if !first { print("") }
                        print(x.text(relativeToMicroseconds: origin), terminator: "")
                    }
                    first = false
                case .warning(let w): printError("warning: \(w.message)\n")
                case .gesture, .trace, .stopped, .reason, .audience: break
                }
            }
        }
        if first && !json { print("no touches") }
        fflush(nil)
        return 0
    }
}

/// Explanations from the running daemon, as they come.
private func explainLive(socket: String?, devices: [String], json: Bool, count: Int?) -> Int32 {
    return reportingDaemonErrors("explain") {
        let client = try GestureClient.connect(path: socket)
        if let why = try subscribeToExplanations(client, devices: devices.isEmpty ? nil : Set(devices)) {
            printError(
                "gesturectl explain: the daemon sends explanations only to clients that may see app touches (they show where "
                    + "every finger lands)\(why)\n")
            return 1
        }
        if !json {
            let names = client.hello.devices.map { "\(shown($0.id)) \"\(shown($0.name))\"" }
            print("explaining the touches of gestured at \(client.path); devices: " + (names.isEmpty ? "none" : names.joined(separator: ", ")))
        }
        fflush(nil)
        var received = 0
        while let message = try client.next() {
            switch message {
            case .explanation(let x, let device):
                if json {
                    print(message.encoded)
                } else {
                    print("\n\(shown(device ?? "?")): " + x.text(), terminator: "")
                }
                received += 1
            case .error(let e):
                printError("gesturectl explain: the daemon says: \(shown(e.message))\n")
            case .appTouchAccessChanged(let access):
                printError("gesturectl explain: \(shown(access.description))\n")
            case .hello, .subscribed, .unsubscribed, .devices, .pong, .oriented, .focused, .excluded, .reloaded, .unknown, .gesture, .deviceAdded,
                .deviceRemoved, .deviceChanged:
                break
            }
            fflush(nil)
            if let count, received >= count { return 0 }
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
