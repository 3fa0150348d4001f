import GestureConfig
import GestureCore
import GestureProtocol
import Glibc
import GestureVocabulary
import SystemCalls
import PlainText

/// The daemon's devices: the touchscreens udev finds and follows through hotplug (`DeviceDiscovery`), the
/// replays of `--replay`, one `DeviceRuntime` each, in the order they were added. It adds and removes
/// them, serves their wake-ups in time order, applies a reload to them, and answers the clients' requests
/// about them (`DeviceRequests`). What their engines produce goes to the `DeviceDelivery` it was made with.
final class DeviceHub {
    let watches: Watches
    unowned let delivery: any DeviceDelivery
    /// The configuration devices are resolved against (replaced on reload).
    private(set) var configuration: DaemonConfiguration
    let discovery: DeviceDiscovery
    /// Devices in the order they were added (hello and `devices` list them so).
    private(set) var runtimes: [DeviceRuntime] = []
    /// The tablets udev lists, each a pen some touchscreen may pair with (DevicePens.swift).
    var penCandidates: [UdevInputDevice] = []
    /// The pens open for their proximity, each paired with at least one touchscreen.
    var pens: [PenDevice] = []
    /// Pens that could not be opened, not tried again until udev announces them again.
    var penRefusals: Set<String> = []
    private var replayCount = 0
    /// Gesture ids are unique across devices for the daemon's lifetime: every engine takes them from here.
    private let gestureIDs = GestureIDSource()
    /// Passthrough copies whose panel went, until their time has come.
    let retiringCopies = RetiringCopies()
    /// The devices due at a timer's expiry, in time order (kept with its capacity: `serviceDue`).
    private var due: [(wake: Int64, index: Int)] = []
    /// Orientation changes logged at most 10 a minute, with a count of those not logged.
    private var changeLog = LogRateLimit(burst: 10, windowMicroseconds: 60_000_000)
    /// Whether some client takes updates (the client policy's `.updates`); the engines make them then, or
    /// while the debug log shows gestures (`refreshReportsUpdates`).
    private var updatesWanted = false
    /// Whether the engines make running gestures' updates (`GestureEngine.reportsUpdates`).
    private(set) var reportsUpdates = true {
        didSet {
            guard reportsUpdates != oldValue else { return }
            for runtime in runtimes { runtime.engine.reportsUpdates = reportsUpdates }
        }
    }

    /// Works out whether the engines make updates: while some client takes them or the log shows gestures
    /// (debug). Off, a frame of a running gesture costs no update no one reads (its end is the same).
    func refreshReportsUpdates() {
        reportsUpdates = updatesWanted || Log.enabled(.debug)
    }

    /// Whether the engines explain every touch sequence (`GestureEngine.explaining`); on only while a
    /// client that may have them subscribes to explanations (the client policy's `.explaining`), so that
    /// nobody's touches cost a reason otherwise.
    private(set) var explaining = false {
        didSet {
            guard explaining != oldValue else { return }
            for runtime in runtimes { runtime.engine.explaining = explaining }
            // Replays held for the first client of explanations (`--wait-for-explanations`) start now.
            if explaining {
                let now = SystemCall.monotonicMicroseconds()
                for runtime in runtimes { runtime.releaseHeldReplay(nowMicroseconds: now) }
            }
        }
    }

    init(watches: Watches, delivery: any DeviceDelivery, configuration: DaemonConfiguration, discoversDevices: Bool) {
        self.watches = watches
        self.delivery = delivery
        self.configuration = configuration
        self.discovery = DeviceDiscovery(enabled: discoversDevices)
    }

    var count: Int { runtimes.count }

    // MARK: Discovery and hotplug

    /// Starts following udev and opens the touchscreens present now.
    func startDiscovery() {
        discovery.startMonitor(watches: watches)
        if let found = discoverPresent() { discovery.report(found) }
    }

    /// Opens every present input device the daemon wants and has not opened (at start-up, and after a
    /// reload that may have changed which devices are wanted); returns what became of each, nil when udev
    /// could not list them (logged).
    @discardableResult
    func discoverPresent() -> [(device: UdevInputDevice, outcome: DiscoveryOutcome)]? {
        discovery.present().map(discover)
    }

    /// Opens each of `present` (udev's list) the daemon wants, and says what became of each.
    func discover(_ present: [UdevInputDevice]) -> [(device: UdevInputDevice, outcome: DiscoveryOutcome)] {
        // The pens first: a touchscreen says its pens when it is added.
        notePenCandidates(present)
        return present.map { device in
            let wanted = DeviceDiscovery.wants(device, configuration)
            let action = discovery.discovered(device, wanted: wanted)
            if case .open(let device) = action { return (device, open(device)) }
            perform(action)
            return (device, wanted ? .alreadyOpen : .notATouchscreen)
        }
    }

    /// udev announced changes.
    func handleUdevChanges() {
        var penChanges: [UdevDeviceChange] = []
        let actions = discovery.changes(wanted: { DeviceDiscovery.wants($0, configuration) }) { change in
            let node = change.device.devnode
            if change.device.isPen || penCandidates.contains(where: { $0.devnode == node }) || pens.contains(where: { $0.path == node }) {
                penChanges.append(change)
            }
        }
        for action in actions { perform(action) }
        for change in penChanges { handlePenChange(change) }
    }

    private func perform(_ action: HotplugTracker.Action) {
        switch action {
        case .ignore:
            break
        case .close(let devnode):
            if let runtime = runtimes.first(where: { $0.source.path == devnode }) { remove(runtime, .unplugged) }
            discovery.closed(devnode)
        case .open(let device):
            open(device)
        }
    }

    @discardableResult
    private func open(_ udevDevice: UdevInputDevice) -> DiscoveryOutcome {
        // A passthrough copy or pointer this daemon made (also refused by its phys once opened).
        if runtimes.contains(where: {
            $0.passthrough.forwarding?.copy.devnode == udevDevice.devnode || $0.passthrough.forwarding?.pointer.link?.device.devnode == udevDevice.devnode
        }) {
            Log.debug("\(udevDevice.devnode) is the passthrough copy of one of gestured's devices; not reading it")
            return .refused(.ownPassthroughCopy(path: udevDevice.devnode, name: udevDevice.name, phys: VirtualTouchscreen.physPrefix))
        }
        switch discovery.open(udevDevice, configuration) {
        case .failure(.evdev(let error)):
            return .refused(error)
        case .failure(.ignoredByConfiguration):
            return .ignoredByConfiguration
        case .success(let opened):
            let failure = add(
                source: EvdevInputSource(opened.evdev), id: opened.id, paths: opened.paths, settings: opened.settings,
                udevCalibration: opened.udevCalibration, output: opened.output, seat: opened.seat, udevDevice: udevDevice)
            return failure.map(DiscoveryOutcome.unusable) ?? .opened
        }
    }

    // MARK: Replays

    /// Adds a replayed recording as a virtual device (`gestured --replay`).
    func addReplay(_ options: ReplayOptions) throws(ReplayError) {
        let source = try ReplaySource(options: options, startMonotonicMicroseconds: SystemCall.monotonicMicroseconds())
        replayCount += 1
        let paths = [options.recordingPath]
        var settings = configuration.resolve(source.description, paths)
        if options.passthrough { settings.passthrough = true }
        add(source: source, id: "replay\(replayCount)", paths: paths, settings: settings, replayClock: source.clock)
    }

    // MARK: Adding and removing

    /// Starts reading a device: builds its engine, watches its descriptor, tells subscribed clients. Returns
    /// why it could not (logged), nil when it did.
    @discardableResult
    func add(
        source: InputSource, id: String, paths: [String], settings: DeviceSettings, udevCalibration: [Double]? = nil,
        output: String? = nil, seat: String = DeviceInfo.defaultSeat, udevDevice: UdevInputDevice? = nil, replayClock: ReplayClock? = nil
    ) -> DeviceAddFailure? {
        let description = source.description
        for warning in settings.warnings { Log.warning("\(id): \(warning)") }
        var engine: GestureEngine
        do {
            // Passthrough turns the engine's touch decisions on once the copy exists.
            engine = try GestureEngine(
                device: description, settings: settings.recognizer, geometry: settings.geometry, ids: gestureIDs,
                tracing: Log.enabled(.debug))
            engine.reportsUpdates = reportsUpdates
            engine.explaining = explaining
        } catch {
            Log.warning("not using \(source.path): \(error)")
            if let node = source.hotplugNode { discovery.closed(node) }
            return .unsupported(error)
        }
        let slotCount: Int
        switch description.touchProtocol {
        case .multitouchSlots(let n): slotCount = n
        case .singleTouch, .multitouchProtocolA, .unusable: slotCount = 1
        }
        var info = DeviceInfo(
            id: id, name: description.name, vendorProduct: description.vendorProduct, path: source.path,
            source: source.source, slots: slotCount, output: output, size: PanelSize(engine.geometry))
        info.seat = seat
        info.edgeZones = EdgeZonesInForce(engine)
        info.replayClock = replayClock
        let runtime = DeviceRuntime(
            token: watches.upcomingToken, info: info, source: source, paths: paths, settings: settings, engine: engine,
            udevCalibration: udevCalibration, udevDevice: udevDevice, delivery: delivery, retiringCopies: retiringCopies)
        do {
            if let fd = source.pollDescriptor {
                try watches.add(fd, .device(runtime), interest: .readable)
            } else {
                // A timer-driven source has no descriptor; its token only keeps identities uniform.
                watches.addTokenOnly(.device(runtime))
            }
        } catch {
            Log.error("cannot watch \(source.path): \(error)")
            if let node = source.hotplugNode { discovery.closed(node) }
            return .cannotWatch(error)
        }
        runtimes.append(runtime)
        applyExclusions(to: runtime)
        runtime.announcedInfo = runtime.info
        // What the panel has now: after a restart, fingers may be down, and the current slot is whatever
        // the kernel last used. Those fingers rest until they lift.
        if let state = source.panelState {
            let time = runtime.now
            runtime.runEngine(at: time) { $0.adopt(state, atMicroseconds: time, into: &$1) }
        }
        // The panel is grabbed only while nothing is down on it: a touch the compositor already has ends
        // where it began (its lift would be hidden by the grab).
        if settings.passthrough { runtime.switchPassthrough(.opened) }
        // Its pens, said in the device-added line below.
        refreshPens(quiet: runtime)
        for warning in engine.deviceWarnings { Log.warning("\(id): \(warning.message)") }
        Log.info(
            "device \(id) added: \"\(escapingControlCharacters(description.name))\" (\(description.vendorProduct), \(slotCount) slot\(slotCount == 1 ? "" : "s"), "
                + "panel \(runtime.info.size.map(\.description) ?? "of unknown size"), "
                + "\(engine.palmSize?.summary ?? PalmSizeThreshold.noContactSize)"
                + "\(runtime.udevDevice == nil ? "" : ", " + runtime.penLink.summary)) from \(source.path)")
        // The client policy gives it its seat's focus and the clients' exclusions, then clients are told.
        delivery.deviceAdded(runtime.policyFacts, devices: self)
        runtime.announcedInfo = runtime.info
        SystemdNotifier.notify("STATUS=\(Daemon.statusLine(devices: runtimes.count, clients: delivery.connectedClients))")
        return nil
    }

    /// Stops reading a device: its gestures in flight are cancelled, its copy's touches lifted, and
    /// subscribed clients told.
    func remove(_ runtime: DeviceRuntime, _ reason: RemovalReason) {
        guard let index = runtimes.firstIndex(where: { $0 === runtime }) else { return }
        runtime.close(reason, monotonicNow: SystemCall.monotonicMicroseconds())
        runtimes.remove(at: index)
        watches.remove(runtime.token, fd: runtime.source.pollDescriptor)
        Log.info("device \(runtime.info.id) removed (\(reason))")
        delivery.deviceRemoved(runtime.info, devices: self)
        // A pen no other touchscreen pairs with is closed.
        if !pens.isEmpty { refreshPens() }
        SystemdNotifier.notify("STATUS=\(Daemon.statusLine(devices: runtimes.count, clients: delivery.connectedClients))")
    }

    /// The daemon stops: gestures in flight are cancelled (so clients can animate back) and nothing stays
    /// down on a passthrough copy; then every device is closed.
    func closeAll() {
        let now = SystemCall.monotonicMicroseconds()
        for runtime in runtimes { runtime.close(.daemonStopping, monotonicNow: now) }
        for runtime in runtimes { watches.remove(runtime.token, fd: runtime.source.pollDescriptor) }
        runtimes.removeAll()
        closeAllPens()
    }

    /// The daemon stops: the copies retiring are destroyed once the compositor had time to read them.
    func retireCopiesAtExit() { retiringCopies.retireAll() }

    // MARK: Input and time

    /// A device's descriptor is readable (or a replay's token came up): reads it.
    func pump(_ runtime: DeviceRuntime, now: @autoclosure () -> Int64) {
        handle(runtime.pump(now: now()), of: runtime)
    }

    /// A read's end: a device whose source ended is removed.
    func handle(_ outcome: ReadOutcome, of runtime: DeviceRuntime) {
        switch outcome {
        case .drained, .more:
            break
        case .ended(let error):
            if let node = runtime.source.hotplugNode { discovery.closed(node) }
            if error.removed {
                remove(runtime, .unplugged)
            } else {
                Log.error("\(runtime.info.id): \(error); dropping the device")
                remove(runtime, .readFailed)
            }
        }
    }

    /// When a device next needs the loop without readiness (a recognizer deadline, a replay's next event,
    /// a retiring copy's end), CLOCK_MONOTONIC microseconds; and the latest event any device reported, on
    /// the same clock (a time already passed, known without reading the clock).
    func nextWake() -> (earliest: Int64?, latestEvent: Int64?) {
        var earliest = retiringCopies.nextMicroseconds
        var latestEvent: Int64?
        if !pens.isEmpty {
            for pen in pens {
                if let check = pen.nextStillnessCheck { earliest = min(earliest ?? check, check) }
            }
        }
        for runtime in runtimes {
            if let wake = runtime.nextWakeMicroseconds { earliest = min(earliest ?? wake, wake) }
            if let monotonic = runtime.latestEventMicroseconds { latestEvent = max(latestEvent ?? monotonic, monotonic) }
        }
        return (earliest, latestEvent)
    }

    /// After the timer fired (`now`): every device whose wake-up has come (replays with events due,
    /// recognizer deadlines that have passed), in the order of their times (devices due at the same time
    /// in the order they were added), then copies whose retirement has come.
    func serviceDue(now: Int64) {
        var dueCount = 0
        var lastDue = 0
        for index in runtimes.indices {
            if let wake = runtimes[index].nextWakeMicroseconds, wake <= now {
                dueCount += 1
                lastDue = index
            }
        }
        switch dueCount {
        case 0:
            break
        case 1:
            // The usual turn: one device due, served without gathering and ordering (a frame's cost).
            let runtime = runtimes[lastDue]
            handle(runtime.serveDue(now: now), of: runtime)
        default:
            serveInOrder(now: now)
        }
        retiringCopies.retire(now: now)
        if !pens.isEmpty { checkStillPens(now: now) }
    }

    /// More than one device due: served in the order of their times, devices due at the same time in the
    /// order they were added.
    @inline(never)
    private func serveInOrder(now: Int64) {
        for (index, runtime) in runtimes.enumerated() {
            if let wake = runtime.nextWakeMicroseconds, wake <= now { due.append((wake, index)) }
        }
        due.sort { ($0.wake, $0.index) < ($1.wake, $1.index) }
        // Indices into the devices as they were (one whose source ended is removed as it is served).
        let serving = runtimes
        for (_, index) in due { handle(serving[index].serveDue(now: now), of: serving[index]) }
        due.removeAll(keepingCapacity: true)
    }

    /// The pens near whose stillness check is due: one that counts as gone (still for too long) or as near
    /// again (it moved) is followed by its touchscreens. Out of the frame's path (no pen, no call).
    @inline(never)
    private func checkStillPens(now: Int64) {
        for pen in pens {
            guard let check = pen.nextStillnessCheck, check <= now, pen.checkStillness(now: now) != nil else { continue }
            for runtime in runtimes where runtime.penLink.pens.contains(where: { $0.path == pen.path }) {
                syncPenProximity(runtime, atMicroseconds: runtime.source.eventMicroseconds(forMonotonic: now))
            }
        }
    }

    // MARK: Reload

    /// Applies a reloaded configuration: every device re-resolved (`DeviceRuntime.reload`), devices now
    /// ignored dropped, devices now wanted opened.
    func apply(_ new: DaemonConfiguration) {
        configuration = new
        let tracing = Log.enabled(.debug)
        for runtime in runtimes { runtime.engine.tracing = tracing }
        let now = SystemCall.monotonicMicroseconds()
        for runtime in runtimes {
            let settings = new.resolve(runtime.source.description, runtime.paths).applyingUdevCalibration(runtime.udevCalibration)
            if settings.ignore {
                remove(runtime, .ignoredByConfiguration)
                if let node = runtime.source.hotplugNode { discovery.closed(node) }
                continue
            }
            runtime.reload(settings, monotonicNow: now)
            applyExclusions(to: runtime)
        }
        discoverPresent()
        // pen_arbitration and pen may have changed.
        refreshPens()
    }
}

extension DeviceHub: DeviceRequests {
    var deviceInfos: [DeviceInfo] { runtimes.map(\.info) }

    /// The `orientation` request, the policy having checked who asked and named the devices: turns the
    /// screen of each on top of its configured geometry. For each device whose orientation changes,
    /// gestures in flight are cancelled (recognition restarts once the fingers now down have lifted), edges
    /// and directions follow at once, and clients and the policy are told (the exclusion cap is measured
    /// on the screen as it is turned now). A device already in that orientation is left alone. The
    /// orientation lasts while the device stays open: a reload keeps it; a device added (plugged in again, or
    /// after a restart) starts at 0, as the compositor sets the display's orientation again then
    /// (docs/protocol.md).
    func turn(_ ids: [String], to orientation: DeviceOrientation, by label: String) -> OrientationChange {
        let named = runtimes.filter { ids.contains($0.info.id) }
        let now = SystemCall.monotonicMicroseconds()
        var claimedTouches = 0
        for runtime in named where runtime.info.orientation != orientation {
            let previous = runtime.info.orientation
            runtime.info.orientation = orientation
            let time = runtime.source.eventMicroseconds(forMonotonic: now)
            let geometry = runtime.effectiveGeometry
            // The engine's own settings: with passthrough they withhold touches, which the file's do not say.
            // A deadline that passed before the request came is served first (a withheld touch whose limit
            // passed was the application's already); what was still held back is claimed, and counted for
            // the reply.
            runtime.runEngine(at: time) {
                $0.reconfigure(settings: $0.settings, geometry: geometry, atMicroseconds: time, into: &$1)
                claimedTouches += $1.touches.claimedCount
            }
            runtime.info.edgeZones = EdgeZonesInForce(runtime.engine)
            // The pointer releases what it holds, where the finger is, as gestures in flight are cancelled.
            runtime.cancelPointer()
            logChange("\(runtime.info.id): orientation \(orientation.rawValue) (was \(previous.rawValue)), set by \(label)")
            runtime.announceChange(devices: self)
        }
        return OrientationChange(devices: named.map(\.info), claimedTouches: claimedTouches)
    }

    /// What clients set that the device follows (the client policy's `.deviceState`): its seat's focused
    /// app, the clients' exclusions in force and where their hold claims keep holds from its pointer; the
    /// pointer's mode follows the focused app (leaving an app mid-drag releases the button where the finger
    /// is). Returns the device before and after; the caller tells the clients whose view changed.
    func setState(device id: String, focusedApp: String?, clientExclusions: [EdgeExclusion], holdClaims: [ScreenRegion]) -> (DeviceInfo, DeviceInfo)? {
        guard let runtime = runtimes.first(where: { $0.info.id == id }) else { return nil }
        let before = runtime.announcedInfo
        runtime.info.focusedApp = focusedApp
        runtime.clientExclusions = clientExclusions
        runtime.holdClaims = holdClaims
        applyExclusions(to: runtime)
        runtime.refreshPointer()
        runtime.announcedInfo = runtime.info
        return (before, runtime.info)
    }

    /// Gives the device's engine the exclusions in force (the [[exclusion]] sections that apply to it and
    /// hold for its seat's focused app, then the clients' the policy gave it), and says them in its
    /// `DeviceInfo`. Run when they may change (a device added, a reload, a focus or exclusion change),
    /// never per frame; the engine is told only when they did change.
    func applyExclusions(to runtime: DeviceRuntime) {
        var list: [EdgeExclusion] = []
        for (e, _) in runtime.settings.configuredExclusions(forApp: runtime.info.focusedApp) { list.append(e) }
        list += runtime.clientExclusions
        let exclusions = EdgeExclusions(list)
        if exclusions != runtime.engine.exclusions { runtime.engine.setExclusions(exclusions) }
        runtime.info.exclusions = list.map { ExclusionInForce(edge: $0.edge, from: $0.from, to: $0.to, source: $0.source) }
    }

    /// The seat's user changed: the gestures in flight on its devices are cancelled (and delivered to the
    /// audience they landed under, before the clients' views change), and the fingers down rest until they
    /// lift, so no touch is shown to two users. With passthrough, touches held back are claimed.
    func endTouches(onSeat seat: String) {
        let now = SystemCall.monotonicMicroseconds()
        for runtime in runtimes where runtime.info.seat == seat {
            let time = runtime.source.eventMicroseconds(forMonotonic: now)
            let geometry = runtime.effectiveGeometry
            runtime.runEngine(at: time) { $0.reconfigure(settings: $0.settings, geometry: geometry, atMicroseconds: time, into: &$1) }
            runtime.cancelPointer()
        }
    }

    func setExplaining(_ on: Bool) { explaining = on }

    func setUpdatesWanted(_ on: Bool) {
        updatesWanted = on
        refreshReportsUpdates()
    }

    /// A change made at a client's request, logged at most 10 a minute (with a count of those that were not).
    private func logChange(_ line: String) {
        let (admitted, heldBack) = changeLog.admit(now: SystemCall.monotonicMicroseconds())
        guard admitted else { return }
        Log.info(line + (heldBack > 0 ? " (\(heldBack) more changes since the last such line were not logged)" : ""))
    }
}
