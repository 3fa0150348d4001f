// The one reader of every subcommand's command line: options and their values, left to right, with the
// usage on --help and the same messages for a missing value or an unknown option everywhere.

/// A mistake on the command line: printed as "gesturectl COMMAND: MESSAGE", exit status 2.
struct UsageError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

/// One subcommand's arguments, read in order.
struct Arguments {
    /// "bind", "lisgd": how messages name the subcommand.
    let command: String
    let usage: String
    private let list: [String]
    private var position = 0

    init(_ list: [String], command: String, usage: String) {
        self.list = list
        self.command = command
        self.usage = usage
    }

    /// The value after `option`; `missing` is the message when there is none.
    mutating func value(of option: String, missing: @autoclosure () -> String? = nil) throws(UsageError) -> String {
        guard position < list.count else { throw UsageError(missing() ?? "\(option) needs a value") }
        position += 1
        return list[position - 1]
    }

    /// "unknown option 'X'", followed by the usage.
    func unknown(_ option: String) -> UsageError {
        UsageError("unknown option '\(option)'\n\n" + usage)
    }

    /// Reads every argument through `handle` (which takes the values it needs with `value(of:)`). `help`
    /// are the options that print the usage (lisgd's -h is the height). Returns the exit status to stop
    /// with (0 after the usage, 2 after a mistake, its message printed), or nil to go on.
    mutating func read(
        help: [String] = ["--help", "-h"], _ handle: (inout Arguments, String) throws(UsageError) -> Void
    ) -> Int32? {
        do {
            if try parse(help: help, handle) {
                print(usage, terminator: "")
                return 0
            }
            return nil
        } catch {
            fail(error)
            return 2
        }
    }

    /// `read` without printing: true when one of `help` was given (the rest is then not read).
    mutating func parse(help: [String], _ handle: (inout Arguments, String) throws(UsageError) -> Void) throws(UsageError) -> Bool {
        while position < list.count {
            let argument = list[position]
            position += 1
            if help.contains(argument) { return true }
            try handle(&self, argument)
        }
        return false
    }

    /// Prints a usage error as this subcommand's.
    func fail(_ error: UsageError) {
        printError("gesturectl \(command): \(error.message)" + (error.message.hasSuffix("\n") ? "" : "\n"))
    }
}

extension Arguments {
    /// The one RECORDING of `replay` and `plot` ("-" is standard input): `argument` unless it is an option
    /// or a second recording.
    func operand(_ argument: String, after earlier: String?) throws(UsageError) -> String {
        if argument.hasPrefix("-") && argument != "-" { throw unknown(argument) }
        if let earlier { throw UsageError("one recording at a time ('\(earlier)' and '\(argument)')") }
        return argument
    }
}
