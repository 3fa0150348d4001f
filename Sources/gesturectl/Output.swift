import SystemCalls

/// Writes `text` to standard error unbuffered (`SystemCall.writeAll`: write(2), EINTR retried, short writes
/// finished).
func printError(_ text: String) {
    var text = text
    _ = text.withUTF8 { SystemCall.writeAll(2, UnsafeRawBufferPointer($0)) }
}
