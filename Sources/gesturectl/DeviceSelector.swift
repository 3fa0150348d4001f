// How gesturectl names one of the daemon's devices on its command line (`lisgd -d`, `monitor --device`) and
// in a binding's `device`: a path, resolved through symlinks to the device node (or the recording) the
// daemon reads, by node (/dev/input/event5), by-path or by-id (/dev/input/by-path/…-event), or the daemon's
// own id, name or vvvv:pppp.
#if canImport(Glibc)
import Glibc
#endif
import GestureProtocol
import SystemCalls

struct DeviceSelector: Equatable {
    /// As written.
    let text: String

    init(_ text: String) { self.text = text }

    var isPath: Bool { text.hasPrefix("/") }

    /// Why a path cannot name a device the daemon reads (nil when it can, or when it is no path): it must
    /// exist and be an input device node or a regular file (a recording the daemon replays).
    var problem: String? {
        guard isPath else { return nil }
        guard let status = try? SystemCall.stat(text) else {
            return "\(text) does not exist (a device node such as /dev/input/event5, or a symlink to one such as /dev/input/by-path/…-event)"
        }
        switch status.st_mode & S_IFMT {
        case S_IFCHR:
            guard Self.major(status.st_rdev) == Self.inputMajor else {
                return "\(text) is not an input device (its major number is \(Self.major(status.st_rdev)), an input device's is \(Self.inputMajor))"
            }
            return nil
        case S_IFREG:
            return nil  // a recording, as `gestured --replay` names its device's path
        default:
            return "\(text) is neither an input device node nor a recording"
        }
    }

    /// Whether `device` is the one this names: the same file once symlinks are resolved, or the same device
    /// number; else its id, name or vvvv:pppp.
    func matches(_ device: DeviceInfo) -> Bool {
        guard isPath else { return device.isNamed(by: text) }
        guard let path = device.path else { return false }
        if let a = Self.resolved(text), let b = Self.resolved(path), a == b { return true }
        guard let mine = try? SystemCall.stat(text), let theirs = try? SystemCall.stat(path) else { return false }
        if mine.st_mode & S_IFMT == S_IFCHR && theirs.st_mode & S_IFMT == S_IFCHR { return mine.st_rdev == theirs.st_rdev }
        return mine.st_dev == theirs.st_dev && mine.st_ino == theirs.st_ino
    }

    /// "no device the daemon reads is /dev/input/by-path/x (by node, id, name or vvvv:pppp); it reads:
    /// event5 "Goodix" (/dev/input/event5)": what to say when nothing matches.
    func noMatch(among devices: [DeviceInfo]) -> String {
        let what = isPath ? "is \(text) (resolved: \(Self.resolved(text) ?? text))" : "has the id, name or vendor:product \"\(text)\""
        return "no device the daemon reads \(what); it reads " + Self.list(devices)
    }

    /// "event5 "Goodix" (/dev/input/event5), replay1 "…" (…)", or "no devices".
    static func list(_ devices: [DeviceInfo]) -> String {
        devices.isEmpty ? "no devices" : devices.map { "\($0.id) \"\($0.name)\"" + ($0.path.map { " (\($0))" } ?? "") }.joined(separator: ", ")
    }

    private static func resolved(_ path: String) -> String? {
        guard let r = realpath(path, nil) else { return nil }
        defer { free(r) }
        return String(cString: r)
    }

    /// Linux's input devices (evdev nodes are 13:64 and up).
    static let inputMajor: UInt64 = 13

    /// glibc's gnu_dev_major, which Swift does not import (a macro).
    static func major(_ device: dev_t) -> UInt64 {
        let d = UInt64(device)
        return ((d >> 8) & 0xfff) | ((d >> 32) & ~UInt64(0xfff))
    }
}
