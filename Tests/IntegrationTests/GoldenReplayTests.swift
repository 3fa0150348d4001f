import Foundation
import Testing

/// What clients receive, pinned byte for byte: `gesturectl replay` over the recordings listed in
/// Tests/Fixtures/golden/manifest.tsv must print exactly the reviewed golden files (see their README); a
/// golden `.evemu` file is what `gesturectl replay --forward` writes for the virtual copy (passthrough).
@Suite struct GoldenReplayTests {
    static let golden = ReplayCommandTests.packageRoot + "/Tests/Fixtures/golden/"

    struct Case: CustomTestStringConvertible, Sendable {
        var golden: String
        var recording: String
        var description: String?
        /// A gestured.toml under Tests/Fixtures/golden/configs/, nil for the built-in defaults.
        var config: String?
        /// The golden file is the virtual copy's recording (`--forward`), not the printed gesture events.
        var isForward: Bool { golden.hasSuffix(".evemu") }
        var testDescription: String { golden }
    }

    static let cases: [Case] = {
        guard let manifest = try? String(contentsOfFile: golden + "manifest.tsv", encoding: .utf8) else { return [] }
        return manifest.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            let fields = line.split(separator: "\t").map(String.init)
            return Case(
                golden: fields[0], recording: fields[1], description: fields[2] == "-" ? nil : fields[2],
                config: fields.count > 3 && fields[3] != "-" ? fields[3] : nil)
        }
    }()

    @Test func theManifestListsEveryGoldenFile() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.golden).filter {
            $0.hasSuffix(".jsonl") || $0.hasSuffix(".evemu")
        }
        #expect(Set(files) == Set(Self.cases.map(\.golden)))
        #expect(Self.cases.count >= 15)
        #expect(Self.cases.filter(\.isForward).count >= 2)
    }

    @Test(arguments: cases) func replayIsByteIdentical(_ c: Case) throws {
        var args = ["replay"]
        if let d = c.description { args += ["--device", ReplayCommandTests.recordings + d] }
        if let config = c.config { args += ["--config", Self.golden + "configs/" + config] }
        let forwarded = FileManager.default.temporaryDirectory.path + "/golden-forward-\(getpid())-\(c.golden)"
        defer { unlink(forwarded) }
        if c.isForward { args += ["--forward", forwarded] }
        args.append(ReplayCommandTests.recordings + c.recording)
        let r = try ReplayCommandTests.run(args)
        #expect(r.status == 0, "\(r.stderr)")
        let output = c.isForward ? try String(contentsOfFile: forwarded, encoding: .utf8) : r.stdout
        let expected = try String(contentsOfFile: Self.golden + c.golden, encoding: .utf8)
        #expect(!expected.isEmpty)
        if output != expected {
            let got = output.split(separator: "\n", omittingEmptySubsequences: false)
            let want = expected.split(separator: "\n", omittingEmptySubsequences: false)
            let first = (0..<min(got.count, want.count)).first { got[$0] != want[$0] } ?? min(got.count, want.count)
            Issue.record(
                """
                \(c.golden): output differs from the golden file at line \(first + 1) \
                (\(got.count) lines, golden \(want.count))
                got:    \(first < got.count ? String(got[first]) : "<end>")
                golden: \(first < want.count ? String(want[first]) : "<end>")
                """)
        }
    }
}
