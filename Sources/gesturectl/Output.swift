import GestureCore
import SystemCalls

/// Writes `text` to standard error unbuffered (`SystemCall.writeAll`: write(2), EINTR retried, short writes
/// finished). Control characters other than newlines and tabs (from a recording, a device name) are shown
/// escaped, never sent to the terminal.
func printError(_ text: String) {
    var text = escapingControlCharacters(text, keepingLines: true)
    _ = text.withUTF8 { SystemCall.writeAll(2, UnsafeRawBufferPointer($0)) }
}
