import GestureConfig
import GestureCore
import GestureProtocol
import GestureVocabulary
import PlainText

/// A client of the socket, by its session's loop token (never reused while the daemon runs).
typealias ClientID = UInt64

/// What a session delivers, as the policy decided it: read at every event (`ClientSession.accept`), changed
/// only by the policy's `.view` actions.
struct ClientView: Equatable, Sendable {
    /// What it subscribed to; nil: nothing but replies (not subscribed, unsubscribed, or its sending side
    /// closed).
    var subscription: SubscriptionFilter?
    /// The seats whose app touches it may see, with the private details of their devices (the focused
    /// app, the exclusions and who keeps them); every other client sees the public gestures only.
    var privateSeats: [String] = []

    func seesPrivate(onSeat seat: String) -> Bool { privateSeats.contains(seat) }
    var takesUpdates: Bool { subscription?.updates == true }
    /// Explanations show where every finger landed: only while it may see some seat's app touches.
    var takesExplanations: Bool { subscription?.explanations == true && !privateSeats.isEmpty }
}

/// What the policy knows of a device: how clients name it, its seat, and what the exclusion cap is measured
/// on (the screen in millimetres as the user sees it now, and its edge zones, which a corner's length is).
struct PolicyDevice: Equatable, Sendable {
    var info: DeviceInfo
    var screenWidthMM: Double
    var screenHeightMM: Double
    var zones: EdgeZones

    var id: String { info.id }
    var seat: String { info.seat }
    var screenSizeMM: (width: Double, height: Double) { (screenWidthMM, screenHeightMM) }
}

/// Who may set and see what, in one value (docs/protocol.md, "Who may set and see what"): what each
/// client set or wants (its subscription, its exclusions), what it may see (app touches, per seat), the
/// focus of each seat and who set it, the request rates, and the devices it concerns. One transition
/// function, `handle`, takes a client's connection, request or departure, a seat's new user, the
/// configuration's viewers, or a device's arrival, change or removal, and returns what the daemon does
/// (`Action`): the policy holds no socket and no device, and is tested as a table (ClientPolicyTests).
///
/// Fail-closed: a request goes through only when its declaration's `RequestRight` grants it to the
/// client; a client the daemon could not identify may do what every client may and nothing else; a
/// device's private details and app touches go to those who may see its seat's, nobody else.
struct ClientPolicy {
    /// The most a seat's clients may exclude of each edge of a device together, millimetres: Android's cap
    /// (200 dp, 32 mm), so that an app written for it fits, and the smallest panels gestured meets (a
    /// 5.5-inch phone's 68 mm short side) keep at least half of every edge for system gestures.
    static let exclusionCapMM = 32.0

    /// A client as the policy knows it.
    struct Client: Equatable, Sendable {
        let peer: PeerIdentity?
        /// "client 3 (uid 1000, pid 4242 gesturectl)": the log's, and the source its exclusions are shown with.
        let label: String
        var subscription: SubscriptionFilter?
        /// Its app-touch access on each seat the devices are on (the first is the one it is told of).
        var access: [(seat: String, access: AppTouchAccess)] = []
        /// The access last told (`subscribed`, `app-touch-access`), so a change is told once.
        var toldAccess: AppTouchAccess?
        /// The exclusions it keeps, as it asked (the cap decides, on each device, which are in force).
        var exclusions: [RequestedExclusion] = []
        /// When its exclusions were taken: earlier ones keep their place under the cap.
        var exclusionSequence: UInt64 = 0

        static func == (a: Client, b: Client) -> Bool {
            a.peer == b.peer && a.label == b.label && a.subscription == b.subscription
                && a.access.elementsEqual(b.access, by: { $0.seat == $1.seat && $0.access == $1.access }) && a.toldAccess == b.toldAccess
                && a.exclusions == b.exclusions && a.exclusionSequence == b.exclusionSequence
        }

        /// The access `hello` and `subscribed` speak of: on the first seat.
        var reportedAccess: AppTouchAccess { access.first?.access ?? .denied(.unknownPeer) }

        var view: ClientView {
            ClientView(subscription: subscription, privateSeats: access.filter { $0.access.isGranted }.map(\.seat))
        }
    }

    /// The focused app of a seat and the client that said it.
    struct Focus: Equatable, Sendable {
        var app: String
        var setter: ClientID
    }

    enum Input: Equatable, Sendable {
        case connected(ClientID, peer: PeerIdentity?, label: String)
        /// The client closed its sending side: it gets the replies it is owed and no more events.
        case stoppedSending(ClientID)
        case disconnected(ClientID)
        /// A valid request line, at `now` (CLOCK_MONOTONIC microseconds, for the rates).
        case request(ClientID, RequestMessage, now: Int64)
        /// Whose session is active on each seat (logind), now.
        case seatUsers(SeatUsers)
        /// The users and groups `app_touches_for` names (a reload).
        case viewers(AppTouchViewers)
        case deviceAdded(PolicyDevice)
        case deviceChanged(PolicyDevice)
        case deviceRemoved(id: String)
    }

    enum Action: Equatable, Sendable {
        /// Sends the client a message: a reply, or `app-touch-access`.
        case send(ClientID, ServerMessage)
        /// The first line of a connection: `hello`, with the devices as this client may see them.
        case hello(ClientID, AppTouchAccess)
        /// Replies to `devices` with the devices as this client may see them.
        case listDevices(ClientID, id: JSONValue?)
        /// The session delivers by this view from now on.
        case view(ClientID, ClientView)
        /// Turns these devices, then replies `oriented` with them.
        case turn(ClientID, id: JSONValue?, devices: [String], DeviceOrientation, by: String)
        /// What clients set that a device's engine follows: its seat's focused app (the [[exclusion]]
        /// sections naming it apply) and the clients' exclusions in force on it.
        case deviceState(device: String, focusedApp: String?, exclusions: [EdgeExclusion])
        /// A seat's focus changed (for the log).
        case focusChanged(seat: String, app: String?, was: String?, by: String)
        /// Reads the configuration again; replies `reloaded` once applied, or `reload-failed`.
        case reload(ClientID, id: JSONValue?, by: String)
        /// The seat's user changed: its devices' gestures in flight end (for the audience they landed
        /// under) and the fingers down rest until they lift. Comes before the views change.
        case endTouches(seat: String)
        /// Whether some client takes explanations now (the engines explain only then).
        case explaining(Bool)
        /// Whether some client takes updates now (the engines make them only then, or for the debug log).
        case updates(Bool)

        /// Whether the daemon needs its devices to carry it out (the others concern the sessions alone).
        var concernsDevices: Bool {
            switch self {
            case .hello, .listDevices, .turn, .deviceState, .endTouches, .explaining, .updates: return true
            case .send, .view, .focusChanged, .reload: return false
            }
        }
    }

    var access: AppTouchPolicy
    private(set) var clients: [ClientID: Client] = [:]
    /// The devices, in the order they were added.
    private(set) var devices: [PolicyDevice] = []
    /// Each seat's focused app, while the client that set it may and stays.
    private(set) var focus: [String: Focus] = [:]
    private var rates = SeatRates()
    private var nextExclusionSequence: UInt64 = 1
    /// What each device was last given (`deviceState`), so an unchanged one is not given again.
    private var deviceStates: [String: (focusedApp: String?, exclusions: [EdgeExclusion])] = [:]
    private(set) var explanationsWanted = false
    private(set) var updatesWanted = false

    init(access: AppTouchPolicy) {
        self.access = access
    }

    /// The seats the devices are on, in order (seat0 without devices: where a device that comes would be).
    var seats: [String] {
        var seats: [String] = []
        for device in devices where !seats.contains(device.seat) { seats.append(device.seat) }
        return seats.isEmpty ? [DeviceInfo.defaultSeat] : seats
    }

    // MARK: The transition function

    /// Takes one input; returns what the daemon does, in order.
    mutating func handle(_ input: Input) -> [Action] {
        var actions: [Action] = []
        switch input {
        case .connected(let id, let peer, let label):
            var client = Client(peer: peer, label: label)
            client.access = accessBySeat(peer)
            clients[id] = client
            actions.append(.view(id, client.view))
            actions.append(.hello(id, client.reportedAccess))
        case .stoppedSending(let id):
            guard var client = clients[id], client.subscription != nil else { return [] }
            client.subscription = nil
            clients[id] = client
            actions.append(.view(id, client.view))
        case .disconnected(let id):
            guard let client = clients.removeValue(forKey: id) else { return [] }
            for (seat, held) in focus where held.setter == id {
                focus[seat] = nil
                actions.append(.focusChanged(seat: seat, app: nil, was: held.app, by: "\(client.label) (disconnected)"))
            }
            if !client.exclusions.isEmpty || actions.contains(where: { if case .focusChanged = $0 { return true } else { return false } }) {
                refreshDeviceStates(&actions)
            }
        case .request(let id, let message, let now):
            guard let client = clients[id] else { return [] }
            request(id, client, message, now: now, &actions)
        case .seatUsers(let users):
            guard users != access.seats else { return [] }
            let before = access.seats
            // The touches in flight belong to the audience they landed under: they end first, delivered to
            // those who may see them now.
            for seat in seats where before.activeUser(on: seat) != users.activeUser(on: seat) {
                actions.append(.endTouches(seat: seat))
            }
            access.seats = users
            refreshAccess(&actions)
            dropFocusOfThoseWhoMayNot(&actions)
            refreshDeviceStates(&actions)
        case .viewers(let viewers):
            guard viewers != access.viewers else { return [] }
            access.viewers = viewers
            refreshAccess(&actions)
        case .deviceAdded(let device):
            devices.removeAll { $0.id == device.id }
            devices.append(device)
            refreshAccess(&actions)
            refreshDeviceStates(&actions)
        case .deviceChanged(let device):
            guard let index = devices.firstIndex(where: { $0.id == device.id }) else { return [] }
            devices[index] = device
            refreshAccess(&actions)
            refreshDeviceStates(&actions)
        case .deviceRemoved(let deviceID):
            devices.removeAll { $0.id == deviceID }
            deviceStates[deviceID] = nil
            refreshAccess(&actions)
        }
        refreshWanted(&actions)
        return actions
    }

    /// One request: the handler its type declares, once its right and rate allow it.
    private mutating func request(_ id: ClientID, _ client: Client, _ message: RequestMessage, now: Int64, _ actions: inout [Action]) {
        let declaration = message.request.type.declaration
        func refuse(_ error: ProtocolError) {
            var error = error
            error.id = message.id
            actions.append(.send(id, .error(error)))
        }
        // The seats the request concerns, and whether the client may change each.
        let concerned: [String]
        switch message.request {
        case .subscribe, .unsubscribe, .devices, .ping: concerned = []
        case .orientation(_, let device):
            let named = devices.filter { d in device.map(d.info.isNamed(by:)) ?? true }
            if let device, named.isEmpty {
                let known = devices.map { "\($0.id) \"\(escapingControlCharacters($0.info.name))\"" }
                refuse(
                    ProtocolError(
                        .unknownDevice,
                        "no device has the id, name or vendor:product \"\(device)\"; the daemon reads "
                            + (known.isEmpty ? "no devices" : known.joined(separator: ", "))))
                return
            }
            concerned = named.isEmpty ? seats : Array(Set(named.map(\.seat))).sorted()
        case .focus, .exclude:
            // Every seat the client may change; refused when there is none.
            concerned = seats.filter { may(declaration.right, client, onSeat: $0) }
            if concerned.isEmpty {
                refuse(notPermitted(message.request.type, client, seat: seats[0]))
                return
            }
        case .reload: concerned = [""]
        }
        for seat in concerned where !may(declaration.right, client, onSeat: seat) {
            refuse(notPermitted(message.request.type, client, seat: seat))
            return
        }
        if let rate = declaration.rate {
            let admission = rates.admit(message.request.type, rate, seats: concerned, now: now)
            guard admission.admitted else {
                let seconds = (Double(admission.retryAfterMicroseconds) / 1_000_000 * 100).rounded(.up) / 100
                refuse(
                    ProtocolError(
                        .rateLimited,
                        "at most \(formatNumber(rate.perSecond)) \(rate.changes) a second for each seat (after a burst of "
                            + "\(formatNumber(rate.burst))); this one was not applied: send it again in \(seconds) s",
                        retryAfter: seconds))
                return
            }
        }
        switch message.request {
        case .subscribe(let filter):
            // Gestures already accepted carry on to their end, so the client never sees half a gesture.
            var updated = client
            updated.subscription = filter
            updated.toldAccess = updated.reportedAccess
            clients[id] = updated
            actions.append(.view(id, updated.view))
            // Explanations come only while the client may see app touches; the reply's filter says whether
            // they come now.
            var inForce = filter
            if filter.explanations && !updated.view.takesExplanations { inForce.explanations = false }
            actions.append(.send(id, .subscribed(id: message.id, filter: inForce, appTouchAccess: updated.reportedAccess)))
        case .unsubscribe:
            var updated = client
            updated.subscription = nil
            clients[id] = updated
            actions.append(.view(id, updated.view))
            actions.append(.send(id, .unsubscribed(id: message.id)))
        case .devices:
            actions.append(.listDevices(id, id: message.id))
        case .ping:
            actions.append(.send(id, .pong(id: message.id)))
        case .orientation(let orientation, let device):
            let named = devices.filter { d in device.map(d.info.isNamed(by:)) ?? true }.map(\.id)
            actions.append(.turn(id, id: message.id, devices: named, orientation, by: client.label))
        case .focus(let app):
            for seat in concerned {
                let was = focus[seat]?.app
                // The focus is the setter's until it goes, also when it sends the same app again.
                focus[seat] = app.map { Focus(app: $0, setter: id) }
                if was != app { actions.append(.focusChanged(seat: seat, app: app, was: was, by: client.label)) }
            }
            refreshDeviceStates(&actions)
            actions.append(.send(id, .focused(id: message.id, appID: app)))
        case .exclude(let list):
            let (accepted, refused) = admitExclusions(list, from: id, client, seats: concerned)
            var updated = client
            updated.exclusions = accepted
            updated.exclusionSequence = nextExclusionSequence
            nextExclusionSequence += 1
            clients[id] = updated
            refreshDeviceStates(&actions)
            actions.append(.send(id, .excluded(id: message.id, accepted: accepted, refused: refused)))
        case .reload:
            actions.append(.reload(id, id: message.id, by: client.label))
        }
    }

    // MARK: Rights

    /// Whether `client` may send a request of `right` that changes what `seat`'s user gets (`seat` "" for
    /// the daemon itself). Root and the daemon's own user may always; the seat's active user may where the
    /// right is `seatUser`; a client the daemon could not identify may do only what every client may.
    private func may(_ right: RequestRight, _ client: Client, onSeat seat: String) -> Bool {
        switch right {
        case .anyClient: return true
        case .administrator: return isAdministrator(client.peer)
        case .seatUser:
            guard let peer = client.peer else { return false }
            return isAdministrator(peer) || access.seats.activeUser(on: seat) == .user(peer.uid)
        }
    }

    private func isAdministrator(_ peer: PeerIdentity?) -> Bool {
        guard let peer else { return false }
        return peer.uid == 0 || peer.uid == access.ownUID
    }

    /// The refusal of a request the client may not send, saying who may and why this client may not.
    private func notPermitted(_ type: RequestType, _ client: Client, seat: String) -> ProtocolError {
        let right = type.declaration.right
        let who = client.peer.map { "this client runs as uid \($0.uid)" } ?? "the daemon could not ask who this client is (SO_PEERCRED)"
        var why: String
        switch right {
        case .anyClient: why = ""
        case .administrator: why = "it changes the daemon itself"
        case .seatUser:
            why = "it changes what the user at the touchscreen gets"
            switch access.seats.activeUser(on: seat) {
            case .user(let uid): why += " (the active session on \(seat) is uid \(uid)'s)"
            case .none(.noSeatState): why += " (there is no logind seat state to say whose session is active)"
            case .none: why += " (no session is active on \(seat))"
            }
        }
        return ProtocolError(
            .notPermitted, "a \(type.rawValue) request may be sent only by \(right.who): \(why); \(who); nothing was changed")
    }

    // MARK: App-touch access

    private func accessBySeat(_ peer: PeerIdentity?) -> [(seat: String, access: AppTouchAccess)] {
        seats.map { (seat: $0, access: access.access(for: peer, seat: $0)) }
    }

    /// Works every client's access out again; a client whose view changed gets it, one subscribed with
    /// `app_touches` or `explanations` whose reported access changed is told, once.
    private mutating func refreshAccess(_ actions: inout [Action]) {
        for id in clients.keys.sorted() {
            guard var client = clients[id] else { continue }
            let before = client.view
            client.access = accessBySeat(client.peer)
            if client.view != before { actions.append(.view(id, client.view)) }
            if let told = client.toldAccess, told != client.reportedAccess,
                client.subscription?.appTouches == true || client.subscription?.explanations == true
            {
                client.toldAccess = client.reportedAccess
                actions.append(.send(id, .appTouchAccessChanged(client.reportedAccess)))
            }
            clients[id] = client
        }
    }

    /// A seat's focus stays only while the client that set it may set it.
    private mutating func dropFocusOfThoseWhoMayNot(_ actions: inout [Action]) {
        for seat in focus.keys.sorted() {
            guard let held = focus[seat], let setter = clients[held.setter] else { continue }
            if !may(.seatUser, setter, onSeat: seat) {
                focus[seat] = nil
                actions.append(.focusChanged(seat: seat, app: nil, was: held.app, by: "\(setter.label) (no longer the seat's user)"))
            }
        }
    }

    private mutating func refreshWanted(_ actions: inout [Action]) {
        let explanations = clients.values.contains { $0.view.takesExplanations }
        if explanations != explanationsWanted {
            explanationsWanted = explanations
            actions.append(.explaining(explanations))
        }
        let updates = clients.values.contains { $0.view.takesUpdates }
        if updates != updatesWanted {
            updatesWanted = updates
            actions.append(.updates(updates))
        }
    }

    // MARK: Exclusions

    /// The clients' exclusions in force on `device` now: those of the clients that may exclude on its seat
    /// (`exclude` is `seatUser`'s), for the seat's focused app, taken in the order they were set, each only
    /// while every side it takes stays within `exclusionCapMM` summed over the seat's clients, measured on the
    /// device as the user sees it now. Worked out again at every change (a turn, a focus, a client that
    /// goes or a panel that comes), so the cap holds on every panel in every orientation.
    func exclusionsInForce(on device: PolicyDevice) -> [EdgeExclusion] {
        let focused = focus[device.seat]?.app
        var taken: [EdgeExclusion] = []
        var used: [Edge: Double] = [:]
        let ordered = clients.filter { !$0.value.exclusions.isEmpty }.sorted { $0.value.exclusionSequence < $1.value.exclusionSequence }
        for (_, client) in ordered where may(.seatUser, client, onSeat: device.seat) {
            for requested in client.exclusions where applies(requested, to: device, focusedApp: focused) {
                let exclusion = EdgeExclusion(edge: requested.edge, from: requested.from, to: requested.to, source: client.label)
                let costs = Self.costs(exclusion, on: device)
                guard costs.allSatisfy({ (used[$0.side] ?? 0) + $0.mm <= Self.exclusionCapMM + 1e-6 }) else { continue }
                for cost in costs { used[cost.side, default: 0] += cost.mm }
                taken.append(exclusion)
            }
        }
        return taken
    }

    /// Whether `e` applies to `device` while `focusedApp` has the focus.
    private func applies(_ e: RequestedExclusion, to device: PolicyDevice, focusedApp: String?) -> Bool {
        if let name = e.device, !device.info.isNamed(by: name) { return false }
        guard let app = e.app else { return true }
        guard let focusedApp else { return false }
        return Glob(app, pathname: false).matches(focusedApp)
    }

    /// What `e` takes of each side of `device`, millimetres: a side's part of its length; a corner, the
    /// width of the zone it cuts into each of its two sides.
    static func costs(_ e: EdgeExclusion, on device: PolicyDevice) -> [(side: Edge, mm: Double)] {
        let length = e.lengthMM(screenSizeMM: device.screenSizeMM, zones: device.zones)
        if let (h, v) = e.edge.sidesOfCorner { return [(h, length), (v, length)] }
        return [(e.edge, length)]
    }

    /// The exclusions of an `exclude` request taken, in order, and those refused with why: one naming no
    /// device the daemon reads; one that, on a device of a seat the client may exclude on, would take a side
    /// past the cap beside what is in force there now and the request's earlier items (for the same app).
    private func admitExclusions(_ list: [RequestedExclusion], from id: ClientID, _ client: Client, seats: [String])
        -> (accepted: [RequestedExclusion], refused: [RefusedExclusion])
    {
        var accepted: [RequestedExclusion] = []
        var refused: [RefusedExclusion] = []
        var others = self
        others.clients[id]?.exclusions = []
        for item in list {
            let named = devices.filter { d in item.device.map(d.info.isNamed(by:)) ?? true }
            if let device = item.device, named.isEmpty {
                refused.append(
                    RefusedExclusion(exclusion: item, reason: .unknownDevice, message: "no device has the id, name or vendor:product \"\(device)\""))
                continue
            }
            var over: String?
            check: for device in named where seats.contains(device.seat) {
                var used: [Edge: Double] = [:]
                for e in others.exclusionsInForce(on: device) {
                    for cost in Self.costs(e, on: device) { used[cost.side, default: 0] += cost.mm }
                }
                for e in accepted where e.app == item.app && (e.device.map(device.info.isNamed(by:)) ?? true) {
                    for cost in Self.costs(EdgeExclusion(edge: e.edge, from: e.from, to: e.to), on: device) {
                        used[cost.side, default: 0] += cost.mm
                    }
                }
                for cost in Self.costs(EdgeExclusion(edge: item.edge, from: item.from, to: item.to), on: device) {
                    let total = (used[cost.side] ?? 0) + cost.mm
                    if total > Self.exclusionCapMM + 1e-6 {
                        over = "excluding \(Self.millimetres(cost.mm)) mm of the \(cost.side.rawValue) edge of \(device.id) would make "
                            + "\(Self.millimetres(total)) mm on \(device.seat), over the \(Int(Self.exclusionCapMM)) mm of each edge "
                            + "the clients of a seat may exclude together (\(Self.millimetres(max(0, Self.exclusionCapMM - (used[cost.side] ?? 0)))) mm left)"
                        break check
                    }
                }
            }
            if let over {
                refused.append(RefusedExclusion(exclusion: item, reason: .overCap, message: over))
            } else {
                accepted.append(item)
            }
        }
        return (accepted, refused)
    }

    private static func millimetres(_ mm: Double) -> String { String((mm * 10).rounded() / 10) }

    /// Gives each device whose focused app or clients' exclusions in force changed its new state.
    private mutating func refreshDeviceStates(_ actions: inout [Action]) {
        for device in devices {
            let state = (focusedApp: focus[device.seat]?.app, exclusions: exclusionsInForce(on: device))
            if let told = deviceStates[device.id], told.focusedApp == state.focusedApp, told.exclusions == state.exclusions { continue }
            deviceStates[device.id] = state
            actions.append(.deviceState(device: device.id, focusedApp: state.focusedApp, exclusions: state.exclusions))
        }
    }
}
