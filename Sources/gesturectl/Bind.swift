// `gesturectl bind`: runs the commands of a bindings file (docs/bindings.md) for the daemon's gestures.
#if canImport(Glibc)
import Glibc
#endif
import GestureBindings
import GestureClient
import GestureConfig
import GestureCore
import GestureProtocol
import GestureVocabulary
import RecordingFormats
import SystemCalls
import WaylandSession
import CommandLineArguments

private let bindUsage = """
    usage: gesturectl bind [--bindings FILE] [--socket PATH] [--check] [--verbose]
           gesturectl bind --check --replay RECORDING [--config FILE] [--device DESC] [--bindings FILE]

    Runs a command, or types keys, for each gesture that matches a binding of FILE (docs/bindings.md; an
    example is bindings.toml in gestured's documentation). Commands run in their own process groups without
    blocking gesture handling; their output goes to standard error (the journal under systemd). Bindings with `app` match
    the focused app and bindings with `keys` type into it through the Wayland compositor ($WAYLAND_DISPLAY).
    SIGHUP rereads FILE (a broken file keeps the bindings in use); the connection to the daemon is
    re-established with backoff.

      --bindings FILE  the bindings (default: $XDG_CONFIG_HOME/gestured/bindings.toml, else
                       ~/.config/gestured/bindings.toml)
      --socket PATH    the daemon's socket (default: $GESTURED_SOCKET, else $XDG_RUNTIME_DIR/gestured.sock,
                       else \(ProtocolConstants.defaultSocketPath))
      --check          validate FILE, print what each binding does and which cannot work in this
                       session (app, keys), and exit (0 when it is usable)
      --verbose        also log each command started and exited, the subscription, and for each
                       gesture end that fired nothing the binding that came closest and why
      --replay FILE    with --check: run the bindings over a recording (evemu or libinput record) offline,
                       in the recording's own time, and print what would fire and when, and for each end
                       that fired nothing the binding that came closest and why; nothing is run
      --config FILE    with --replay: thresholds and device settings from a gestured.toml, as for replay
      --device DESC    with --replay: the device description when the recording has only events

    """

/// The bindings file as a source of actions.
struct BindingsSource: ActionSource {
    var file: BindingsFile
    var matcher: BindingMatcher
    var support: CompositorSupport
    let environment: [String: String]
    /// When each hold waited for by a `held_seconds` binding has lasted long enough (ms, CLOCK_MONOTONIC,
    /// from when its begin happened).
    private var holdDeadlines: [BindingMatcher.GestureKey: Int64] = [:]
    /// The daemon's devices, as last reported.
    private var devices: [DeviceInfo] = []
    /// The bindings whose `device` matched none of them when last said.
    private var saidMissing: Set<Int> = []
    /// The app-touch notes last logged, so each is said once until the access changes.
    private var saidAppTouchNotes: [String] = []

    init(file: BindingsFile, support: CompositorSupport, environment: [String: String]) {
        self.file = file
        self.support = support
        self.environment = environment
        self.matcher = BindingMatcher(bindings: support.usableBindings(of: file))
    }

    /// The bindings that can fire now, a `device` given as a path (/dev/input/by-path/…) turned into the id
    /// of the device it resolves to among the daemon's.
    private func usableBindings() -> [Binding] {
        support.usableBindings(of: file).map { b in
            guard let device = b.device, DeviceSelector(device).isPath else { return b }
            var resolved = b
            resolved.device = devices.first(where: DeviceSelector(device).matches).map(\.id) ?? device
            return resolved
        }
    }

    /// Says once, for each binding whose `device` matches none of the daemon's devices, which there are.
    mutating func devicesChanged(_ devices: [DeviceInfo]) -> [String] {
        self.devices = devices
        matcher.replace(usableBindings())
        var lines: [String] = []
        var missing = Set<Int>()
        for b in file.bindings {
            guard let device = b.device else { continue }
            let selector = DeviceSelector(device)
            let found = devices.contains { d in selector.isPath ? selector.matches(d) : b.acceptsDevice(id: d.id, name: d.name) }
            guard !found else { continue }
            missing.insert(b.index)
            if !saidMissing.contains(b.index) {
                lines.append(
                    "\(b.label): device \"\(device)\" matches none of the daemon's devices (by "
                        + (selector.isPath ? "node, resolving symlinks" : "name or id, as a glob") + "); it reads " + DeviceSelector.list(devices))
            }
        }
        saidMissing = missing
        return lines
    }

    var subscriptionFilter: SubscriptionFilter { file.subscriptionFilter }
    var compositor: CompositorLink? { support.link }

    mutating func appTouchAccessChanged(_ access: AppTouchAccess) -> [String] {
        let notes = file.appTouchNotes(access)
        defer { saidAppTouchNotes = notes }
        if notes == saidAppTouchNotes { return [] }
        if notes.isEmpty && file.needsAppTouches { return [access.description] }
        return notes
    }

    private func action(_ f: BindingFiring) -> Action {
        Action(
            key: f.binding.index, label: f.binding.label, arguments: f.binding.command.arguments,
            environment: f.environment, ifRunning: f.binding.ifRunning, maxPerSecond: f.binding.maxPerSecond,
            chords: f.binding.command.chords)
    }

    mutating func actions(for event: GestureEvent, deviceID: String?, deviceName: String?, happenedAt: Int64) -> [Action] {
        let app = support.link?.focusedApp ?? .unknown
        let firings = matcher.handle(event, deviceID: deviceID, deviceName: deviceName, app: app)
        for (hold, seconds) in matcher.newWaits() { holdDeadlines[hold] = happenedAt + Int64((seconds * 1000).rounded()) }
        if event.phase == .end || event.phase == .cancel {
            holdDeadlines[BindingMatcher.GestureKey(device: deviceID ?? "", id: event.id)] = nil
        }
        return firings.map(action)
    }

    func unmatched(_ event: GestureEvent, deviceID: String?, deviceName: String?) -> String? {
        matcher.nearestMiss(for: event, deviceID: deviceID, deviceName: deviceName, app: support.link?.focusedApp ?? .unknown)?.line
    }

    mutating func dueActions(now t: Int64) -> [Action] {
        let due = holdDeadlines.filter { $0.value <= t }
        var actions: [Action] = []
        for (hold, deadline) in due {
            holdDeadlines[hold] = nil
            guard let f = matcher.heldLongEnough(hold) else { continue }
            var a = action(f)
            a.due = deadline
            a.gesture = "gesture \(hold.id)" + (hold.device.isEmpty ? "" : " on \(hold.device)")
            actions.append(a)
        }
        return actions
    }

    var nextDeadline: Int64? { holdDeadlines.values.min() }

    mutating func forgetGesturesInFlight() {
        matcher.forgetGesturesInFlight()
        holdDeadlines = [:]
    }

    mutating func reload() -> [String]? {
        do {
            let new = try BindingsFile.load(path: file.path, keyNames: XkbKeyNames())
            let before = file.bindings.count
            file = new
            var lines = ["SIGHUP: reloaded \(new.path): \(new.bindings.count) binding\(new.bindings.count == 1 ? "" : "s") (was \(before))"]
            // The compositor as before, or (not needed or not reached before) connected for the new file.
            support = CompositorSupport.connect(for: new, environment: environment, reusing: support.link)
            lines += support.notes(for: new)
            matcher.replace(usableBindings())
            return lines
        } catch {
            return error.diagnostics.map(\.description)
                + ["SIGHUP: \(file.path) is not usable; keeping the \(file.bindings.count) binding\(file.bindings.count == 1 ? "" : "s") loaded before"]
        }
    }

    var wantsCompositor: Bool {
        (!file.appBindings.isEmpty || !file.keyBindings.isEmpty) && !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
    }

    var compositorProblem: String? { support.appProblem ?? support.keysProblem }

    mutating func compositorLost(_ error: CompositorError) -> [String] {
        support = CompositorSupport.lost(error, for: file)
        matcher.replace(usableBindings())
        return ["\(error); the other bindings keep working"] + support.notes(for: file)
    }

    mutating func reconnectCompositor() -> (connected: Bool, lines: [String])? {
        guard wantsCompositor, support.link == nil else { return nil }
        let again = CompositorSupport.connect(for: file, environment: environment)
        guard let link = again.link else { return (false, []) }
        support = again
        matcher.replace(usableBindings())
        return (true, [BindingsSource.connectedLine(link)] + support.notes(for: file))
    }

    /// "connected to the compositor at 'wayland-1': focused app 'foot', virtual keyboard".
    static func connectedLine(_ link: CompositorLink) -> String {
        let c = link.compositor
        return "connected to the compositor at '\(c.displayName)': focused app "
            + (c.offersToplevelManagement ? (c.focusedApp.map { "'\($0)'" } ?? "none") : "unknown (no wlr-foreign-toplevel-management)")
            + (c.offersVirtualKeyboard ? ", virtual keyboard" : ", no virtual keyboard")
    }
}

func currentEnvironment() -> [String: String] {
    var result: [String: String] = [:]
    var p = environ
    while let entry = p.pointee {
        let s = String(cString: entry)
        if let eq = s.firstIndex(of: "=") { result[String(s[..<eq])] = String(s[s.index(after: eq)...]) }
        p += 1
    }
    return result
}

func runBind(_ args: [String]) -> Int32 {
    var path: String?
    var socket: String?
    var check = false
    var verbose = false
    var replay: String?
    var config: String?
    var description: String?
    var arguments = Arguments(args, command: "bind", usage: bindUsage)
    if let status = arguments.read({ (a, option) throws(UsageError) in
        switch option {
        case "--bindings": path = try a.value(of: option)
        case "--socket": socket = try a.value(of: option)
        case "--check": check = true
        case "--verbose", "-v": verbose = true
        case "--replay": replay = try a.value(of: option)
        case "--config": config = try a.value(of: option)
        case "--device": description = try a.value(of: option)
        default: throw a.unknown(option)
        }
    }) {
        return status
    }
    if replay == nil, config != nil || description != nil {
        printError("gesturectl bind: --config and --device go with --replay RECORDING\n\n" + bindUsage)
        return 2
    }
    if replay != nil, !check {
        printError("gesturectl bind: --replay rehearses the bindings offline: give --check too (nothing is run)\n")
        return 2
    }
    guard let file = path ?? BindingsFile.defaultPath(environment: currentEnvironment()) else {
        printError("gesturectl bind: neither XDG_CONFIG_HOME nor HOME is set; give the file with --bindings FILE\n")
        return 2
    }
    let loaded: BindingsFile
    let environment = currentEnvironment()
    do {
        loaded = try BindingsFile.load(path: file, keyNames: XkbKeyNames(), example: installedExample())
    } catch {
        let n = error.diagnostics.count
        printError(error.description + "\n\(shown(file)): \(n) error\(n == 1 ? "" : "s"); the bindings file is not usable\n")
        return 1
    }
    // --check and bind agree: a file without bindings is not usable.
    if loaded.bindings.isEmpty {
        printError("gesturectl bind: \(shown(file)) has no [[binding]] sections; nothing to do\n")
        return 1
    }
    let support = CompositorSupport.connect(for: loaded, environment: environment)
    let missing = programsNotFound(in: loaded, path: environment["PATH"])
    if check, let replay {
        print(loaded.summary)
        return reportingInputErrors("bind") { try rehearse(loaded, recordingPath: replay, configPath: config, devicePath: description) }
    }
    if check {
        print(loaded.summary)
        for note in support.notes(for: loaded) { print("note: " + shown(note)) }
        for note in appTouchNotes(for: loaded, socket: socket) { print("note: " + shown(note)) }
        for warning in missing { print("warning: " + shown(warning)) }
        return 0
    }
    let log = Logger(prefix: "gesturectl bind", verbose: verbose)
    log.info("\(file): \(loaded.bindings.count) binding\(loaded.bindings.count == 1 ? "" : "s")")
    if let link = support.link { log.info(BindingsSource.connectedLine(link)) }
    for note in support.notes(for: loaded) { log.info(note) }
    for warning in missing { log.info(warning) }
    return CommandRunner(source: BindingsSource(file: loaded, support: support, environment: environment), socketPath: socket, log: log).run()
}

/// `bind --check`: when a binding needs app touches, whether the daemon sends them to this user (its
/// `hello` says), and what cannot match when it does not.
private func appTouchNotes(for file: BindingsFile, socket: String?) -> [String] {
    guard file.needsAppTouches else { return [] }
    let client: GestureClient
    do {
        client = try GestureClient.connect(path: socket, timeoutMilliseconds: 2000)
    } catch {
        return [
            "cannot ask the daemon whether it sends this user app touches (\(error)); bindings with region match "
                + "only for a user who may see them (docs/protocol.md, \"Who may set and see what\")"
        ]
    }
    defer { client.close() }
    guard let access = client.appTouchAccess else {
        return ["the daemon at \(client.path) is older than app touches and sends them to every client"]
    }
    return file.appTouchNotes(access)
}

/// `bind --check --replay`: the bindings over the recording's gestures, in the recording's time.
private func rehearse(_ file: BindingsFile, recordingPath: String, configPath: String?, devicePath: String?) throws -> Int32 {
    let recording = try RecordingFile.load(recordingPath, description: devicePath, allowingStandardInput: true)
    let (settings, geometry) = try replaySettings(configPath: configPath, device: recording.device)
    var replay = RecordingReplay(engine: try GestureEngine(device: recording.device, settings: settings, geometry: geometry))
    var gestures: [GestureEvent] = []
    replay.run(recording.events) { outputs in
        for case .gesture(let e) in outputs { gestures.append(e) }
    }
    let origin = recording.events.first?.timeMicroseconds ?? 0
    let entries = BindingRehearsal.run(gestures, bindings: file.bindings, deviceID: "replay", deviceName: recording.device.name)
    print("\(shown(recordingPath)): \(gestures.filter { $0.phase == .end }.count) gesture ends; times from the recording's start")
    var fired = 0
    for entry in entries {
        let at = GestureEventJSON.seconds(entry.timeMicroseconds - origin) + " s"
        switch entry.outcome {
        case .fires(let f):
            fired += 1
            print("  \(at)  gesture \(f.event.id) (\(f.event.kind.rawValue) \(f.event.phase.rawValue), \(f.event.fingers) finger\(f.event.fingers == 1 ? "" : "s")): "
                + "\(shown(f.binding.label)) fires -> \(f.binding.command.described)")
        case .missed(let e, let miss):
            let why = miss.map { "closest was " + $0.line } ?? "no on = \"end\" binding"
            print("  \(at)  gesture \(e.id) (\(e.kind.rawValue) end, \(e.fingers) finger\(e.fingers == 1 ? "" : "s")\(e.committed == true ? "" : ", not committed")): fires nothing; \(why)")
        }
    }
    print("\(fired) firing\(fired == 1 ? "" : "s")")
    return 0
}

/// Where the example bindings file is installed: beside this gesturectl's prefix (bin/../share/doc/gestured),
/// else where the Debian package or `make install` put it; nil when none is there.
func installedExample() -> String? {
    var candidates: [String] = []
    if let exe = realpath("/proc/self/exe", nil) {
        var path = String(cString: exe)
        free(exe)
        for _ in 0..<2 { path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) }
        candidates.append(path + "/share/doc/gestured/bindings.toml")
    }
    candidates += ["/usr/share/doc/gestured/bindings.toml", "/usr/local/share/doc/gestured/bindings.toml"]
    return candidates.first { access($0, R_OK) == 0 }
}

/// A warning for each `command` binding whose program is not found: on PATH (`path`), or at the path it
/// gives. The file stays usable (the program may be installed later), but it would fail when it fires.
func programsNotFound(in file: BindingsFile, path: String?) -> [String] {
    let directories = (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":", omittingEmptySubsequences: false).map { $0.isEmpty ? "." : String($0) }
    var warnings: [String] = []
    for b in file.bindings {
        guard case .argv(let argv) = b.command, let program = argv.first else { continue }
        if program.contains("/") {
            if access(program, X_OK) != 0 { warnings.append("\(b.label): \(program) is not an executable file; this binding would fail when it fires") }
        } else if !directories.contains(where: { access($0 + "/" + program, X_OK) == 0 }) {
            warnings.append("\(b.label): \(program) is not on PATH (\(directories.joined(separator: ":"))); this binding would fail when it fires")
        }
    }
    return warnings
}
