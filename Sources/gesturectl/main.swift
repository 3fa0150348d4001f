// gesturectl: the command-line client of gestured. Argument parsing and wiring only.
#if canImport(Glibc)
import Glibc
#endif
import GestureProtocol

/// Subcommands: name, one-line summary, entry point (arguments after the subcommand) -> exit status.
let commands: [(name: String, summary: String, run: ([String]) -> Int32)] = [
    ("replay", "run the recognizer over a recording (evemu or libinput) and print the gesture events", runReplay),
    ("plot", "draw a recording and the recognizer's gestures to scale as an SVG", runPlot),
    ("tune", "find settings for your hands and panel from a few swipes, taps and scrolls", runTune),
    ("explain", "say why each touch became what it did, with the numbers and the settings (a recording, or live)", runExplain),
    ("monitor", "print the running daemon's gesture events as they happen", runMonitor),
    ("devices", "list the devices the running daemon reads", runDevices),
    ("session", "follow the Wayland session: keep the daemon's orientation and focused app the compositor's", runSession),
    ("orientation", "tell the running daemon how the screen is turned (0, 90, 180, 270)", runOrientation),
    ("focus", "tell the running daemon which app is focused, until stopped (for testing exclusions)", runFocus),
    ("exclude", "keep parts of the edges for an app, until stopped: no edge swipe starts there", runExclude),
    ("bind", "run commands for gestures, as a bindings file says", runBind),
    ("lisgd", "run lisgd's -g gesture bindings on gestured's events (a drop-in for lisgd)", runLisgd),
]

@MainActor func usage() -> String {
    var s = "usage: gesturectl <command> [options]\n       gesturectl --version\n\ncommands:\n"
    for c in commands { s += "  " + c.name + String(repeating: " ", count: max(1, 13 - c.name.count)) + c.summary + "\n" }
    s += "\nRun 'gesturectl <command> --help' for a command's options.\n"
    return s
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let first = arguments.first else {
    printError(usage())
    exit(2)
}
if first == "--help" || first == "-h" || first == "help" {
    print(usage(), terminator: "")
    exit(0)
}
if first == "--version" {
    print("gesturectl \(ProtocolConstants.daemonVersion) (protocol \(ProtocolConstants.version))")
    exit(0)
}
guard let command = commands.first(where: { $0.name == first }) else {
    printError("gesturectl: unknown command '\(shown(first))'\n\n" + usage())
    exit(2)
}
exit(command.run(Array(arguments.dropFirst())))
