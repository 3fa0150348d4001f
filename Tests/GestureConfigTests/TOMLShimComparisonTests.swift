import Testing

@testable import GestureConfig

/// While the toml++ shim is still built: the Swift parser gives the same tree, with the same positions, as
/// the shim on every valid corpus document toml++ accepts.
@Suite("TOML parser against the shim")
struct TOMLShimComparisonTests {
    static func flatten(_ value: TOMLValue, _ path: String, into out: inout [String]) {
        let at = "\(value.position.line):\(value.position.column)"
        switch value.kind {
        case .table(let members):
            out.append("\(path) table @\(at)")
            for m in members { out.append("\(path).\(m.key) key @\(m.keyPosition.line):\(m.keyPosition.column)"); flatten(m.value, path + "." + m.key, into: &out) }
        case .array(let elements):
            out.append("\(path) array @\(at)")
            for (i, e) in elements.enumerated() { flatten(e, "\(path)[\(i)]", into: &out) }
        default:
            out.append("\(path) \(value.described) @\(at)")
        }
    }

    @Test(arguments: TOMLCorpusTests.names("valid"))
    func sameTreeAsTheShim(name: String) throws {
        let bytes = TOMLCorpusTests.bytes(TOMLCorpusTests.corpus + "/valid/" + name + ".toml")
        let shim: TOMLValue
        do {
            shim = try bytes.withUnsafeBufferPointer { b throws(TOMLSyntaxError) in try CTOMLReader.parse(bytes: b, sourceName: "x") }
        } catch {
            // toml++ refuses one corpus document: 1e400, a float past Double's range that TOML reads as inf.
            #expect(name == "floats-extremes", "the shim refuses \(name): \(error.message)")
            return
        }
        let ours = try bytes.withUnsafeBufferPointer { b throws(TOMLSyntaxError) in try TOMLReader.parse(bytes: b, sourceName: "x") }
        var a: [String] = [], b: [String] = []
        Self.flatten(shim, "", into: &a)
        Self.flatten(ours, "", into: &b)
        #expect(a == b, "\(name): \(zip(a, b).filter { $0 != $1 }.prefix(3))")
    }
}
