import Testing

@testable import GestureConfig

/// Bad input never crashes the loader, and every problem it reports has a place in the file.
@Suite("Robustness")
struct RobustnessTests {
    /// A small deterministic generator (SplitMix64), so failures reproduce.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    }

    @Test func mutatedDefaultFilesNeverCrashAndAlwaysPointIntoTheFile() throws {
        let original = Array(try fileText(repositoryRoot + "/config/gestured.toml").utf8)
        let alphabet = Array("[]{}=\"'.,#\n 0123456789-+eE_abcxyz\\\t".utf8) + [0xff, 0x00]
        var generator = Generator(state: 42)
        var loaded = 0
        for _ in 0..<1500 {
            var bytes = original
            for _ in 0..<(1 + generator.below(4)) {
                let at = generator.below(bytes.count)
                switch generator.below(3) {
                case 0: bytes.remove(at: at)
                case 1: bytes.insert(alphabet[generator.below(alphabet.count)], at: at)
                default: bytes[at] = alphabet[generator.below(alphabet.count)]
                }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            do {
                _ = try Configuration.parse(text: text, fileName: "m.toml")
                loaded += 1
            } catch {
                #expect(!error.diagnostics.isEmpty)
                for d in error.diagnostics {
                    #expect(d.location.line != nil, "no line in: \(d)")
                    #expect(d.description.hasPrefix("m.toml:"))
                }
            }
        }
        // Some mutations only touch comments or whitespace; most break something.
        #expect(loaded > 0 && loaded < 1500)
    }

    /// Every recognizer and daemon key given a value of each wrong type is an error at that key.
    @Test func everyKeyRejectsWrongTypes() throws {
        let wrong = ["\"text\"", "[1, 2]", "{ a = 1 }", "1979-05-27", "-inf", "1.5e300", "-1"]
        let keys = daemonKeys.map { ("daemon", $0) } + recognizerKeys.map { ("recognizer", $0.key) }
        for (table, key) in keys {
            for value in wrong {
                let text = "[\(table)]\n\(key) = \(value)\n"
                let messages = errors(text)
                // Numbers have the right type for some keys but are out of every range; "text" has the
                // right type for the string keys and is a bad value for all of them but socket_group.
                if table == "daemon" && key == "socket_group" && value == "\"text\"" {
                    #expect(messages.isEmpty)
                    continue
                }
                #expect(messages.count == 1, "\(text) gave \(messages)")
                #expect(messages.first?.hasPrefix("gestured.toml:2:") == true, "\(text) gave \(messages)")
                #expect(messages.first?.contains("\(table).\(key): ") == true, "\(text) gave \(messages)")
            }
        }
    }
}
