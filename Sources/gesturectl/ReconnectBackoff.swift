// How `gesturectl bind`, `lisgd` and `orientation --follow` retry the daemon: 0.25 s doubling to 8 s, each
// attempt logged until the backoff reaches its maximum, then once.
import GestureBindings
import GestureConfig

struct ReconnectBackoff {
    static var firstMilliseconds: Int64 { 250 }
    static var maximumMilliseconds: Int64 { 8000 }

    private(set) var failedAttempts = 0
    private(set) var milliseconds: Int64 = 0

    /// A failed attempt: the delay before the next one, and the log line to write (nil: stay quiet).
    mutating func failed(reason: String) -> (delayMilliseconds: Int64, logLine: String?) {
        failedAttempts += 1
        milliseconds = milliseconds == 0 ? Self.firstMilliseconds : min(milliseconds * 2, Self.maximumMilliseconds)
        let seconds = BindingMatcher.decimal(Double(milliseconds) / 1000)
        // Every attempt until the backoff reaches its maximum, then once: a daemon stopped for an hour does
        // not fill the journal.
        if milliseconds < Self.maximumMilliseconds {
            return (milliseconds, "\(reason); retrying in \(seconds) s")
        } else if failedAttempts == Self.attemptsToReachMaximum {
            return (milliseconds, "\(reason); retrying every \(seconds) s from now on, quietly")
        }
        return (milliseconds, nil)
    }

    /// Connected: the next failure starts from the first delay again.
    mutating func succeeded() {
        failedAttempts = 0
        milliseconds = 0
    }

    private static var attemptsToReachMaximum: Int {
        var b = firstMilliseconds
        var n = 1
        while b < maximumMilliseconds {
            b = min(b * 2, maximumMilliseconds)
            n += 1
        }
        return n
    }
}
