import SystemCalls

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reading the configuration file: the only I/O of this module, through the SystemCalls module.
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
        let status: stat
        do {
            status = try SystemCall.stat(path)
        } catch {
            throw openError(error)
        }
        try requireRegularFile(status)
        let fd: Int32
        do {
            fd = try SystemCall.open(path, flags: O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        } catch {
            throw openError(error)
        }
        defer { SystemCall.close(fd) }
        let opened: stat
        do {
            opened = try SystemCall.fstat(fd, path: path)
        } catch {
            throw ReadError(message: "cannot read the configuration: \(describe(error))")
        }
        try requireRegularFile(opened)
        let bytes: [UInt8]?
        do {
            bytes = try SystemCall.readAll(fd, path: path, limit: maximumBytes)
        } catch {
            throw ReadError(message: "cannot read the configuration: \(describe(error))")
        }
        guard let bytes else {
            throw ReadError(message: "is larger than \(maximumBytes) bytes; is this the configuration file?")
        }
        return bytes
    }

    private static func describe(_ error: SystemError) -> String {
        "\(error.message) (errno \(error.errno))"
    }

    /// Refuses anything but a regular file, saying what it is.
    private static func requireRegularFile(_ status: stat) throws(ReadError) {
        let kind: String
        switch status.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR:
            throw ReadError(
                message: "cannot read the configuration: \(describe(SystemError(errno: EISDIR, operation: "read"))); "
                    + "give the path of the file itself")
        case S_IFIFO: kind = "a FIFO (named pipe)"
        case S_IFCHR: kind = "a character device"
        case S_IFBLK: kind = "a block device"
        case S_IFSOCK: kind = "a socket"
        default: kind = "not a regular file"
        }
        throw ReadError(message: "cannot read the configuration: it is \(kind); the configuration must be a regular file")
    }

    private static func openError(_ error: SystemError) -> ReadError {
        var advice = ""
        switch error.errno {
        case ENOENT: advice = "; check the path, or install the default config/gestured.toml there"
        case EACCES: advice = "; the daemon's user needs read permission on the file"
        case EISDIR: advice = "; give the path of the file itself"
        default: break
        }
        return ReadError(message: "cannot open the configuration: \(describe(error))\(advice)")
    }
}
