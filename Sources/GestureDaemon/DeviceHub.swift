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
    /// Every change (a read, an operation of `DeviceHub.runEngine`, a flag set) brings the wake-up times
    /// below up to date.
    var engine: GestureEngine {
        didSet { refreshWake() }
    }
    /// udev's LIBINPUT_CALIBRATION_MATRIX for the device, applied whenever the configuration sets no
    /// geometry of its own (at open and at every reload).
    let udevCalibration: [Double]?
    /// The device's passthrough (touch ownership), while it is on.
    var passthrough: Passthrough?
    /// Passthrough on (true) or off (false) as the configuration asks and the device does not have yet:
    /// applied when nothing is down on the panel (at open, at hotplug and at reload alike).
    var passthroughWanted: Bool?
    /// Set when the hub removed it (a loop over the slots may still hold it).
    var removed = false

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
        refreshWake()
    }

    /// The engine's next deadline on CLOCK_MONOTONIC, the source's next scheduled report, and the latest
    /// event's time on CLOCK_MONOTONIC: kept from the last change of the engine (a source's schedule only
    /// moves when it is read, which goes through the engine), so the loop reads them at each turn without
    /// asking the source.
    private(set) var deadlineMicroseconds: Int64?
    private(set) var sourceWakeMicroseconds: Int64?
    private(set) var latestEventMicroseconds: Int64?

    private func refreshWake() {
        deadlineMicroseconds = engine.nextDeadlineMicroseconds.map(source.monotonicMicroseconds(forEventTime:))
        sourceWakeMicroseconds = source.nextWakeMicroseconds
        latestEventMicroseconds = engine.lastEventTimeMicroseconds.map(source.monotonicMicroseconds(forEventTime:))
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
        switch (deadlineMicroseconds, sourceWakeMicroseconds) {
        case let (d?, s?): return min(d, s)
        case let (d?, nil): return d
        case let (nil, s?): return s
        case (nil, nil): return nil
        }
    }

    /// "now" on the device's event clock.
    var now: Int64 { source.eventMicroseconds(forMonotonic: SystemCall.monotonicMicroseconds()) }
}

/// The daemon's devices: the touchscreens udev finds (and follows through hotplug), the replays of
/// `--replay`, each with its engine and, in passthrough, its virtual copy; what their engines produce goes
/// to the clients (`ClientHub`) and the log. Answers the clients' requests about devices (`SessionHost`).
final class DeviceHub {
    private let watches: Watches
    unowned let clients: ClientHub
    /// The configuration devices are resolved against (replaced on reload).
    var configuration: DaemonConfiguration
    private let discoversDevices: Bool
    private var udevMonitor: UdevMonitor?
    private var hotplug = HotplugTracker()
    /// Devices in the order they were added (hello and `devices` list them so).
    private(set) var slots: [DeviceSlot] = []
    private var replayCount = 0
    /// Gesture ids are unique across devices for the daemon's lifetime: every engine takes them from here.
    private let gestureIDs = GestureIDSource()
    /// Passthrough copies whose panel went, until their time has come (`RetiringCopies`).
    var retiringCopies = RetiringCopies()
    /// The array engines' outputs are collected in, kept with its capacity from one wake-up to the next
    /// (`takeOutputs`, `returnOutputs`), so that a frame allocates nothing for them.
    private var spareOutputs: [EngineOutput] = []
    /// The same for what sources read (`takeReports`, `returnReports`).
    private var spareReports = InputReports()
    /// Whether the engines make running gestures' updates (`GestureEngine.reportsUpdates`); the clients
    /// (`ClientHub.refreshUpdatesWanted`) turn it off while no one takes them.
    var reportsUpdates = true {
        didSet {
            guard reportsUpdates != oldValue else { return }
            for slot in slots { slot.engine.reportsUpdates = reportsUpdates }
        }
    }

    init(watches: Watches, clients: ClientHub, configuration: DaemonConfiguration, discoversDevices: Bool) {
        self.watches = watches
        self.clients = clients
        self.configuration = configuration
        self.discoversDevices = discoversDevices
    }

    var count: Int { slots.count }

    /// An empty array for engine outputs, with the capacity of those used before.
    private func takeOutputs() -> [EngineOutput] {
        var outputs: [EngineOutput] = []
        swap(&outputs, &spareOutputs)
        return outputs
    }

    /// Gives an outputs array back, emptied, for the next frame.
    private func returnOutputs(_ outputs: inout [EngineOutput]) {
        // removeAll(keepingCapacity:) goes through the generic replaceSubrange even for an empty array.
        if !outputs.isEmpty { outputs.removeAll(keepingCapacity: true) }
        swap(&outputs, &spareOutputs)
    }

    // MARK: Discovery and hotplug

    /// Creates the udev monitor (before enumerating, so a device plugged in meanwhile is not missed) and
    /// opens the touchscreens present now. Without udev (a container) the daemon runs on with what it has.
    func startDiscovery() {
        guard discoversDevices else { return }
        do {
            let monitor = try UdevMonitor()
            try watches.add(monitor.fd, .udev, interest: .readable)
            udevMonitor = monitor
        } catch {
            Log.warning("hotplug is off: cannot monitor udev (\(error)); touchscreens plugged in later are not seen")
        }
        if let found = discoverPresent() { report(found) }
    }

    /// Opens every present input device the daemon wants and has not opened (at start-up, and after a
    /// reload that may have changed which devices are wanted); returns what became of each, nil when udev
    /// could not list them (logged).
    @discardableResult
    func discoverPresent() -> [(device: UdevInputDevice, outcome: DiscoveryOutcome)]? {
        guard discoversDevices else { return nil }
        let present: [UdevInputDevice]
        do {
            present = try UdevDiscovery.eventDevices()
        } catch {
            Log.warning("cannot enumerate input devices with udev: \(error)")
            return nil
        }
        return discover(present)
    }

    /// Opens each of `present` (udev's list) the daemon wants, and says what became of each.
    func discover(_ present: [UdevInputDevice]) -> [(device: UdevInputDevice, outcome: DiscoveryOutcome)] {
        present.map { device in
            let wanted = wants(device)
            let action = hotplug.discovered(device, wanted: wanted)
            if case .open(let device) = action { return (device, openEvdev(device)) }
            perform(action)
            return (device, wanted ? .alreadyOpen : .notATouchscreen)
        }
    }

    /// With no touchscreen found at start-up, says what was looked at and why nothing matched (notice);
    /// otherwise, at debug, why each device not read is not.
    func report(_ found: [(device: UdevInputDevice, outcome: DiscoveryOutcome)]) {
        let report = DiscoveryReport(devices: found, facts: .gather(hotplug: udevMonitor != nil))
        if report.foundNone {
            Log.notice(report.lines.joined(separator: "\n"))
        } else if Log.enabled(.debug) {
            for (device, outcome) in found.prefix(DiscoveryReport.maximumDevices) {
                guard let reason = DiscoveryReport.reason(device, outcome) else { continue }
                Log.debug("not reading \(device.devnode) \"\(escapingControlCharacters(device.name))\": \(reason)")
            }
        }
    }

    /// Whether the daemon uses a udev device: a touchscreen (or a device a configuration section names)
    /// that the configuration does not ignore. Ignoring is decided on the opened device's description.
    private func wants(_ device: UdevInputDevice) -> Bool {
        if device.isTouchscreen || device.isUnclassified { return true }
        var description = DeviceDescription(name: device.name)
        if let vendor = device.properties["ID_VENDOR_ID"].flatMap({ UInt16($0, radix: 16) }),
            let product = device.properties["ID_MODEL_ID"].flatMap({ UInt16($0, radix: 16) })
        {
            description.vendor = vendor
            description.product = product
        }
        return configuration.names(description, DeviceHub.paths(of: device))
    }

    /// The node and its udev links (by-id, by-path), which `match_path` sections may name.
    static func paths(of device: UdevInputDevice) -> [String] {
        var paths = [device.devnode]
        if let links = device.properties["DEVLINKS"] {
            paths += links.split(separator: " ").map(String.init)
        }
        return paths
    }

    /// udev announced changes.
    func handleUdevChanges() {
        guard let monitor = udevMonitor else { return }
        while let change = monitor.receive() {
            Log.debug("udev: \(change.action) \(change.device.devnode) (\(escapingControlCharacters(change.device.name)))")
            perform(hotplug.handle(change, wanted: wants(change.device)))
        }
    }

    private func perform(_ action: HotplugTracker.Action) {
        switch action {
        case .ignore:
            break
        case .close(let devnode):
            if let slot = slots.first(where: { $0.source.path == devnode }) {
                remove(slot, reason: "unplugged")
            }
            hotplug.closed(devnode)
        case .open(let device):
            openEvdev(device)
        }
    }

    @discardableResult
    private func openEvdev(_ udevDevice: UdevInputDevice) -> DiscoveryOutcome {
        // A passthrough copy this daemon made (also refused by its phys once opened).
        if slots.contains(where: { $0.passthrough?.copy.devnode == udevDevice.devnode }) {
            Log.debug("\(udevDevice.devnode) is the passthrough copy of one of gestured's devices; not reading it")
            return .refused(.ownPassthroughCopy(path: udevDevice.devnode, name: udevDevice.name, phys: VirtualTouchscreen.physPrefix))
        }
        let paths = DeviceHub.paths(of: udevDevice)
        // The grab setting needs the description, which needs the device open: open, resolve, and reopen
        // with the grab when asked for (rare; off by default).
        do {
            var evdev = try EvdevDevice(path: udevDevice.devnode, udevTouchscreen: udevDevice.isTouchscreen)
            let udevCalibration = udevDevice.calibrationMatrix
            let settings = configuration.resolve(evdev.description, paths).applyingUdevCalibration(udevCalibration)
            if settings.ignore {
                Log.info("ignoring \(udevDevice.devnode) (\(escapingControlCharacters(evdev.description.name))): the configuration says ignore = true")
                let refusal = EvdevError.unsupported(
                    path: udevDevice.devnode, name: evdev.description.name, reason: "the configuration says ignore = true")
                hotplug.openFailed(udevDevice.devnode, refusal)
                return .refused(refusal)
            }
            if settings.grab {
                evdev = try EvdevDevice(path: udevDevice.devnode, grab: true, udevTouchscreen: udevDevice.isTouchscreen)
            }
            hotplug.opened(udevDevice.devnode)
            let id = String(udevDevice.devnode.split(separator: "/").last ?? "event")
            if let udevCalibration, settings.geometry.calibration == udevCalibration {
                Log.info("\(id): using udev's LIBINPUT_CALIBRATION_MATRIX \(udevCalibration.map { "\($0)" }.joined(separator: " "))")
            }
            let failure = add(
                source: EvdevInputSource(evdev), id: id, paths: paths, settings: settings, udevCalibration: udevCalibration,
                output: udevDevice.outputName)
            return failure.map(DiscoveryOutcome.unusable) ?? .opened
        } catch {
            switch error {
            case .ownPassthroughCopy:
                // One of our own passthrough copies, announced by udev like any touchscreen.
                hotplug.openFailed(udevDevice.devnode, error)
                Log.debug(error.description)
            case .unsupported where udevDevice.isUnclassified:
                // Probing a device udev did not classify: a keyboard or mouse refused here is expected.
                hotplug.openFailed(udevDevice.devnode, error)
                Log.debug("\(error.description) (udev has not classified it; probed)")
            case .permissionDenied, .notEvdevDevice, .unsupported, .grabFailed, .removed, .system:
                if hotplug.openFailed(udevDevice.devnode, error) {
                    Log.warning(error.description)
                } else {
                    Log.debug(error.description)
                }
            }
            return .refused(error)
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
        add(source: source, id: "replay\(replayCount)", paths: paths, settings: settings)
    }

    // MARK: Adding and removing

    /// Starts reading a device: builds its engine, watches its descriptor, tells subscribed clients. Returns
    /// why it could not (logged), nil when it did.
    @discardableResult
    private func add(
        source: InputSource, id: String, paths: [String], settings: DeviceSettings, udevCalibration: [Double]? = nil,
        output: String? = nil
    ) -> String? {
        let description = source.description
        for warning in settings.warnings { Log.warning("\(id): \(warning)") }
        var engine: GestureEngine
        do {
            // Passthrough turns the engine's touch decisions on once the copy exists (startPassthrough).
            engine = try GestureEngine(
                device: description, settings: settings.recognizer, geometry: settings.geometry, ids: gestureIDs,
                tracing: Log.enabled(.debug))
            engine.reportsUpdates = reportsUpdates
        } catch {
            Log.warning("not using \(source.path): \(error)")
            if let node = source.hotplugNode { hotplug.closed(node) }
            return "\(error)"
        }
        let slotCount: Int
        switch description.touchProtocol {
        case .multitouchSlots(let n): slotCount = n
        case .singleTouch, .multitouchProtocolA, .unusable: slotCount = 1
        }
        let info = DeviceInfo(
            id: id, name: description.name, vendorProduct: description.vendorProduct, path: source.path,
            source: source.source, slots: slotCount, output: output, size: DeviceHub.panelSize(engine.geometry))
        let slot = DeviceSlot(
            token: watches.upcomingToken, info: info, source: source, paths: paths, settings: settings, engine: engine,
            udevCalibration: udevCalibration)
        do {
            if let fd = source.pollDescriptor {
                try watches.add(fd, .device(slot), interest: .readable)
            } else {
                // A timer-driven source has no descriptor; its token only keeps identities uniform.
                watches.addTokenOnly(.device(slot))
            }
        } catch {
            Log.error("cannot watch \(source.path): \(error)")
            if let node = source.hotplugNode { hotplug.closed(node) }
            return "cannot watch it: \(error)"
        }
        slots.append(slot)
        // What the panel has now: after a restart, fingers may be down, and the current slot is whatever
        // the kernel last used. Those fingers rest until they lift.
        if let state = source.panelState {
            var out: [EngineOutput] = []
            slot.engine.adopt(state, atMicroseconds: slot.now, into: &out)
            deliver(out, from: slot)
        }
        // The panel is grabbed only while nothing is down on it: a touch the compositor already has ends
        // where it began (its lift would be hidden by the grab).
        if settings.passthrough {
            if panelIsIdle(slot) {
                startPassthrough(slot)
            } else {
                slot.passthroughWanted = true
                Log.info("\(id): passthrough starts once no finger is on the panel")
            }
        }
        for warning in engine.deviceWarnings { Log.warning("\(id): \(warning.message)") }
        Log.info(
            "device \(id) added: \"\(escapingControlCharacters(description.name))\" (\(description.vendorProduct), \(slotCount) slot\(slotCount == 1 ? "" : "s"), "
                + "panel \(slot.info.size.map(\.description) ?? "of unknown size")) from \(source.path)")
        clients.notify(.deviceAdded(slot.info), about: slot.info)
        SystemdNotifier.notify("STATUS=\(Daemon.statusLine(devices: slots.count, clients: clients.count))")
        return nil
    }

    /// The panel's size as clients are told it: in its own axes, and where it came from.
    static func panelSize(_ geometry: DeviceGeometry) -> PanelSize {
        let source: PanelSize.Source
        switch geometry.sizeSource {
        case .axisResolution: source = .resolution
        case .configured: source = .configuration
        case .assumed: source = .assumed
        }
        return PanelSize(widthMM: geometry.deviceSizeMM.width, heightMM: geometry.deviceSizeMM.height, source: source)
    }

    /// Stops reading a device: its gestures in flight are cancelled and subscribed clients told.
    func remove(_ slot: DeviceSlot, reason: String) {
        guard let index = slots.firstIndex(where: { $0 === slot }) else { return }
        let now = slot.now
        runEngine(slot, at: now) { $0.cancelAll(atMicroseconds: now, into: &$1, touches: &$2) }
        // The copy's touches are cancelled before it goes.
        stopPassthrough(slot, reason: reason)
        slots.remove(at: index)
        slot.removed = true
        watches.remove(slot.token, fd: slot.source.pollDescriptor)
        Log.info("device \(slot.info.id) removed (\(reason))")
        clients.notify(.deviceRemoved(slot.info), about: slot.info)
        SystemdNotifier.notify("STATUS=\(Daemon.statusLine(devices: slots.count, clients: clients.count))")
    }

    /// The daemon stops: gestures in flight are cancelled (so clients can animate back) and nothing stays
    /// down on a passthrough copy; then every device is closed.
    func closeAll() {
        let now = SystemCall.monotonicMicroseconds()
        for slot in slots {
            let time = slot.source.eventMicroseconds(forMonotonic: now)
            runEngine(slot, at: time) { $0.cancelAll(atMicroseconds: time, into: &$1, touches: &$2) }
            // Nothing stays down on the copy, which goes away with the daemon.
            stopPassthrough(slot, reason: "the daemon is stopping")
        }
        for slot in slots { watches.remove(slot.token, fd: slot.source.pollDescriptor) }
        for slot in slots { slot.removed = true }
        slots.removeAll()
    }

    // MARK: Input

    /// Reads what a device has (or what a replay has due by `now`, the only source that reads the clock)
    /// through its engine to the clients.
    ///
    /// A kernel device is read with one `read(2)` per wake-up, and no read to find it empty: the gestures
    /// of what was read are then sent to the clients (and the frames written to a passthrough copy), and
    /// the loop goes back to `epoll_wait`. A read that filled its buffer leaves the rest to the next turn of
    /// the loop (the descriptor is watched level-triggered, and a replay's due events rearm the timer), so
    /// a device flooding the daemon takes its turn with the clients and the other devices.
    ///
    /// Returns true when the read stopped with more perhaps waiting (it filled its buffer).
    @discardableResult
    func pump(_ slot: DeviceSlot, now: @autoclosure () -> Int64) -> Bool {
        var out = takeOutputs()
        defer { returnOutputs(&out) }
        let more: Bool
        do {
            if let passthrough = slot.passthrough {
                // Every frame is forwarded as it is read: the write below is in this same loop iteration.
                more = try read(
                    slot.source, now: now(), into: &slot.engine, forwarder: &passthrough.forwarder,
                    writes: &passthrough.writes, touches: &passthrough.decisions, outputs: &out)
                flushPassthrough(slot)
            } else {
                more = try read(slot.source, now: now(), into: &slot.engine, outputs: &out)
            }
        } catch {
            flushPassthrough(slot)
            deliver(out, from: slot)
            if let node = slot.source.hotplugNode { hotplug.closed(node) }
            if error.removed {
                remove(slot, reason: "unplugged")
            } else {
                Log.error("\(slot.info.id): \(error); dropping the device")
                remove(slot, reason: "read failed")
            }
            return false
        }
        deliver(out, from: slot)
        if slot.passthroughWanted != nil { applyPendingPassthrough(slot) }
        return more
    }

    // The engine (and a passthrough's forwarder and writes) come in as inout arguments: borrowed from the
    // slot once for the whole read, rather than reached through the slot, a class, with a run-time
    // exclusivity check, for every event.

    /// Feeds what `source` has due by `now` to `engine`, each run of events at once.
    @discardableResult
    private func read(
        _ source: InputSource, now: @autoclosure () -> Int64, into engine: inout GestureEngine, outputs out: inout [EngineOutput]
    ) throws(InputSourceEnded) -> Bool {
        var reports = takeReports()
        defer { returnReports(&reports) }
        let more = try source.read(nowMicroseconds: now(), into: &reports)
        // Without passthrough the engine makes no touch decisions.
        var none: [TouchDecision] = []
        reports.forEach(
            run: { engine.process($0, into: &out, touches: &none) },
            breakReport: { report in
                switch report {
                case .event(let event): engine.process(event, into: &out, touches: &none)
                case .dropped(let time): engine.eventsDropped(atMicroseconds: time, into: &out, touches: &none)
                case .reset(let time): engine.reset(atMicroseconds: time, into: &out, touches: &none)
                }
            })
        return more
    }

    /// The same for a device in passthrough: each event goes through the engine, then the event and the
    /// engine's touch decisions through the forwarder, which queues what the copy receives in `writes`.
    @discardableResult
    private func read(
        _ source: InputSource, now: @autoclosure () -> Int64, into engine: inout GestureEngine, forwarder: inout TouchForwarder,
        writes: inout [InputEvent], touches: inout [TouchDecision], outputs out: inout [EngineOutput]
    ) throws(InputSourceEnded) -> Bool {
        var reports = takeReports()
        defer { returnReports(&reports) }
        let more = try source.read(nowMicroseconds: now(), into: &reports)
        func handle(_ report: InputReport) {
            defer { if !touches.isEmpty { touches.removeAll(keepingCapacity: true) } }
            switch report {
            case .event(let event):
                engine.process(event, into: &out, touches: &touches)
                forwarder.process(event, decisions: touches, serial: { engine.contactSerial(inSlot: $0) }, into: &writes)
            case .dropped(let time):
                engine.eventsDropped(atMicroseconds: time, into: &out, touches: &touches)
                forwarder.eventsDropped()
                forwarder.apply(touches, atMicroseconds: time, into: &writes)
            case .reset(let time):
                engine.reset(atMicroseconds: time, into: &out, touches: &touches)
                forwarder.apply(touches, atMicroseconds: time, into: &writes)
                forwarder.finish(atMicroseconds: time, into: &writes)
                // A replay's next pass starts from nothing, like a device plugged in again.
                if let fresh = try? TouchForwarder(device: source.description) { forwarder = fresh }
            }
        }
        // Event by event: the forwarder acts on each event with the decisions the engine made at it.
        reports.forEach(run: { for event in $0 { handle(.event(event)) } }, breakReport: handle)
        return more
    }

    /// An empty reports buffer, with the capacity of those used before (a read allocates nothing once the
    /// buffers have grown to a read's size).
    private func takeReports() -> InputReports {
        var reports = InputReports()
        swap(&reports, &spareReports)
        return reports
    }

    private func returnReports(_ reports: inout InputReports) {
        reports.removeAll()
        swap(&reports, &spareReports)
    }

    /// When a device next needs the loop without readiness (a recognizer deadline, a replay's next event,
    /// a retiring copy's end), CLOCK_MONOTONIC microseconds; and the latest event any device reported, on
    /// the same clock (a time already passed, known without reading the clock).
    func nextWake() -> (earliest: Int64?, latestEvent: Int64?) {
        var earliest = retiringCopies.nextMicroseconds
        var latestEvent: Int64?
        for slot in slots {
            if let wake = slot.nextWakeMicroseconds { earliest = min(earliest ?? wake, wake) }
            if let monotonic = slot.latestEventMicroseconds { latestEvent = max(latestEvent ?? monotonic, monotonic) }
        }
        return (earliest, latestEvent)
    }

    /// After the timer fired (`now`): replays with events due, recognizer deadlines that have passed, and
    /// copies whose retirement has come.
    func serviceDue(now: Int64) {
        for slot in slots {
            if let wake = slot.sourceWakeMicroseconds, wake <= now {
                pump(slot, now: now)
            }
            guard !slot.removed else { continue }
            if let due = slot.deadlineMicroseconds, due <= now, let deadline = slot.engine.nextDeadlineMicroseconds {
                // A replay's next event may come before the deadline; it was fed above if it was due.
                if let wake = slot.sourceWakeMicroseconds, wake <= now { continue }
                // A live device may have events waiting that were stamped before the deadline (its
                // readiness can come later in this same batch): read them first, as they happened first.
                // When that read filled its buffer, the deadline waits for the rest, in the next turn of the
                // loop (the engine fires a deadline before any event stamped after it).
                if slot.source.pollDescriptor != nil {
                    guard !pump(slot, now: now), !slot.removed,
                        let stillDue = slot.engine.nextDeadlineMicroseconds, stillDue == deadline
                    else { continue }
                }
                // A withheld touch whose limit passed is released now, not at the panel's next frame.
                runEngine(slot, at: deadline) { $0.advance(toMicroseconds: deadline, into: &$1, touches: &$2) }
            }
        }
        retiringCopies.retire(now: now)
    }

    /// Runs one operation of a device's engine outside a read (a deadline, a cancellation, a
    /// reconfiguration), then, in this order: its touch decisions to the passthrough copy (written at
    /// once), its gestures, warnings and traces to the clients and the log. Every engine call but the
    /// reads of `pump` goes through here.
    func runEngine(
        _ slot: DeviceSlot, at time: Int64, _ operation: (inout GestureEngine, inout [EngineOutput], inout [TouchDecision]) -> Void
    ) {
        var out = takeOutputs()
        defer { returnOutputs(&out) }
        var touches: [TouchDecision] = []
        operation(&slot.engine, &out, &touches)
        if let passthrough = slot.passthrough {
            passthrough.forwarder.apply(touches, atMicroseconds: time, into: &passthrough.writes)
            flushPassthrough(slot)
        }
        deliver(out, from: slot)
    }

    /// What a device's engine produced: gestures to the clients whose subscription takes them, warnings to
    /// the log, traces to the debug log (the engine traces only while the log level is debug).
    private func deliver(_ outputs: [EngineOutput], from slot: DeviceSlot) {
        for output in outputs {
            switch output {
            case .gesture(let event): clients.publish(event, from: slot.info)
            case .warning(let warning): Log.warning("\(slot.info.id): \(warning.message)")
            case .trace(let line): Log.debug("\(slot.info.id): \(line)")
            }
        }
    }

    /// The daemon stops: the copies retiring are destroyed once the compositor had time to read them.
    func retireCopiesAtExit() { retiringCopies.retireAll() }

    // MARK: Reload

    /// Applies a reloaded configuration: every device re-resolved (engines whose settings changed are
    /// reconfigured, cancelling gestures in flight; an orientation set at run time is kept on top of the
    /// new geometry), devices now ignored dropped, devices now wanted opened.
    func apply(_ new: DaemonConfiguration) {
        configuration = new
        let tracing = Log.enabled(.debug)
        for slot in slots { slot.engine.tracing = tracing }
        let now = SystemCall.monotonicMicroseconds()
        for slot in slots {
            var settings = new.resolve(slot.source.description, slot.paths).applyingUdevCalibration(slot.udevCalibration)
            if settings.ignore {
                remove(slot, reason: "the configuration now ignores it")
                if let node = slot.source.hotplugNode { hotplug.closed(node) }
                continue
            }
            if settings.grab != slot.settings.grab {
                Log.notice("\(slot.info.id): a change of grab applies when the device is plugged in again or the daemon restarts")
            }
            for warning in settings.warnings { Log.warning("\(slot.info.id): \(warning)") }
            settings.grab = slot.settings.grab
            if settings.passthrough != (slot.passthrough != nil) {
                // Switched once nothing is down on the panel: a grab taken or released under a finger
                // would leave that touch down for the compositor.
                slot.passthroughWanted = settings.passthrough
            } else {
                slot.passthroughWanted = nil
            }
            settings.recognizer.withholdsTouches = slot.engine.settings.withholdsTouches
            guard settings.recognizer != slot.engine.settings || settings.geometry != slot.settings.geometry else {
                slot.settings = settings
                applyPendingPassthrough(slot)
                continue
            }
            let time = slot.source.eventMicroseconds(forMonotonic: now)
            slot.settings = settings
            // The orientation set at run time stays: it turns the new geometry as it turned the old.
            let geometry = slot.effectiveGeometry
            runEngine(slot, at: time) {
                $0.reconfigure(settings: settings.recognizer, geometry: geometry, atMicroseconds: time, into: &$1, touches: &$2)
            }
            let size = DeviceHub.panelSize(slot.engine.geometry)
            if size != slot.info.size {
                slot.info.size = size
                Log.info("\(slot.info.id): panel \(size)")
                clients.notify(.deviceChanged(slot.info), about: slot.info)
            }
            applyPendingPassthrough(slot)
            Log.info("\(slot.info.id): new settings applied")
        }
        discoverPresent()
    }
}

extension DeviceHub: DeviceRequests {
    var deviceInfos: [DeviceInfo] { slots.map(\.info) }

    /// The `orientation` request: turns the screen of the devices `device` names (id, name or vvvv:pppp),
    /// or of every device, on top of their configured geometry. For each device whose orientation changes,
    /// gestures in flight are cancelled (recognition restarts once the fingers now down have lifted), edges
    /// and directions follow at once, and subscribed clients get `device-changed`. A device already in that
    /// orientation is left alone. The orientation lasts while the device stays open: a reload keeps it; a
    /// device added (plugged in again, or after a restart) starts at 0, as the compositor sets the display's
    /// orientation again then (docs/protocol.md).
    func setOrientation(_ orientation: DeviceOrientation, device: String?, by label: String) -> Result<OrientationChange, ProtocolError> {
        let named = slots.filter { slot in device.map(slot.info.isNamed(by:)) ?? true }
        if let device, named.isEmpty {
            let known = slots.map { "\($0.info.id) \"\(escapingControlCharacters($0.info.name))\"" }
            return .failure(
                ProtocolError(
                    .unknownDevice,
                    "no device has the id, name or vendor:product \"\(device)\"; the daemon reads "
                        + (known.isEmpty ? "no devices" : known.joined(separator: ", "))))
        }
        let now = SystemCall.monotonicMicroseconds()
        var claimedTouches = 0
        for slot in named where slot.info.orientation != orientation {
            let previous = slot.info.orientation
            slot.info.orientation = orientation
            let time = slot.source.eventMicroseconds(forMonotonic: now)
            let geometry = slot.effectiveGeometry
            // The engine's own settings: with passthrough they withhold touches, which the file's do not say.
            // A deadline that passed before the request came is served first (a withheld touch whose limit
            // passed was the application's already); what was still held back is claimed, and counted for
            // the reply.
            runEngine(slot, at: time) {
                $0.reconfigure(settings: $0.settings, geometry: geometry, atMicroseconds: time, into: &$1, touches: &$2)
                claimedTouches += $2.claimedCount
            }
            clients.logChange("\(slot.info.id): orientation \(orientation.rawValue) (was \(previous.rawValue)), set by \(label)")
            clients.notify(.deviceChanged(slot.info), about: slot.info)
        }
        return .success(OrientationChange(devices: named.map(\.info), claimedTouches: claimedTouches))
    }
}
