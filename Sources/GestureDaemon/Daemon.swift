import GestureCore
import GestureProtocol
import Glibc
import SystemCalls

/// One device the daemon reads: its source, its recognizer, and how clients know it.
final class DeviceSlot {
    let token: UInt64
    /// How clients know the device; its `orientation` is the one set at run time (`.normal` when added),
    /// its `virtualPath` follows passthrough on and off.
    var info: DeviceInfo
    let source: InputSource
    /// Paths configuration sections match against (node and udev links, or the recording).
    let paths: [String]
    /// What the configuration (and udev's calibration) resolve for the device, before the orientation set
    /// at run time: the engine runs on `settings.geometry.turned(by: rotation)`.
    var settings: DeviceSettings
    var engine: GestureEngine
    /// udev's LIBINPUT_CALIBRATION_MATRIX for the device, applied whenever the configuration sets no
    /// geometry of its own (at open and at every reload).
    let udevCalibration: [Double]?
    /// The device's passthrough (touch ownership), while it is on.
    var passthrough: Passthrough?
    /// Passthrough on (true) or off (false) as a reload asked, applied when nothing is down on the panel.
    var passthroughWanted: Bool?

    init(
        token: UInt64, info: DeviceInfo, source: InputSource, paths: [String], settings: DeviceSettings,
        engine: GestureEngine, udevCalibration: [Double]? = nil
    ) {
        self.udevCalibration = udevCalibration
        self.token = token
        self.info = info
        self.source = source
        self.paths = paths
        self.settings = settings
        self.engine = engine
    }

    /// The run-time orientation as the core's rotation.
    var rotation: Rotation {
        switch info.orientation {
        case .normal: return .none
        case .clockwise90: return .clockwise90
        case .upsideDown: return .upsideDown
        case .clockwise270: return .clockwise270
        }
    }

    /// The geometry the engine runs on: the resolved one, turned by the run-time orientation.
    var effectiveGeometry: GeometrySettings { settings.geometry.turned(by: rotation) }

    /// When the slot needs the loop's attention without fd readiness, in CLOCK_MONOTONIC microseconds: the
    /// recognizer's next deadline or the source's next scheduled report, whichever is first.
    var nextWakeMicroseconds: Int64? {
        let deadline = engine.nextDeadlineMicroseconds.map(source.monotonicMicroseconds(forEventTime:))
        switch (deadline, source.nextWakeMicroseconds) {
        case let (d?, s?): return min(d, s)
        case let (d?, nil): return d
        case let (nil, s?): return s
        case (nil, nil): return nil
        }
    }
}

/// The gestured daemon: one thread, one epoll loop over the listening socket, the clients, the devices,
/// the udev monitor, a signalfd and a timerfd armed only when something waits on time.
public final class Daemon {
    /// What a loop token stands for.
    enum Watch {
        case listener
        case signals
        case timer
        case udev
        case client(ClientSession)
        case device(DeviceSlot)
    }

    let options: DaemonOptions
    let loadConfiguration: (String?) throws(ConfigurationLoadError) -> DaemonConfiguration
    var configuration: DaemonConfiguration

    let loop: EventLoop
    let timer: MonotonicTimer
    let signals: SignalReceiver
    var listener: Listener?
    var udevMonitor: UdevMonitor?
    var hotplug = HotplugTracker()

    var watches: [UInt64: Watch] = [:]
    private var lastToken: UInt64 = 0
    var clients: [UInt64: ClientSession] = [:]
    /// Devices in the order they were added (hello and `devices` list them so).
    var devices: [DeviceSlot] = []
    var replayCount = 0
    var clientCount = 0
    /// Gesture ids are unique across devices for the daemon's lifetime: every engine takes them from here.
    let gestureIDs = GestureIDSource()
    var running = true
    /// Accepting is paused after EMFILE/ENFILE until a client leaves.
    var listenerPaused = false
    var refusedClients = 0
    /// Bounds the info lines about clients dropped for misbehaving: 10 a minute.
    var problemDisconnections = LogRateLimit(burst: 10, windowMicroseconds: 60_000_000)
    /// Passthrough copies whose panel went (unplugged, passthrough turned off, the daemon stopping), each
    /// kept until its time: the kernel hands a device's readers nothing more once it is destroyed, so the
    /// copy outlives its last writes (the cancel and lift of what it had down) long enough for the
    /// compositor to read them.
    var retiringCopies: [(copy: VirtualTouchscreen, untilMicroseconds: Int64)] = []
    /// Read buffer shared by every client read.
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: ClientSession.readChunkBytes, alignment: 8)
    /// Where each gesture event is encoded, once for every client that takes it.
    let lineBuffer = JSONLineBuffer()
    /// The array engines' outputs are collected in, kept with its capacity from one wake-up to the next
    /// (`takeOutputs`, `returnOutputs`), so that a frame allocates nothing for them.
    private var spareOutputs: [EngineOutput] = []

    /// Sets the daemon up: signals, configuration, socket, devices. Nothing runs until `run()`.
    public init(
        options: DaemonOptions,
        loadConfiguration: @escaping (String?) throws(ConfigurationLoadError) -> DaemonConfiguration
    ) throws(DaemonStartError) {
        self.options = options
        self.loadConfiguration = loadConfiguration
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
        do {
            configuration = try loadConfiguration(options.configPath)
        } catch {
            throw DaemonStartError(error.description)
        }
        if let socketPath = options.socketPath { configuration.daemon.socketPath = socketPath }
        Log.threshold = configuration.logPriority
        for warning in configuration.warnings { Log.warning(warning) }

        do {
            try add(signals.fd, .signals, interest: .readable)
            try add(timer.fd, .timer, interest: .readable)
        } catch {
            throw DaemonStartError("cannot set up the event loop: \(error)")
        }
        try openListener()
        if options.discoverDevices { startDeviceDiscovery() }
        for replay in options.replays {
            do {
                try addReplay(replay)
            } catch {
                listener?.removeSocketFile()
                throw DaemonStartError("cannot replay: \(error)")
            }
        }
    }

    deinit { scratch.deallocate() }

    /// An empty array for engine outputs, with the capacity of those used before.
    func takeOutputs() -> [EngineOutput] {
        var outputs: [EngineOutput] = []
        swap(&outputs, &spareOutputs)
        return outputs
    }

    /// Gives an outputs array back, emptied, for the next frame.
    func returnOutputs(_ outputs: inout [EngineOutput]) {
        // removeAll(keepingCapacity:) goes through the generic replaceSubrange even for an empty array.
        if !outputs.isEmpty { outputs.removeAll(keepingCapacity: true) }
        swap(&outputs, &spareOutputs)
    }

    // MARK: Tokens

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

    /// Gives a watch without a descriptor (a replay) a token.
    func addTokenOnly(_ watch: Watch) {
        lastToken += 1
        watches[lastToken] = watch
    }

    /// The token the next `add` will use (clients and devices are created knowing their token).
    var upcomingToken: UInt64 { lastToken + 1 }

    // MARK: Socket

    private func openListener() throws(DaemonStartError) {
        let listener: Listener
        do {
            if let fd = try SystemdNotifier.activationSocket() {
                listener = Listener.inherited(fd: fd, configuredPath: configuration.daemon.socketPath)
                Log.info("listening on the socket systemd passed (socket activation)")
            } else {
                listener = try Listener.create(
                    path: configuration.daemon.socketPath, mode: configuration.daemon.socketMode, group: configuration.daemon.socketGroup)
                Log.info(
                    "listening on \(listener.path) (mode 0\(String(configuration.daemon.socketMode, radix: 8)), group "
                        + "\(configuration.daemon.socketGroup.isEmpty ? "of the daemon" : configuration.daemon.socketGroup))")
            }
            try add(listener.fd, .listener, interest: .readable)
        } catch {
            throw DaemonStartError("cannot listen: \(error)")
        }
        self.listener = listener
    }

    // MARK: Running

    /// Runs until SIGTERM or SIGINT. Tells systemd READY=1 first and STOPPING=1 at the end; removes the
    /// socket it created.
    public func run() throws(SystemError) {
        SystemdNotifier.ready(status: statusLine)
        Log.notice("gestured \(ProtocolConstants.daemonVersion) ready: \(statusLine)")
        while running {
            try rearmTimer()
            try loop.wait(timeoutMilliseconds: -1) { readiness in
                guard let watch = watches[readiness.token] else { return true }  // closed earlier in this batch
                dispatch(watch, readiness)
                return running
            }
            flushClients()
        }
        shutDown()
    }

    var statusLine: String {
        "\(devices.count) device\(devices.count == 1 ? "" : "s"), \(clients.count) client\(clients.count == 1 ? "" : "s")"
    }

    private func dispatch(_ watch: Watch, _ readiness: Readiness) {
        switch watch {
        case .listener:
            acceptClients()
        case .signals:
            handleSignals()
        case .timer:
            do {
                try timer.acknowledge()
            } catch {
                Log.error("timerfd: \(error)")
            }
            // One clock read for both (a system call where the clock source is not the TSC).
            let now = SystemCall.monotonicMicroseconds()
            serviceDueDevices(now: now)
            retireCopies(now: now)
        case .udev:
            handleUdevChanges()
        case .client(let session):
            if readiness.isReadable || readiness.isHangUpOrError {
                readFrom(session)
            }
            if readiness.isWritable, clients[session.token] != nil {
                if case .close(let reason) = session.flush() { disconnect(session, reason: reason) }
            }
        case .device(let slot):
            pump(slot, now: SystemCall.monotonicMicroseconds())  // read only for a replay
        }
    }

    /// Arms the timer for the earliest device deadline or scheduled replay event; disarms it when nothing
    /// waits on time, so an idle daemon sleeps in epoll_wait without wake-ups.
    private func rearmTimer() throws(SystemError) {
        var earliest: Int64?
        // The latest event any device has reported, on the loop's clock: a time already passed, known
        // without reading the clock (a system call where the clock source is not the TSC).
        var latestEvent: Int64?
        for slot in devices {
            if let wake = slot.nextWakeMicroseconds { earliest = min(earliest ?? wake, wake) }
            if let time = slot.engine.lastEventTimeMicroseconds {
                let monotonic = slot.source.monotonicMicroseconds(forEventTime: time)
                latestEvent = max(latestEvent ?? monotonic, monotonic)
            }
        }
        for retiring in retiringCopies { earliest = min(earliest ?? retiring.untilMicroseconds, retiring.untilMicroseconds) }
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
                reload()
            default:
                break
            }
        }
    }

    /// Cancels gestures in flight (so clients can animate back), says goodbye to systemd, closes everything
    /// and removes the socket file.
    private func shutDown() {
        SystemdNotifier.stopping()
        let now = SystemCall.monotonicMicroseconds()
        for slot in devices {
            let time = slot.source.eventMicroseconds(forMonotonic: now)
            runEngine(slot, at: time) { $0.cancelAll(atMicroseconds: time, into: &$1, touches: &$2) }
            // Nothing stays down on the copy, which goes away with the daemon.
            stopPassthrough(slot, reason: "the daemon is stopping")
        }
        flushClients()
        for session in Array(clients.values) { disconnect(session, reason: "the daemon is shutting down", log: false) }
        for slot in devices {
            loop.remove(slot.source.pollDescriptor ?? -1)
            watches[slot.token] = nil
        }
        devices.removeAll()
        // The loop is over: waiting here holds up nothing but the exit, and lets the compositor read the
        // cancels written to the copies before they go.
        if let last = retiringCopies.map(\.untilMicroseconds).max() {
            SystemCall.sleep(microseconds: max(0, last - SystemCall.monotonicMicroseconds()))
        }
        retiringCopies.removeAll()
        if let listener {
            loop.remove(listener.fd)
            listener.removeSocketFile()
        }
        listener = nil
        Log.restoreBlocking()  // the shutdown is not served from the loop any more: keep every last line
        Log.notice("stopped")
    }
}

/// Why the daemon could not start; the message says what to do.
public struct DaemonStartError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
