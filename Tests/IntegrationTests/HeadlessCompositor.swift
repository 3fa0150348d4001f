// The compositors gesturectl's compositor side is tested against, each headless (wlroots' headless backend:
// no GPU, no input devices, its own XDG_RUNTIME_DIR) and started as an unprivileged user when the tests run
// as root (sway refuses root; the others are run the same way). sway is what `make test` runs on any Debian;
// labwc (Raspberry Pi OS), phoc (Phosh: Mobian, other phones) and cage (kiosks) as Debian trixie ships
// them run in `make test-debian`'s trixie root (labwc is not in bookworm). GESTURED_COMPOSITORS names those
// to test (default: sway); one named and not installed fails the tests that need it, saying so.
//
// What the tests do to a compositor goes through the way its users do it: sway's IPC (swaymsg) for sway;
// for the others, wlr-randr (wlr-output-management) turns an output and wlrctl (the activate request of
// wlr-foreign-toplevel-management) focuses a window. cage offers no foreign-toplevel-management: nothing
// there can say or change which window is focused (it shows the newest).
import DaemonUnderTest
import Glibc
import Testing

enum CompositorKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sway, labwc, phoc, cage

    var testDescription: String { rawValue }

    /// The compositors GESTURED_COMPOSITORS names (space- or comma-separated), sway when it is not set.
    static let tested: [CompositorKind] = {
        guard let value = getenv("GESTURED_COMPOSITORS").map({ String(cString: $0) }) else { return [.sway] }
        return value.split(whereSeparator: { $0 == " " || $0 == "," }).map { name in
            guard let kind = CompositorKind(rawValue: String(name)) else {
                preconditionFailure("GESTURED_COMPOSITORS: no compositor '\(name)' (say sway, labwc, phoc or cage)")
            }
            return kind
        }
    }()

    /// Those of `tested` that say which app is focused (wlr-foreign-toplevel-management): all but cage.
    static var testedWithFocus: [CompositorKind] { tested.filter(\.offersFocus) }

    /// Those of `tested` that do not (cage).
    static var testedWithoutFocus: [CompositorKind] { tested.filter { !$0.offersFocus } }

    var offersFocus: Bool { self != .cage }

    var binary: String { "/usr/bin/" + rawValue }

    /// The programs the tests drive it with besides the compositor.
    var tools: [String] {
        switch self {
        case .sway: ["/usr/bin/swaymsg"]
        case .labwc, .phoc: ["/usr/bin/wlr-randr", "/usr/bin/wlrctl"]
        case .cage: ["/usr/bin/wlr-randr"]
        }
    }
}

/// A headless compositor in a private runtime directory, stopped when the value goes.
final class HeadlessCompositor {
    let kind: CompositorKind
    let runtime: TemporaryDirectory
    let display: String
    /// sway's IPC socket (nil for the others).
    let ipcSocket: String?
    private let launcher: Background
    private let pid: pid_t

    /// The environment a Wayland client of this compositor needs.
    var environment: [String] { ["XDG_RUNTIME_DIR=\(runtime.path)", "WAYLAND_DISPLAY=\(display)"] }

    /// Starts `kind` with one output, HEADLESS-1; `swayConfig` goes into sway's configuration.
    init(_ kind: CompositorKind = .sway, swayConfig: String = "") throws {
        self.kind = kind
        for program in [kind.binary] + kind.tools where access(program, X_OK) != 0 {
            throw TestFailure(
                "\(program) is not installed: the tests against \(kind.rawValue) need it (GESTURED_COMPOSITORS names \(kind.rawValue); "
                    + "`make test` installs sway, `make test-debian` all four in its trixie root)")
        }
        let runtime = TemporaryDirectory()
        self.runtime = runtime
        chmod(runtime.path, 0o700)
        let directory = runtime.path
        let command: String
        switch kind {
        case .sway:
            let config = runtime.write("sway.config", "xwayland disable\noutput HEADLESS-1 resolution 800x600\n" + swayConfig)
            chmod(config, 0o644)
            command = "\(kind.binary) -c \(config)"
        case .labwc:
            // An empty configuration directory: labwc's defaults, not the machine's.
            let config = directory + "/labwc"
            mkdir(config, 0o755)
            command = "\(kind.binary) -C \(config)"
        case .phoc:
            let config = runtime.write("phoc.ini", "[core]\nxwayland=false\n")
            chmod(config, 0o644)
            command = "\(kind.binary) -C \(config)"
        case .cage:
            // cage runs while its one application does: a test client that ends with the compositor's
            // connection. The tests' own windows come after it, and cage shows and focuses the newest.
            let client = try Paths.gestured().replacingLast("gestured", with: "wayland-test-client")
            command = "\(kind.binary) -- \(client) cage-primary"
        }
        let pidFile = directory + "/compositor.pid"
        let env = [
            "XDG_RUNTIME_DIR=\(directory)", "HOME=\(directory)", "PATH=/usr/bin:/bin", "WLR_BACKENDS=headless",
            "WLR_RENDERER=pixman", "WLR_LIBINPUT_NO_DEVICES=1", "GSETTINGS_BACKEND=memory",
        ]
        // `exec` keeps one process: its pid is the compositor's, written before the exec.
        let script = "echo $$ > \(pidFile) && exec /usr/bin/env -i \(env.joined(separator: " ")) \(command)"
        var argv = ["/bin/sh", "-c", script]
        if getuid() == 0 {
            // As nobody, in a runtime directory nobody owns.
            guard chown(directory, 65534, 65534) == 0 else { throw TestFailure("chown \(directory) to nobody failed") }
            argv = ["/usr/sbin/runuser", "-u", "nobody", "--"] + argv
        }
        let launcher = try Background(argv, outputPath: directory + "/compositor.log")
        self.launcher = launcher
        var found: (display: String, ipc: String?, pid: pid_t)?
        let name = kind.rawValue
        try waitUntil("\(name) to start in \(directory)", context: { launcher.output }) {
            var status: Int32 = 0
            if waitpid(launcher.pid, &status, WNOHANG) == launcher.pid {
                throw TestFailure("\(name) exited at start (status \(status)):\n\(launcher.output)")
            }
            let names = listDirectory(directory)
            guard let display = names.first(where: { $0.hasPrefix("wayland-") && !$0.hasSuffix(".lock") }),
                let pid = pid_t(readWholeFile(pidFile).split(separator: "\n").first ?? "")
            else { return false }
            let ipc = names.first(where: { $0.hasPrefix("sway-ipc.") })
            if name == "sway" && ipc == nil { return false }
            // cage's own client mapped (its "ready" is in cage's output): mapped after a test's window, it
            // would take the focus from it (cage focuses the newest).
            if name == "cage" && !launcher.output.split(separator: "\n").contains("ready") { return false }
            // Up when it lists its output (the socket can come before the output does).
            if name != "sway" {
                usleep(50_000)  // not a wlr-randr every 2 ms
                let heads = try run(
                    "/usr/bin/wlr-randr", [],
                    environment: ["XDG_RUNTIME_DIR=\(directory)", "WAYLAND_DISPLAY=\(display)"], in: runtime)
                guard heads.status == 0, heads.output.hasPrefix("HEADLESS-1") else { return false }
            }
            found = (display, ipc.map { directory + "/" + $0 }, pid)
            return true
        }
        display = found!.display
        ipcSocket = found!.ipc
        pid = found!.pid
    }

    deinit {
        kill(pid, SIGCONT)  // a stopped compositor would not see the SIGTERM
        kill(pid, SIGTERM)
        _ = try? launcher.stop(SIGTERM)
    }

    /// The compositor's log so far (for failure messages).
    var log: String { launcher.output }

    /// SIGSTOP: the compositor stalls, reading nothing from its clients until `resume`.
    func stall() { kill(pid, SIGSTOP) }

    /// SIGCONT after `stall`.
    func resume() { kill(pid, SIGCONT) }

    /// `swaymsg ARGS`, which must succeed (sway only).
    @discardableResult
    func message(_ arguments: [String]) throws -> String {
        guard let ipcSocket else { throw TestFailure("swaymsg is for sway; this is \(kind.rawValue)") }
        return try succeed("/usr/bin/swaymsg", ["-s", ipcSocket] + arguments)
    }

    /// Turns `output` so that the compositor publishes wl_output transform `transform` (its name as
    /// OutputTransform says it: normal, 90, 180, 270): through sway's `output NAME transform`, whose angle
    /// is the other way round (sway's 90 publishes 270), or wlr-randr's --transform, whose angle is
    /// wl_output's.
    func turn(_ output: String, toPublish transform: String) throws {
        switch kind {
        case .sway:
            let swayAngle = ["90": "270", "270": "90"][transform] ?? transform
            try message(["output", output, "transform", swayAngle])
        case .labwc, .phoc, .cage:
            try succeed("/usr/bin/wlr-randr", ["--output", output, "--transform", transform])
        }
    }

    /// Focuses the window of `appID`: sway's `[app_id=...] focus`, else wlrctl's toplevel focus (which
    /// asks through wlr-foreign-toplevel-management). cage has no way to.
    func focus(_ appID: String) throws {
        switch kind {
        case .sway: try message(["[app_id=\"\(appID)\"]", "focus"])
        case .labwc, .phoc: try succeed("/usr/bin/wlrctl", ["toplevel", "focus", "app_id:\(appID)"])
        case .cage: throw TestFailure("cage cannot focus a window on request (no wlr-foreign-toplevel-management)")
        }
    }

    /// Starts wayland-test-client with `appID` and waits until its window is mapped.
    func client(_ appID: String) throws -> Background {
        let binary = try Paths.gestured().replacingLast("gestured", with: "wayland-test-client")
        let c = try Background([binary, appID], environment: environment, outputPath: runtime.path + "/client-\(appID).out")
        try c.waitForOutput("ready")
        return c
    }

    @discardableResult
    private func succeed(_ program: String, _ arguments: [String]) throws -> String {
        let result = try run(program, arguments, environment: environment, in: runtime)
        guard result.status == 0 else {
            throw TestFailure("\(program) \(arguments.joined(separator: " ")) failed: \(result.output)\n\(kind.rawValue)'s log:\n\(log)")
        }
        return result.output
    }
}

func listDirectory(_ path: String) -> [String] {
    guard let dir = opendir(path) else { return [] }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
        names.append(withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) })
    }
    return names
}

extension String {
    func replacingLast(_ suffix: String, with replacement: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) + replacement : self
    }
}
