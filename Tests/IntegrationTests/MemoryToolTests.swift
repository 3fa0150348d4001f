import Glibc
import Testing

/// tools/process-memory.sh, which reports a running daemon's memory where gestured-socket-bench does not
/// run (the test-vm guest beside lisgd, a device): its line, its per-file table and its errors.
@Suite struct MemoryToolTests {
    private let tool = Paths.packageRoot + "/tools/process-memory.sh"

    /// The `key=value` fields of a `memory: …` line.
    private func fields(_ line: Substring) -> [String: String] {
        var result: [String: String] = [:]
        for word in line.split(separator: " ").dropFirst() {
            guard let equals = word.firstIndex(of: "=") else { continue }
            result[String(word[..<equals])] = String(word[word.index(after: equals)...])
        }
        return result
    }

    @Test func reportsTheDaemonsRssPssAndPrivateDirtyAndWhereTheyGo() throws {
        let daemon = try Daemon([])
        let directory = TemporaryDirectory()
        let result = try run("/bin/sh", [tool, "-v", String(daemon.pid)], in: directory)
        #expect(result.status == 0, "\(result.output)")
        let lines = result.output.split(separator: "\n")
        let first = try #require(lines.first)
        #expect(first.hasPrefix("memory: pid=\(daemon.pid) name=gestured "), "\(first)")
        let f = fields(first)
        let rss = try #require(f["rss_kib"].flatMap { Int($0) }, "\(first)")
        let pss = try #require(f["pss_kib"].flatMap { Int($0) }, "\(first)")
        let dirty = try #require(f["private_dirty_kib"].flatMap { Int($0) }, "\(first)")
        let anonymous = try #require(f["anonymous_kib"].flatMap { Int($0) }, "\(first)")
        // What smaps_rollup's figures always satisfy for a live process.
        #expect(rss > 0 && pss > 0 && pss <= rss && dirty <= rss && anonymous <= rss, "\(first)")
        // The table: a header, then one row per mapped file, the daemon's own binary among them.
        #expect(lines.count > 3)
        #expect(lines.dropFirst().contains { $0.hasSuffix("/gestured") }, "\(result.output)")
        // Its heap: [heap] with glibc's malloc, [anon] regions under the address sanitizer's allocator
        // (make test-sanitize).
        #expect(lines.dropFirst().contains { $0.hasSuffix("[heap]") || $0.hasSuffix("[anon]") }, "\(result.output)")
    }

    @Test func aProcessThatIsGoneIsAnErrorAndTheOthersAreStillReported() throws {
        let directory = TemporaryDirectory()
        var status: Int32 = 0
        // A pid that existed and is gone: a child that has exited and been reaped.
        var child: pid_t = 0
        let argv = [strdup("/bin/true"), nil]
        defer { free(argv[0]) }
        try #require(posix_spawn(&child, "/bin/true", nil, nil, argv, environ) == 0)
        waitpid(child, &status, 0)
        let result = try run("/bin/sh", [tool, String(child), String(getpid())], in: directory)
        #expect(result.status == 1)
        #expect(result.output.contains("cannot read /proc/\(child)/smaps_rollup"), "\(result.output)")
        #expect(result.output.contains("memory: pid=\(getpid()) "), "\(result.output)")
        let usage = try run("/bin/sh", [tool], in: directory)
        #expect(usage.status == 2 && usage.output.contains("usage: process-memory.sh"), "\(usage.output)")
    }
}
