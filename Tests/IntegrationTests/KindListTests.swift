import Foundation
import GestureBindings
import GestureProtocol
import GestureVocabulary
import Testing

/// GestureKind.allCases is the one list of the kinds gestured recognizes; every other list of them, for
/// people or programs, is checked against it here, so that a kind added to GestureCore fails this suite
/// until the completions, the man page, the docs, gesturectl's usage text, the Python client and the
/// plot's colours know it (docs/architecture.md, "Adding a gesture kind").
@Suite struct KindListTests {
    static let kinds = GestureKind.allCases.map(\.rawValue)

    static func text(_ path: String) throws -> String {
        try String(contentsOfFile: Paths.packageRoot + "/" + path, encoding: .utf8)
    }

    /// The kinds `line` names as whole words ("pan" in "pan," or `"pan"`, not in "panel" or "span").
    static func kindsNamed(in line: Substring) -> [String] {
        kinds.filter { kind in
            var rest = line[...]
            while let range = rest.range(of: kind) {
                let before = range.lowerBound == line.startIndex ? nil : line[line.index(before: range.lowerBound)]
                let after = range.upperBound == line.endIndex ? nil : line[range.upperBound]
                func isWordCharacter(_ c: Character?) -> Bool { c.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" } ?? false }
                if !isWordCharacter(before) && !isWordCharacter(after) { return true }
                rest = line[range.upperBound...]
            }
            return false
        }
    }

    /// Each list of kinds a person or a shell reads: the line that holds it (found by what begins or
    /// contains it) names every kind.
    @Test(arguments: [
        ("completions/_gesturectl", "*:--kinds)"),
        ("completions/gesturectl.bash", "*:--kinds)"),
        ("man/gesturectl.1.scd", "Only these gestures:"),
        ("docs/protocol.md", "| `kinds` | array of strings |"),
        ("docs/protocol.md", "| `gesture` | string |"),
        ("docs/bindings.md", "| `gesture` |"),
    ])
    func everyListOfKindsNamesEveryKind(file: String, marker: String) throws {
        let lines = try Self.text(file).split(separator: "\n").filter { $0.contains(marker) }
        try #require(lines.count == 1, "\(file): \(lines.count) lines hold \(marker)")
        #expect(Self.kindsNamed(in: lines[0]) == Self.kinds, "\(file): \(lines[0])")
    }

    /// docs/gestures.md gives every kind's commit rule, a row each (kinds written with spaces there).
    @Test func theCommitRulesNameEveryKind() throws {
        let text = try Self.text("docs/gestures.md")
        let table = try #require(text.range(of: "## Commit rules")).upperBound
        let rows = text[table...].split(separator: "\n").prefix { !$0.hasPrefix("## ") }.filter { $0.hasPrefix("| ") }
        for kind in Self.kinds {
            let name = kind.replacingOccurrences(of: "-", with: " ")
            #expect(rows.contains { $0.hasPrefix("| \(name) |") }, "docs/gestures.md's commit rules have no row for \(kind)")
        }
    }

    /// The table rows of a Markdown file that begin with `| \`key\``.
    static func rows(_ file: String, key: String) throws -> [Substring] {
        try text(file).split(separator: "\n").filter { $0.hasPrefix("| `\(key)` |") }
    }

    /// The fields the kinds declare (KindCatalog, from EventFields.swift): docs/protocol.md's event table
    /// has a row for each that names every kind carrying it ("when `gesture` is `pan`").
    @Test func theProtocolDocumentsEveryDeclaredFieldAndItsKinds() throws {
        for row in KindCatalog.fieldRows() {
            let lines = try Self.rows("docs/protocol.md", key: row.field.name)
            try #require(lines.count == 1, "docs/protocol.md: \(lines.count) rows for \(row.field.name)")
            for kind in row.kinds {
                #expect(lines[0].contains("`gesture` is `\(kind.rawValue)`"), "docs/protocol.md's \(row.field.name) row: \(lines[0])")
            }
        }
    }

    /// Every bindings key a field declares has its row in docs/bindings.md, and every variable commands get
    /// for a field is in its environment table.
    @Test func theBindingsDocsNameEveryFieldKeyAndVariable() throws {
        let fieldKeys = KindCatalog.fieldRows().map(\.field).filter { $0.binding != nil }.map(\.name)
        #expect(fieldKeys.allSatisfy(BindingsFile.keys().contains))
        for key in fieldKeys {
            #expect(try Self.rows("docs/bindings.md", key: key).count == 1, "docs/bindings.md has no row for \(key)")
        }
        let text = try Self.text("docs/bindings.md")
        let environment = try #require(text.range(of: "| Variable | Value |"))
        let table = text[environment.upperBound...].split(separator: "\n").dropFirst().prefix { $0.hasPrefix("|") }.joined(separator: "\n")
        for name in KindCatalog.environmentNames() {
            #expect(table.contains("`\(name)`"), "docs/bindings.md's environment table has no \(name)")
        }
    }

    /// `gesturectl monitor --help`, the usage text a person reads first.
    @Test func monitorsUsageTextNamesEveryKind() throws {
        let help = try ReplayCommandTests.run(["monitor", "--help"])
        let lines = help.stdout.split(separator: "\n").filter { $0.contains("--kinds LIST") && !$0.contains("[--kinds") }
        try #require(lines.count == 1, "\(help.stdout)")
        #expect(Self.kindsNamed(in: lines[0]) == Self.kinds, "\(lines[0])")
    }

    /// The Python client's KINDS: the same kinds, in the same order.
    @Test func thePythonClientsKindsAreAllCases() throws {
        let source = try Self.text("clients/python/src/gestured.py")
        let lines = source.split(separator: "\n").filter { $0.hasPrefix("KINDS = (") }
        try #require(lines.count == 1, "clients/python/src/gestured.py has no one line KINDS = (...)")
        let listed = lines[0].split(separator: "\"").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
        #expect(listed == Self.kinds)
    }

    /// `gesturectl plot` draws each kind in a colour of its own: a recording with one gesture of every
    /// kind, plotted, labels each begin in a colour that is not the fallback (black) and not another kind's.
    @Test func thePlotHasAColourForEveryKind() throws {
        var recording = SyntheticRecording(leadIn: 0.2)
        recording.swipe(from: (1, 64), by: 30, 0)  // edge swipe from the left
        recording.wait(0.5)
        recording.swipe(from: (36, 100), by: 0, -40)  // pan
        recording.wait(0.5)
        recording.pinch(center: (36, 64), fromSpan: 15, toSpan: 45)
        recording.wait(0.5)
        recording.swipe(from: (36, 64), by: 0, 0, seconds: 0.05)  // tap
        recording.wait(0.5)
        recording.swipe(from: (36, 64), by: 0, 0, seconds: 1)  // hold
        recording.wait(0.5)
        let directory = try PlotCommandTests.directory("kinds")
        let input = directory.appendingPathComponent("kinds.evemu")
        try recording.text.write(to: input, atomically: true, encoding: .utf8)
        let replay = try ReplayCommandTests.run(["replay", "--no-updates", input.path])
        let begun = try ReplayCommandTests.objects(replay.stdout).filter { $0["phase"] as? String == "begin" }
            .compactMap { $0["gesture"] as? String }
        try #require(begun == Self.kinds, "the recording's gestures: \(begun)")

        let output = directory.appendingPathComponent("kinds.svg")
        let plot = try ReplayCommandTests.run(["plot", input.path, "-o", output.path])
        try #require(plot.status == 0, "\(plot.stderr)")
        let svg = try String(contentsOf: output, encoding: .utf8)
        var colours: [String: String] = [:]
        for line in svg.split(separator: "\n") where line.hasPrefix("<text ") {
            // A begin's label on the screen: "#3 pinch, 2 fingers" (the listing below the time strip
            // says the same after the gesture's times, in the text colour).
            guard let start = line.range(of: "\">#")?.upperBound else { continue }
            let content = line[start...].drop { $0.isNumber }
            for kind in Self.kinds where content.hasPrefix(" \(kind), ") {
                let fill = try #require(line.range(of: "fill=\"")).upperBound
                colours[kind] = String(line[fill...].prefix { $0 != "\"" })
            }
        }
        #expect(colours.keys.sorted() == Self.kinds.sorted(), "labelled kinds: \(colours)")
        #expect(!colours.values.contains("#000000"), "a kind drawn in the fallback colour: \(colours)")
        #expect(Set(colours.values).count == colours.count, "two kinds share a colour: \(colours)")
    }
}
