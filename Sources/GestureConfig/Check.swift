import GestureCore
import GestureVocabulary
import PlainText

/// The outcome of `gestured --check-config FILE`.
public struct ConfigCheckResult: Equatable, Sendable {
    /// True when the file loads; the daemon exits 0 then, 1 otherwise.
    public var ok: Bool
    /// What to print: the errors (one per line, file:line:column first), or "FILE: OK" and a summary of
    /// what the file sets, followed by any warnings.
    public var message: String
}

/// A device `--check-config` says the values in force for: one udev knows on this machine.
public struct CheckedDevice: Sendable {
    /// How it is named: "/dev/input/event5".
    public var label: String
    /// Its name and ids (what [[device]] and [[exclusion]] sections match).
    public var description: DeviceDescription
    /// Its node and udev links (what match_path matches).
    public var paths: [String]

    public init(label: String, description: DeviceDescription, paths: [String]) {
        self.label = label
        self.description = description
        self.paths = paths
    }
}

extension Configuration {
    /// Loads and validates the file at `path` for `gestured --check-config`, and says the values in force
    /// for a device no [[device]] section matches, for a device each section matches, and for each of
    /// `devices` (the touchscreens on this machine).
    public static func checkConfig(path: String, devices: [CheckedDevice] = []) -> ConfigCheckResult {
        do {
            let configuration = try load(path: path)
            return ConfigCheckResult(
                ok: true, message: "\(path): OK\n" + configuration.checkConfigSummary() + "\n" + configuration.valuesInForce(devices: devices))
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
        // Each kind of section, listed with its place and what it says.
        func sections(_ heading: String, _ table: String, none: String, _ described: [(location: ConfigLocation, text: String)]) {
            guard !described.isEmpty else {
                lines.append("\(heading): \(none)")
                return
            }
            lines.append("\(heading): \(described.count) [[\(table)]] section\(described.count == 1 ? "" : "s")")
            for (index, d) in described.enumerated() { lines.append("  \(table)[\(index + 1)] at \(d.location): \(d.text)") }
        }
        sections(
            "devices", "device", none: "no [[device]] sections; every touchscreen uses the settings above",
            devices.map { ($0.location, Configuration.describe($0)) })
        sections(
            "exclusions", "exclusion", none: "no [[exclusion]] sections; every edge zone is whole",
            exclusions.map { ($0.location, Configuration.describe($0)) })
        sections(
            "pointers", "pointer", none: "no [[pointer]] sections; each panel's own pointer key holds for every app",
            pointers.map { section in
                (
                    section.location,
                    "\(section.mode.rawValue) while \(section.apps.map(quoted).joined(separator: " or ")) has the focus, on "
                        + (section.device.map { "devices \(quoted($0))" } ?? "every device")
                )
            })
        for warning in warnings {
            lines.append("warning: \(warning)")
        }
        return lines.joined(separator: "\n")
    }

    /// The values in force (edge zones with the key that decides each, slop, angle tolerance, the
    /// exclusions that may apply): for a device no [[device]] section matches, for a device only each
    /// section matches, and for each of `devices` with the sections that match it.
    public func valuesInForce(devices checked: [CheckedDevice]) -> String {
        var lines = ["values in force:"]
        var plain = ResolvedDeviceSettings(recognizer: recognizer)
        plain.exclusionSections = exclusions.filter { $0.device == nil }
        lines.append("  a device no [[device]] section matches: " + Configuration.inForce(plain))
        for (index, section) in devices.enumerated() {
            // The section alone over [recognizer], for a device that no other section matches (the
            // [[exclusion]] sections that name a device are said for the devices found, below).
            var settings = recognizer
            settings.apply(section.recognizerOverrides)
            var resolved = ResolvedDeviceSettings(recognizer: settings)
            resolved.exclusionSections = exclusions.filter { $0.device == nil }
            lines.append("  a device only device[\(index + 1)] matches: " + Configuration.inForce(resolved))
        }
        for device in checked {
            let resolved = resolve(for: device.description, paths: device.paths)
            let sections = resolved.matchedSections.map { "device[\($0 + 1)]" }
            let name = escapingControlCharacters(device.description.name)
            lines.append(
                "  \(device.label) \"\(name)\" (\(device.description.vendorProduct), "
                    + (sections.isEmpty ? "no [[device]] section" : sections.joined(separator: ", ")) + "): "
                    + (resolved.ignore ? "ignored (ignore = true)" : Configuration.inForce(resolved)))
        }
        return lines.joined(separator: "\n")
    }

    /// "edge zones left 5 mm (edge_swipe.left.zone_mm), ...; slop 3 mm (slop_mm); angle tolerance 30°
    /// (angle_tolerance_degrees); exclusions: ...".
    static func inForce(_ resolved: ResolvedDeviceSettings) -> String {
        let r = resolved.recognizer
        let zones = Edge.sides.map { edge -> String in
            let zone = r.edgeZones[edge]
            guard zone.enabled else { return "\(edge.rawValue) off (edge_swipe.\(edge.rawValue).enabled)" }
            return "\(edge.rawValue) \(formatNumber(zone.widthMM)) mm (\(zone.widthKey.key(edge)))"
        }
        var parts = [
            "edge zones " + zones.joined(separator: ", ") + (r.edgeSwipe.corners ? ", corner swipes on" : ", corner swipes off"),
            "slop \(formatNumber(r.slopMM)) mm (slop_mm)",
            "angle tolerance \(formatNumber(r.angleToleranceDegrees))° (angle_tolerance_degrees)",
        ]
        let sections = resolved.exclusionSections
        if sections.isEmpty {
            parts.append("no exclusions")
        } else {
            parts.append(
                "exclusions: " + sections.map { section in
                    let when = section.apps.map { "while " + $0.map { "\"\(escapingControlCharacters($0))\"" }.joined(separator: " or ") + " is focused" } ?? "always"
                    return "\(describeParts(section)) \(when) (\(section.location))"
                }.joined(separator: "; "))
        }
        return parts.joined(separator: "; ")
    }

    /// "left 0.25...0.75, the bottom-left corner".
    static func describeParts(_ section: ExclusionSection) -> String {
        section.exclusions.map { e in
            e.edge.isCorner ? "the \(e.edge.rawValue) corner" : "\(e.edge.rawValue) \(formatNumber(e.from))...\(formatNumber(e.to))"
        }.joined(separator: ", ")
    }

    static func describe(_ section: ExclusionSection) -> String {
        let apps = section.apps.map { apps in
            "while the focused app matches " + apps.map { "\"\(escapingControlCharacters($0))\"" }.joined(separator: " or ")
                + " (app_id globs, case-sensitive)"
        } ?? "whatever app is focused"
        let device = section.device.map { "on devices matching \"\(escapingControlCharacters($0))\"" } ?? "on every device"
        return "\(apps), \(device): \(describeParts(section))"
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
