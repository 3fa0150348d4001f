import GestureCore
import GestureProtocol
import GestureVocabulary
import SystemCalls

/// Where a device's outputs go: its gestures to the clients whose views take them, and the news that it
/// came, went or changed (with what the client policy needs of it, `PolicyDevice`). `ClientHub` delivers
/// them; a test records them.
protocol DeviceDelivery: AnyObject {
    /// `audience`: who receives the gesture, said for its `begin` (`EngineEvent.audience`); its other
    /// events follow the decision each client took at the begin.
    func publish(_ event: GestureEvent, audience: GestureAudience, from device: @autoclosure () -> DeviceInfo)
    /// Sends one touch sequence explained to the clients that subscribed to explanations (and may have
    /// them).
    func explain(_ explanation: Explanation, from device: DeviceInfo)
    /// A device came: the policy gives it what clients set (through `devices`), then clients are told.
    func deviceAdded(_ device: PolicyDevice, devices: DeviceRequests)
    /// A device changed while it stays open (`before`: as clients last saw it); `devices` nil when the
    /// change comes from inside the device (its passthrough, its pens, a reload), the policy's answer
    /// then waits for the daemon.
    func deviceChanged(_ device: PolicyDevice, before: DeviceInfo, devices: DeviceRequests?)
    func deviceRemoved(_ info: DeviceInfo, devices: DeviceRequests)
    /// How many clients are connected (the status line systemd shows).
    var connectedClients: Int { get }
}

/// Why a device stops being read, in the log's words.
enum RemovalReason: Equatable, Sendable, CustomStringConvertible {
    /// udev said it went, or a read found it gone (ENODEV).
    case unplugged
    /// A read failed for another reason.
    case readFailed
    /// A reload's configuration ignores it now.
    case ignoredByConfiguration
    /// The daemon stops.
    case daemonStopping

    var description: String {
        switch self {
        case .unplugged: return "unplugged"
        case .readFailed: return "read failed"
        case .ignoredByConfiguration: return "the configuration now ignores it"
        case .daemonStopping: return "the daemon is stopping"
        }
    }
}

/// What a read of a device left.
enum ReadOutcome {
    /// Nothing more is available now.
    case drained
    /// The read filled its buffer: more may be waiting (the next turn of the loop reads it).
    case more
    /// The source ended for good (removed, or failed): the hub removes the device.
    case ended(InputSourceEnded)
}

/// One device the daemon reads, and everything that is its own: its source, its recognizer, its settings
/// and how clients know it, its wake-up times, the buffers its reads fill, its passthrough
/// (`PassthroughState`, switched by `switchPassthrough`, PassthroughSwitch.swift). Its reads are in
/// DeviceReads.swift, a reload's new settings in DeviceReload.swift. What its engine produces goes to the
/// `DeviceDelivery` it was made with, and the log.
final class DeviceRuntime {
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
    /// Every change (a read, an operation of `runEngine`, a flag set) brings the wake-up times below up to
    /// date.
    var engine: GestureEngine {
        didSet { refreshWake() }
    }
    /// udev's LIBINPUT_CALIBRATION_MATRIX for the device, applied whenever the configuration sets no
    /// geometry of its own (at open and at every reload).
    let udevCalibration: [Double]?
    /// The device's passthrough (touch ownership); changed only by `switchPassthrough`.
    var passthrough: PassthroughState = .off
    /// The clients' exclusions in force on the device (the client policy's), beside the file's.
    var clientExclusions: [EdgeExclusion] = []
    /// Where clients keep one-finger holds from the device's pointer (the client policy's, from `claim`).
    var holdClaims: [ScreenRegion] = []
    /// `info` as clients were last told it (`announceChange`).
    var announcedInfo: DeviceInfo
    /// The audience of the gesture whose `begin` comes next in the engine's output (`EngineEvent.audience`);
    /// the seat's until said, so that a begin nothing vouched for stays private.
    private var nextAudience = GestureAudience.seat
    /// udev's description of the device (nil for a replay): which pens belong with it.
    let udevDevice: UdevInputDevice?
    /// Touch arbitration with its pens (DevicePens.swift); changed only by `setPenLink`.
    private(set) var penLink: PenLink = .unpaired

    /// The device's pens change (`DeviceHub.refreshPens`); clients are told through `info`.
    func setPenLink(_ link: PenLink) {
        penLink = link
        switch link {
        case .off: info.penArbitration = .off
        case .unpaired, .paired: info.penArbitration = .on
        }
        info.pens = link.pens
    }
    /// Where gestures and notifications go.
    unowned let delivery: any DeviceDelivery
    /// Where the copy goes when passthrough ends (shared by the daemon's devices: a copy outlives them).
    let retiringCopies: RetiringCopies

    /// The value engine outputs are collected in, kept with its capacity from one wake-up to the next
    /// (`takeOutputs`, `returnOutputs`), so that a frame allocates nothing for them.
    private var spareOutputs = EngineOutput()
    /// The same for what the source reads (`takeReports`, `returnReports`).
    private var spareReports = InputReports()

    init(
        token: UInt64, info: DeviceInfo, source: InputSource, paths: [String], settings: DeviceSettings,
        engine: GestureEngine, udevCalibration: [Double]? = nil, udevDevice: UdevInputDevice? = nil, delivery: any DeviceDelivery,
        retiringCopies: RetiringCopies
    ) {
        self.udevCalibration = udevCalibration
        self.udevDevice = udevDevice
        self.token = token
        self.info = info
        self.announcedInfo = info
        self.source = source
        self.paths = paths
        self.settings = settings
        self.engine = engine
        self.delivery = delivery
        self.retiringCopies = retiringCopies
        refreshWake()
    }

    // MARK: Wake-ups

    /// The engine's next deadline on CLOCK_MONOTONIC, the source's next scheduled report, and the latest
    /// event's time on CLOCK_MONOTONIC: kept from the last change of the engine (a source's schedule only
    /// moves when it is read, which goes through the engine), so the loop reads them at each turn without
    /// asking the source.
    private(set) var deadlineMicroseconds: Int64?
    private(set) var sourceWakeMicroseconds: Int64?
    private(set) var latestEventMicroseconds: Int64?
    /// The virtual pointer's next wake-up (a fling's next wheel events) on CLOCK_MONOTONIC, kept by
    /// `refreshPointerWake` after every operation of the pointer (each ends in `flushPointer` or `retirePointer`), so that
    /// the loop's turn does not reach through passthrough to the pointer (DevicePointer.swift).
    private(set) var pointerWakeMicroseconds: Int64?

    /// Starts a replay held until a client subscribes to explanations (`--wait-for-explanations`); its
    /// schedule is taken anew. Nothing for any other source.
    func releaseHeldReplay(nowMicroseconds: Int64) {
        guard let replay = source as? ReplaySource, replay.held else { return }
        replay.release(nowMicroseconds: nowMicroseconds)
        refreshWake()
        // Its schedule starts now: clients age its events by the new clock.
        info.replayClock = replay.clock
        announceChange()
    }

    private func refreshWake() {
        deadlineMicroseconds = engine.nextDeadlineMicroseconds.map(source.monotonicMicroseconds(forEventTime:))
        sourceWakeMicroseconds = source.nextWakeMicroseconds
        latestEventMicroseconds = engine.lastEventTimeMicroseconds.map(source.monotonicMicroseconds(forEventTime:))
    }

    /// Brings `pointerWakeMicroseconds` up to date with the pointer (none without passthrough or pointer).
    func refreshPointerWake() {
        pointerWakeMicroseconds = passthrough.forwarding?.pointer.link?.pointer.nextDeadlineMicroseconds
            .map(source.monotonicMicroseconds(forEventTime:))
    }

    /// When the device needs the loop's attention without fd readiness, in CLOCK_MONOTONIC microseconds:
    /// the recognizer's next deadline or the source's next scheduled report, whichever is first.
    var nextWakeMicroseconds: Int64? {
        var earliest: Int64?
        switch (deadlineMicroseconds, sourceWakeMicroseconds) {
        case let (d?, s?): earliest = min(d, s)
        case let (d?, nil): earliest = d
        case let (nil, s?): earliest = s
        case (nil, nil): earliest = nil
        }
        // A fling's next wheel events (touch that points).
        if let p = pointerWakeMicroseconds { earliest = min(earliest ?? p, p) }
        return earliest
    }

    /// After the timer fired (`now`): the replay's events due, then a recognizer deadline that has passed
    /// (and a fling's wheel events, which no read or deadline of the engine brings).
    func serveDue(now: Int64) -> ReadOutcome {
        if let p = pointerWakeMicroseconds, p <= now { servePointer(now: now) }
        if let wake = sourceWakeMicroseconds, wake <= now {
            let outcome = pump(now: now)
            if case .ended = outcome { return outcome }
        }
        guard let due = deadlineMicroseconds, due <= now, let deadline = engine.nextDeadlineMicroseconds else { return .drained }
        // A replay's next event may come before the deadline; it was fed above if it was due.
        if let wake = sourceWakeMicroseconds, wake <= now { return .drained }
        // A live device may have events waiting that were stamped before the deadline (its readiness can
        // come later in this same batch): read them first, as they happened first. When that read filled
        // its buffer, the deadline waits for the rest, in the next turn of the loop (the engine fires a
        // deadline before any event stamped after it).
        if source.pollDescriptor != nil {
            let outcome = pump(now: now)
            guard case .drained = outcome, let stillDue = engine.nextDeadlineMicroseconds, stillDue == deadline else {
                return outcome
            }
        }
        // A withheld touch whose limit passed is released now, not at the panel's next frame.
        runEngine(at: deadline) { $0.advance(toMicroseconds: deadline, into: &$1) }
        return .drained
    }

    // MARK: The engine

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

    /// "now" on the device's event clock.
    var now: Int64 { source.eventMicroseconds(forMonotonic: SystemCall.monotonicMicroseconds()) }

    /// Runs one operation of the engine outside a read (a deadline, a cancellation, a reconfiguration),
    /// then, in this order: its touch decisions to the passthrough copy (written at once), its gestures,
    /// warnings and traces to the clients and the log. Every engine call but the reads of `pump` goes
    /// through here.
    func runEngine(at time: Int64, _ operation: (inout GestureEngine, inout EngineOutput) -> Void) {
        var out = takeOutputs()
        defer { returnOutputs(&out) }
        operation(&engine, &out)
        if let forwarding = passthrough.forwarding {
            // The pointer first: its claims join the decisions the forwarder acts on.
            forwarding.pointer.link?.observe(&out, from: 0, frame: nil, latest: engine.latestFrame, followed: { engine.followedSerials }, at: time)
            forwarding.forwarder.apply(out.touches, atMicroseconds: time, into: &forwarding.writes)
            flushCopy()
        }
        deliver(out.events)
    }

    /// What the engine produced: gestures to the clients whose views take them, warnings to the log, traces
    /// to the debug log (the engine traces only while the log level is debug).
    func deliver(_ outputs: [EngineEvent]) {
        for output in outputs {
            switch output {
            case .audience(let audience): nextAudience = audience
            case .gesture(let event):
                delivery.publish(event, audience: nextAudience, from: info)
                if event.phase == .begin { nextAudience = .seat }
            case .warning(let warning): Log.warning("\(info.id): \(warning.message)")
            case .trace(let line): Log.debug("\(info.id): \(line)")
            case .stopped(let stop): Log.debug("\(info.id): \(stop)")
            case .explanation(let explanation): delivery.explain(explanation, from: info)
            case .reason: break  // taken into the explanation by the engine
            }
        }
    }

    /// What the client policy knows of the device: how it is named, its seat, and the screen and edge
    /// zones the exclusion cap is measured on, as the user sees them now.
    var policyFacts: PolicyDevice {
        let size = engine.geometry.screenSizeMM
        return PolicyDevice(info: info, screenWidthMM: size.width, screenHeightMM: size.height, zones: engine.settings.edgeZones)
    }

    /// Tells the clients (those whose view of it changed) and the policy that the device changed;
    /// `devices` as for `DeviceDelivery.deviceChanged`.
    func announceChange(devices: DeviceRequests? = nil) {
        let before = announcedInfo
        announcedInfo = info
        delivery.deviceChanged(policyFacts, before: before, devices: devices)
    }

    /// Cancels the gestures in flight and ends passthrough, so nothing stays down on the copy: the device
    /// stops being read.
    func close(_ reason: RemovalReason, monotonicNow: Int64) {
        let time = source.eventMicroseconds(forMonotonic: monotonicNow)
        runEngine(at: time) { $0.cancelAll(atMicroseconds: time, into: &$1) }
        // The copy's touches are cancelled before it goes.
        switchPassthrough(.closing(reason))
    }

    // MARK: Buffers

    /// An empty output value for the engine, with the capacity of those used before.
    func takeOutputs() -> EngineOutput {
        var outputs = EngineOutput()
        swap(&outputs, &spareOutputs)
        return outputs
    }

    /// Gives an output value back, emptied, for the next frame.
    func returnOutputs(_ outputs: inout EngineOutput) {
        // removeAll(keepingCapacity:) goes through the generic replaceSubrange even for an empty array.
        if !outputs.isEmpty { outputs.removeAll() }
        swap(&outputs, &spareOutputs)
    }

    /// An empty reports buffer, with the capacity of those used before (a read allocates nothing once the
    /// buffers have grown to a read's size).
    func takeReports() -> InputReports {
        var reports = InputReports()
        swap(&reports, &spareReports)
        return reports
    }

    func returnReports(_ reports: inout InputReports) {
        reports.removeAll()
        swap(&reports, &spareReports)
    }
}
