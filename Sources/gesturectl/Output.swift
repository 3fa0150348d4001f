#if canImport(Glibc)
import Glibc
#endif
import GestureCore
import SystemCalls
import PlainText

/// Writes `text` to standard error unbuffered (`SystemCall.writeAll`: write(2), EINTR retried, short writes
/// finished), for the commands that run once. Control, format and separator characters other than
/// newlines and tabs are shown escaped, never sent to the terminal; a value from outside (a device name, a
/// daemon's message) is passed through `shown` first, so it cannot start a line of its own, and its
/// backslashes are told from the escapes (the message's own backslashes are those escapes, and are kept).
func printError(_ text: String) {
    var text = escapingControlCharacters(text, keepingLines: true, keepingBackslashes: true)
    _ = text.withUTF8 { SystemCall.writeAll(2, UnsafeRawBufferPointer($0)) }
}

/// A value from outside (a device's name, an app_id, a file's text) as it may appear inside a line:
/// every control, format and separator character escaped, newlines and tabs included, and every
/// backslash, so that the app_id `x\u{a}y` and one holding a newline are shown apart.
func shown(_ value: some StringProtocol) -> String { escapingControlCharacters(value) }

/// The log of gesturectl's long-running loops (bind, lisgd, orientation --follow): standard error, which
/// systemd sends to the journal, written without ever waiting for its reader. The commands that bind starts
/// write to the same standard error, so its file description stays blocking for them: a socket (the
/// journal's stream) is written with MSG_DONTWAIT, a pipe or terminal through a descriptor of our own
/// opened non-blocking (/proc/self/fd/2). A line that cannot be written now is dropped and counted, and the
/// next line that goes out says how many were, as the daemon's log does with its journal stream.
enum LogOutput {
    private enum Writer {
        case blocking(Int32)
        case nonBlocking(Int32)
        case socket(Int32)
    }
    nonisolated(unsafe) private static var writer = Writer.blocking(2)
    /// The dropped-line bookkeeping (SystemCalls' one implementation, the daemon's log's too).
    nonisolated(unsafe) private static var stream = DroppingLineWriter()
    /// Lines dropped since one last went out.
    static var droppedLines: Int { stream.droppedLines }

    /// Makes log writes non-blocking; returns why not when it cannot (writes then wait, as before).
    static func neverWait() -> String? {
        guard let status = try? SystemCall.fstat(2) else { return "standard error is not open" }
        switch status.st_mode & S_IFMT {
        case S_IFSOCK:
            writer = .socket(2)
        case S_IFIFO, S_IFCHR:
            do {
                writer = .nonBlocking(try SystemCall.open("/proc/self/fd/2", flags: O_WRONLY | O_NONBLOCK | O_CLOEXEC))
            } catch {
                return "cannot open standard error again without blocking (\(error)); log lines wait for their reader"
            }
        default:
            break  // a regular file: a write never waits for a reader
        }
        return nil
    }

    /// Writes one line (a newline is added).
    static func write(_ line: String) {
        stream.write(line + "\n", lines: 1, notice: { dropped in
            "\(dropped) log line\(dropped == 1 ? "" : "s") dropped: standard error was not being read\n"
        }) { raw in
            switch writer {
            case .blocking(let fd): return SystemCall.writeSome(fd, raw)
            case .nonBlocking(let fd): return SystemCall.writeSome(fd, raw)
            case .socket(let fd): return SystemCall.sendSome(fd, raw)
            }
        }
    }
}
