import CFuzzer

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What a fuzz target does with one input. A failed check stops the process (`fuzzCheck`), which libFuzzer
/// reports as a crash and saves the input as `crash-<sha1>`.
nonisolated(unsafe) private var target: ((UnsafeRawBufferPointer) -> Void)?

/// Counters a target keeps beside libFuzzer's own execution count (request lines, input events, gesture
/// events), printed as one `fuzz-stats:` line when the process exits so `make fuzz` can add them up.
nonisolated(unsafe) public var fuzzCounters: [(name: String, value: Int)] = []
nonisolated(unsafe) private var fuzzTargetName = "fuzz"

/// Adds `amount` to the counter `name` (created on first use; a handful per target, so a linear scan).
public func fuzzCount(_ name: String, _ amount: Int = 1) {
    if let i = fuzzCounters.firstIndex(where: { $0.name == name }) {
        fuzzCounters[i].value += amount
    } else {
        fuzzCounters.append((name, amount))
    }
}

/// A broken invariant: says which, and aborts so libFuzzer keeps the input.
public func fuzzCheck(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition {
        printError("\(fuzzTargetName): invariant broken: \(message())\n")
        abort()
    }
}

/// Runs libFuzzer with `body` as the target; libFuzzer's own options (-max_total_time, -runs, corpus
/// directories, a crash file to reproduce) are the command line. Never returns.
public func runFuzzer(name: String, _ body: @escaping (UnsafeRawBufferPointer) -> Void) -> Never {
    target = body
    fuzzTargetName = name
    atexit {
        guard !fuzzCounters.isEmpty else { return }
        let fields = fuzzCounters.map { "\($0.name)=\($0.value)" }.joined(separator: " ")
        printError("fuzz-stats: \(fuzzTargetName) \(fields)\n")
    }
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    let status = LLVMFuzzerRunDriver(&argc, &argv) { data, size in
        target?(UnsafeRawBufferPointer(start: data, count: size))
        return 0
    }
    exit(status)
}

/// Writes `text` to standard error (unbuffered, so it is there even when the process aborts next).
public func printError(_ text: String) {
    var bytes = Array(text.utf8)
    bytes.withUnsafeMutableBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let n = write(2, buffer.baseAddress! + offset, buffer.count - offset)
            if n <= 0 { if n < 0 && errno == EINTR { continue }; return }
            offset += n
        }
    }
}
