// gestured: the touchscreen gesture daemon. Argument parsing and wiring only; the daemon is GestureDaemon.
import CommandLineArguments
import GestureConfig
import GestureDaemon
import GestureProtocol
import Glibc

let usage = """
    usage: gestured [--config FILE] [--socket PATH] [--no-udev] [--seats-directory DIR]
                    [--replay RECORDING [--device DESC] [--loop] [--speed X] [--passthrough] [--pen PEN]...
                     [--wait-for-explanations]]...
           gestured --check-config FILE [--no-udev]
           gestured --version

    Recognizes touchscreen gestures and publishes them to clients on a Unix socket (docs/protocol.md).

      --config FILE        the configuration (default \(Configuration.defaultPath); built-in
                           defaults when that file does not exist)
      --socket PATH        listen on PATH instead of the configured socket_path
      --no-udev            do not look for touchscreens (only --replay devices)
      --seats-directory DIR  where logind's seat state is (default /run/systemd/seats): whose session
                           is active on each seat decides who may see app touches
      --replay RECORDING   add a virtual device that plays a recording (evemu's or `libinput record`'s);
                           may be repeated.
                           Options after it apply to it:
        --device DESC      the device description, when RECORDING holds only events
        --loop             play it again and again
        --speed X          play X times as fast (timestamps, and so velocities, are unchanged)
        --passthrough      as passthrough = true: forward what no system gesture owns to a uinput
                           copy of the recorded device (needs write access to /dev/uinput)
        --pen PEN          a recording of the panel's pen on RECORDING's clock: no gestures while it
                           is in proximity and 0.5 s after (pen_arbitration); may be repeated
        --wait-for-explanations  hold the replay until a client subscribes to explanations
                           (gesturectl tune or explain), which then sees it from its first touch
      --check-config FILE  validate FILE, print what it sets (its [[device]] and [[exclusion]]
                           sections, keys that change nothing) and the values in force (edge zones and
                           the key deciding each, slop, angle tolerance, exclusions) for a device no
                           section matches, for each section, and for each touchscreen udev knows here
                           (not with --no-udev); exit 0 when it is usable and 1 when not
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

/// The command line as options, plus the file `--check-config` names (CommandLineArguments, the reader
/// gesturectl and the tools use too).
func parseArguments(_ all: [String]) -> (DaemonOptions, checkConfigPath: String?) {
    var options = DaemonOptions()
    var checkConfigPath: String?
    var arguments = Arguments(all, program: "gestured", usage: usage)
    do {
        let help = try arguments.parse { (arguments, argument) throws(UsageError) in
            switch argument {
            case "--version":
                print("gestured \(ProtocolConstants.daemonVersion) (protocol \(ProtocolConstants.version))")
                exit(0)
            case "--config":
                options.configPath = try arguments.value(of: argument)
            case "--socket":
                let path = try arguments.value(of: argument)
                guard !path.isEmpty else { throw UsageError("--socket needs a path; it is empty") }
                options.socketPath = path
            case "--no-udev":
                options.discoverDevices = false
            case "--seats-directory":
                let path = try arguments.value(of: argument)
                guard !path.isEmpty else { throw UsageError("--seats-directory needs a directory; it is empty") }
                options.seatsDirectory = path
            case "--check-config":
                checkConfigPath = try arguments.value(of: argument)
            case "--replay":
                options.replays.append(ReplayOptions(recordingPath: try arguments.value(of: argument)))
            case "--device", "--loop", "--speed", "--passthrough", "--pen", "--wait-for-explanations":
                guard !options.replays.isEmpty else { throw UsageError("\(argument) applies to a --replay; put it after one") }
                let last = options.replays.count - 1
                switch argument {
                case "--device": options.replays[last].descriptionPath = try arguments.value(of: argument)
                case "--loop": options.replays[last].loop = true
                case "--passthrough": options.replays[last].passthrough = true
                case "--pen": options.replays[last].penPaths.append(try arguments.value(of: argument))
                case "--wait-for-explanations": options.replays[last].waitForExplanations = true
                default: options.replays[last].speed = try arguments.number(of: argument, in: ReplayOptions.speedRange)
                }
            default:
                throw arguments.unknown(argument)
            }
        }
        if help {
            print(usage, terminator: "")
            exit(0)
        }
    } catch {
        fail(arguments.message(for: error))
    }
    return (options, checkConfigPath)
}

let (options, checkConfigPath) = parseArguments(Array(CommandLine.arguments.dropFirst()))

if let checkConfigPath {
    // The touchscreens here, for the values in force on each (udev's names and ids: none is opened).
    let (devices, problem) = options.discoverDevices ? UdevDiscovery.touchscreensToCheck() : ([], nil)
    let result = Configuration.checkConfig(path: checkConfigPath, devices: devices)
    if result.ok {
        print(result.message)
        if let problem {
            print("  (the touchscreens of this machine are not listed: udev: \(problem))")
        } else if options.discoverDevices && devices.isEmpty {
            print("  (udev knows no touchscreen on this machine)")
        }
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
