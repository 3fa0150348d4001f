import GestureCore
import PlainText

/// The outcome of `gestured --check-config FILE`.
public struct ConfigCheckResult: Equatable, Sendable {
    /// True when the file loads; the daemon exits 0 then, 1 otherwise.
    public var ok: Bool
    /// What to print: the errors (one per line, file:line:column first), or "FILE: OK" and a summary of
    /// what the file sets, followed by any warnings.
    public var message: String
}

extension Configuration {
    /// Loads and validates the file at `path` for `gestured --check-config`.
    public static func checkConfig(path: String) -> ConfigCheckResult {
        do {
            let configuration = try load(path: path)
            return ConfigCheckResult(ok: true, message: "\(path): OK\n" + configuration.checkConfigSummary())
        } catch {
            let count = error.problemCount
            return ConfigCheckResult(
                ok: false,
                message: error.description + "\n\(path): \(count) error\(count == 1 ? "" : "s"); the file is not usable")
        }
    }

    /// What this configuration sets, for people checking a file: the daemon settings, the recognizer
    /// thresholds that differ from the built-in defaults, every [[device]] section, and warnings.
    public func checkConfigSummary() -> String {
        var lines: [String] = []
        let d = daemon
        lines.append(
            "daemon: socket "
                + (d.socketPath ?? "by who runs the daemon (/run/gestured/gestured.sock as root or gestured, else $XDG_RUNTIME_DIR/gestured.sock)")
                + ", mode \(octal(d.socketMode)), group "
                + (d.socketGroup.map { $0.isEmpty ? "unchanged" : $0 } ?? "by who runs the daemon (gestured as root or gestured, else the user's own)")
                + ", at most \(d.maxClients) clients, "
                + "\(d.clientBufferBytes)-byte client buffers, log level \(d.logLevel.rawValue)"
                + (d.appTouchesFor.isEmpty ? "" : ", app touches also for \(d.appTouchesFor.map(\.description).joined(separator: ", "))"))
        let changed = Configuration.differences(recognizer, from: RecognizerSettings())
        lines.append(
            changed.isEmpty
                ? "recognizer: built-in defaults"
                : "recognizer: built-in defaults except \(changed.joined(separator: ", "))")
        if devices.isEmpty {
            lines.append("devices: no [[device]] sections; every touchscreen uses the settings above")
        } else {
            lines.append("devices: \(devices.count) [[device]] section\(devices.count == 1 ? "" : "s")")
            for (index, section) in devices.enumerated() {
                lines.append("  device[\(index + 1)] at \(section.location): \(Configuration.describe(section))")
            }
        }
        for (index, section) in pointers.enumerated() {
            lines.append(
                "  pointer[\(index + 1)] at \(section.location): \(section.mode.rawValue) while \(section.apps.map(quoted).joined(separator: " or ")) "
                    + "has the focus, on \(section.device.map { "devices \(quoted($0))" } ?? "every device")")
        }
        for warning in warnings {
            lines.append("warning: \(warning)")
        }
        return lines.joined(separator: "\n")
    }

    private func octal(_ mode: UInt32) -> String {
        let s = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - s.count)) + s
    }

    /// "key = value" for every recognizer key whose value differs between `a` and `b`, in file order.
    static func differences(_ a: RecognizerSettings, from b: RecognizerSettings) -> [String] {
        recognizerKeys.compactMap { key in
            key.get(a) == key.get(b) ? nil : "\(key.key) = \(key.get(a))"
        }
    }

    static func describe(_ section: DeviceSection) -> String {
        var matches: [String] = []
        if let name = section.matchName { matches.append("name \(quoted(name))") }
        if let id = section.matchID { matches.append("id \(id)") }
        if let path = section.matchPath { matches.append("path \(quoted(path))") }
        var sets: [String] = []
        if let ignore = section.ignore { sets.append("ignore = \(ignore)") }
        if let grab = section.grab { sets.append("grab = \(grab)") }
        if let passthrough = section.passthrough { sets.append("passthrough = \(passthrough)") }
        if let mode = section.pointerMode { sets.append("pointer = \(mode.rawValue)") }
        if let mm = section.pointerScrollMM { sets.append("pointer_scroll_mm = \(formatNumber(mm))") }
        if let fling = section.pointerFling { sets.append("pointer_fling = \(fling)") }
        if let rotation = section.rotation { sets.append("rotation = \(rotation.rawValue)") }
        if let flipX = section.flipX { sets.append("flip_x = \(flipX)") }
        if let flipY = section.flipY { sets.append("flip_y = \(flipY)") }
        if let calibration = section.calibration {
            sets.append("calibration = [\(calibration.map(formatNumber).joined(separator: ", "))]")
        }
        if let width = section.panelWidthMM, let height = section.panelHeightMM {
            sets.append("panel \(formatNumber(width)) x \(formatNumber(height)) mm")
        }
        if let inches = section.panelDiagonalInches {
            sets.append("panel diagonal \(formatNumber(inches)) inches" + (section.panelAspect.map { ", aspect \($0)" } ?? ""))
        }
        for key in recognizerShorthandKeys + recognizerKeys {
            if let value = section.recognizerOverrides[key.key] { sets.append("\(key.key) = \(value)") }
        }
        return "matches " + matches.joined(separator: " and ") + "; "
            + (sets.isEmpty ? "sets nothing" : "sets " + sets.joined(separator: ", "))
    }
}
