// The one reader of every program's command line (gestured, gesturectl's subcommands, the bench and soak
// tools): options and their values, left to right, with the same messages for a missing value or an
// unknown option everywhere. Pure Swift, no dependencies: each program prints the messages its own way.

/// A mistake on the command line: printed as "PROGRAM: MESSAGE", exit status 2.
public struct UsageError: Error, Equatable, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}

/// One program's (or subcommand's) arguments, read in order.
public struct Arguments {
    /// How messages name the program: "gestured", "gesturectl bind".
    public let program: String
    public let usage: String
    private let list: [String]
    private var position = 0

    public init(_ list: [String], program: String, usage: String) {
        self.list = list
        self.program = program
        self.usage = usage
    }

    /// The value after `option`; `missing` is the message when there is none.
    public mutating func value(of option: String, missing: @autoclosure () -> String? = nil) throws(UsageError) -> String {
        guard position < list.count else { throw UsageError(missing() ?? "\(option) needs a value") }
        position += 1
        return list[position - 1]
    }

    /// The value after `option` as a number within `range`: "OPTION TEXT: give a number from A to B" when
    /// it is not one.
    public mutating func number(of option: String, in range: ClosedRange<Double>) throws(UsageError) -> Double {
        let text = try value(of: option)
        guard let number = Double(text), range.contains(number) else {
            throw UsageError("\(option) \(text): give a number from \(Self.shown(range.lowerBound)) to \(Self.shown(range.upperBound))")
        }
        return number
    }

    /// "unknown option 'X'", followed by the usage.
    public func unknown(_ option: String) -> UsageError {
        UsageError("unknown option '\(option)'\n\n" + usage)
    }

    /// Reads every argument through `handle` (which takes the values it needs with `value(of:)`): true when
    /// one of `help` was given (the rest is then not read), false when all were read.
    public mutating func parse(
        help: [String] = ["--help", "-h"], _ handle: (inout Arguments, String) throws(UsageError) -> Void
    ) throws(UsageError) -> Bool {
        while position < list.count {
            let argument = list[position]
            position += 1
            if help.contains(argument) { return true }
            try handle(&self, argument)
        }
        return false
    }

    /// The operands of a program that takes no options (the bench and soak tools): nil when one of `help`
    /// was given, else the arguments, at most `atMost` of them; an option is an unknown one.
    public mutating func operands(help: [String] = ["--help", "-h"], atMost: Int) throws(UsageError) -> [String]? {
        var operands: [String] = []
        let helped = try parse(help: help) { (arguments, argument) throws(UsageError) in
            if argument.hasPrefix("-") { throw arguments.unknown(argument) }
            guard operands.count < atMost else { throw UsageError("too many arguments ('\(argument)')\n\n" + arguments.usage) }
            operands.append(argument)
        }
        return helped ? nil : operands
    }

    /// The line to print for `error`: "PROGRAM: MESSAGE", ending in a newline.
    public func message(for error: UsageError) -> String {
        "\(program): \(error.message)" + (error.message.hasSuffix("\n") ? "" : "\n")
    }

    /// A bound as a person writes it: 0.1, 100 (not 100.0).
    private static func shown(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
