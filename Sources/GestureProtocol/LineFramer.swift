/// Splits a byte stream into newline-terminated lines, holding back a partial line until its newline
/// arrives, and refusing lines longer than a limit without buffering them.
///
/// Used on both ends of the socket: the daemon frames client requests (limit 64 KiB), clients frame
/// the daemon's messages.
public struct LineFramer: Sendable {
    public enum Output: Equatable, Sendable {
        /// One complete line, without its `\n` (and without a `\r` before it).
        case line([UInt8])
        /// The line being read passed `maximumLineBytes` before its newline; the stream can no longer be
        /// framed reliably, so the reader should close it.
        case lineTooLong
    }

    /// Longest line accepted, in bytes, not counting the newline.
    public let maximumLineBytes: Int
    private var buffer: [UInt8] = []
    /// Where the next line starts in `buffer`.
    private var start = 0
    /// How far `buffer` has been searched for a newline, so a line arriving in many pieces is scanned once.
    private var scanned = 0
    private var overflowed = false

    public init(maximumLineBytes: Int) {
        self.maximumLineBytes = maximumLineBytes
    }

    /// Bytes received but not yet returned as a line.
    public var pendingByteCount: Int { buffer.count - start }

    /// Adds bytes as they were read from the stream.
    public mutating func append<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        guard !overflowed else { return }
        buffer.append(contentsOf: bytes)
    }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard !overflowed else { return }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete line, `.lineTooLong` once the limit is passed (and forever after), or nil when
    /// more bytes are needed.
    public mutating func next() -> Output? {
        if overflowed { return .lineTooLong }
        var index = max(start, scanned)
        while index < buffer.count {
            if buffer[index] == 0x0a {
                var end = index
                if end > start, buffer[end - 1] == 0x0d { end -= 1 }
                if end - start > maximumLineBytes { return overflow() }
                let line = Array(buffer[start..<end])
                start = index + 1
                scanned = start
                compact()
                return .line(line)
            }
            index += 1
        }
        scanned = index
        if buffer.count - start > maximumLineBytes + 1 { return overflow() }
        compact()
        return nil
    }

    /// At the end of the stream: the bytes of a last line that had no newline, if there are any.
    public mutating func takeRemainder() -> [UInt8]? {
        guard !overflowed, start < buffer.count else { return nil }
        let rest = Array(buffer[start...])
        buffer.removeAll()
        start = 0
        scanned = 0
        return rest
    }

    private mutating func overflow() -> Output {
        overflowed = true
        buffer = []
        start = 0
        scanned = 0
        return .lineTooLong
    }

    /// Drops consumed bytes once they are the larger part of the buffer, keeping appends amortised O(1).
    private mutating func compact() {
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 64 * 1024)
            start = 0
            scanned = 0
        } else if start > 4096, start > buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            scanned -= start
            start = 0
        }
    }
}
