import CLinux
import Glibc

extension SystemCall {
    /// `memfd_create(2)` with MFD_CLOEXEC, filled with `bytes` and rewound: an anonymous file to hand to
    /// another process (a Wayland compositor takes a keymap this way). The caller closes it.
    public static func memoryFile(name: String, contents bytes: [UInt8]) throws(SystemError) -> Int32 {
        let fd = try retryingInterrupts("memfd_create", path: name) { memfd_create(name, gestured_mfd_cloexec) }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0 {
                let code = Glibc.errno
                if code == EINTR { continue }
                close(fd)
                throw SystemError(errno: code, operation: "write", path: name)
            }
            written += n
        }
        if lseek(fd, 0, SEEK_SET) < 0 {
            let code = Glibc.errno
            close(fd)
            throw SystemError(errno: code, operation: "lseek", path: name)
        }
        return fd
    }
}
