// A log stream written without waiting for its reader: the one implementation of the daemon's log
// (GestureDaemon/Log.swift) and gesturectl's (gesturectl/Output.swift).
#if canImport(Glibc)
import Glibc
#endif

/// Whole lines written to a stream whose reader may stop reading (the journal's socket, a pipe), never
/// waiting for it: what the stream cannot take now is dropped and counted, and the next write that goes
/// out starts with a notice of how many lines were lost. A write cut short leaves the stream mid-line: the
/// next one starts on a line of its own. Single-threaded: its owner serialises the writes.
public struct DroppingLineWriter: Sendable {
    /// Lines dropped since one last went out whole with the notice before it.
    public private(set) var droppedLines = 0
    /// A write was cut short: the stream is mid-line.
    private var cutShort = false

    public init() {}

    /// Writes `text`, `lines` lines each ending in a newline, through `send` (writes what the stream takes
    /// now and returns how many bytes, 0 when none), after a newline when the last write was cut short and
    /// `notice(droppedLines)` (a line ending in a newline) when lines were dropped. Returns the bytes written.
    @discardableResult
    public mutating func write(
        _ text: String, lines: Int, notice: (Int) -> String, send: (UnsafeRawBufferPointer) -> Int
    ) -> Int {
        var prefix = cutShort ? "\n" : ""
        if droppedLines > 0 { prefix += notice(droppedLines) }
        var all = prefix + text
        let written = all.withUTF8 { send(UnsafeRawBufferPointer($0)) }
        if written == all.utf8.count {
            droppedLines = 0
            cutShort = false
        } else if written == 0 && !cutShort {
            droppedLines += lines  // nothing went out: the notice (if any) waits for the next line
        } else {
            // Part went out: the rest of this text is lost and the stream is mid-line.
            cutShort = true
            if written >= prefix.utf8.count { droppedLines = 0 }
            droppedLines += lines
        }
        return written
    }
}
