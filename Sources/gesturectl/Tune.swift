// `gesturectl tune`: settings from the user's own hands. A guided session asks for swipes from each edge
// the bindings use, a few taps and some scrolling, shows what became of each attempt and why, and
// proposes the settings (GestureCore's TuneProposal) under which all of them are what was meant; with
// --write, into the device's [[device]] section of a file, then the daemon is told to reload.
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
import CommandLineArguments
import PlainText

private let tuneUsage = """
    usage: gesturectl tune [--socket PATH] [--device ID] [--config FILE] [--edges LIST] [--bindings FILE]
                           [--swipes N] [--taps N] [--write FILE]
           gesturectl tune --replay RECORDING [--device DESC] [--config FILE] [--edges LIST] [--bindings FILE]
                           [--swipes N] [--taps N] [--write FILE] [--yes] [--socket PATH]

    A guided session that finds settings for your hands and panel: it asks for a few swipes from each edge
    your bindings use, a few taps and some ordinary scrolling in the middle, shows each attempt as it comes
    (what it became, or why it was not recognized, with the numbers), and at the end proposes the settings
    under which every swipe is recognized and committed and no tap or scrolling becomes an edge swipe, with
    a margin: each edge's zone_mm, edge_swipe.commit_distance_mm, slop_mm and angle_tolerance_degrees, as
    needed, within their valid ranges. It prints how many attempts today's settings and the proposed ones
    recognize, and the TOML to add. When no setting separates the swipes from the scrolling it says so.

    Live (without --replay), it runs in a terminal against the running gestured: it subscribes to the
    daemon's explanations of the device's touches (what the daemon measured and made of each; sent only to
    clients that may see app touches, as for `gesturectl explain`) and takes your touches in order, each
    step's count of them (scrolling: until Enter); the proposal is checked on their measurements. With
    --replay it reads the attempts from a recording (evemu or libinput record) made while following the
    steps: the touch sequences in order, --swipes from each edge in the order of --edges, --taps taps, and
    the rest scrolling; the proposal is checked by replaying the recording with it.

      --replay FILE    the recording (- for standard input)
      --device DESC    with --replay: the device description (evemu N:/I:/P:/B:/A: lines) when RECORDING
                       has only events
      --device ID      live: the device to tune (its id, name or vvvv:pppp; needed when gestured has
                       more than one)
      --config FILE    the settings in force (default: the --write FILE when it exists, else the built-in
                       defaults); [[device]] sections apply by name and vendor:product. Live, give the
                       file gestured reads
      --edges LIST     the edges to tune: left, right, top, bottom (default: the edges the bindings file's
                       edge swipes use; all four without one)
      --bindings FILE  the bindings file whose edges to tune (default: as `gesturectl bind` finds it)
      --swipes N       swipes asked from each edge (default 5)
      --taps N         taps asked (default 3)
      --write FILE     write the proposed settings into FILE's [[device]] section for the device (added
                       when there is none), the rest of the file unchanged; then tell the daemon to reload
      --yes            with --replay: do not wait for keys: go through every step and write without asking
      --socket PATH    the daemon's socket, live and for the reload (default: $GESTURED_SOCKET, else
                       $XDG_RUNTIME_DIR/gestured.sock, else \(ProtocolConstants.defaultSocketPath))

    Keys: Enter goes on to the next step; y writes the settings (with --write); q or Ctrl-C quits.

    """

/// One step of the session: what it asks for and how many attempts (scrolling: whatever is left).
struct TuneStep {
    var intent: TuneIntent
    var count: Int?

    var instruction: String {
        switch intent {
        case .edgeSwipe(let edge): return "swipe in from the \(edge.rawValue) edge, \(count ?? 0) times"
        case .tap: return "tap in the middle, \(count ?? 0) times"
        case .scroll: return "scroll in the middle as you usually do"
        }
    }
}

func runTune(_ args: [String]) -> Int32 {
    var recordingPath: String?
    var devicePath: String?
    var configPath: String?
    var edgesOption: [Edge]?
    var bindingsPath: String?
    var swipes = 5
    var taps = 3
    var writePath: String?
    var assumeYes = false
    var socket: String?
    var arguments = Arguments(args, command: "tune", usage: tuneUsage)
    if let status = arguments.read({ (a, option) throws(UsageError) in
        switch option {
        case "--replay": recordingPath = try a.value(of: option, missing: "\(option) needs a recording")
        case "--device": devicePath = try a.value(of: option, missing: "\(option) needs a file name (with --replay) or a device's id")
        case "--config": configPath = try a.fileName(of: option)
        case "--bindings": bindingsPath = try a.fileName(of: option)
        case "--write": writePath = try a.fileName(of: option)
        case "--socket": socket = try a.path(of: option)
        case "--yes": assumeYes = true
        case "--swipes": swipes = Int(try a.number(of: option, in: 1...20))
        case "--taps": taps = Int(try a.number(of: option, in: 1...20))
        case "--edges":
            var list: [Edge] = []
            for item in try a.value(of: option).split(separator: ",") {
                guard let edge = Edge(rawValue: String(item)), !edge.isCorner else {
                    throw UsageError("--edges '\(item)' is not one of: left, right, top, bottom")
                }
                if !list.contains(edge) { list.append(edge) }
            }
            if list.isEmpty { throw UsageError("--edges needs at least one of: left, right, top, bottom") }
            edgesOption = list
        default: throw a.unknown(option)
        }
    }) {
        return status
    }
    let edges = edgesOption ?? bindingEdges(bindingsPath)
    let steps = edges.map { TuneStep(intent: .edgeSwipe($0), count: swipes) } + [TuneStep(intent: .tap, count: taps), TuneStep(intent: .scroll)]
    let inForce = configPath ?? writePath.flatMap { (try? DeviceSectionEdit.readText(path: $0)) != nil ? $0 : nil }
    let configDescription = inForce.map { "from \(shown($0))" } ?? "the built-in defaults"
    guard let recordingPath else {
        if assumeYes {
            printError("gesturectl tune: --yes goes with --replay: live, the steps wait for your touches and Enter in a terminal\n")
            return 2
        }
        return tuneLive(
            socket: socket, deviceID: devicePath, inForce: inForce, configDescription: configDescription, edges: edges, steps: steps,
            writePath: writePath)
    }
    return reportingInputErrors("tune") {
        let recording = try RecordingFile.load(recordingPath, description: devicePath, allowingStandardInput: true)
        let (settings, geometry) = try replaySettings(configPath: inForce, device: recording.device)
        let tuning = try TuneRecording(device: recording.device, events: recording.events, settings: settings, geometry: geometry)
        var source = TuneRecordingSource(recording: tuning, settings: settings)
        var session = TuneSession(deviceName: recording.device.name, settings: settings, edges: edges, steps: steps)
        print("gesturectl tune: \"\(shown(recording.device.name))\", \(tuning.sizeDescription)")
        let count = source.touches.count
        print("settings in force: \(configDescription); \(count) touch sequence\(count == 1 ? "" : "s") in the recording")
        let terminal = assumeYes ? nil : RawTerminal(fd: 0)
        defer { terminal?.restore() }
        var keys = TuneKeys(terminal: terminal)
        return finishTune(&session, keys: &keys, source: &source, device: recording.device, writePath: writePath, socket: socket)
    }
}

/// Runs the session, then writes what it proposes when asked (--write, y in a terminal).
private func finishTune(
    _ session: inout TuneSession, keys: inout TuneKeys, source: inout some TuneSource, device: DeviceDescription, writePath: String?,
    socket: String?
) -> Int32 {
    switch session.run(keys: &keys, source: &source) {
    case .quit:
        print("\ngesturectl tune: stopped; nothing written")
        return 130
    case .failed(let why):
        print("")
        printError("gesturectl tune: \(why); nothing written\n")
        return 1
    case .done:
        break
    }
    guard let writePath else { return 0 }
    guard !session.proposal.changes.isEmpty else {
        print("Nothing to write to \(shown(writePath)).")
        return 0
    }
    if keys.terminal != nil {
        print("\nWrite these settings to \(shown(writePath))? y: write, q: quit without writing")
        fflush(nil)
        guard keys.waitFor(["y", "Y"]) else {
            print("Nothing written.")
            return 0
        }
    }
    return writeProposal(session.proposal, device: device, to: writePath, socket: socket)
}

/// Live: the running daemon's explanations of one device's touches. Only a client that may see app touches
/// gets them; a refusal is said with the daemon's reason.
private func tuneLive(
    socket: String?, deviceID: String?, inForce: String?, configDescription: String, edges: [Edge], steps: [TuneStep], writePath: String?
) -> Int32 {
    guard let terminal = RawTerminal(fd: 0) else {
        printError("gesturectl tune: live, the steps wait for your touches and Enter: run it in a terminal (or tune a recording with --replay)\n")
        return 2
    }
    defer { terminal.restore() }
    let client: GestureClient
    do {
        client = try GestureClient.connect(path: socket)
    } catch {
        printError("gesturectl tune: no gestured to tune against (\(shown("\(error)"))); start it, or tune a recording with --replay\n")
        return 1
    }
    defer { client.close() }
    let devices = client.hello.devices
    let info: DeviceInfo
    if let deviceID {
        guard let found = devices.first(where: { $0.id == deviceID || $0.name == deviceID || $0.vendorProduct == deviceID }) else {
            let names = devices.map { "\(shown($0.id)) \"\(shown($0.name))\"" }
            printError("gesturectl tune: gestured has no device \(shown(deviceID)); it has: \(names.isEmpty ? "none" : names.joined(separator: ", "))\n")
            return 1
        }
        info = found
    } else {
        guard devices.count == 1, let only = devices.first else {
            let names = devices.map { "\(shown($0.id)) \"\(shown($0.name))\"" }
            printError(
                devices.isEmpty
                    ? "gesturectl tune: gestured has no touchscreen now\n"
                    : "gesturectl tune: gestured has \(devices.count) devices: name the one to tune with --device (\(names.joined(separator: ", ")))\n")
            return 1
        }
        info = only
    }
    let parts = info.vendorProduct.split(separator: ":").map { UInt16($0, radix: 16) ?? 0 }
    let device = DeviceDescription(name: info.name, vendor: parts.first ?? 0, product: parts.count > 1 ? parts[1] : 0)
    return reportingInputErrors("tune") {
        let (settings, _) = try replaySettings(configPath: inForce, device: device)
        if let why = try subscribeToExplanations(client, devices: [info.id]) {
            printError(
                "gesturectl tune: live tuning needs the daemon's explanations of your touches, which it sends only to clients that may "
                    + "see app touches (they show where every finger lands)\(why); tune a recording with --replay instead\n")
            return 1
        }
        let size = info.size.map { ($0.widthMM, $0.heightMM) } ?? (0, 0)
        var source = TuneLiveSource(client: client, deviceID: info.id, fallbackSizeMM: size)
        var session = TuneSession(deviceName: info.name, settings: settings, edges: edges, steps: steps)
        print("gesturectl tune: \"\(shown(info.name))\" (\(shown(info.id))), live from gestured at \(shown(client.path))")
        print("settings in force: \(configDescription) (as gestured reads them: give --config the file it reads)")
        var keys = TuneKeys(terminal: terminal)
        return finishTune(&session, keys: &keys, source: &source, device: device, writePath: writePath, socket: socket)
    }
}

/// The sides the bindings file's edge swipes come from (a corner's two sides); all four when the file
/// names none, has no edge swipes or cannot be read (said on standard error).
private func bindingEdges(_ explicit: String?) -> [Edge] {
    guard let path = explicit ?? BindingsFile.defaultPath(environment: currentEnvironment()) else { return Edge.sides }
    guard let file = try? BindingsFile.load(path: path) else {
        printError("gesturectl tune: no usable bindings file at \(shown(path)); tuning every edge (choose with --edges)\n")
        return Edge.sides
    }
    guard let edges = file.subscriptionFilter.edges, !edges.isEmpty else { return Edge.sides }
    var sides = Set<Edge>()
    for e in edges {
        if let (h, v) = e.sidesOfCorner { sides.formUnion([h, v]) } else { sides.insert(e) }
    }
    return Edge.sides.filter(sides.contains)
}

/// Keys from the terminal, read in gesturectl's poll loop style (SystemCall.poll on standard input and,
/// live, the daemon's socket; nothing else blocking); none when there is no terminal (--yes, or input
/// that is not one).
struct TuneKeys {
    let terminal: RawTerminal?

    /// What ended a wait.
    enum Wait {
        /// One of the accepted keys.
        case key
        /// q, Ctrl-C, Ctrl-D or the end of input.
        case quit
        /// `ready` said so (the socket brought what the caller waits for).
        case ready
    }

    /// Waits for a key: true for one of `accepted` (Enter is "\n"), false for q, Ctrl-C, Ctrl-D or the
    /// end of input; other keys are ignored. Without a terminal, true at once.
    mutating func waitFor(_ accepted: Set<Character>) -> Bool {
        waitFor(accepted, watching: nil) { false } == .key
    }

    /// As `waitFor`, and while it waits, `ready` is asked whenever `socket` is readable (and once first):
    /// true ends the wait.
    mutating func waitFor(_ accepted: Set<Character>, watching socket: Int32?, ready: () -> Bool) -> Wait {
        if socket != nil, ready() { return .ready }
        guard let terminal else { return .key }
        var fds = [pollfd(fd: terminal.fd, events: Int16(POLLIN), revents: 0)]
        if let socket { fds.append(pollfd(fd: socket, events: Int16(POLLIN), revents: 0)) }
        var byte: UInt8 = 0
        while true {
            for i in fds.indices { fds[i].revents = 0 }
            do {
                guard try SystemCall.poll(&fds, timeoutMilliseconds: -1) > 0 else { continue }
            } catch {
                return .quit
            }
            if fds.count > 1, fds[1].revents != 0, ready() { return .ready }
            guard fds[0].revents != 0 else { continue }
            let n = Glibc.read(terminal.fd, &byte, 1)
            if n == 0 { return .quit }
            if n < 0 { if errno == EINTR || errno == EAGAIN { continue } else { return .quit } }
            let c = Character(Unicode.Scalar(byte == 0x0d ? 0x0a : byte))
            if accepted.contains(c) { return .key }
            if c == "q" || c == "Q" || byte == 0x03 || byte == 0x04 { return .quit }
        }
    }
}

/// What a source gives a step that asks for the next touch.
enum TuneNext {
    case touch(TuneTouch)
    /// The user ended an open-ended step (scrolling) with Enter.
    case stepDone
    /// No more touches (the recording ends).
    case ended
    case quit
    /// The live session cannot go on: why.
    case failed(String)
}

/// Where the attempts come from: a recording, or the running daemon.
protocol TuneSource {
    var screenSizeMM: (width: Double, height: Double) { get }
    /// Whether a step takes a fixed number of touches whatever they are (a recording made following the
    /// steps, touch by touch), rather than waiting until it has its count of attempts (live).
    var positional: Bool { get }
    /// Touches left (a recording); nil live.
    var remaining: Int? { get }
    /// "checked by replaying the recording".
    var checkedBy: String { get }
    /// Said when the touches end before a step has its count.
    var endText: String { get }
    /// The next touch, in order; `openEnded`: the step takes touches until Enter.
    mutating func next(keys: inout TuneKeys, openEnded: Bool) -> TuneNext
    /// Waits for Enter between steps, touches that come meanwhile kept in order for the next step.
    mutating func waitForEnter(keys: inout TuneKeys) -> TuneNext
    /// What the first `count` touches become under `settings`.
    func outcomes(settings: RecognizerSettings, count: Int) -> [TuneOutcome]
}

/// The touch sequences of a recording, replayed under the settings in force; proposals checked by
/// replaying it again.
struct TuneRecordingSource: TuneSource {
    let recording: TuneRecording
    let touches: [TuneTouch]
    var index = 0

    init(recording: TuneRecording, settings: RecognizerSettings) {
        self.recording = recording
        let measurements = recording.measurements(settings: settings)
        let (today, reasons) = recording.replayed(settings: settings)
        touches = measurements.indices.map { TuneTouch(measurement: measurements[$0], outcome: today[$0], reasons: reasons[$0]) }
    }

    var screenSizeMM: (width: Double, height: Double) { recording.screenSizeMM }
    var positional: Bool { true }
    var remaining: Int? { touches.count - index }
    var checkedBy: String { "checked by replaying the recording" }
    var endText: String { "the recording ends" }

    mutating func next(keys: inout TuneKeys, openEnded: Bool) -> TuneNext {
        guard index < touches.count else { return .ended }
        index += 1
        return .touch(touches[index - 1])
    }

    mutating func waitForEnter(keys: inout TuneKeys) -> TuneNext { keys.waitFor(["\n"]) ? .stepDone : .quit }

    func outcomes(settings: RecognizerSettings, count: Int) -> [TuneOutcome] { Array(recording.outcomes(settings: settings).prefix(count)) }
}

/// The running daemon's explanations of one device's touches (`Explanation.touches`, what the daemon
/// measured and made of each), taken in order; proposals checked on the measurements (TunePrediction).
struct TuneLiveSource: TuneSource {
    let client: GestureClient
    let deviceID: String
    let fallbackSizeMM: (width: Double, height: Double)
    /// The screen as the engine sees it, from the first landing (its distances from both sides).
    var seenSizeMM: (width: Double, height: Double)?
    /// Touches come but not yet taken, in order.
    var queue: [TuneTouch] = []
    var failure: String?
    /// The most touches kept waiting for a step.
    static let queueLimit = 1024

    var screenSizeMM: (width: Double, height: Double) { seenSizeMM ?? fallbackSizeMM }
    var positional: Bool { false }
    var remaining: Int? { nil }
    var checkedBy: String { "as the measurements of your touches predict" }
    var endText: String { "the daemon sends no more" }

    /// Reads what the daemon sent, without waiting: explanations of the device queued as touches.
    /// True when the caller has something: a touch, or a failure.
    mutating func drain() -> Bool {
        do {
            while failure == nil, let message = try client.next(timeoutMilliseconds: 0) { take(message) }
        } catch GestureClientError.closed {
            failure = failure ?? "the daemon closed the connection"
        } catch {
            failure = failure ?? "\(error)"
        }
        return failure != nil || !queue.isEmpty
    }

    private mutating func take(_ message: ServerMessage) {
        switch message {
        case .explanation(let x, let device):
            guard device == nil || device == deviceID else { return }
            if x.touches.isEmpty && !x.fingers.isEmpty {
                failure = "this gestured's explanations carry no measurements of the touches (it is older than this gesturectl); update it"
                return
            }
            if seenSizeMM == nil, let f = x.fingers.first { seenSizeMM = (f.fromLeftMM + f.fromRightMM, f.fromTopMM + f.fromBottomMM) }
            queue += TuneTouch.touches(of: x)
            if queue.count > TuneLiveSource.queueLimit {
                failure = "more than \(TuneLiveSource.queueLimit) touches came while a step waited for Enter"
            }
        case .appTouchAccessChanged(let access) where !access.isGranted:
            failure = "the daemon stopped sending explanations: \(shown(access.description))"
        case .error(let e):
            printError("gesturectl tune: the daemon says: \(shown(e.message))\n")
        default:
            break
        }
    }

    mutating func next(keys: inout TuneKeys, openEnded: Bool) -> TuneNext {
        while true {
            if let failure { return .failed(failure) }
            if !queue.isEmpty { return .touch(queue.removeFirst()) }
            let accepted: Set<Character> = openEnded ? ["\n"] : []
            switch keys.waitFor(accepted, watching: client.fd, ready: { drain() }) {
            case .key: return .stepDone
            case .quit: return .quit
            case .ready: continue
            }
        }
    }

    mutating func waitForEnter(keys: inout TuneKeys) -> TuneNext {
        // Touches that come meanwhile are queued; only a failure ends the wait early.
        switch keys.waitFor(["\n"], watching: client.fd, ready: { drain() && failure != nil }) {
        case .key: return .stepDone
        case .quit: return .quit
        case .ready: return .failed(failure ?? "")
        }
    }

    func outcomes(settings: RecognizerSettings, count: Int) -> [TuneOutcome] { [] }
}

/// The guided session: each step's touches taken in order from the source, each shown as it comes with
/// what today's settings made of it, then the proposal and what the proposed settings make of the same
/// touches.
struct TuneSession {
    let deviceName: String
    let settings: RecognizerSettings
    let edges: [Edge]
    let steps: [TuneStep]
    var attempts: [TuneAttempt] = []
    /// What today's settings made of each attempt.
    var today: [TuneOutcome] = []
    var proposal = TuneProposal(edges: [], attempts: [], current: RecognizerSettings(), screenSizeMM: (0, 0))
    /// The fewest swipes from an edge its zone is tuned from (or the count asked for, when fewer).
    static let minimumSwipes = 3

    init(deviceName: String, settings: RecognizerSettings, edges: [Edge], steps: [TuneStep]) {
        self.deviceName = deviceName
        self.settings = settings
        self.edges = edges
        self.steps = steps
    }

    enum End {
        case done
        case quit
        case failed(String)
    }

    /// Runs the steps, then proposes.
    mutating func run(keys: inout TuneKeys, source: inout some TuneSource) -> End {
        let prediction = TunePrediction(settings: settings, screenSizeMM: source.screenSizeMM)
        for (index, step) in steps.enumerated() {
            print("\nStep \(index + 1) of \(steps.count): \(step.instruction)")
            let wanted = step.count ?? source.remaining
            if step.count == nil && source.remaining == nil { print("Enter: done   q: quit") }
            fflush(nil)
            var taken = 0
            // Touches the step took, attempts or not: a recording's steps are so many touches each.
            var seen = 0
            steps: while wanted.map({ (source.positional ? seen : taken) < $0 }) ?? true {
                switch source.next(keys: &keys, openEnded: step.count == nil) {
                case .touch(let touch):
                    seen += 1
                    if let why = step.intent.leftOut(touch, settings: settings) {
                        // Not an attempt at what the step asks for (a tap during the swipes): not counted.
                        var line = "  left out: \(why); not counted as a \(step.intent)"
                        if !source.positional, let wanted { line += " (\(taken) of \(wanted) so far: \(wanted - taken) more, please)" }
                        print(line)
                        fflush(nil)
                        continue
                    }
                    taken += 1
                    let attempt = TuneAttempt(intent: step.intent, number: taken, measurement: touch.measurement)
                    attempts.append(attempt)
                    today.append(touch.outcome)
                    let line = prediction.report(attempt, touch.outcome, reasons: touch.reasons)
                    print("  \(taken)\(wanted.map { " of \($0)" } ?? ""): \(line)")
                    fflush(nil)
                case .stepDone: break steps
                case .ended:
                    if let wanted { print("  \(source.endText): \(taken) of \(wanted)") }
                    break steps
                case .quit: return .quit
                case .failed(let why): return .failed(why)
                }
            }
            print(progressLine(upTo: index))
            if keys.terminal != nil, index + 1 < steps.count {
                print("Enter: next step   q: quit")
                fflush(nil)
                switch source.waitForEnter(keys: &keys) {
                case .quit: return .quit
                case .failed(let why): return .failed(why)
                default: break
                }
            }
            fflush(nil)
        }
        // An edge with too few swipes to learn from is left as it is, and said.
        var tuned: [Edge] = []
        for step in steps {
            guard case .edgeSwipe(let edge) = step.intent, let count = step.count else { continue }
            let got = attempts.filter { $0.intent == step.intent }.count
            let needed = min(TuneSession.minimumSwipes, count)
            if got >= needed || got == 0 {
                tuned.append(edge)
            } else {
                print(
                    "\nToo few \(edge.rawValue) edge swipes to tune that edge from (\(got); at least \(needed)): it is left as it is. "
                        + "Run gesturectl tune again and swipe in from the \(edge.rawValue) edge \(count) times.")
            }
        }
        proposal = TuneProposal(edges: tuned, attempts: attempts.filter { a in
            if case .edgeSwipe(let edge) = a.intent { return tuned.contains(edge) } else { return true }
        }, current: settings, screenSizeMM: source.screenSizeMM)
        report(source: source)
        fflush(nil)
        return .done
    }

    /// "progress: [#####.....] left 5/5  right 0/5  taps 0/3  scrolling 0"
    func progressLine(upTo index: Int) -> String {
        var parts: [String] = []
        var done = 0
        var total = 0
        for (i, step) in steps.enumerated() {
            let got = attempts.filter { $0.intent == step.intent }.count
            let name: String
            switch step.intent {
            case .edgeSwipe(let edge): name = edge.rawValue
            case .tap: name = "taps"
            case .scroll: name = "scrolling"
            }
            if let count = step.count {
                parts.append("\(name) \(got)/\(count)")
                total += count
                done += min(got, count)
            } else {
                parts.append("\(name) \(i <= index ? String(got) : "-")")
                total += 1
                done += i <= index ? 1 : 0
            }
        }
        let width = 20
        let filled = total == 0 ? width : done * width / total
        return "progress: [" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] "
            + parts.joined(separator: "  ")
    }

    /// How many attempts of each kind `outcomes` (one per attempt) fulfil: "10 of 10 edge swipes committed, ...".
    func tally(_ outcomes: [TuneOutcome]) -> (fulfilled: Int, total: Int, text: String) {
        var parts: [String] = []
        var fulfilled = 0
        for (label, matches) in [
            ("edge swipes recognized and committed", { (i: TuneIntent) -> Bool in if case .edgeSwipe = i { return true } else { return false } }),
            ("taps", { $0 == .tap }), ("scrolls no edge swipe", { $0 == .scroll }),
        ] as [(String, (TuneIntent) -> Bool)] {
            let mine = attempts.indices.filter { matches(attempts[$0].intent) }
            let good = mine.filter { $0 < outcomes.count && outcomes[$0].fulfils(attempts[$0].intent) }.count
            fulfilled += good
            parts.append("\(good) of \(mine.count) \(label)")
        }
        return (fulfilled, attempts.count, parts.joined(separator: ", "))
    }

    func report(source: some TuneSource) {
        let before = tally(today)
        print("\nToday's settings: \(before.fulfilled) of \(before.total) attempts as meant (\(before.text))")
        for problem in proposal.problems { print("Not settled: \(problem)") }
        if proposal.changes.isEmpty {
            print(before.fulfilled == before.total ? "Today's settings suit your attempts: nothing to change." : "No change of the settings the tuner sets helps.")
            return
        }
        var proposed = source.outcomes(settings: proposal.settings, count: attempts.count)
        if proposed.count != attempts.count {
            let prediction = TunePrediction(settings: proposal.settings, screenSizeMM: source.screenSizeMM)
            proposed = attempts.map { prediction.outcome($0.measurement) }
        }
        let after = tally(proposed)
        print("Proposed settings: \(after.fulfilled) of \(after.total) attempts as meant (\(after.text)), \(source.checkedBy)")
        print("\nProposed for \"\(shown(deviceName))\":")
        for change in proposal.changes {
            print("  \(change.key): \(formatNumber(change.from)) -> \(formatNumber(change.to))  (\(change.reason))")
        }
        print("\nThe TOML to add (in the [[device]] section for this device):")
        print("[[device]]")
        print("match_name = \(DeviceSectionEdit.tomlString(DeviceSectionEdit.globEscaped(deviceName)))")
        for change in proposal.changes { print("\(change.key) = \(formatNumber(change.to))") }
    }
}

/// Writes the proposal into `path` (`DeviceSectionEdit.editFile`: kept whole, read back, through a link to
/// its target, owner and mode kept, locked against a second edit) and asks the daemon over its socket to
/// reload (the `reload` request, root's and the daemon's own user's), reporting its answer: applied, the
/// file's problems, or that this user may not ask. It never signals a process: the socket's peer may be
/// systemd (socket activation) or a process that reused a pid.
private func writeProposal(_ proposal: TuneProposal, device: DeviceDescription, to path: String, socket: String?) -> Int32 {
    let written: String
    do {
        var section: (added: Bool, line: Int) = (false, 0)
        written = try DeviceSectionEdit.editFile(path) { original throws(ConfigError) in
            let edit = try DeviceSectionEdit(
                text: original, fileName: path, device: device, paths: [], values: proposal.changes.map { ($0.key, $0.to) },
                expected: proposal.settings)
            section = (edit.addedSection, edit.sectionLine)
            return edit.text
        }
        let through = written == path ? "" : " (through the link \(shown(path)))"
        print("Wrote \(shown(written))\(through) (\(section.added ? "a new [[device]] section at line" : "the [[device]] section at line") \(section.line)).")
    } catch {
        switch error {
        case .config(let problems): printError("gesturectl tune: \(problems)\n")
        case .system, .busy: printError("gesturectl tune: cannot write \(shown(path)): \(error)\n")
        }
        return 1
    }
    let advice = "run `systemctl reload gestured` (as root) if it reads \(shown(written))"
    let client: GestureClient
    do {
        client = try GestureClient.connect(path: socket)
    } catch {
        print("No gestured answers (\(shown("\(error)"))): the settings apply when it starts; \(advice).")
        return 0
    }
    defer { client.close() }
    do {
        let reply = try client.request(.reload, timeoutMilliseconds: 10_000)
        if case .reloaded(_, let daemonPath) = reply {
            if daemonPath == written || daemonPath == path {
                print("gestured reloaded \(shown(daemonPath)): the new settings are in force.")
            } else {
                print("gestured reloaded, but it reads \(shown(daemonPath)), not \(shown(written)): the settings apply to a gestured started with --config \(shown(written)).")
            }
        } else {
            print("gestured answered the reload with \(shown(reply.encoded)); \(advice).")
        }
    } catch {
        guard case .daemon(let refusal) = error else {
            print("Cannot ask gestured to reload (\(shown("\(error)"))): \(advice).")
            return 0
        }
        switch refusal.code {
        case .notPermitted:
            print("gestured did not reload: \(shown(refusal.message)); \(advice).")
        case .reloadFailed:
            printError("gesturectl tune: gestured did not reload: \(shown(refusal.message))\n")
            for problem in refusal.problems { printError("  \(shown(problem))\n") }
            return 1
        default:
            print("gestured did not reload (\(shown(refusal.description))); \(advice).")
        }
    }
    return 0
}
