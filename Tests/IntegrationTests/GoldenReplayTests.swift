import Foundation
import Testing

/// What clients receive, pinned byte for byte: `gesturectl replay` over the recordings listed in
/// Tests/Fixtures/golden/manifest.tsv must print exactly the reviewed golden files (see their README).
@Suite struct GoldenReplayTests {
    static let golden = ReplayCommandTests.packageRoot + "/Tests/Fixtures/golden/"

    struct Case: CustomTestStringConvertible, Sendable {
        var golden: String
        var recording: String
        var description: String?
        var testDescription: String { golden }
    }

    static let cases: [Case] = {
        guard let manifest = try? String(contentsOfFile: golden + "manifest.tsv", encoding: .utf8) else { return [] }
        return manifest.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            let fields = line.split(separator: "\t").map(String.init)
            return Case(golden: fields[0], recording: fields[1], description: fields[2] == "-" ? nil : fields[2])
        }
    }()

    @Test func theManifestListsEveryGoldenFile() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.golden).filter { $0.hasSuffix(".jsonl") }
        #expect(Set(files) == Set(Self.cases.map(\.golden)))
        #expect(Self.cases.count >= 6)
    }

    @Test(arguments: cases) func replayIsByteIdentical(_ c: Case) throws {
        var args = ["replay"]
        if let d = c.description { args += ["--device", ReplayCommandTests.recordings + d] }
        args.append(ReplayCommandTests.recordings + c.recording)
        let r = try ReplayCommandTests.run(args)
        #expect(r.status == 0, "\(r.stderr)")
        let expected = try String(contentsOfFile: Self.golden + c.golden, encoding: .utf8)
        #expect(!expected.isEmpty)
        if r.stdout != expected {
            let got = r.stdout.split(separator: "\n", omittingEmptySubsequences: false)
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
