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

    /// Reads the whole file. Only a regular file is read: anything else (a FIFO, whose open would wait
    /// for a writer and so freeze the daemon's loop on SIGHUP; a device such as /dev/zero; a directory) is
    /// refused before it is opened, and the open is non-blocking in case the path changes in between.
    static func contents(path: String) throws(ReadError) -> [UInt8] {
        try requireRegularFile(try status(path: path))
        let fd = try openReadOnly(path)
        defer { closeFile(fd) }
        try requireRegularFile(try status(fd: fd))
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

    /// Refuses anything but a regular file, saying what it is.
    private static func requireRegularFile(_ status: stat) throws(ReadError) {
        let kind: String
        switch status.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR:
            throw ReadError(message: "cannot read the configuration: \(describe(EISDIR)); give the path of the file itself")
        case S_IFIFO: kind = "a FIFO (named pipe)"
        case S_IFCHR: kind = "a character device"
        case S_IFBLK: kind = "a block device"
        case S_IFSOCK: kind = "a socket"
        default: kind = "not a regular file"
        }
        throw ReadError(message: "cannot read the configuration: it is \(kind); the configuration must be a regular file")
    }

    /// stat(2), following symbolic links, retried on EINTR.
    private static func status(path: String) throws(ReadError) -> stat {
        var info = stat()
        while true {
            if stat(path, &info) == 0 { return info }
            let code = errno
            if code == EINTR { continue }
            throw openError(code)
        }
    }

    /// fstat(2) of the opened file.
    private static func status(fd: Int32) throws(ReadError) -> stat {
        var info = stat()
        if fstat(fd, &info) == 0 { return info }
        throw ReadError(message: "cannot read the configuration: \(describe(errno))")
    }

    private static func openError(_ code: Int32) -> ReadError {
        var advice = ""
        switch code {
        case ENOENT: advice = "; check the path, or install the default config/gestured.toml there"
        case EACCES: advice = "; the daemon's user needs read permission on the file"
        case EISDIR: advice = "; give the path of the file itself"
        default: break
        }
        return ReadError(message: "cannot open the configuration: \(describe(code))\(advice)")
    }

    /// open(2) with O_RDONLY | O_NONBLOCK | O_CLOEXEC, retried on EINTR.
    private static func openReadOnly(_ path: String) throws(ReadError) -> Int32 {
        while true {
            let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            if fd >= 0 { return fd }
            let code = errno
            if code == EINTR { continue }
            throw openError(code)
        }
    }

    /// read(2) into `buffer`, retried on EINTR; returns the byte count (0 at end of file).
    private static func readChunk(_ fd: Int32, into buffer: inout [UInt8], path: String) throws(ReadError) -> Int {
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n >= 0 { return n }
            let code = errno
            if code == EINTR { continue }
            throw ReadError(message: "cannot read the configuration: \(describe(code))")
        }
    }

    /// close(2); a failure to close a file opened for reading loses nothing, so it is not reported.
    /// Not retried on EINTR: on Linux the descriptor is released even then.
    private static func closeFile(_ fd: Int32) {
        _ = close(fd)
    }
}
