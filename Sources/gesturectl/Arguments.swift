// gesturectl's side of the one command-line reader (CommandLineArguments): a subcommand's arguments,
// its usage on --help, its mistakes printed as "gesturectl COMMAND: MESSAGE".
import CommandLineArguments

extension Arguments {
    /// `command`'s arguments ("bind", "lisgd": how messages name the subcommand).
    init(_ list: [String], command: String, usage: String) {
        self.init(list, program: "gesturectl \(command)", usage: usage)
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

    /// Prints a usage error as this subcommand's.
    func fail(_ error: UsageError) {
        printError(message(for: error))
    }

    /// The file name after `option` (--config, --device, -o): "OPTION needs a file name" when there is none.
    mutating func fileName(of option: String) throws(UsageError) -> String {
        try value(of: option, missing: "\(option) needs a file name")
    }

    /// The app_id after `option` (--focus): "OPTION needs an app_id" when there is none.
    mutating func appID(of option: String) throws(UsageError) -> String {
        try value(of: option, missing: "\(option) needs an app_id")
    }

    /// The path after `option` (--socket): "OPTION needs a path" when there is none.
    mutating func path(of option: String) throws(UsageError) -> String {
        try value(of: option, missing: "\(option) needs a path")
    }

    /// The one RECORDING of `replay` and `plot` ("-" is standard input): `argument` unless it is an option
    /// or a second recording.
    func operand(_ argument: String, after earlier: String?) throws(UsageError) -> String {
        if argument.hasPrefix("-") && argument != "-" { throw unknown(argument) }
        if let earlier { throw UsageError("one recording at a time ('\(earlier)' and '\(argument)')") }
        return argument
    }
}
