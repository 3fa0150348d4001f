import GestureCore
import Testing

@testable import GestureConfig

/// The repository root, found from this file's path (Tests/GestureConfigTests/Support.swift).
let repositoryRoot: String = {
    var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    return parts.joined(separator: "/")
}()

/// The messages parsing `text` produces, one per problem, or [] when it loads.
func errors(_ text: String, file: String = "gestured.toml") -> [String] {
    do {
        _ = try Configuration.parse(text: text, fileName: file)
        return []
    } catch {
        return error.diagnostics.map(\.description)
    }
}

/// Parses text that must load.
func load(_ text: String, file: String = "gestured.toml") throws -> Configuration {
    try Configuration.parse(text: text, fileName: file)
}

func touchscreen(_ name: String, vendor: UInt16 = 0, product: UInt16 = 0) -> DeviceDescription {
    DeviceDescription(name: name, vendor: vendor, product: product)
}

#if canImport(Glibc)
import Glibc
#endif

/// Writes `bytes` to a new file under /tmp and returns its path.
func temporaryFile(bytes: [UInt8]) throws -> String {
    var template = Array("/tmp/gestured-config-test-XXXXXX".utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard fd >= 0 else { throw TemporaryFileError() }
    defer { close(fd) }
    let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    guard written == bytes.count else { throw TemporaryFileError() }
    return template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
}

struct TemporaryFileError: Error {}

func removeFile(_ path: String) {
    _ = unlink(path)
}
