#if canImport(Glibc)
import Glibc
#endif
import GestureProtocol
@testable import conformance_dump
import Testing

@testable import GestureConfig

/// The TOML corpus (Tests/Fixtures/toml): every valid document parses to the tree Python's tomllib gives
/// (valid/NAME.json, written by tools/toml-fixtures.py), and every invalid one is refused with a position
/// inside the file.
@Suite("TOML corpus")
struct TOMLCorpusTests {
    static let corpus = repositoryRoot + "/Tests/Fixtures/toml"

    static func names(_ directory: String) -> [String] {
        guard let dir = opendir(corpus + "/" + directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            if name.hasSuffix(".toml") { names.append(String(name.dropLast(5))) }
        }
        return names.sorted()
    }

    static func bytes(_ path: String) -> [UInt8] {
        guard let file = fopen(path, "rb") else { return [] }
        defer { fclose(file) }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&buffer, 1, buffer.count, file)
            if n == 0 { break }
            out.append(contentsOf: buffer[0..<n])
        }
        return out
    }

    /// The expected tree with each float's text read and written back the way TOMLTaggedJSON writes it
    /// (Python's repr and Swift's description spell some doubles differently: 1e+16 and 1e16).
    static func normalized(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let members):
            if members.count == 2, members[0].key == "type", case .string("float") = members[0].value,
                members[1].key == "value", case .string(let text) = members[1].value
            {
                let d = text == "nan" ? Double.nan : text == "inf" ? .infinity : text == "-inf" ? -.infinity : Double(text)
                return .object([("type", .string("float")), ("value", .string(d.map(TOMLTaggedJSON.floatText) ?? "unreadable \(text)"))])
            }
            return .object(members.map { ($0.key, normalized($0.value)) })
        case .array(let elements): return .array(elements.map(normalized))
        default: return value
        }
    }

    @Test func theCorpusIsThere() {
        #expect(Self.names("valid").count >= 80)
        #expect(Self.names("invalid").count >= 80)
    }

    @Test(arguments: names("valid"))
    func validDocumentParsesToTomllibsTree(name: String) throws {
        let path = Self.corpus + "/valid/" + name
        let expected = try JSONParser.parse(Self.bytes(path + ".json"))
        switch TOMLTaggedJSON.render(bytes: Self.bytes(path + ".toml")) {
        case .success(let tree):
            #expect(Self.normalized(tree) == Self.normalized(expected), "\(name): got \(tree.serialized)")
        case .failure(let error):
            Issue.record("\(name).toml refused at \(error.line):\(error.column): \(error.message)")
        }
    }

    @Test(arguments: names("invalid"))
    func invalidDocumentIsRefused(name: String) {
        let text = Self.bytes(Self.corpus + "/invalid/" + name + ".toml")
        let lines = text.split(separator: 0x0A, omittingEmptySubsequences: false).count
        switch TOMLTaggedJSON.render(bytes: text) {
        case .success(let tree):
            Issue.record("\(name).toml parsed: \(tree.serialized)")
        case .failure(let error):
            // Line 1 is the comment saying why the file is invalid; the error is after it.
            #expect(error.line >= 2 && error.line <= lines, "\(name): \(error.line):\(error.column) \(error.message)")
            #expect(error.column >= 1)
            #expect(!error.message.isEmpty)
        }
    }
}
