import GestureCore
import GestureProtocol
import Glibc
import SystemCalls

extension Daemon {
    // MARK: Discovery and hotplug

    /// Creates the udev monitor (before enumerating, so a device plugged in meanwhile is not missed) and
    /// opens the touchscreens present now. Without udev (a container) the daemon runs on with what it has.
    func startDeviceDiscovery() {
        do {
            let monitor = try UdevMonitor()
            try add(monitor.fd, .udev, interest: .readable)
            udevMonitor = monitor
        } catch {
            Log.warning("hotplug is off: cannot monitor udev (\(error)); touchscreens plugged in later are not seen")
        }
        discoverPresentDevices()
    }

    /// Opens every present input device the daemon wants and has not opened (at start-up, and after a
    /// reload that may have changed which devices are wanted).
    func discoverPresentDevices() {
        let present: [UdevInputDevice]
        do {
            present = try UdevDiscovery.eventDevices()
        } catch {
            Log.warning("cannot enumerate input devices with udev: \(error)")
            return
        }
        for device in present {
            let action = hotplug.discovered(device, wanted: wants(device))
            perform(action)
        }
    }

    /// Whether the daemon uses a udev device: a touchscreen (or a device a configuration section names)
    /// that the configuration does not ignore. Ignoring is decided on the opened device's description.
    func wants(_ device: UdevInputDevice) -> Bool {
        if device.isTouchscreen || device.isUnclassified { return true }
        var description = DeviceDescription(name: device.name)
        if let vendor = device.properties["ID_VENDOR_ID"].flatMap({ UInt16($0, radix: 16) }),
            let product = device.properties["ID_MODEL_ID"].flatMap({ UInt16($0, radix: 16) })
        {
            description.vendor = vendor
            description.product = product
        }
        return configuration.names(description, Daemon.paths(of: device))
    }

    /// The node and its udev links (by-id, by-path), which `match_path` sections may name.
    static func paths(of device: UdevInputDevice) -> [String] {
        var paths = [device.devnode]
        if let links = device.properties["DEVLINKS"] {
            paths += links.split(separator: " ").map(String.init)
        }
        return paths
    }

    func handleUdevChanges() {
        guard let monitor = udevMonitor else { return }
        while let change = monitor.receive() {
            Log.debug("udev: \(change.action) \(change.device.devnode) (\(change.device.name))")
            perform(hotplug.handle(change, wanted: wants(change.device)))
        }
    }

    private func perform(_ action: HotplugTracker.Action) {
        switch action {
        case .ignore:
            break
        case .close(let devnode):
            if let slot = devices.first(where: { $0.source.path == devnode }) {
                removeDevice(slot, reason: "unplugged")
            }
            hotplug.closed(devnode)
        case .open(let device):
            openEvdev(device)
        }
    }

    private func openEvdev(_ udevDevice: UdevInputDevice) {
        // A passthrough copy this daemon made (also refused by its phys once opened).
        if devices.contains(where: { $0.passthrough?.copy.devnode == udevDevice.devnode }) {
            Log.debug("\(udevDevice.devnode) is the passthrough copy of one of gestured's devices; not reading it")
            return
        }
        let paths = Daemon.paths(of: udevDevice)
        // The grab setting needs the description, which needs the device open: open, resolve, and reopen
        // with the grab when asked for (rare; off by default).
        do {
            var evdev = try EvdevDevice(path: udevDevice.devnode, udevTouchscreen: udevDevice.isTouchscreen)
            let udevCalibration = udevDevice.calibrationMatrix
            let settings = configuration.resolve(evdev.description, paths).applyingUdevCalibration(udevCalibration)
            if settings.ignore {
                Log.info("ignoring \(udevDevice.devnode) (\(evdev.description.name)): the configuration says ignore = true")
                hotplug.openFailed(
                    udevDevice.devnode,
                    .unsupported(path: udevDevice.devnode, name: evdev.description.name, reason: "ignored by the configuration"))
                return
            }
            if settings.grab {
                evdev = try EvdevDevice(path: udevDevice.devnode, grab: true, udevTouchscreen: udevDevice.isTouchscreen)
            }
            hotplug.opened(udevDevice.devnode)
            let id = String(udevDevice.devnode.split(separator: "/").last ?? "event")
            if let udevCalibration, settings.geometry.calibration == udevCalibration {
                Log.info("\(id): using udev's LIBINPUT_CALIBRATION_MATRIX \(udevCalibration.map { "\($0)" }.joined(separator: " "))")
            }
            addDevice(
                source: EvdevInputSource(evdev), id: id, paths: paths, settings: settings, udevCalibration: udevCalibration,
                output: udevDevice.outputName)
        } catch {
            if case .unsupported(_, _, let reason) = error, reason.hasPrefix(EvdevDevice.ownCopyReason) {
                // One of our own passthrough copies, announced by udev like any touchscreen.
                hotplug.openFailed(udevDevice.devnode, error)
                Log.debug(error.description)
            } else if case .unsupported = error, udevDevice.isUnclassified {
                // Probing a device udev did not classify: a keyboard or mouse refused here is expected.
                hotplug.openFailed(udevDevice.devnode, error)
                Log.debug("\(error.description) (udev has not classified it; probed)")
            } else if hotplug.openFailed(udevDevice.devnode, error) {
                Log.warning(error.description)
            } else {
                Log.debug(error.description)
            }
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
        addDevice(source: source, id: "replay\(replayCount)", paths: paths, settings: settings)
    }

    // MARK: Slots

    /// Starts reading a device: builds its engine, watches its descriptor, tells subscribed clients.
    private func addDevice(
        source: InputSource, id: String, paths: [String], settings: DeviceSettings, udevCalibration: [Double]? = nil,
        output: String? = nil
    ) {
        let description = source.description
        for warning in settings.warnings { Log.warning("\(id): \(warning)") }
        let engine: GestureEngine
        do {
            // Passthrough turns the engine's touch decisions on once the copy exists (startPassthrough).
            engine = try GestureEngine(
                device: description, settings: settings.recognizer, geometry: settings.geometry, ids: gestureIDs,
                tracing: Log.enabled(.debug))
        } catch {
            Log.warning("not using \(source.path): \(error)")
            if let node = source.hotplugNode { hotplug.closed(node) }
            return
        }
        let slotCount: Int
        switch description.touchProtocol {
        case .multitouchSlots(let n): slotCount = n
        case .singleTouch, .multitouchProtocolA, .unusable: slotCount = 1
        }
        let info = DeviceInfo(
            id: id, name: description.name, vendorProduct: description.vendorProduct, path: source.path,
            source: source.source, slots: slotCount, output: output)
        let slot = DeviceSlot(
            token: upcomingToken, info: info, source: source, paths: paths, settings: settings, engine: engine,
            udevCalibration: udevCalibration)
        do {
            if let fd = source.pollDescriptor {
                try add(fd, .device(slot), interest: .readable)
            } else {
                // A timer-driven source has no descriptor; its token only keeps identities uniform.
                addTokenOnly(.device(slot))
            }
        } catch {
            Log.error("cannot watch \(source.path): \(error)")
            if let node = source.hotplugNode { hotplug.closed(node) }
            return
        }
        devices.append(slot)
        if settings.passthrough { startPassthrough(slot) }
        for warning in engine.deviceWarnings { Log.warning("\(id): \(warning.message)") }
        Log.info(
            "device \(id) added: \"\(description.name)\" (\(description.vendorProduct), \(slotCount) slot\(slotCount == 1 ? "" : "s")) from \(source.path)")
        notifyClients(.deviceAdded(slot.info), about: slot.info)
        SystemdNotifier.notify("STATUS=\(statusLine)")
    }

    /// Stops reading a device: its gestures in flight are cancelled and subscribed clients told.
    func removeDevice(_ slot: DeviceSlot, reason: String) {
        guard let index = devices.firstIndex(where: { $0 === slot }) else { return }
        let now = slot.source.eventMicroseconds(forMonotonic: SystemCall.monotonicMicroseconds())
        runEngine(slot, at: now) { $0.cancelAll(atMicroseconds: now, into: &$1, touches: &$2) }
        // The copy's touches are cancelled before it goes.
        stopPassthrough(slot, reason: reason)
        devices.remove(at: index)
        watches[slot.token] = nil
        if let fd = slot.source.pollDescriptor { loop.remove(fd) }
        Log.info("device \(slot.info.id) removed (\(reason))")
        notifyClients(.deviceRemoved(slot.info), about: slot.info)
        SystemdNotifier.notify("STATUS=\(statusLine)")
    }

    // MARK: Input

    /// Reads what a device has (or what a replay has due by `now`, the only source that reads the clock)
    /// through its engine to the clients.
    ///
    /// A kernel device is read with one `read(2)` per wake-up (another only when that one filled its
    /// buffer), and no read to find it empty: the gestures of what was read are then sent to the clients
    /// (and the frames written to a passthrough copy), and the loop goes back to `epoll_wait`.
    func pump(_ slot: DeviceSlot, now: @autoclosure () -> Int64) {
        var more = true
        while more {
            var out = takeOutputs()
            defer { returnOutputs(&out) }
            do {
                if let passthrough = slot.passthrough {
                    // Every frame is forwarded as it is read: the write below is in this same loop iteration.
                    more = try Daemon.read(
                        slot.source, now: now(), into: &slot.engine, forwarder: &passthrough.forwarder,
                        writes: &passthrough.writes, touches: &passthrough.decisions, outputs: &out)
                    flushPassthrough(slot)
                } else {
                    more = try Daemon.read(slot.source, now: now(), into: &slot.engine, outputs: &out)
                }
            } catch {
                flushPassthrough(slot)
                deliver(out, from: slot)
                if let node = slot.source.hotplugNode { hotplug.closed(node) }
                if error.removed {
                    removeDevice(slot, reason: "unplugged")
                } else {
                    Log.error("\(slot.info.id): \(error); dropping the device")
                    removeDevice(slot, reason: "read failed")
                }
                return
            }
            deliver(out, from: slot)
            if more { flushClients() }
        }
        if slot.passthroughWanted != nil { applyPendingPassthrough(slot) }
    }

    // The engine (and a passthrough's forwarder and writes) come in as inout arguments: borrowed from the
    // slot once for the whole read, rather than reached through the slot, a class, with a run-time
    // exclusivity check, for every event.

    /// Feeds what `source` has due by `now` to `engine`.
    private static func read(
        _ source: InputSource, now: @autoclosure () -> Int64, into engine: inout GestureEngine, outputs out: inout [EngineOutput]
    ) throws(InputSourceEnded) -> Bool {
        // Without passthrough the engine makes no touch decisions.
        var none: [TouchDecision] = []
        return try source.read(nowMicroseconds: now()) { report in
            switch report {
            case .event(let event): engine.process(event, into: &out, touches: &none)
            case .dropped(let time): engine.eventsDropped(atMicroseconds: time, into: &out, touches: &none)
            case .reset(let time): engine.reset(atMicroseconds: time, into: &out, touches: &none)
            }
        }
    }

    /// The same for a device in passthrough: each event goes through the engine, then the event and the
    /// engine's touch decisions through the forwarder, which queues what the copy receives in `writes`.
    private static func read(
        _ source: InputSource, now: @autoclosure () -> Int64, into engine: inout GestureEngine, forwarder: inout TouchForwarder,
        writes: inout [InputEvent], touches: inout [TouchDecision], outputs out: inout [EngineOutput]
    ) throws(InputSourceEnded) -> Bool {
        try source.read(nowMicroseconds: now()) { report in
            defer { if !touches.isEmpty { touches.removeAll(keepingCapacity: true) } }
            switch report {
            case .event(let event):
                engine.process(event, into: &out, touches: &touches)
                forwarder.process(event, decisions: touches, serial: { [engine] in engine.contactSerial(inSlot: $0) }, into: &writes)
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
    }

    /// After the timer fired (`now`): replays with events due, and recognizer deadlines that have passed.
    func serviceDueDevices(now: Int64) {
        for slot in devices {
            if let wake = slot.source.nextWakeMicroseconds, wake <= now {
                pump(slot, now: now)
            }
            guard devices.contains(where: { $0 === slot }) else { continue }
            if let deadline = slot.engine.nextDeadlineMicroseconds,
                slot.source.monotonicMicroseconds(forEventTime: deadline) <= now
            {
                // A replay's next event may come before the deadline; it was fed above if it was due.
                if let wake = slot.source.nextWakeMicroseconds, wake <= now { continue }
                // A live device may have events waiting that were stamped before the deadline (its
                // readiness can come later in this same batch): read them first, as they happened first.
                if slot.source.pollDescriptor != nil {
                    pump(slot, now: now)
                    guard devices.contains(where: { $0 === slot }),
                        let stillDue = slot.engine.nextDeadlineMicroseconds, stillDue == deadline
                    else { continue }
                }
                // A withheld touch whose limit passed is released now, not at the panel's next frame.
                runEngine(slot, at: deadline) { $0.advance(toMicroseconds: deadline, into: &$1, touches: &$2) }
            }
        }
    }
}
