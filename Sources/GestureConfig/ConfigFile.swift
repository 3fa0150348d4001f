#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading the configuration file: the only I/O of this module, with each system call wrapped here once.
enum ConfigFile {
    struct ReadError: Error {
        var message: String
    }

    /// A configuration file larger than this is refused: it is surely not a configuration file.
    static let maximumBytes = 1 << 20

    static func contents(path: String) throws(ReadError) -> [UInt8] {
        let fd = try openReadOnly(path)
        defer { closeFile(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = try readChunk(fd, into: &chunk, path: path)
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
            if bytes.count > maximumBytes {
                throw ReadError(
                    message: "is larger than \(maximumBytes) bytes; is this the configuration file?")
            }
        }
        return bytes
    }

    private static func describe(_ code: Int32) -> String {
        "\(String(cString: strerror(code))) (errno \(code))"
    }

    /// open(2) with O_RDONLY | O_CLOEXEC, retried on EINTR.
    private static func openReadOnly(_ path: String) throws(ReadError) -> Int32 {
        while true {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            if fd >= 0 { return fd }
            let code = errno
            if code == EINTR { continue }
            var advice = ""
            switch code {
            case ENOENT: advice = "; check the path, or install the default config/gestured.toml there"
            case EACCES: advice = "; the daemon's user needs read permission on the file"
            case EISDIR: advice = "; give the path of the file itself"
            default: break
            }
            throw ReadError(message: "cannot open the configuration: \(describe(code))\(advice)")
        }
    }

    /// read(2) into `buffer`, retried on EINTR; returns the byte count (0 at end of file).
    private static func readChunk(_ fd: Int32, into buffer: inout [UInt8], path: String) throws(ReadError) -> Int {
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n >= 0 { return n }
            let code = errno
            if code == EINTR { continue }
            if code == EISDIR {
                throw ReadError(message: "cannot read the configuration: \(describe(code)); give the path of the file itself")
            }
            throw ReadError(message: "cannot read the configuration: \(describe(code))")
        }
    }

    /// close(2); a failure to close a file opened for reading loses nothing, so it is not reported.
    /// Not retried on EINTR: on Linux the descriptor is released even then.
    private static func closeFile(_ fd: Int32) {
        _ = close(fd)
    }
}
