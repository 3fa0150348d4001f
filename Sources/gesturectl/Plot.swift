// `gesturectl plot`: a recording drawn to the screen's physical proportions, with what the recognizer made
// of it, as an SVG for a person tuning thresholds. The drawing is PlotSVG's; this file parses the command
// line and gathers what is drawn.
#if canImport(Glibc)
import Glibc
#endif
import GestureClient
import GestureProtocol
import PlainText
import GestureCore
import GestureVocabulary
import RecordingFormats
import SystemCalls
import CommandLineArguments

private let plotUsage = """
    usage: gesturectl plot [--device DESC] [--config FILE [--focus APP]] -o OUT.svg RECORDING
           gesturectl plot [--socket PATH] [--device ID] -o OUT.svg

    RECORDING may be - for standard input; OUT.svg may be - for standard output.

    Draws a recording (evemu's or libinput's) as an SVG, to the scale of the screen as the user sees it (millimetres, after
    rotation and calibration): each finger's path (one colour per finger, a dot per frame), the edge zones
    and corners at their configured widths, the slop circle at each landing and the edge swipe's angle
    tolerance at each landing in an edge zone, each gesture's begin and end marked and labelled, and a
    time strip of the fingers' contacts and the gestures. The gestures come from gestured's recognizer,
    as `gesturectl replay` prints them. Warnings go to standard error, and so does the panel's size in
    use and where it came from (its resolution, the configuration, or an assumption).

      --device DESC   the device description (evemu N:/I:/P:/B:/A: lines) when RECORDING has only events
      --config FILE   thresholds and device settings from a gestured.toml (default: built-in defaults), as
                      for `gesturectl replay`; the parts of the edges its [[exclusion]] sections exclude
                      are drawn hatched, and recognized as the daemon would (no edge swipe starts there)
      --focus APP     with --config: APP (an app_id) is the focused app, so the [[exclusion]] sections
                      that name it apply too
      -o FILE         where to write the SVG (required)

    Without RECORDING it draws a device of the running gestured as the daemon has it now: the screen as
    the user sees it (after rotation, calibration and the orientation set at run time), its edge zones in
    force, corner swipes, and the parts of the edges excluded now (by [[exclusion]] sections for the
    focused app and by clients' exclude requests), with the orientation and the focused app said above.

      --socket PATH   the daemon's socket (default: $GESTURED_SOCKET, else $XDG_RUNTIME_DIR/gestured.sock,
                      else \(ProtocolConstants.defaultSocketPath))
      --device ID     the device to draw (its id, name or vvvv:pppp; needed when gestured has more than one)

    """

func runPlot(_ args: [String]) -> Int32 {
    var offline = OfflineRecording()
    var outputPath: String?
    var socket: String?
    var arguments = Arguments(args, command: "plot", usage: plotUsage)
    if let status = arguments.read({ (a, option) throws(UsageError) in
        switch option {
        case "-o": outputPath = try a.fileName(of: option)
        case "--socket": socket = try a.path(of: option)
        default: try offline.read(option, &a)
        }
    }) {
        return status
    }
    guard let outputPath, !outputPath.isEmpty else {
        printError("gesturectl plot: no output file given; name the SVG to write with -o OUT.svg (- for standard output)\n")
        return 2
    }
    guard let recordingPath = offline.recordingPath else {
        if offline.configPath != nil || offline.focus != nil {
            printError(
                "gesturectl plot: --config and --focus go with a recording; without one the running daemon's own settings, focus and "
                    + "exclusions are drawn\n\n" + plotUsage)
            return 2
        }
        return plotLive(socket: socket, device: offline.devicePath, outputPath: outputPath)
    }
    if socket != nil {
        printError("gesturectl plot: --socket is for drawing the running daemon's device, not a recording\n\n" + plotUsage)
        return 2
    }
    return reportingInputErrors("plot") {
        let (recording, (settings, geometry, exclusions)) = try offline.load(recordingPath)
        let plot = try RecordingPlot(recording: recording, settings: settings, geometry: geometry, exclusions: exclusions)
        for w in plot.warnings { printError("warning: \(w.message)\n") }
        let svg = PlotSVG.render(plot)
        if let failure = write(svg, to: outputPath) {
            printError("gesturectl plot: \(failure)\n")
            return 1
        }
        printError("panel: \(plot.sizeDescription)\n")
        return 0
    }
}

/// Draws a device of the running daemon as it has it now (its `devices` entry: the screen, the zones in
/// force, the exclusions, the orientation and the focus).
private func plotLive(socket: String?, device selector: String?, outputPath: String) -> Int32 {
    reportingDaemonErrors("plot") {
        let client = try GestureClient.connect(path: socket)
        defer { client.close() }
        let devices = try client.devices()
        let names = devices.map { "\(shown($0.id)) \"\(shown($0.name))\"" }
        let info: DeviceInfo
        if let selector {
            guard let found = devices.first(where: { $0.isNamed(by: selector) }) else {
                printError("gesturectl plot: gestured has no device \(shown(selector)); it has: \(names.isEmpty ? "none" : names.joined(separator: ", "))\n")
                return 1
            }
            info = found
        } else {
            guard devices.count == 1, let only = devices.first else {
                printError(
                    devices.isEmpty
                        ? "gesturectl plot: gestured has no touchscreen now\n"
                        : "gesturectl plot: gestured has \(devices.count) devices: name the one to draw with --device (\(names.joined(separator: ", ")))\n")
                return 1
            }
            info = only
        }
        guard let zones = info.edgeZones else {
            printError("gesturectl plot: this gestured does not say its edge zones (it is older than this gesturectl); update it\n")
            return 1
        }
        let plot = RecordingPlot(device: info, zones: zones, socketPath: client.path)
        if let failure = write(PlotSVG.render(plot), to: outputPath) {
            printError("gesturectl plot: \(failure)\n")
            return 1
        }
        printError("panel: \(plot.sizeDescription)\n")
        return 0
    }
}

/// Writes `text` to `path` ("-": standard output); nil on success, else what went wrong.
private func write(_ text: String, to path: String) -> String? {
    var text = text
    if path == RecordingFile.standardInput {
        fflush(nil)
        let ok = text.withUTF8 { SystemCall.writeAll(1, UnsafeRawBufferPointer($0)) }
        return ok ? nil : "cannot write to standard output: \(String(cString: strerror(errno))) (errno \(errno))"
    }
    let fd: Int32
    do {
        fd = try SystemCall.open(path, flags: O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode: 0o644)
    } catch {
        return "cannot write \(path): \(error.message) (errno \(error.errno))"
    }
    let ok = text.withUTF8 { SystemCall.writeAll(fd, UnsafeRawBufferPointer($0)) }
    let writeErrno = errno
    let closeError = SystemCall.close(fd)
    if !ok {
        return "cannot write \(path): \(String(cString: strerror(writeErrno))) (errno \(writeErrno))"
    }
    if let closeError {
        return "cannot write \(path): \(closeError.message) (errno \(closeError.errno))"
    }
    return nil
}

/// What a plot shows: the screen, the thresholds, every finger's path and every gesture, from one run of
/// the recording through the engine (the gestures, exactly as `gesturectl replay` reports them) and
/// through a frame assembler of the same geometry (the fingers, as the recognizer sees them).
struct RecordingPlot {
    /// One finger from landing to lift, in screen millimetres.
    struct Finger {
        /// 1, 2, ... in the order the fingers landed.
        var number: Int
        var serial: UInt64
        var landedMicroseconds: Int64
        /// When it lifted (or turned into a palm); nil when still down at the end of the recording.
        var liftedMicroseconds: Int64?
        /// Turned into a palm rather than lifting.
        var lost = false
        var pathMM: [Vector2]
    }

    /// One gesture's events, begin to end or cancel.
    struct Gesture {
        var begin: GestureEvent
        /// The end or cancel event; the last event seen if the recording stopped before either.
        var last: GestureEvent
        /// The centroid at each event, millimetres.
        var pathMM: [Vector2]
    }

    var deviceName: String
    var screenSizeMM: (width: Double, height: Double)
    var sizeSource: PanelSizeSource
    /// The size in use and where it came from (DeviceGeometry.sizeDescription).
    var sizeDescription: String
    var geometry: GeometrySettings
    var settings: RecognizerSettings
    /// The parts of the edges that are no edge zone ([[exclusion]] sections in force for `--focus`).
    var exclusions: EdgeExclusions
    var fingers: [Finger] = []
    var gestures: [Gesture] = []
    var warnings: [CoreWarning] = []
    /// Every touch sequence explained (as `gesturectl explain` prints them): the gestures' reasons and
    /// the near misses are listed under the drawing.
    var explanations: [Explanation] = []
    /// The first event's time: time 0 of the plot.
    var originMicroseconds: Int64
    /// The last event's or gesture event's time, whichever is later.
    var endMicroseconds: Int64
    /// For a device of the running daemon (no recording): where it was asked and what it has now
    /// ("as gestured at PATH has it now: orientation 90°, focused app foot"); nil for a recording.
    var live: String?

    /// A device of the running daemon as it has it now: its screen, zones and exclusions, no touches.
    init(device info: DeviceInfo, zones: EdgeZonesInForce, socketPath: String) {
        deviceName = "\(escapingControlCharacters(info.name)) (\(escapingControlCharacters(info.id)))"
        screenSizeMM = (zones.screenWidthMM, zones.screenHeightMM)
        switch info.size?.source {
        case .resolution?: sizeSource = .axisResolution
        case .configuration?: sizeSource = .configured
        case .assumed?, nil: sizeSource = .assumed
        }
        sizeDescription = info.size.map(\.description) ?? "of unknown size"
        geometry = GeometrySettings()
        var settings = RecognizerSettings()
        for edge in Edge.sides {
            settings.edgeZones[edge].enabled = zones[edge] != nil
            settings.edgeZones[edge].widthMM = zones[edge] ?? settings.edgeZones[edge].widthMM
        }
        settings.edgeSwipe.corners = zones.cornerSwipes
        self.settings = settings
        exclusions = EdgeExclusions(info.exclusions.map { EdgeExclusion(edge: $0.edge, from: $0.from, to: $0.to, source: $0.source) })
        originMicroseconds = 0
        endMicroseconds = 0
        var now = "as gestured at \(escapingControlCharacters(socketPath)) has it now: orientation \(info.orientation.rawValue)°"
        now += info.focusedApp.map { ", focused app \"\(escapingControlCharacters($0))\"" } ?? ", no focused app known"
        for e in info.exclusions {
            now += "; " + (e.edge.isCorner ? "the \(e.edge.rawValue) corner" : "\(e.edge.rawValue) \(formatNumber(e.from))…\(formatNumber(e.to))")
                + " excluded by \(escapingControlCharacters(e.source.isEmpty ? "?" : e.source))"
        }
        live = now
    }

    init(
        recording: DeviceRecording, settings: RecognizerSettings, geometry geometrySettings: GeometrySettings,
        exclusions: EdgeExclusions = EdgeExclusions()
    ) throws(UnsupportedDeviceError) {
        var engine = try GestureEngine(device: recording.device, settings: settings, geometry: geometrySettings)
        engine.setExclusions(exclusions)
        engine.explaining = true
        self.exclusions = exclusions
        sizeDescription = engine.geometry.sizeDescription
        deviceName = recording.device.name
        screenSizeMM = engine.geometry.screenSizeMM
        sizeSource = engine.geometry.sizeSource
        geometry = geometrySettings
        self.settings = settings
        originMicroseconds = recording.events.first?.timeMicroseconds ?? 0
        endMicroseconds = recording.events.last?.timeMicroseconds ?? originMicroseconds

        var replay = RecordingReplay(engine: engine)
        var gestureIndex: [UInt64: Int] = [:]
        var gestures: [Gesture] = []
        var warnings: [CoreWarning] = []
        var explanations: [Explanation] = []
        replay.run(recording.events) { outputs in
            for output in outputs {
                switch output {
                case .gesture(let e):
                    if let index = gestureIndex[e.id] {
                        gestures[index].last = e
                        gestures[index].pathMM.append(e.positionMM)
                    } else {
                        gestureIndex[e.id] = gestures.count
                        gestures.append(Gesture(begin: e, last: e, pathMM: [e.positionMM]))
                    }
                case .warning(let w): warnings.append(w)
                case .explanation(let x): explanations.append(x)
                case .trace, .stopped, .reason, .audience: break
                }
            }
        }
        self.gestures = gestures
        self.warnings = warnings
        self.explanations = explanations
        if let last = gestures.last?.last.timeMicroseconds { endMicroseconds = max(endMicroseconds, last) }

        // The fingers: the frames the engine's own assembler builds, from a second assembler of the same
        // geometry and protocol over the same events (its warnings are the engine's, already taken).
        var assembler = FrameAssembler(geometry: engine.geometry, touchProtocol: recording.device.touchProtocol)
        var index: [UInt64: Int] = [:]
        for event in recording.events where assembler.process(event) == .frame {
            let frame = assembler.frame
            for serial in frame.lifted { if let i = index[serial] { fingers[i].liftedMicroseconds = frame.timeMicroseconds } }
            for serial in frame.lost {
                if let i = index[serial] {
                    fingers[i].liftedMicroseconds = frame.timeMicroseconds
                    fingers[i].lost = true
                }
            }
            for contact in frame.contacts {
                if let i = index[contact.serial] {
                    fingers[i].pathMM.append(contact.positionMM)
                } else {
                    index[contact.serial] = fingers.count
                    fingers.append(
                        Finger(
                            number: fingers.count + 1, serial: contact.serial, landedMicroseconds: frame.timeMicroseconds,
                            pathMM: [contact.positionMM]))
                }
            }
        }
    }
}
