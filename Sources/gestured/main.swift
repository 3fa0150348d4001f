// gestured: the touchscreen gesture daemon. Argument parsing and wiring only; the daemon is GestureDaemon.
import GestureConfig
import GestureDaemon
import GestureProtocol
import Glibc

let usage = """
    usage: gestured [--config FILE] [--socket PATH] [--no-udev]
                    [--replay RECORDING [--device DESC] [--loop] [--speed X] [--passthrough]]...
           gestured --check-config FILE
           gestured --version

    Recognizes touchscreen gestures and publishes them to clients on a Unix socket (docs/protocol.md).

      --config FILE        the configuration (default \(Configuration.defaultPath); built-in
                           defaults when that file does not exist)
      --socket PATH        listen on PATH instead of the configured socket_path
      --no-udev            do not look for touchscreens (only --replay devices)
      --replay RECORDING   add a virtual device that plays a recording (evemu's or `libinput record`'s);
                           may be repeated.
                           Options after it apply to it:
        --device DESC      the device description, when RECORDING holds only events
        --loop             play it again and again
        --speed X          play X times as fast (timestamps, and so velocities, are unchanged)
        --passthrough      as passthrough = true: forward what no system gesture owns to a uinput
                           copy of the recorded device (needs write access to /dev/uinput)
      --check-config FILE  validate FILE, print what it sets, exit 0 when it is usable and 1 when not
      --version            print the version

    Signals: SIGHUP reloads the configuration (a broken file keeps the running one), SIGTERM and SIGINT
    stop the daemon.

    """

/// Prints `message` to standard error and exits.
func fail(_ message: String, status: Int32 = 2) -> Never {
    var text = message
    if !text.hasSuffix("\n") { text += "\n" }
    var bytes = Array(text.utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    exit(status)
}

/// The command line as options, plus the file `--check-config` names.
func parseArguments(_ all: [String]) -> (DaemonOptions, checkConfigPath: String?) {
    var options = DaemonOptions()
    var checkConfigPath: String?
    var arguments = all[...]
    func value(for option: String) -> String {
        guard let v = arguments.popFirst() else { fail("gestured: \(option) needs a value\n\n\(usage)") }
        return v
    }
    while let argument = arguments.popFirst() {
        switch argument {
        case "--help", "-h":
            print(usage, terminator: "")
            exit(0)
        case "--version":
            print("gestured \(ProtocolConstants.daemonVersion) (protocol \(ProtocolConstants.version))")
            exit(0)
        case "--config":
            options.configPath = value(for: argument)
        case "--socket":
            let path = value(for: argument)
            guard !path.isEmpty else { fail("gestured: --socket needs a path; it is empty") }
            options.socketPath = path
        case "--no-udev":
            options.discoverDevices = false
        case "--check-config":
            checkConfigPath = value(for: argument)
        case "--replay":
            options.replays.append(ReplayOptions(recordingPath: value(for: argument)))
        case "--device", "--loop", "--speed", "--passthrough":
            guard !options.replays.isEmpty else { fail("gestured: \(argument) applies to a --replay; put it after one") }
            let last = options.replays.count - 1
            switch argument {
            case "--device":
                options.replays[last].descriptionPath = value(for: argument)
            case "--loop":
                options.replays[last].loop = true
            case "--passthrough":
                options.replays[last].passthrough = true
            default:
                let text = value(for: argument)
                guard let speed = Double(text), ReplayOptions.speedRange.contains(speed) else {
                    fail(
                        "gestured: --speed \(text): give a number from \(ReplayOptions.speedRange.lowerBound) to "
                            + "\(Int(ReplayOptions.speedRange.upperBound))")
                }
                options.replays[last].speed = speed
            }
        default:
            fail("gestured: unknown argument '\(argument)'\n\n\(usage)")
        }
    }
    return (options, checkConfigPath)
}

let (options, checkConfigPath) = parseArguments(Array(CommandLine.arguments.dropFirst()))

if let checkConfigPath {
    let result = Configuration.checkConfig(path: checkConfigPath)
    if result.ok {
        print(result.message)
        exit(0)
    }
    fail(result.message, status: 1)
}

do {
    let daemon = try Daemon(options: options) { (path: String?) throws(ConfigurationLoadError) in
        try DaemonConfiguration.load(path: path)
    }
    // Under systemd the log is our own journal stream: from here on, a stalled journal costs log lines,
    // never the event loop. (Start-up may wait for the journal; nothing is served yet.)
    Log.useNonBlockingJournalStream()
    try daemon.run()
    exit(0)
} catch let error as DaemonStartError {
    Log.error("gestured cannot start: \(error)")
    exit(1)
} catch {
    Log.restoreBlocking()  // the last words must not be dropped
    Log.error("gestured stopped on an error: \(error)")
    exit(1)
}
