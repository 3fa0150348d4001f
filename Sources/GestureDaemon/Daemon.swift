import GestureCore
import GestureProtocol
import Glibc
import SystemCalls

/// The gestured daemon: one thread, one epoll loop. It owns the loop, its timer and its signals, and wires
/// the parts that own the rest: the clients (`ClientHub`: the socket, the sessions, delivery), the devices
/// (`DeviceHub`: discovery and hotplug, one `DeviceRuntime` per device with its engine and passthrough)
/// and the configuration (`ConfigurationReloader`).
/// Each round: rearm the timer, wait, dispatch each ready watch to its owner, flush the clients.
public final class Daemon {
    let options: DaemonOptions
    let loop: EventLoop
    let timer: MonotonicTimer
    let signals: SignalReceiver
    let watches: Watches
    let clients: ClientHub
    let devices: DeviceHub
    let reloader: ConfigurationReloader
    /// Whose session is active on each seat (who may see app touches).
    let seatMonitor: SeatMonitor
    var running = true
    /// systemd's watchdog (`WatchdogSec=`), fed from this loop: when it stops (a stalled or stopped
    /// daemon), systemd kills the daemon, the kernel releases a passthrough panel's grab and the service
    /// restarts.
    private var watchdog: Watchdog?

    /// Sets the daemon up: signals, configuration, socket, devices. Nothing runs until `run()`.
    public init(
        options: DaemonOptions,
        loadConfiguration: @escaping (String?) throws(ConfigurationLoadError) -> DaemonConfiguration
    ) throws(DaemonStartError) {
        self.options = options
        do {
            // Signals first, before anything could spawn a thread: SIGTERM/SIGINT/SIGHUP are read from a
            // signalfd by the loop; SIGPIPE is ignored (sends use MSG_NOSIGNAL anyway).
            signals = try SignalReceiver(signals: [SIGTERM, SIGINT, SIGHUP])
            SystemCall.ignoreSignal(SIGPIPE)
            // Client queues (up to client_buffer_bytes each) grow in a burst and drain after it: give
            // their memory back then. 128 KiB is glibc's default threshold, kept fixed.
            SystemCall.returnLargeFreedBlocksToTheSystem(atLeast: 128 * 1024)
            loop = try EventLoop()
            timer = try MonotonicTimer()
        } catch {
            throw DaemonStartError("cannot set up the event loop: \(error)")
        }
        watches = Watches(loop: loop)
        reloader = ConfigurationReloader(options: options, load: loadConfiguration)
        let configuration = try reloader.loadAtStart()
        seatMonitor = SeatMonitor(directory: options.seatsDirectory)
        seatMonitor.start()
        clients = ClientHub(watches: watches, limits: configuration.daemon, seatUsers: seatMonitor.read())
        devices = DeviceHub(
            watches: watches, delivery: clients, configuration: configuration, discoversDevices: options.discoverDevices)
        // Updates and explanations are made only while a client takes them (or, for updates, the debug log
        // shows gestures): the client policy says when that changes, so no turn of the loop asks.
        devices.refreshReportsUpdates()
        do {
            try watches.add(signals.fd, .signals, interest: .readable)
            try watches.add(timer.fd, .timer, interest: .readable)
            if let fd = seatMonitor.fd { try watches.add(fd, .seats, interest: .readable) }
        } catch {
            throw DaemonStartError("cannot set up the event loop: \(error)")
        }
        watchdog = SystemdNotifier.watchdogInterval().map { Watchdog(intervalMicroseconds: $0) }
        try clients.listen(runner: options.runner)
        devices.startDiscovery()
        for replay in options.replays {
            do {
                try devices.addReplay(replay)
            } catch {
                clients.removeSocketFile()
                throw DaemonStartError("cannot replay: \(error)")
            }
        }
    }

    // MARK: Running

    /// Runs until SIGTERM or SIGINT. Tells systemd READY=1 first and STOPPING=1 at the end; removes the
    /// socket it created.
    public func run() throws(SystemError) {
        SystemdNotifier.ready(status: statusLine)
        watchdog?.pinged(at: SystemCall.monotonicMicroseconds())
        Log.notice("gestured \(ProtocolConstants.daemonVersion) ready: \(statusLine)")
        while running {
            try rearmTimer()
            try loop.wait(timeoutMilliseconds: -1) { readiness in
                guard let watch = watches[readiness.token] else { return true }  // closed earlier in this batch
                dispatch(watch, readiness)
                // A client dropped while a device's gestures were delivered leaves what it set to the devices.
                if clients.hasDeferred { clients.applyDeferred(devices: devices) }
                return running
            }
            answerReloadRequests()
            clients.flush()
            if clients.hasDeferred { clients.applyDeferred(devices: devices) }
        }
        shutDown()
    }

    static func statusLine(devices: Int, clients: Int) -> String {
        "\(devices) device\(devices == 1 ? "" : "s"), \(clients) client\(clients == 1 ? "" : "s")"
    }

    var statusLine: String { Daemon.statusLine(devices: devices.count, clients: clients.count) }

    private func dispatch(_ watch: Watch, _ readiness: Readiness) {
        switch watch {
        case .listener:
            clients.acceptClients(devices: devices)
        case .signals:
            handleSignals()
        case .timer:
            do {
                try timer.acknowledge()
            } catch {
                Log.error("timerfd: \(error)")
            }
            // One clock read for everything due (a system call where the clock source is not the TSC).
            let now = SystemCall.monotonicMicroseconds()
            devices.serviceDue(now: now)
            if let watchdog, watchdog.isDue(at: now) {
                SystemdNotifier.watchdogPing()
                self.watchdog?.pinged(at: now)
            }
        case .udev:
            devices.handleUdevChanges()
        case .seats:
            seatMonitor.acknowledge()
            clients.setSeatUsers(seatMonitor.read(), devices: devices)
        case .client(let session):
            clients.handle(session, readiness, devices: devices)
        case .device(let runtime):
            devices.pump(runtime, now: SystemCall.monotonicMicroseconds())  // read only for a replay
        case .pen(let pen):
            devices.readPen(pen)
        }
    }

    /// Arms the timer for the earliest device deadline, scheduled replay event, retiring copy or watchdog
    /// ping; disarms it when nothing waits on time, so an idle daemon without a watchdog sleeps in
    /// epoll_wait without wake-ups (with one, it wakes once per half interval).
    private func rearmTimer() throws(SystemError) {
        var (earliest, latestEvent) = devices.nextWake()
        if let ping = watchdog?.nextPingMicroseconds { earliest = min(earliest ?? ping, ping) }
        try timer.set(earliest, knownNowMicroseconds: latestEvent)
    }

    private func handleSignals() {
        let received: [Int32]
        do {
            received = try signals.take()
        } catch {
            Log.error("signalfd: \(error)")
            return
        }
        for signal in received {
            switch signal {
            case SIGTERM, SIGINT:
                Log.notice("\(signal == SIGTERM ? "SIGTERM" : "SIGINT") received: shutting down")
                running = false
                return
            case SIGHUP:
                _ = reload(cause: "SIGHUP received")
            default:
                break
            }
        }
    }

    /// SIGHUP, or a client's `reload` request: reads the configuration file again. A file that does not
    /// load leaves the running configuration in place, and the log says why. Otherwise the new thresholds and
    /// geometry apply to every device (gestures in flight are cancelled; an orientation set at run time is
    /// kept on top of the new geometry), limits and the log level apply at once, devices now ignored are
    /// dropped and devices now wanted are opened. The socket's path, mode and group apply at the next start.
    private func reload(cause: String) -> Result<Void, ConfigurationLoadError> {
        SystemdNotifier.reloading()
        let result = reloader.reload(cause: cause)
        if case .success(let new) = result {
            clients.apply(new.daemon, devices: devices)
            devices.apply(new)
            devices.refreshReportsUpdates()  // the log level may have changed
            Log.notice("configuration reloaded from \(reloader.path)")
        }
        // The file's parse tree (up to 1 MiB of TOML: tens of megabytes of small allocations) is gone:
        // its memory goes back to the system rather than staying with the daemon.
        SystemCall.trimHeap()
        SystemdNotifier.ready(status: statusLine)
        return result.map { _ in () }
    }

    /// The `reload` requests of this turn of the loop: one reload, answered to each once it is applied or
    /// refused.
    private func answerReloadRequests() {
        guard clients.hasReloadRequests else { return }
        let asked = clients.takeReloadRequests()
        guard let first = asked.first else { return }
        let result = reload(cause: "\(first.by) asked" + (asked.count > 1 ? " (and \(asked.count - 1) more)" : ""))
        for request in asked { clients.answerReload(request, path: reloader.path, result) }
        if clients.hasDeferred { clients.applyDeferred(devices: devices) }
    }

    /// Cancels gestures in flight (so clients can animate back), says goodbye to systemd, closes everything
    /// and removes the socket file.
    private func shutDown() {
        SystemdNotifier.stopping()
        devices.closeAll()
        clients.flush()
        clients.closeAll(devices: devices)
        // The loop is over: waiting here holds up nothing but the exit, and lets the compositor read the
        // cancels written to the copies before they go.
        devices.retireCopiesAtExit()
        Log.restoreBlocking()  // the shutdown is not served from the loop any more: keep every last line
        Log.notice("stopped")
    }
}

/// When the loop tells systemd it is alive: every half of the watchdog interval (sd_watchdog_enabled(3)'s
/// advice), from the loop's own timer, so a loop that stops turning stops the pings.
struct Watchdog {
    let intervalMicroseconds: Int64
    private(set) var nextPingMicroseconds: Int64?

    init(intervalMicroseconds: Int64) {
        self.intervalMicroseconds = intervalMicroseconds
    }

    func isDue(at now: Int64) -> Bool { now >= (nextPingMicroseconds ?? now) }

    mutating func pinged(at now: Int64) { nextPingMicroseconds = now + intervalMicroseconds / 2 }
}

/// Why the daemon could not start; the message says what to do.
public struct DaemonStartError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
