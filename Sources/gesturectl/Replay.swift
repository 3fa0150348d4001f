// `gesturectl replay`: the recognizer over a recording, offline, exactly as the daemon would run it.
#if canImport(Glibc)
import Glibc
#endif
import GestureBindings
import GestureConfig
import GestureCore
import GestureProtocol
import RecordingFormats
import CommandLineArguments
import TouchForwarding

private let replayUsage = """
    usage: gesturectl replay [--device DESC] [--config FILE [--focus APP]] [--pen PEN] [--forward OUT] [--no-updates] [--pretty] [--trace] RECORDING

    RECORDING may be - for standard input (evemu-record /dev/input/eventN | gesturectl replay -).

    Runs gestured's recognizer over a recording (evemu-record's, or `libinput record`'s YAML, told apart by
    content) and prints the gesture events, one JSON object per line, to standard output (the same objects
    the daemon publishes). Warnings go to standard error.

      --device DESC   the device description (evemu N:/I:/P:/B:/A: lines) when RECORDING has only events
      --config FILE   thresholds and device settings from a gestured.toml (default: built-in defaults);
                      [[device]] sections apply by name and vendor:product, not by match_path (a
                      recording has no device node); its [[exclusion]] sections without `app`
                      apply, and are said on standard error
      --focus APP     with --config: APP (an app_id) is the focused app, so the [[exclusion]] sections
                      that name it apply too, as in the daemon after a focus request
      --pen PEN       a recording of the panel's pen on RECORDING's clock: while the pen is in proximity
                      and for 0.5 s after it left, no gestures (touch arbitration, as the daemon does
                      with pen_arbitration on); pens recorded beside the panel in RECORDING itself (a
                      `libinput record` of both) are used without it. May be given more than once
      --forward OUT   passthrough, offline: write to OUT, as an evemu recording (the virtual device's
                      header, then its events), exactly what the virtual copy of the device would
                      receive with passthrough = true; the gestures are printed as usual
      --no-updates    print begin, end and cancel events only
      --pretty        readable lines instead of JSON
      --trace         print the recognizer's state transitions to standard error

    """

func runReplay(_ args: [String]) -> Int32 {
    var offline = OfflineRecording()
    var forwardPath: String?
    var penPaths: [String] = []
    var updates = true
    var pretty = false
    var trace = false
    var arguments = Arguments(args, command: "replay", usage: replayUsage)
    if let status = arguments.read({ (a, option) throws(UsageError) in
        switch option {
        case "--forward": forwardPath = try a.fileName(of: option)
        case "--pen": penPaths.append(try a.fileName(of: option))
        case "--no-updates": updates = false
        case "--pretty": pretty = true
        case "--trace": trace = true
        default: try offline.read(option, &a)
        }
    }) {
        return status
    }
    guard let recordingPath = offline.recordingPath else {
        printError("gesturectl replay: no recording given\n\n" + replayUsage)
        return 2
    }
    return reportingInputErrors("replay") {
        let (recording, loaded) = try offline.load(recordingPath)
        let device = recording.device
        var (settings, geometry, exclusions) = loaded
        let arbitration = try replayPenArbitration(configPath: offline.configPath, device: device)
        var forwarder: TouchForwarder? = nil
        if forwardPath != nil {
            do {
                forwarder = try TouchForwarder(device: device)
            } catch {
                printError("gesturectl replay: --forward: \(error)\n")
                return 1
            }
            settings.withholdsTouches = true
        }
        var pens = recording.pens
        for path in penPaths {
            let pen = try RecordingFile.load(path)
            guard pen.device.isPen else {
                printError("gesturectl replay: --pen \(path): \(shown(pen.device.name)) has neither BTN_TOOL_PEN nor BTN_TOOL_RUBBER; give a recording of the pen\n")
                return 1
            }
            pens.append(pen.events)
        }
        // pen_arbitration = false for the panel: its pens change nothing.
        let penChanges = arbitration ? PenChange.changes(of: pens) : []
        var engine = try GestureEngine(device: device, settings: settings, geometry: geometry, tracing: trace)
        engine.setExclusions(exclusions)
        printError("panel: \(engine.geometry.sizeDescription)\n")
        if !pens.isEmpty {
            printError(
                arbitration
                    ? "pen: \(pens.count) pen\(pens.count == 1 ? "" : "s"), \(penChanges.count) proximity change\(penChanges.count == 1 ? "" : "s")\n"
                    : "pen: \(pens.count) pen\(pens.count == 1 ? "" : "s"), ignored: pen_arbitration = false\n")
        }
        let origin = recording.events.first?.timeMicroseconds ?? 0
        var replay = RecordingReplay(engine: engine)
        var written: [InputEvent] = []
        replay.run(recording.events, pen: penChanges, forwarder: &forwarder, written: &written) { outputs in
            for output in outputs {
                switch output {
                case .gesture(let e) where updates || e.phase != .update:
                    print(pretty ? GestureEventText.format(e, relativeToMicroseconds: origin) : GestureEventJSON.encode(e))
                case .gesture: break
                case .warning(let w): printError("warning: \(w.message)\n")
                case .trace(let t): printError("trace: \(t)\n")
                case .stopped(let stop): printError("trace: \(stop)\n")
                case .explanation, .reason, .audience: break
                }
            }
        }
        fflush(nil)
        if let forwardPath {
            let text = EvemuWriter.text(device: TouchForwarder.virtualDescription(of: device), events: written)
            do {
                try RecordingFile.write(text, to: forwardPath)
            } catch {
                printError("gesturectl replay: cannot write \(forwardPath): \(error)\n")
                return 1
            }
        }
        return 0
    }
}

/// Runs a command's work on its input files; a recording, configuration or device it cannot use
/// (RecordingFileError, ConfigError, UnsupportedDeviceError: each names the file and what to do) is
/// reported as "gesturectl COMMAND: ..." with exit status 1.
func reportingInputErrors(_ command: String, _ body: () throws -> Int32) -> Int32 {
    do {
        return try body()
    } catch {
        printError("gesturectl \(command): \(error)\n")
        return 1
    }
}

/// What `replay` and `plot` read of a recording offline: the recording (the operand, - for standard
/// input), its device description (`--device`), a configuration (`--config`) and the focused app
/// (`--focus`), and the recording loaded with the settings and exclusions they give.
struct OfflineRecording {
    var recordingPath: String?
    var devicePath: String?
    var configPath: String?
    var focus: String?

    /// Takes `option` when it is `--device`, `--config`, `--focus` or the recording; any other option is
    /// refused as unknown, so the command reads its own options first.
    mutating func read(_ option: String, _ a: inout Arguments) throws(UsageError) {
        switch option {
        case "--device": devicePath = try a.fileName(of: option)
        case "--config": configPath = try a.fileName(of: option)
        case "--focus": focus = try a.appID(of: option)
        default: recordingPath = try a.operand(option, after: recordingPath)
        }
    }

    /// The recording at `path` (with its description) and the settings, geometry and exclusions to replay
    /// it with (`replaySettings`).
    func load(_ path: String) throws -> (DeviceRecording, (RecognizerSettings, GeometrySettings, EdgeExclusions)) {
        let recording = try RecordingFile.load(path, description: devicePath, allowingStandardInput: true)
        return (recording, try replaySettings(configPath: configPath, device: recording.device, focus: focus))
    }
}

/// Thresholds and geometry for the replay: the built-in defaults, or what a configuration file says for
/// this device (matched by name and vendor:product; a recording has no device path).
func replaySettings(configPath: String?, device: DeviceDescription) throws -> (RecognizerSettings, GeometrySettings) {
    let (settings, geometry, _) = try replaySettings(configPath: configPath, device: device, focus: nil)
    return (settings, geometry)
}

/// `replaySettings`, and the exclusions the configuration's [[exclusion]] sections put in force on the
/// device while `focus` is the focused app (`--focus`; nil: none known, so only sections without `app`),
/// each said on standard error with its section's place.
func replaySettings(configPath: String?, device: DeviceDescription, focus: String?) throws
    -> (RecognizerSettings, GeometrySettings, EdgeExclusions)
{
    guard let configPath else {
        if focus != nil { printError("warning: --focus without --config: no [[exclusion]] sections to apply\n") }
        return (RecognizerSettings(), GeometrySettings(), EdgeExclusions())
    }
    let configuration = try Configuration.load(path: configPath)
    let resolved = configuration.resolve(for: device, path: nil)
    for warning in configuration.warnings { printError("warning: \(warning)\n") }
    for warning in resolved.warnings { printError("warning: \(warning)\n") }
    if resolved.ignore {
        printError("warning: \(configPath) says to ignore \(shown(device.name)); replaying it anyway\n")
    }
    let byPath = configuration.devices.enumerated().filter { $0.element.matchPath != nil }.map { $0.offset + 1 }
    if !byPath.isEmpty {
        printError(
            "warning: \(configPath): [[device]] section\(byPath.count == 1 ? "" : "s") "
                + "\(byPath.map(String.init).joined(separator: ", ")) match\(byPath.count == 1 ? "es" : "") by match_path, "
                + "which a recording cannot match (it has no device node); the daemon may apply settings this replay does not\n")
    }
    if let focus, let advice = configuration.focusAdvice(focus, device: device) {
        printError("warning: --focus \(shown(focus)): \(advice)\n")
    }
    let exclusions = resolved.configuredExclusions(forApp: focus)
    for (e, source) in exclusions {
        printError("excluded \(e.edge.rawValue)\(e.edge.isCorner ? "" : " \(e.from)...\(e.to)") from \(source)\n")
    }
    return (resolved.recognizer, resolved.geometry, EdgeExclusions(exclusions.map(\.exclusion)))
}

/// Whether the configuration leaves touch arbitration with pens on for the device (`pen_arbitration`).
func replayPenArbitration(configPath: String?, device: DeviceDescription) throws -> Bool {
    guard let configPath else { return true }
    return try Configuration.load(path: configPath).resolve(for: device, path: nil).penArbitration
}
