import Foundation
import Testing

/// The library products as a client program uses them: a package of its own that depends on this one by
/// path, built with `swift build` and run.
@Suite struct ClientPackageTests {
    /// GestureVocabulary alone: `Double.squareRoot()` in `Vector2.length` becomes a call to libm's sqrt in a
    /// debug build, and nothing else in such a client brings libm in ("undefined reference to 'sqrt'").
    @Test func aClientOfGestureVocabularyAloneBuildsAndRuns() throws {
        let directory = TemporaryDirectory()
        let root = Paths.packageRoot
        let identity = String(root[root.index(after: root.lastIndex(of: "/")!)...]).lowercased()
        try FileManager.default.createDirectory(atPath: directory.path + "/Sources/client", withIntermediateDirectories: true)
        try """
            // swift-tools-version:5.9
            import PackageDescription
            let package = Package(
                name: "client",
                dependencies: [.package(path: "\(root)")],
                targets: [.executableTarget(name: "client", dependencies: [.product(name: "GestureVocabulary", package: "\(identity)")])]
            )
            """.write(toFile: directory.path + "/Package.swift", atomically: true, encoding: .utf8)
        try """
            import GestureVocabulary
            print(Vector2(3 * Double(CommandLine.arguments.count), 4).length)
            """.write(toFile: directory.path + "/Sources/client/main.swift", atomically: true, encoding: .utf8)
        let build = try Self.run(["swift", "build", "--package-path", directory.path])
        #expect(build.status == 0, "swift build of a client package: \(build.output)")
        let program = try Self.run([directory.path + "/.build/debug/client"])
        #expect(program.status == 0 && program.output == "5.0\n", "\(program.output)")
    }

    /// Runs `arguments` with umask 022 of its own: the test process's umask is briefly 0177 while a test
    /// running beside this one binds a daemon's socket (Listener), and a `swift build` started in that
    /// moment wrote its package manifest's program without execute permission (posix_spawn: EACCES).
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "umask 022 && exec \"$@\"", "sh"] + arguments
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
