import GestureProtocol
import Glibc
import SystemCalls

/// Follows whose session is active on each seat, from logind's (or elogind's) public seat state: one file
/// per seat in /run/systemd/seats with `ACTIVE_UID=`, replaced by logind at every switch. The directory is
/// watched with inotify, so a switch wakes the loop and nothing is polled; each file is a few hundred bytes
/// on a tmpfs, read without blocking. Without the directory (no logind), no seat has a user.
///
/// gestured may start before logind has made the directory (its unit is not ordered after logind's, and
/// OpenRC starts elogind when something asks for it): then the parent directory is watched until the seat
/// directory appears, and from then on the seat directory alone, on the same descriptor.
final class SeatMonitor {
    /// logind's seat state directory.
    static let defaultDirectory = "/run/systemd/seats"
    /// Seats read at most (a seat file per seat; machines have one or a few).
    static let maximumSeats = 64

    /// What the monitor watches.
    enum Watching: Equatable {
        /// Nothing: no inotify descriptor, or neither the directory nor its parent exists.
        case nothing
        /// The parent directory (watch descriptor `watch`), for the seat directory to be made.
        case parentUntilMade(watch: Int32)
        /// The seat directory itself.
        case seats
    }

    let directory: String
    /// The inotify descriptor, nil when none could be made.
    private(set) var fd: Int32?
    private(set) var watching = Watching.nothing

    init(directory: String) {
        self.directory = directory
    }

    deinit { if let fd { SystemCall.close(fd) } }

    /// The directory `directory` is in ("/run/systemd" for "/run/systemd/seats").
    var parentDirectory: String {
        let trimmed = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    /// Starts watching the directory, or its parent until logind makes it; logs once when there is neither
    /// (no logind).
    func start() {
        guard fd == nil else { return }
        do {
            fd = try SystemCall.directoryNotifications()
        } catch {
            logNoSeatState(error)
            return
        }
        watch()
    }

    /// One step of `watching`: the seat directory when it exists (the parent's watch then removed), else
    /// the parent, looking once more after that watch is in place (the directory may have been made
    /// between the two).
    private func watch() {
        guard let fd else { return }
        switch watching {
        case .seats:
            return
        case .nothing, .parentUntilMade:
            break
        }
        do {
            try SystemCall.addDirectoryWatch(fd, directory)
            if case .parentUntilMade(let parent) = watching {
                SystemCall.removeDirectoryWatch(fd, parent)
                Log.info("following logind's seat state in \(directory), made since gestured started")
            }
            watching = .seats
            return
        } catch let error where error.errno == ENOENT {
            if case .parentUntilMade = watching { return }
            do {
                let parent = try SystemCall.addDirectoryWatch(fd, parentDirectory)
                watching = .parentUntilMade(watch: parent)
                Log.info("\(directory) does not exist yet: waiting for logind to make it")
                watch()
            } catch {
                logNoSeatState(error)
            }
        } catch {
            logNoSeatState(error)
        }
    }

    private func logNoSeatState(_ error: SystemError) {
        Log.info(
            "no logind seat state to follow (\(error)): app touches go only to root, the daemon's own user "
                + "and those app_touches_for names")
    }

    /// Reads the notifications queued (the caller reads the seats again); while only the parent is
    /// watched, looks for the seat directory.
    func acknowledge() {
        guard let fd else { return }
        SystemCall.drainNotifications(fd)
        watch()
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
