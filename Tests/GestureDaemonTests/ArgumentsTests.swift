import CommandLineArguments
import Testing

/// The one command-line reader gestured, gesturectl and the tools use: left to right, values taken by the
/// option that needs them, the same messages everywhere.
@Suite struct ArgumentsTests {
    /// Reads `list` the way a program with `--name VALUE`, `--speed X` and `--flag` does.
    static func read(_ list: [String]) throws(UsageError) -> (help: Bool, seen: [String]) {
        var seen: [String] = []
        var arguments = Arguments(list, program: "prog", usage: "usage: prog [--name N] [--speed X] [--flag]\n")
        let help = try arguments.parse { (arguments, argument) throws(UsageError) in
            switch argument {
            case "--name": seen.append("name=" + (try arguments.value(of: argument)))
            case "--speed": seen.append("speed=\(try arguments.number(of: argument, in: 0.01...100))")
            case "--flag": seen.append("flag")
            default: throw arguments.unknown(argument)
            }
        }
        return (help, seen)
    }

    @Test func optionsAndValuesInOrder() throws {
        let result = try Self.read(["--flag", "--name", "--flag", "--speed", "2.5", "--flag"])
        #expect(!result.help)
        #expect(result.seen == ["flag", "name=--flag", "speed=2.5", "flag"])  // a value may look like an option
    }

    @Test func helpStopsTheReading() throws {
        let result = try Self.read(["--flag", "-h", "--unknown"])
        #expect(result.help && result.seen == ["flag"])
        #expect(try Self.read(["--help"]).help)
    }

    @Test func mistakesSayWhatIsWrong() {
        #expect(throws: UsageError("--name needs a value")) { try Self.read(["--flag", "--name"]) }
        #expect(throws: UsageError("unknown option '--nope'\n\nusage: prog [--name N] [--speed X] [--flag]\n")) {
            try Self.read(["--nope"])
        }
        #expect(throws: UsageError("--speed fast: give a number from 0.01 to 100")) { try Self.read(["--speed", "fast"]) }
        #expect(throws: UsageError("--speed 1000: give a number from 0.01 to 100")) { try Self.read(["--speed", "1000"]) }
    }

    @Test func aMessageNamesTheProgramOnALineOfItsOwn() {
        let arguments = Arguments([], program: "gesturectl bind", usage: "")
        #expect(arguments.message(for: UsageError("--file needs a value")) == "gesturectl bind: --file needs a value\n")
        #expect(arguments.message(for: UsageError("two\n")) == "gesturectl bind: two\n")
        var missing = Arguments(["--x"], program: "p", usage: "")
        #expect(throws: UsageError("--x needs the path of a file")) {
            _ = try missing.parse { (arguments, argument) throws(UsageError) in
                _ = try arguments.value(of: argument, missing: "--x needs the path of a file")
            }
        }
    }

    @Test func operandsOfAProgramWithoutOptions() throws {
        var two = Arguments(["a", "b"], program: "p", usage: "usage: p [A [B]]\n")
        #expect(try two.operands(atMost: 2) == ["a", "b"])
        var three = Arguments(["a", "b", "c"], program: "p", usage: "usage: p [A [B]]\n")
        #expect(throws: UsageError("too many arguments ('c')\n\nusage: p [A [B]]\n")) { try three.operands(atMost: 2) }
        var option = Arguments(["-x"], program: "p", usage: "u\n")
        #expect(throws: UsageError("unknown option '-x'\n\nu\n")) { try option.operands(atMost: 2) }
        var help = Arguments(["a", "--help"], program: "p", usage: "u\n")
        #expect(try help.operands(atMost: 2) == nil)
        var none = Arguments([], program: "p", usage: "u\n")
        #expect(try none.operands(atMost: 1) == [])
    }
}
