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
import RecordingFiles
import SystemCalls
import CommandLineArguments

private let tuneUsage = """
    usage: gesturectl tune --replay RECORDING [--device DESC] [--config FILE] [--edges LIST] [--bindings FILE]
                           [--swipes N] [--taps N] [--write FILE] [--yes] [--socket PATH]

    A guided session that finds settings for your hands and panel: it asks for a few swipes from each edge
    your bindings use, a few taps and some ordinary scrolling in the middle, shows each attempt as it comes
    (what it became, or why it was not recognized, with the numbers), and at the end proposes the settings
    under which every swipe is recognized and committed and no tap or scrolling becomes an edge swipe, with
    a margin: each edge's zone_mm, edge_swipe.commit_distance_mm, slop_mm and angle_tolerance_degrees, as
    needed, within their valid ranges. It prints how many attempts today's settings and the proposed ones
    recognize, and the TOML to add. When no setting separates the swipes from the scrolling it says so.

    --replay reads the attempts from a recording (evemu or libinput record) made while following the
    steps: the touch sequences in order, --swipes from each edge in the order of --edges, --taps taps, and
    the rest scrolling; the proposal is checked by replaying the recording with it. Live tuning against
    the running daemon needs the daemon's explanation stream, which this version does not have yet.

      --replay FILE    the recording (- for standard input)
      --device DESC    the device description (evemu N:/I:/P:/B:/A: lines) when RECORDING has only events
      --config FILE    the settings in force (default: the --write FILE when it exists, else the built-in
                       defaults); [[device]] sections apply by name and vendor:product
      --edges LIST     the edges to tune: left, right, top, bottom (default: the edges the bindings file's
                       edge swipes use; all four without one)
      --bindings FILE  the bindings file whose edges to tune (default: as `gesturectl bind` finds it)
      --swipes N       swipes asked from each edge (default 5)
      --taps N         taps asked (default 3)
      --write FILE     write the proposed settings into FILE's [[device]] section for the device (added
                       when there is none), the rest of the file unchanged; then tell the daemon to reload
      --yes            do not wait for keys: go through every step and write without asking
      --socket PATH    the daemon's socket, for the reload (default: $GESTURED_SOCKET, else
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
        case "--device": devicePath = try a.value(of: option, missing: "\(option) needs a file name")
        case "--config": configPath = try a.value(of: option, missing: "\(option) needs a file name")
        case "--bindings": bindingsPath = try a.value(of: option, missing: "\(option) needs a file name")
        case "--write": writePath = try a.value(of: option, missing: "\(option) needs a file name")
        case "--socket": socket = try a.value(of: option, missing: "\(option) needs a path")
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
    guard let recordingPath else {
        printError(
            "gesturectl tune: live tuning needs the daemon's explanation stream, which this gestured does not have yet; "
                + "record the session instead (evemu-record /dev/input/eventN > tune.evemu, following the steps of --help) "
                + "and tune on it with --replay tune.evemu\n")
        return 2
    }
    let edges = edgesOption ?? bindingEdges(bindingsPath)
    return reportingInputErrors("tune") {
        let recording = try RecordingFile.load(recordingPath, description: devicePath, allowingStandardInput: true)
        let inForce = configPath ?? writePath.flatMap { (try? DeviceSectionEdit.readText(path: $0)) != nil ? $0 : nil }
        let (settings, geometry) = try replaySettings(configPath: inForce, device: recording.device)
        let tuning = try TuneRecording(device: recording.device, events: recording.events, settings: settings, geometry: geometry)
        var session = TuneSession(
            recording: tuning, deviceName: recording.device.name, settings: settings, edges: edges,
            steps: edges.map { TuneStep(intent: .edgeSwipe($0), count: swipes) } + [TuneStep(intent: .tap, count: taps), TuneStep(intent: .scroll)],
            configDescription: inForce.map { "from \(shown($0))" } ?? "the built-in defaults")
        let terminal = assumeYes ? nil : RawTerminal(fd: 0)
        defer { terminal?.restore() }
        var keys = TuneKeys(terminal: terminal)
        guard session.run(keys: &keys) else {
            print("\ngesturectl tune: stopped; nothing written")
            return 130
        }
        guard let writePath else { return 0 }
        guard !session.proposal.changes.isEmpty else {
            print("Nothing to write to \(shown(writePath)).")
            return 0
        }
        if terminal != nil {
            print("\nWrite these settings to \(shown(writePath))? y: write, q: quit without writing")
            fflush(nil)
            guard keys.waitFor(["y", "Y"]) else {
                print("Nothing written.")
                return 0
            }
        }
        return writeProposal(session.proposal, device: recording.device, to: writePath, socket: socket)
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

/// Keys from the terminal, read in gesturectl's poll loop style (SystemCall.poll on standard input,
/// nothing else blocking); none when there is no terminal (--yes, or input that is not one).
struct TuneKeys {
    let terminal: RawTerminal?

    /// Waits for a key: true for one of `accepted` (Enter is "\n"), false for q, Ctrl-C, Ctrl-D or the
    /// end of input; other keys are ignored. Without a terminal, true at once.
    mutating func waitFor(_ accepted: Set<Character>) -> Bool {
        guard let terminal else { return true }
        var fds = [pollfd(fd: terminal.fd, events: Int16(POLLIN), revents: 0)]
        var byte: UInt8 = 0
        while true {
            fds[0].revents = 0
            do {
                guard try SystemCall.poll(&fds, timeoutMilliseconds: -1) > 0 else { continue }
            } catch {
                return false
            }
            let n = Glibc.read(terminal.fd, &byte, 1)
            if n == 0 { return false }
            if n < 0 { if errno == EINTR || errno == EAGAIN { continue } else { return false } }
            let c = Character(Unicode.Scalar(byte == 0x0d ? 0x0a : byte))
            if accepted.contains(c) { return true }
            if c == "q" || c == "Q" || byte == 0x03 || byte == 0x04 { return false }
        }
    }
}

/// The session over a recording: its touch sequences taken in order by the steps, each shown as it comes
/// with what today's settings made of it, then the proposal and what the proposed settings make of the
/// same sequences (replayed exactly).
struct TuneSession {
    let recording: TuneRecording
    let deviceName: String
    let settings: RecognizerSettings
    let edges: [Edge]
    let steps: [TuneStep]
    let configDescription: String
    var attempts: [TuneAttempt] = []
    /// The index of each attempt's touch sequence in the recording.
    var sequenceOf: [Int] = []
    var proposal = TuneProposal(edges: [], attempts: [], current: RecognizerSettings(), screenSizeMM: (0, 0))

    init(
        recording: TuneRecording, deviceName: String, settings: RecognizerSettings, edges: [Edge], steps: [TuneStep], configDescription: String
    ) {
        self.recording = recording
        self.deviceName = deviceName
        self.settings = settings
        self.edges = edges
        self.steps = steps
        self.configDescription = configDescription
    }

    /// Runs the steps; false when the user quit.
    mutating func run(keys: inout TuneKeys) -> Bool {
        let measurements = recording.measurements(settings: settings)
        let (today, reasons) = recording.replayed(settings: settings)
        let prediction = TunePrediction(settings: settings, screenSizeMM: recording.screenSizeMM)
        print("gesturectl tune: \"\(shown(deviceName))\", \(recording.sizeDescription)")
        print("settings in force: \(configDescription); \(measurements.count) touch sequence\(measurements.count == 1 ? "" : "s") in the recording")
        var next = 0
        for (index, step) in steps.enumerated() {
            print("\nStep \(index + 1) of \(steps.count): \(step.instruction)")
            let wanted = step.count ?? max(0, measurements.count - next)
            var taken = 0
            while taken < wanted, next < measurements.count {
                taken += 1
                let attempt = TuneAttempt(intent: step.intent, number: taken, measurement: measurements[next])
                attempts.append(attempt)
                sequenceOf.append(next)
                let line = prediction.report(attempt, today[next], reasons: reasons[next])
                print("  \(taken) of \(step.count.map(String.init) ?? String(wanted)): \(line)")
                next += 1
            }
            if taken < wanted { print("  the recording ends: \(taken) of \(wanted)") }
            print(progressLine(upTo: index))
            if keys.terminal != nil, index + 1 < steps.count {
                print("Enter: next step   q: quit")
                fflush(nil)
                guard keys.waitFor(["\n"]) else { return false }
            }
            fflush(nil)
        }
        proposal = TuneProposal(edges: edges, attempts: attempts, current: settings, screenSizeMM: recording.screenSizeMM)
        report(today: today)
        fflush(nil)
        return true
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

    /// How many attempts of each kind `outcomes` (by sequence) fulfil: "10 of 10 edge swipes committed, ...".
    func tally(_ outcomes: [TuneOutcome]) -> (fulfilled: Int, total: Int, text: String) {
        var parts: [String] = []
        var fulfilled = 0
        for (label, matches) in [
            ("edge swipes recognized and committed", { (i: TuneIntent) -> Bool in if case .edgeSwipe = i { return true } else { return false } }),
            ("taps", { $0 == .tap }), ("scrolls no edge swipe", { $0 == .scroll }),
        ] as [(String, (TuneIntent) -> Bool)] {
            let mine = attempts.indices.filter { matches(attempts[$0].intent) }
            let good = mine.filter { outcomes[sequenceOf[$0]].fulfils(attempts[$0].intent) }.count
            fulfilled += good
            parts.append("\(good) of \(mine.count) \(label)")
        }
        return (fulfilled, attempts.count, parts.joined(separator: ", "))
    }

    func report(today: [TuneOutcome]) {
        let before = tally(today)
        print("\nToday's settings: \(before.fulfilled) of \(before.total) attempts as meant (\(before.text))")
        for problem in proposal.problems { print("Not settled: \(problem)") }
        if proposal.changes.isEmpty {
            print(before.fulfilled == before.total ? "Today's settings suit your attempts: nothing to change." : "No change of the settings the tuner sets helps.")
            return
        }
        let after = tally(recording.outcomes(settings: proposal.settings))
        print("Proposed settings: \(after.fulfilled) of \(after.total) attempts as meant (\(after.text)), checked by replaying the recording")
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

/// Writes the proposal into `path` (DeviceSectionEdit: kept whole, read back) and tells the daemon to
/// reload: SIGHUP to the process at the other end of its socket (what `systemctl reload gestured`
/// sends); one that is not ours to signal, or no daemon, is said with what to run.
private func writeProposal(_ proposal: TuneProposal, device: DeviceDescription, to path: String, socket: String?) -> Int32 {
    do {
        let original = try DeviceSectionEdit.readText(path: path) ?? ""
        let edit = try DeviceSectionEdit(
            text: original, fileName: path, device: device, paths: [], values: proposal.changes.map { ($0.key, $0.to) },
            expected: proposal.settings)
        try DeviceSectionEdit.replaceFile(path, with: edit.text)
        print("Wrote \(shown(path)) (\(edit.addedSection ? "a new [[device]] section at line" : "the [[device]] section at line") \(edit.sectionLine)).")
    } catch let error as ConfigError {
        printError("gesturectl tune: \(error)\n")
        return 1
    } catch {
        printError("gesturectl tune: cannot write \(shown(path)): \(error)\n")
        return 1
    }
    let advice = "run `systemctl reload gestured` (or send gestured SIGHUP) if it reads \(shown(path))"
    let client: GestureClient
    do {
        client = try GestureClient.connect(path: socket)
    } catch {
        print("No gestured answers (\(shown("\(error)"))): the settings apply when it starts; \(advice).")
        return 0
    }
    defer { client.close() }
    do {
        let peer = try SystemCall.peerCredentials(client.fd)
        try SystemCall.kill(peer.pid, SIGHUP)
        print("Told gestured (pid \(peer.pid)) to reload; it applies the file if it reads \(shown(path)) (gestured --config).")
    } catch {
        print("Cannot tell gestured to reload (\(error)): \(advice).")
    }
    return 0
}
