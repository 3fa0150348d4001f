import SystemCalls

/// What a loop token stands for.
enum Watch {
    case listener
    case signals
    case timer
    case udev
    case client(ClientSession)
    case device(DeviceSlot)
}

/// The event loop's registrations: every descriptor the daemon watches, under a token that is never
/// reused, mapped to what it stands for. A readiness for a descriptor closed earlier in the same batch
/// finds no token. The clients and devices register theirs here; the daemon's loop dispatches from here.
final class Watches {
    let loop: EventLoop
    private var watches: [UInt64: Watch] = [:]
    private var lastToken: UInt64 = 0

    init(loop: EventLoop) { self.loop = loop }

    /// What `token` stands for; nil once removed.
    subscript(token: UInt64) -> Watch? { watches[token] }

    /// The token the next `add` will use (clients and devices are created knowing their token).
    var upcomingToken: UInt64 { lastToken + 1 }

    /// Watches `fd` under a new token.
    func add(_ fd: Int32, _ watch: Watch, interest: Interest) throws(SystemError) {
        lastToken += 1
        try loop.add(fd, token: lastToken, interest: interest)
        watches[lastToken] = watch
        switch watch {
        case .client(let c): precondition(c.token == lastToken)
        case .device(let d): precondition(d.token == lastToken)
        case .listener, .signals, .timer, .udev: break
        }
    }

    /// Gives a watch without a descriptor (a replay, woken by the timer) a token.
    func addTokenOnly(_ watch: Watch) {
        lastToken += 1
        watches[lastToken] = watch
    }

    /// Forgets `token` and stops watching `fd` (nil: a watch without a descriptor).
    func remove(_ token: UInt64, fd: Int32?) {
        watches[token] = nil
        if let fd { loop.remove(fd) }
    }
}
