import GestureProtocol
import Glibc
import SystemCalls

/// Follows whose session is active on each seat, from logind's (or elogind's) public seat state: one file
/// per seat in /run/systemd/seats with `ACTIVE_UID=`, replaced by logind at every switch. The directory is
/// watched with inotify, so a switch wakes the loop and nothing is polled; each file is a few hundred bytes
/// on a tmpfs, read without blocking. Without the directory (no logind), no seat has a user.
final class SeatMonitor {
    /// logind's seat state directory.
    static let defaultDirectory = "/run/systemd/seats"
    /// Seats read at most (a seat file per seat; machines have one or a few).
    static let maximumSeats = 64

    let directory: String
    /// The inotify descriptor, nil when the directory could not be watched.
    private(set) var fd: Int32?

    init(directory: String) {
        self.directory = directory
    }

    deinit { if let fd { SystemCall.close(fd) } }

    /// Starts watching the directory; logs once when there is none to watch (no logind).
    func start() {
        guard fd == nil else { return }
        do {
            fd = try SystemCall.watchDirectory(directory)
        } catch {
            Log.info(
                "no logind seat state to follow (\(error)): app touches go only to root, the daemon's own user "
                    + "and those app_touches_for names")
        }
    }

    /// Reads the notifications queued (the caller reads the seats again).
    func acknowledge() {
        if let fd { SystemCall.drainNotifications(fd) }
    }

    /// Whose session is active on each seat now.
    func read() -> SeatUsers {
        SeatMonitor.read(directory: directory)
    }

    /// Whose session is active on each seat `directory` has a file for; `.unavailable` when it cannot be
    /// listed.
    static func read(directory: String) -> SeatUsers {
        guard let names = try? SystemCall.directoryEntries(directory, limit: maximumSeats) else { return .unavailable }
        var seats: [String: UInt32?] = [:]
        for name in names where !name.hasPrefix(".") {
            let text = SystemCall.readSmallFile(directory + "/" + name) ?? ""
            seats[name] = .some(SeatUsers.activeUID(inSeatFile: text))
        }
        return .known(seats)
    }
}
