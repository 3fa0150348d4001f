import GestureConfig
import GestureProtocol
import SystemCalls

/// Who a client is, as the kernel said when it connected: its user (SO_PEERCRED) and its groups, the
/// primary one and the supplementary ones (SO_PEERGROUPS).
public struct PeerIdentity: Equatable, Sendable {
    public var uid: UInt32
    public var groups: [UInt32]

    public init(uid: UInt32, groups: [UInt32]) {
        self.uid = uid
        self.groups = groups
    }
}

/// Whose session is active on each seat, as logind (or elogind) publishes it in its seat state files
/// (/run/systemd/seats/SEAT, `ACTIVE_UID=`).
public enum SeatUsers: Equatable, Sendable {
    /// There is no seat state to read (no logind): no seat has a user.
    case unavailable
    /// The seats read: each seat's active user, nil when no session is active on it (or its file is gone).
    case known([String: UInt32?])

    /// The user of the active session on a seat, or why there is none.
    enum ActiveUser: Equatable {
        case user(UInt32)
        case none(AppTouchDenial)
    }

    /// The user of the active session on `seat`, or why there is none.
    func activeUser(on seat: String) -> ActiveUser {
        switch self {
        case .unavailable: return .none(.noSeatState)
        case .known(let seats):
            guard let entry = seats[seat], let uid = entry else { return .none(.noActiveSession(seat: seat)) }
            return .user(uid)
        }
    }

    /// The active user a seat state file's text names (`ACTIVE_UID=1000`), nil when none does.
    public static func activeUID(inSeatFile text: String) -> UInt32? {
        for line in text.split(separator: "\n") where line.hasPrefix("ACTIVE_UID=") {
            return UInt32(line.dropFirst("ACTIVE_UID=".count))
        }
        return nil
    }
}

/// The users and groups `app_touches_for` names, resolved to ids (when the configuration is loaded), with
/// the names as written for the reasons clients are told.
public struct AppTouchViewers: Equatable, Sendable {
    public var users: [(uid: UInt32, name: String)] = []
    public var groups: [(gid: UInt32, name: String)] = []

    public init(users: [(uid: UInt32, name: String)] = [], groups: [(gid: UInt32, name: String)] = []) {
        self.users = users
        self.groups = groups
    }

    public static func == (a: AppTouchViewers, b: AppTouchViewers) -> Bool {
        a.users.elementsEqual(b.users, by: { $0 == $1 }) && a.groups.elementsEqual(b.groups, by: { $0 == $1 })
    }
}

/// Who may see app touches (`AppTouchAccess`), worked out here and nowhere else: root, the daemon's own
/// user (so a user's own daemon counts its user), the user of the active session on the touchscreen's
/// seat, and the users and groups `app_touches_for` names. Everyone else gets the public gestures only.
/// The same permission gates every view of app touches a client can have (gesture events and their
/// updates, and any later stream that shows what the recognizer saw).
public struct AppTouchPolicy: Equatable, Sendable {
    /// The daemon's own user.
    public var ownUID: UInt32
    public var viewers: AppTouchViewers
    public var seats: SeatUsers

    public init(ownUID: UInt32, viewers: AppTouchViewers = AppTouchViewers(), seats: SeatUsers = .unavailable) {
        self.ownUID = ownUID
        self.viewers = viewers
        self.seats = seats
    }

    /// Whether `peer` (nil: the daemon could not ask who it is) may see the app touches of a touchscreen on
    /// `seat`, and why.
    public func access(for peer: PeerIdentity?, seat: String) -> AppTouchAccess {
        guard let peer else { return .denied(.unknownPeer) }
        if peer.uid == 0 { return .granted(.root) }
        if peer.uid == ownUID { return .granted(.daemonUser) }
        let active = seats.activeUser(on: seat)
        if active == .user(peer.uid) { return .granted(.seatUser(seat: seat)) }
        if let user = viewers.users.first(where: { $0.uid == peer.uid }) { return .granted(.configuredUser(user.name)) }
        if let group = viewers.groups.first(where: { peer.groups.contains($0.gid) }) {
            return .granted(.configuredGroup(group.name))
        }
        switch active {
        case .user: return .denied(.otherSeatUser(seat: seat))
        case .none(let denial): return .denied(denial)
        }
    }
}

extension AppTouchViewers {
    /// The ids of the users and groups `app_touches_for` names (getpwnam_r, getgrnam_r: NSS, at start and
    /// at a reload only). A user name no user has is taken as a uid when it is a number; a name that
    /// names no one is logged as a warning and left out.
    static func resolve(_ named: [AppTouchViewer]) -> AppTouchViewers {
        var viewers = AppTouchViewers()
        for viewer in named {
            switch viewer {
            case .user(let name):
                if let uid = id(of: name, lookingUp: SystemCall.userID(named:)) {
                    viewers.users.append((uid, name))
                } else {
                    Log.warning("app_touches_for: no user is called \(name); it is left out")
                }
            case .group(let name):
                if let gid = id(of: name, lookingUp: SystemCall.groupID(named:)) {
                    viewers.groups.append((gid, name))
                } else {
                    Log.warning("app_touches_for: no group is called \(name); it is left out")
                }
            }
        }
        return viewers
    }

    /// The id of the user or group `name`: what `lookUp` finds for it (getpwnam_r, getgrnam_r), else `name`
    /// itself when it is a number; nil when it is neither (a failed look-up counts as none found).
    private static func id(of name: String, lookingUp lookUp: (String) throws(SystemError) -> UInt32?) -> UInt32? {
        if let id = (try? lookUp(name)) ?? nil { return id }
        return UInt32(name)
    }
}
