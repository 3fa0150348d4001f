// What the package ships besides the binaries, checked against the binaries themselves: the man pages
// render without warnings and name every option and command the programs' --help lists (so a command
// added to gesturectl fails here until gesturectl(1) documents it), one version everywhere, and the bash
// completion completes what gesturectl's --help lists. gestured.toml(5) is checked against the
// configuration schema in GestureConfigTests/ManPageTests.
import DaemonUnderTest
import GestureProtocol
import Glibc
import Testing

private let manSources = Paths.packageRoot + "/man/"

/// The lines of `text` from the heading `heading` ("# OPTIONS", "## monitor") to the next heading of the
/// same or a higher level.
private func section(_ heading: String, of text: String) -> String? {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    guard let start = lines.firstIndex(where: { $0 == heading }) else { return nil }
    let level = heading.prefix(while: { $0 == "#" }).count
    var end = start + 1
    while end < lines.count {
        let hashes = lines[end].prefix(while: { $0 == "#" }).count
        if hashes > 0, hashes <= level, lines[end].dropFirst(hashes).first == " " { break }
        end += 1
    }
    return lines[start..<end].joined(separator: "\n")
}

/// The long options a --help text lists in its option table ("  --socket PATH   ...").
private func listedOptions(_ help: String) -> [String] {
    help.split(separator: "\n").compactMap { line in
        let trimmed = line.drop(while: { $0 == " " })
        guard trimmed.hasPrefix("--"), line.hasPrefix("  ") else { return nil }
        return String(trimmed.prefix(while: { $0 != " " }))
    }
}

/// The commands `gesturectl --help` lists under "commands:".
private func gesturectlCommands(_ directory: TemporaryDirectory) throws -> [String] {
    let help = try run(try Paths.gesturectl(), ["--help"], in: directory)
    #expect(help.status == 0)
    let lines = help.output.split(separator: "\n", omittingEmptySubsequences: false)
    let start = try #require(lines.firstIndex(of: "commands:"), "gesturectl --help lists no commands:\n\(help.output)")
    return lines[(start + 1)...].prefix(while: { !$0.isEmpty }).map { String($0.split(separator: " ")[0]) }
}

@Suite("Man pages, version and completion, against the programs")
struct PackagingTests {
    @Test(arguments: ["gestured.8", "gesturectl.1", "gestured.toml.5"])
    func manPageRendersWithoutWarnings(page: String) throws {
        let directory = TemporaryDirectory()
        // As the Makefile builds it: the version filled in, then scdoc; then man-db and groff with warnings.
        let script = """
            set -e
            sed 's/@VERSION@/\(ProtocolConstants.daemonVersion)/g' "$1" | scdoc > "$2"
            MANWIDTH=80 man --warnings -l "$2" 2>&1 >/dev/null
            """
        let rendered = try run("/bin/sh", ["-c", script, "sh", manSources + page + ".scd", directory.path + "/" + page], in: directory)
        #expect(rendered.status == 0, "scdoc or man failed on \(page) (make deps installs scdoc and man-db): \(rendered.output)")
        #expect(rendered.output.isEmpty, "man --warnings on \(page):\n\(rendered.output)")
        let text = try run("/bin/sh", ["-c", "MANWIDTH=80 man -l \"$1\"", "sh", directory.path + "/" + page], in: directory)
        #expect(text.output.contains("gestured \(ProtocolConstants.daemonVersion)"), "the footer does not carry the version")
    }

    /// The check above can fail: the same pipeline reports a roff mistake.
    @Test func manWarningsAreSeen() throws {
        let directory = TemporaryDirectory()
        let page = directory.write("bad.1", ".TH BAD 1\n.SH NAME\nbad \\- a page\n.nosuchmacro\n")
        let rendered = try run("/bin/sh", ["-c", "man --warnings -l \"$1\" 2>&1 >/dev/null", "sh", page], in: directory)
        #expect(rendered.output.contains("nosuchmacro"), "man --warnings did not report an undefined macro: '\(rendered.output)'")
    }

    @Test func gesturedPageDocumentsEveryOption() throws {
        let directory = TemporaryDirectory()
        let help = try run(try Paths.gestured(), ["--help"], in: directory)
        #expect(help.status == 0)
        let options = listedOptions(help.output)
        #expect(options.contains("--check-config") && options.contains("--replay"), "options not found in: \(help.output)")
        let page = readWholeFile(manSources + "gestured.8.scd")
        let documented = try #require(section("# OPTIONS", of: page), "gestured(8) has no OPTIONS section")
        for option in options {
            #expect(documented.contains("*\(option)*"), "gestured(8) does not document \(option)")
        }
    }

    /// Every command `gesturectl --help` lists has its "## command" section in gesturectl(1), and every
    /// option the command's own --help lists is in that section.
    @Test func gesturectlPageDocumentsEveryCommandAndOption() throws {
        let directory = TemporaryDirectory()
        let ctl = try Paths.gesturectl()
        let commands = try gesturectlCommands(directory)
        #expect(commands.contains("replay") && commands.contains("monitor") && commands.contains("devices"))
        let page = readWholeFile(manSources + "gesturectl.1.scd")
        for command in commands {
            guard let documented = section("## \(command)", of: page) else {
                Issue.record("gesturectl(1) has no '## \(command)' section for the command \(command)")
                continue
            }
            let help = try run(ctl, [command, "--help"], in: directory)
            #expect(help.status == 0, "gesturectl \(command) --help: \(help.output)")
            let options = listedOptions(help.output)
            #expect(!options.isEmpty || !help.output.contains("--"), "no options found in gesturectl \(command) --help")
            for option in options {
                #expect(documented.contains("*\(option)*"), "gesturectl(1) does not document \(command) \(option)")
            }
        }
        #expect(section("# OPTIONS", of: page)?.contains("*--version*") == true)
    }

    /// The version has one source, ProtocolConstants.daemonVersion; both programs print it and the Debian
    /// changelog's latest entry is that version.
    @Test func oneVersionEverywhere() throws {
        let directory = TemporaryDirectory()
        let version = ProtocolConstants.daemonVersion
        let daemon = try run(try Paths.gestured(), ["--version"], in: directory)
        #expect(daemon.status == 0 && daemon.output == "gestured \(version) (protocol \(ProtocolConstants.version))\n")
        let ctl = try run(try Paths.gesturectl(), ["--version"], in: directory)
        #expect(ctl.status == 0 && ctl.output == "gesturectl \(version) (protocol \(ProtocolConstants.version))\n")

        // "gestured (1:0.1.0-2) unstable; urgency=medium": the upstream part, without epoch and revision.
        let changelog = readWholeFile(Paths.packageRoot + "/debian/changelog")
        let first = try #require(changelog.split(separator: "\n").first, "debian/changelog is empty")
        #expect(first.hasPrefix("gestured ("), "debian/changelog's first line names another package: \(first)")
        let open = try #require(first.firstIndex(of: "("))
        let close = try #require(first.firstIndex(of: ")"))
        var debianVersion = first[first.index(after: open)..<close]
        if let colon = debianVersion.firstIndex(of: ":") { debianVersion = debianVersion[debianVersion.index(after: colon)...] }
        if let dash = debianVersion.lastIndex(of: "-") { debianVersion = debianVersion[..<dash] }
        #expect(String(debianVersion) == version, "debian/changelog is at \(debianVersion), the code at \(version)")
    }

    /// The daemon calls nothing in libsystemd (it speaks sd_notify's protocol itself) nor in the standard
    /// library's _StringProcessing: in the package's statically linked binary, one call into
    /// _StringProcessing brings all of it and the regex parser along (about 1 MB of code), and libsystemd
    /// loads six more libraries (docs/architecture.md, "Memory"). Read from the symbols the binary imports.
    @Test func theDaemonImportsNothingFromLibsystemdOrStringProcessing() throws {
        let directory = TemporaryDirectory()
        let symbols = try run("/usr/bin/nm", ["--dynamic", "--undefined-only", try Paths.gestured()], in: directory)
        try #require(symbols.status == 0, "nm failed: \(symbols.output)")
        let imported = symbols.output.split(separator: "\n").compactMap { $0.split(separator: " ").last }
        try #require(imported.contains { $0.hasPrefix("$ss") }, "nm listed no Swift runtime imports: \(symbols.output)")
        let unwanted = imported.filter {
            $0.hasPrefix("sd_") || $0.contains("17_StringProcessing") || $0.contains("12_RegexParser")
        }
        #expect(unwanted.isEmpty, "gestured imports \(unwanted.joined(separator: ", "))")
    }

    /// The bash completion offers what gesturectl's --help lists: commands, a command's options, the
    /// values of --kinds, files for replay's recording and the angles of orientation.
    @Test func bashCompletion() throws {
        let directory = TemporaryDirectory()
        let ctl = try Paths.gesturectl()
        _ = directory.write("touch.evemu", "")
        let script = """
            PATH="$1:$PATH"
            . "$2"
            complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMPREPLY=(); _gesturectl; echo "${COMPREPLY[*]}"; }
            complete_words gesturectl ''
            complete_words gesturectl monitor --
            complete_words gesturectl monitor --kinds pan,p
            complete_words gesturectl replay --pretty touch.e
            complete_words gesturectl devices --json ''
            complete_words gesturectl orientation --device event5 1
            complete_words gesturectl orientation ''
            complete_words gesturectl tune --edges left,t
            """
        let completed = try run(
            "/bin/bash",
            ["-c", "cd \"$3\" && { \(script)\n}", "bash", String(ctl[..<ctl.lastIndex(of: "/")!]),
             Paths.packageRoot + "/completions/gesturectl.bash", directory.path],
            in: directory)
        let lines = completed.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        try #require(lines.count >= 8, "bash completion printed: \(completed.output)")
        let commands = try gesturectlCommands(directory)
        #expect(Set(lines[0].split(separator: " ").map(String.init)) == Set(commands + ["--help", "--version"]))
        let monitorHelp = try run(ctl, ["monitor", "--help"], in: directory)
        #expect(Set(lines[1].split(separator: " ").map(String.init)) == Set(listedOptions(monitorHelp.output) + ["--help"]))
        #expect(lines[2] == "pan,pinch")
        #expect(lines[3] == "touch.evemu")
        #expect(lines[4] == "", "devices takes no argument, yet got: \(lines[4])")
        #expect(lines[5] == "180", "orientation's ANGLE: \(lines[5])")
        #expect(lines[6] == "0 90 180 270", "orientation's ANGLE: \(lines[6])")
        #expect(lines[7] == "left,top", "tune tunes sides, not corners: \(lines[7])")
    }
}
