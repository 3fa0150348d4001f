import GestureCore
import Testing

@testable import GestureConfig

/// gestured.toml(5) (man/gestured.toml.5.scd) is checked against the schema the loader uses: every key of
/// [daemon], [recognizer] and [[device]] has an entry in its section, no entry names a key the schema does
/// not have, and each recognizer key's entry states the built-in default and the allowed range the loader
/// enforces. A key added to Schema.swift, or a default or range changed there, fails here until the page
/// says so. (IntegrationTests/PackagingTests renders the page with `man --warnings`.)
@Suite("gestured.toml(5) against the schema")
struct ConfigurationManPageTests {
    /// Entries of the page by section heading ("[daemon]", "[recognizer]", "[[device]]"): each key of a term
    /// line ("*key* = _type_", or several "*a*, *b* = _type_") with the first line of its description.
    let sections: [String: [String: String]]

    init() throws {
        let text = try fileText(repositoryRoot + "/man/gestured.toml.5.scd")
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var sections: [String: [String: String]] = [:]
        var section = ""
        for (i, line) in lines.enumerated() {
            if line.hasPrefix("# ") { section = String(line.dropFirst(2)) }
            // A term line: "*key* = _type_" followed by its indented description.
            guard line.hasPrefix("*"), let equals = line.firstRange(of: " = "), i + 1 < lines.count,
                lines[i + 1].hasPrefix("\t")
            else { continue }
            for term in line[..<equals.lowerBound].split(separator: ", ") {
                #expect(term.hasPrefix("*") && term.hasSuffix("*") && term.count > 2, "malformed term '\(term)' in: \(line)")
                sections[section, default: [:]][String(term.dropFirst().dropLast())] = lines[i + 1]
            }
        }
        self.sections = sections
    }

    @Test func everyRecognizerKeyWithItsDefaultAndRange() throws {
        let entries = try #require(sections["[recognizer]"], "no [recognizer] section on the page")
        let defaults = RecognizerSettings()
        for key in recognizerKeys + recognizerShorthandKeys {
            guard let description = entries[key.key] else {
                Issue.record("gestured.toml(5) does not document recognizer key \(key.key)")
                continue
            }
            let expected = "\tDefault " + manText(key.get(defaults)) + manText(key.spec) + "."
            #expect(description.hasPrefix(expected), "\(key.key): the page says '\(description)', the schema '\(expected)'")
        }
        let unknown = Set(entries.keys).subtracting((recognizerKeys + recognizerShorthandKeys).map(\.key))
        #expect(unknown.isEmpty, "gestured.toml(5) documents recognizer keys the schema does not have: \(unknown.sorted())")
    }

    @Test func everyDaemonKeyWithItsDefault() throws {
        let entries = try #require(sections["[daemon]"], "no [daemon] section on the page")
        #expect(Set(entries.keys) == Set(daemonKeys), "page: \(entries.keys.sorted()), schema: \(daemonKeys.sorted())")
        let d = Configuration.defaults.daemon
        let system = DaemonRunner(isSystem: true)
        let expected: [String: String] = [
            // Unset by default: who runs the daemon decides (SocketDefaultsTests).
            "socket_path": "Default: by who runs the daemon, \"\(d.socket(for: system).path)\" as root or gestured",
            "socket_mode": "Default \"0\(String(d.socketMode, radix: 8))\".",
            "socket_group": "Default: by who runs the daemon, \"\(d.socket(for: system).group)\" as root or gestured",
            "max_clients": "Default \(d.maxClients); \(Limits.maxClients.lowerBound) to \(Limits.maxClients.upperBound).",
            "max_clients_per_uid":
                "Default \(d.maxClientsPerUID); \(Limits.maxClients.lowerBound) to \(Limits.maxClients.upperBound).",
            "client_buffer_bytes":
                "Default \(d.clientBufferBytes) (\(d.clientBufferBytes >> 20) MiB); \(Limits.clientBufferBytes.lowerBound) to "
                + "\(Limits.clientBufferBytes.upperBound).",
            "log_level": "Default \"\(d.logLevel.rawValue)\". One of "
                + LogLevel.allCases.dropLast().map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                + " or \"\(LogLevel.allCases.last!.rawValue)\";",
            "app_touches_for": "Default [] (nobody besides root, the daemon's own user and the user of the active session",
        ]
        for key in daemonKeys {
            let want = try #require(expected[key], "no expected default for the new [daemon] key \(key): add it here")
            #expect(entries[key]?.hasPrefix("\t" + want) == true, "\(key): the page says '\(entries[key] ?? "")', expected '\(want)'")
        }
    }

    @Test func everyDeviceKey() throws {
        let entries = try #require(sections["[[device]]"], "no [[device]] section on the page")
        #expect(Set(entries.keys) == Set(deviceOwnKeys), "page: \(entries.keys.sorted()), schema: \(deviceOwnKeys.sorted())")
        #expect(entries["panel_width_mm"]?.contains("\(manNumber(Limits.panelMM.lowerBound)) to \(manNumber(Limits.panelMM.upperBound)) mm") == true)
    }

    @Test func numbersAreWrittenAsThePageWritesThem() {
        #expect(manNumber(15) == "15")
        #expect(manNumber(0.08) == "0.08")
        #expect(manNumber(10000) == "10000")
        #expect(manText(ValueSpec.number(0.5...20, unit: "mm")) == "; 0.5 to 20 mm")
        #expect(manText(ValueSpec.bool) == "")
    }
}

/// A number as the page writes it: whole numbers without a fraction.
func manNumber(_ d: Double) -> String {
    d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : "\(d)"
}

private func manText(_ value: SettingValue) -> String {
    switch value {
    case .bool(let b): return b ? "true" : "false"
    case .integer(let i): return String(i)
    case .number(let d): return manNumber(d)
    }
}

/// "; LOW to HIGH UNIT" for a range, "" for a flag.
private func manText(_ spec: ValueSpec) -> String {
    switch spec {
    case .bool: return ""
    case .integer(let range, let unit): return "; \(range.lowerBound) to \(range.upperBound)" + (unit.map { " " + $0 } ?? "")
    case .number(let range, let unit):
        return "; \(manNumber(range.lowerBound)) to \(manNumber(range.upperBound))" + (unit.map { " " + $0 } ?? "")
    }
}
