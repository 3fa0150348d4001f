#if canImport(Glibc)
import Glibc
#endif

/// Writes `text` to standard error unbuffered (write(2), retried on EINTR and short writes).
func printError(_ text: String) {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeMutableBytes { buf in write(2, buf.baseAddress! + offset, buf.count - offset) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return }
        offset += n
    }
    bytes.removeAll()
}
