/// Whether a client receives **app touches** (the gestures one finger makes away from the edge zones in
/// force: one-finger taps, holds and pans that did not land in an edge zone nor a corner, which are an
/// app's input: the keys of an on-screen keyboard, swipe typing, drawing), and why. The daemon works it out
/// in one place (`AppTouchPolicy.access` in GestureDaemon) for each client, and says it in `hello` and in
/// the `subscribed` reply (`app_touch_access`), so a client knows why its taps never come.
public enum AppTouchAccess: Equatable, Sendable, CustomStringConvertible {
    case granted(AppTouchGrant)
    case denied(AppTouchDenial)

    public var isGranted: Bool {
        switch self {
        case .granted: return true
        case .denied: return false
        }
    }

    /// The reason's code on the wire ("seat-user", "other-seat-user").
    public var reason: String {
        switch self {
        case .granted(let grant): return grant.code
        case .denied(let denial): return denial.code
        }
    }

    /// What a user reads: who may see app touches and why this client may or may not.
    public var description: String {
        switch self {
        case .granted(let grant): return grant.description
        case .denied(let denial): return denial.description
        }
    }

    /// `{"granted": true, "reason": "seat-user", "seat": "seat0", "message": "..."}` (`seat` when the
    /// reason names one, `name` when it names a configured user or group).
    public var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = [("granted", .bool(isGranted)), ("reason", .string(reason))]
        switch self {
        case .granted(.seatUser(let seat)), .denied(.otherSeatUser(let seat)), .denied(.noActiveSession(let seat)):
            members.append(("seat", .string(seat)))
        case .granted(.configuredUser(let name)), .granted(.configuredGroup(let name)):
            members.append(("name", .string(name)))
        case .granted(.root), .granted(.daemonUser), .granted(.unknown), .denied(.noSeatState), .denied(.unknownPeer),
            .denied(.unknown):
            break
        }
        members.append(("message", .string(description)))
        return .object(members)
    }

    /// Reads the object `json` writes; nil when it is not one (an unknown reason from a newer daemon keeps
    /// whether access was granted, as `.unknown`).
    public init?(json: JSONValue) {
        guard let granted = json["granted"]?.boolValue, let code = json["reason"]?.stringValue else { return nil }
        let seat = json["seat"]?.stringValue ?? "seat0"
        let name = json["name"]?.stringValue ?? ""
        if granted {
            switch code {
            case AppTouchGrant.root.code: self = .granted(.root)
            case AppTouchGrant.daemonUser.code: self = .granted(.daemonUser)
            case AppTouchGrant.seatUser(seat: "").code: self = .granted(.seatUser(seat: seat))
            case AppTouchGrant.configuredUser("").code: self = .granted(.configuredUser(name))
            case AppTouchGrant.configuredGroup("").code: self = .granted(.configuredGroup(name))
            default: self = .granted(.unknown(code: code, message: json["message"]?.stringValue ?? code))
            }
        } else {
            switch code {
            case AppTouchDenial.otherSeatUser(seat: "").code: self = .denied(.otherSeatUser(seat: seat))
            case AppTouchDenial.noActiveSession(seat: "").code: self = .denied(.noActiveSession(seat: seat))
            case AppTouchDenial.noSeatState.code: self = .denied(.noSeatState)
            case AppTouchDenial.unknownPeer.code: self = .denied(.unknownPeer)
            default: self = .denied(.unknown(code: code, message: json["message"]?.stringValue ?? code))
            }
        }
    }
}

/// Why a client may see app touches.
public enum AppTouchGrant: Equatable, Sendable, CustomStringConvertible {
    /// The client runs as root.
    case root
    /// The client runs as the daemon's own user (the system daemon's tools; a user's own daemon counts its
    /// user this way).
    case daemonUser
    /// The client's user is the user of the active session on the touchscreen's seat (logind's seat state).
    case seatUser(seat: String)
    /// The client's user is named in `app_touches_for`.
    case configuredUser(String)
    /// The client is in a group named in `app_touches_for` (as `%group`).
    case configuredGroup(String)
    /// A reason a newer daemon gives that this client does not know.
    case unknown(code: String, message: String)

    public var code: String {
        switch self {
        case .root: return "root"
        case .daemonUser: return "daemon-user"
        case .seatUser: return "seat-user"
        case .configuredUser: return "configured-user"
        case .configuredGroup: return "configured-group"
        case .unknown(let code, _): return code
        }
    }

    public var description: String {
        switch self {
        case .root: return "app touches are sent: the client runs as root"
        case .daemonUser: return "app touches are sent: the client runs as the daemon's own user"
        case .seatUser(let seat): return "app touches are sent: the client's user has the active session on \(seat)"
        case .configuredUser(let name): return "app touches are sent: app_touches_for names the user \(name)"
        case .configuredGroup(let name): return "app touches are sent: app_touches_for names the group \(name), which the client is in"
        case .unknown(_, let message): return message
        }
    }
}

/// Why a client may not see app touches (it still receives every public gesture: edge swipes, gestures of
/// more fingers, pinches, and one-finger touches that landed in an edge zone).
public enum AppTouchDenial: Equatable, Sendable, CustomStringConvertible {
    /// Another user has the active session on the touchscreen's seat.
    case otherSeatUser(seat: String)
    /// No session is active on the touchscreen's seat (the greeter, a switch between users).
    case noActiveSession(seat: String)
    /// The daemon has no seat state to ask (no logind or elogind): only root, the daemon's own user and
    /// those `app_touches_for` names see app touches.
    case noSeatState
    /// The daemon could not ask who the client is (SO_PEERCRED failed).
    case unknownPeer
    /// A reason a newer daemon gives that this client does not know.
    case unknown(code: String, message: String)

    public var code: String {
        switch self {
        case .otherSeatUser: return "other-seat-user"
        case .noActiveSession: return "no-active-session"
        case .noSeatState: return "no-seat-state"
        case .unknownPeer: return "unknown-peer"
        case .unknown(let code, _): return code
        }
    }

    public var description: String {
        let rest = "app touches (one-finger taps, holds and pans away from the edges: what is typed on an on-screen keyboard) "
            + "go only to the user of the active session on the touchscreen's seat, root, the daemon's own user and those "
            + "app_touches_for names"
        switch self {
        case .otherSeatUser(let seat): return "no app touches: another user has the active session on \(seat); \(rest)"
        case .noActiveSession(let seat): return "no app touches: no session is active on \(seat); \(rest)"
        case .noSeatState: return "no app touches: there is no logind seat state to say whose session is active; \(rest)"
        case .unknownPeer: return "no app touches: the daemon could not ask who the client is (SO_PEERCRED); \(rest)"
        case .unknown(_, let message): return message
        }
    }
}
