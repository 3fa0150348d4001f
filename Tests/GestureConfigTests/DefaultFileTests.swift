import GestureCore
import Testing

@testable import GestureConfig
import GestureVocabulary

@Suite("The default file and the built-in defaults")
struct DefaultFileTests {
    let defaultFile = repositoryRoot + "/config/gestured.toml"

    @Test func emptyTextIsTheDefaults() throws {
        #expect(try load("") == Configuration.defaults)
        #expect(try load("# only a comment\n") == Configuration.defaults)
    }

    @Test func defaultFileLoadsToExactlyTheDefaults() throws {
        let configuration = try Configuration.load(path: defaultFile)
        #expect(configuration == Configuration.defaults)
        #expect(configuration.warnings.isEmpty)
        #expect(configuration.devices.isEmpty)
    }

    @Test func builtInDefaultsAreTheDocumentedOnes() {
        let d = Configuration.defaults.daemon
        // The socket's path and group are left to who runs the daemon (SocketDefaultsTests).
        #expect(d.socketPath == nil)
        #expect(d.socketMode == 0o660)
        #expect(d.socketGroup == nil)
        #expect(d.maxClients == 64)
        #expect(d.clientBufferBytes == 1_048_576)
        #expect(d.logLevel == .info)
        #expect(Configuration.defaults.recognizer == RecognizerSettings())
    }

    /// Every daemon and recognizer key is set (not only mentioned) in the default file, with the built-in
    /// default; so the file documents each one and a key added to the schema cannot be forgotten there.
    /// Except the socket's path and group, whose default depends on who runs the daemon: set, they would
    /// fix a user's own daemon on the system's path. They are there as comments.
    @Test func defaultFileSetsEveryKey() throws {
        let text = try fileText(defaultFile)
        let tree = try TOMLReader.parse(text: text, sourceName: "gestured.toml")
        var written: Set<String> = []
        collectLeafKeys(tree, prefix: "", into: &written)
        let byWhoRuns: Set = ["daemon.socket_path", "daemon.socket_group"]
        let expected = Set(daemonKeys.map { "daemon.\($0)" } + recognizerKeys.map { "recognizer.\($0.key)" })
        #expect(written == expected.subtracting(byWhoRuns))
        #expect(text.contains("\n# socket_path = \"/run/gestured/gestured.sock\"\n"))
        #expect(text.contains("\n# socket_group = \"gestured\"\n"))
    }

    /// The [[device]] keys are documented in comments of the default file.
    @Test func defaultFileDocumentsEveryDeviceKey() throws {
        let text = try fileText(defaultFile)
        for key in deviceOwnKeys {
            #expect(text.contains("#   \(key) = ") || text.contains("# \(key) = "), "\(key) is not documented")
        }
    }

    /// The commented examples in the default file are valid configuration once uncommented.
    @Test func defaultFileExamplesLoad() throws {
        let text = try fileText(defaultFile)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex(of: "# Examples:"), "no examples in the default file")
        let examples = lines[(start + 1)...].map {
            $0.hasPrefix("# ") ? String($0.dropFirst(2)) : $0 == "#" ? "" : String($0)
        }.joined(separator: "\n")
        let configuration = try load(examples)
        #expect(configuration.devices.count == 4)
        #expect(configuration.devices[0].rotation == .clockwise90)
        #expect(configuration.devices[0].recognizerOverrides == ["edge_swipe.bottom.zone_mm": .number(8)])
        #expect(configuration.devices[3].ignore == true)
    }

    /// docs/configuration.md explains every key.
    @Test func documentationMentionsEveryKey() throws {
        let text = try fileText(repositoryRoot + "/docs/configuration.md")
        for key in daemonKeys + deviceOwnKeys {
            #expect(text.contains("`\(key)`"), "docs/configuration.md does not explain \(key)")
        }
        for key in recognizerKeys {
            let name = key.components.last.map(String.init) ?? key.key
            #expect(text.contains("`\(name)`"), "docs/configuration.md does not explain \(key.key)")
        }
    }

    /// Every stored property of RecognizerSettings (and of its nested settings) has a configuration key,
    /// so a threshold added to the core cannot silently lack one.
    @Test func everyRecognizerPropertyHasAKey() {
        var properties: Set<String> = []
        collectProperties(Mirror(reflecting: RecognizerSettings()), prefix: "", into: &properties)
        // The rules' own properties, by their type's name (a rule's keys say "PanRule.minFingers").
        properties.remove("rules.elements")
        for rule in RecognizerSettings().rules {
            collectProperties(Mirror(reflecting: rule), prefix: String(describing: type(of: rule)), into: &properties)
        }
        // withholdsTouches follows a device's passthrough setting: no [recognizer] key. A zone's widthKey
        // says which key set its width (edge_swipe.zone_mm or the side's own), for explanations.
        properties.subtract(["withholdsTouches"] + Edge.sides.map { "edgeZones.\($0.rawValue).widthKey" })
        #expect(properties == Set(recognizerKeys.map(\.property)))
    }

    /// Each key sets its own property and nothing else, and reads back what it set.
    @Test(arguments: recognizerKeys.map(\.key))
    func eachKeySetsItsOwnProperty(_ name: String) throws {
        let key = try #require(recognizerKeysByName[name])
        let value: SettingValue
        let literal: String
        switch (key.spec, key.get(RecognizerSettings())) {
        case (.bool, .bool(let b)):
            value = .bool(!b)
            literal = String(!b)
        case (.integer(let range, _), .integer(let i)):
            let other = i == range.upperBound ? range.lowerBound : range.upperBound
            value = .integer(other)
            literal = String(other)
        case (.number(let range, _), .number(let d)):
            let other = d == range.upperBound ? range.lowerBound : range.upperBound
            value = .number(other)
            literal = String(other)
        default:
            Issue.record("\(name): spec and default disagree")
            return
        }
        var text = "[recognizer]\n\(name) = \(literal)\n"
        // Raising a min_fingers (or claim_min_fingers) above the default max needs the max raised too.
        if name.hasSuffix("min_fingers") {
            text += "\(name.dropLast("min_fingers".count))max_fingers = 10\n"
        }
        let recognizer = try load(text).recognizer
        #expect(key.get(recognizer) == value)
        for other in recognizerKeys where other.key != name && !(text.contains(other.key + " =")) {
            #expect(other.get(recognizer) == other.get(RecognizerSettings()), "\(name) also changed \(other.key)")
        }
    }
}

func fileText(_ path: String) throws -> String {
    let bytes = try ConfigFile.contents(path: path)
    return String(decoding: bytes, as: UTF8.self)
}

private func collectLeafKeys(_ value: TOMLValue, prefix: String, into keys: inout Set<String>) {
    guard case .table(let members) = value.kind else {
        keys.insert(prefix)
        return
    }
    for member in members {
        collectLeafKeys(member.value, prefix: prefix.isEmpty ? member.key : "\(prefix).\(member.key)", into: &keys)
    }
}

private func collectProperties(_ mirror: Mirror, prefix: String, into properties: inout Set<String>) {
    for child in mirror.children {
        let name = child.label.map { prefix.isEmpty ? $0 : "\(prefix).\($0)" } ?? prefix
        let inner = Mirror(reflecting: child.value)
        switch inner.displayStyle {
        case .struct?:
            collectProperties(inner, prefix: name, into: &properties)
        case .dictionary?:
            for entry in inner.children {
                let pair = Array(Mirror(reflecting: entry.value).children)
                let key = pair[0].value as? Edge
                collectProperties(
                    Mirror(reflecting: pair[1].value), prefix: "\(name).\(key?.rawValue ?? "?")", into: &properties)
            }
        default:
            properties.insert(name)
        }
    }
}
