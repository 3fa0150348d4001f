import SystemCalls

/// What a loop token stands for.
enum Watch {
    case listener
    case signals
    case timer
    case udev
    /// logind's seat state directory (`SeatMonitor`).
    case seats
    case client(ClientSession)
    case device(DeviceRuntime)
}

/// The event loop's registrations: every descriptor the daemon watches, under a token that is never
/// reused, mapped to what it stands for. A readiness for a descriptor closed earlier in the same batch
/// finds no token. The clients and devices register theirs here; the daemon's loop dispatches from here.
///
/// A token is a place in a table and the generation of that place (its low and high 32 bits): a place is
/// reused once its watch is removed, with the next generation, so the table stays as small as the watches
/// are many and a lookup (one at every wake-up) is an index and a compare. A place whose generations ran
/// out is never reused.
final class Watches {
    let loop: EventLoop
    private struct Place {
        var generation: UInt32
        var watch: Watch?
    }
    private var places: [Place] = []
    /// Places whose watch was removed, reused last-freed first.
    private var freePlaces: [Int] = []

    init(loop: EventLoop) { self.loop = loop }

    /// What `token` stands for; nil once removed.
    subscript(token: UInt64) -> Watch? {
        let index = Int(truncatingIfNeeded: token & 0xffff_ffff)
        guard index < places.count, places[index].generation == UInt32(truncatingIfNeeded: token >> 32) else { return nil }
        return places[index].watch
    }

    /// The token the next `add` will use (clients and devices are created knowing their token).
    var upcomingToken: UInt64 {
        if let index = freePlaces.last { return Watches.token(index, generation: places[index].generation + 1) }
        return Watches.token(places.count, generation: 1)
    }

    private static func token(_ index: Int, generation: UInt32) -> UInt64 {
        UInt64(generation) << 32 | UInt64(index)
    }

    /// Watches `fd` under a new token.
    func add(_ fd: Int32, _ watch: Watch, interest: Interest) throws(SystemError) {
        let token = upcomingToken
        try loop.add(fd, token: token, interest: interest)
        store(watch, token: token)
    }

    /// Gives a watch without a descriptor (a replay, woken by the timer) a token.
    func addTokenOnly(_ watch: Watch) {
        store(watch, token: upcomingToken)
    }

    private func store(_ watch: Watch, token: UInt64) {
        switch watch {
        case .client(let c): precondition(c.token == token)
        case .device(let d): precondition(d.token == token)
        case .listener, .signals, .timer, .udev, .seats: break
        }
        let index = Int(truncatingIfNeeded: token & 0xffff_ffff)
        let place = Place(generation: UInt32(truncatingIfNeeded: token >> 32), watch: watch)
        if index == places.count {
            places.append(place)
        } else {
            freePlaces.removeLast()
            places[index] = place
        }
    }

    /// Forgets `token` and stops watching `fd` (nil: a watch without a descriptor).
    func remove(_ token: UInt64, fd: Int32?) {
        if self[token] != nil {
            let index = Int(truncatingIfNeeded: token & 0xffff_ffff)
            places[index].watch = nil
            if places[index].generation < UInt32.max { freePlaces.append(index) }
        }
        if let fd { loop.remove(fd) }
    }

    /// Places in the table (for tests: it stays as large as the most watches at once).
    var placeCount: Int { places.count }
}
