// `gesturectl bind`: runs the commands of a bindings file (docs/bindings.md) for the daemon's gestures.
#if canImport(Glibc)
import Glibc
#endif
import GestureConfig
import GestureProtocol
import GestureVocabulary

private let bindUsage = """
    usage: gesturectl bind [--bindings FILE] [--socket PATH] [--check] [--verbose]

    Runs a command for each gesture that matches a binding of FILE (docs/bindings.md; an example is
    config/bindings.toml). Commands run in their own process groups without blocking gesture handling;
    their output goes to standard error (the journal under systemd). SIGHUP rereads FILE (a broken file
    keeps the bindings in use); the connection to the daemon is re-established with backoff.

      --bindings FILE  the bindings (default: $XDG_CONFIG_HOME/gestured/bindings.toml, else
                       ~/.config/gestured/bindings.toml)
      --socket PATH    the daemon's socket (default: $GESTURED_SOCKET, else \(ProtocolConstants.defaultSocketPath))
      --check          validate FILE, print what each binding does, and exit (0 when it is usable)
      --verbose        also log each command started and exited, and the subscription

    """

/// The bindings file as a source of actions.
struct BindingsSource: ActionSource {
    var file: BindingsFile
    var matcher: BindingMatcher

    init(file: BindingsFile) {
        self.file = file
        self.matcher = BindingMatcher(bindings: file.bindings)
    }

    var subscriptionFilter: SubscriptionFilter { file.subscriptionFilter }

    mutating func actions(for event: GestureEvent, deviceID: String?, deviceName: String?) -> [Action] {
        matcher.handle(event, deviceID: deviceID, deviceName: deviceName).map { f in
            Action(
                key: f.binding.index, label: f.binding.label, arguments: f.binding.command.arguments,
                environment: f.environment, ifRunning: f.binding.ifRunning, maxPerSecond: f.binding.maxPerSecond)
        }
    }

    mutating func reload() -> [String]? {
        do {
            let new = try BindingsFile.load(path: file.path)
            let before = file.bindings.count
            file = new
            matcher.replace(new.bindings)
            return ["SIGHUP: reloaded \(new.path): \(new.bindings.count) binding\(new.bindings.count == 1 ? "" : "s") (was \(before))"]
        } catch {
            return error.diagnostics.map(\.description)
                + ["SIGHUP: \(file.path) is not usable; keeping the \(file.bindings.count) binding\(file.bindings.count == 1 ? "" : "s") loaded before"]
        }
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
    var i = 0
    while i < args.count {
        let a = args[i]
        switch a {
        case "--help", "-h":
            print(bindUsage, terminator: "")
            return 0
        case "--bindings", "--socket":
            guard i + 1 < args.count else {
                printError("gesturectl bind: \(a) needs a value\n")
                return 2
            }
            i += 1
            if a == "--bindings" { path = args[i] } else { socket = args[i] }
        case "--check": check = true
        case "--verbose", "-v": verbose = true
        default:
            printError("gesturectl bind: unknown option '\(a)'\n\n" + bindUsage)
            return 2
        }
        i += 1
    }
    guard let file = path ?? BindingsFile.defaultPath(environment: currentEnvironment()) else {
        printError("gesturectl bind: neither XDG_CONFIG_HOME nor HOME is set; give the file with --bindings FILE\n")
        return 2
    }
    let loaded: BindingsFile
    do {
        loaded = try BindingsFile.load(path: file)
    } catch {
        let n = error.diagnostics.count
        printError(error.description + "\n\(file): \(n) error\(n == 1 ? "" : "s"); the bindings file is not usable\n")
        return 1
    }
    if check {
        print(loaded.summary)
        return 0
    }
    if loaded.bindings.isEmpty {
        printError("gesturectl bind: \(file) has no [[binding]] sections; nothing to do\n")
        return 1
    }
    let log = Logger(prefix: "gesturectl bind", verbose: verbose)
    log.info("\(file): \(loaded.bindings.count) binding\(loaded.bindings.count == 1 ? "" : "s")")
    return CommandRunner(source: BindingsSource(file: loaded), socketPath: socket, log: log).run()
}
