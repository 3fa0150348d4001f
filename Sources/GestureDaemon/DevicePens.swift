import GestureConfig
import GestureCore
import GestureProtocol
import SystemCalls
import PlainText

/// A touchscreen's touch arbitration with its pens, as the daemon runs it (its `DeviceRuntime` owns it;
/// whether a pen is near is the pen's own state, `PenDevice`, and what the touchscreen does about it is its
/// engine's, `GestureEngine.penArbitration`).
enum PenLink: Equatable {
    /// `pen_arbitration = false`: pens change nothing.
    case off
    /// On, and no pen found belonging with the device (one plugged in later is found).
    case unpaired
    /// On, with the pens found belonging with the device and how each was found.
    case paired([PairedPen])

    var pens: [PairedPen] {
        switch self {
        case .off, .unpaired: return []
        case .paired(let pens): return pens
        }
    }

    /// For the device-added line: "pen arbitration off", "no pen paired", "pen event6 "Wacom Pen" paired by
    /// the same LIBINPUT_DEVICE_GROUP".
    var summary: String {
        switch self {
        case .off: return "pen arbitration off"
        case .unpaired: return "no pen paired"
        case .paired(let pens):
            return pens.map { "pen \($0.path) \"\(escapingControlCharacters($0.name))\" paired by \($0.how)" }.joined(separator: ", ")
        }
    }
}

/// Which pens belong with which touchscreen: the rules of docs/gestures.md ("Pen and palm"), pure.
enum PenPairing {
    /// How `pen` belongs with the touchscreen `screen`, nil when it does not: the same LIBINPUT_DEVICE_GROUP
    /// where udev gives both one (as libinput groups them); else the same physical device in sysfs; else
    /// the touchscreen's `pen` key (`configured`: a "vvvv:pppp", or a glob on the pen's name) naming it.
    static func pairing(pen: UdevInputDevice, screen: UdevInputDevice?, configured: String?) -> PairedPen.Pairing? {
        if let screen {
            if let group = screen.deviceGroup, let penGroup = pen.deviceGroup {
                if group == penGroup { return .group }
            } else if let parent = screen.physicalParent, parent == pen.physicalParent {
                return .parent
            }
        }
        if let configured, DeviceNamePattern.matches(configured, name: pen.name, vendorProduct: pen.vendorProduct) {
            return .configuration
        }
        return nil
    }
}

// The pens of the daemon's touchscreens: udev's tablets are candidates; one is opened (read-only, never
// grabbed, for its proximity alone) while a touchscreen with pen arbitration on pairs with it, and closed
// when none does; its proximity changes go to the engines of the touchscreens it is paired with.
extension DeviceHub {
    /// Takes note of the tablets udev lists (at start-up, before the touchscreens are opened).
    func notePenCandidates(_ devices: [UdevInputDevice]) {
        for device in devices where device.isPen && !penCandidates.contains(where: { $0.devnode == device.devnode }) {
            penCandidates.append(device)
        }
    }

    /// A udev change to a tablet: a pen added (or its properties changed) is a candidate, a pen removed
    /// ends the arbitration it took part in. Other devices are left alone.
    func handlePenChange(_ change: UdevDeviceChange) {
        let node = change.device.devnode
        switch change.action {
        case .add, .change:
            penCandidates.removeAll { $0.devnode == node }
            if change.device.isPen {
                penCandidates.append(change.device)
                penRefusals.remove(node)
            } else if let pen = pens.first(where: { $0.path == node }) {
                closePen(pen, "udev no longer calls it a tablet")
            }
        case .remove:
            penCandidates.removeAll { $0.devnode == node }
            penRefusals.remove(node)
            if let pen = pens.first(where: { $0.path == node }) { closePen(pen, "removed") }
        case .other:
            return
        }
        refreshPens()
    }

    /// Works out again which pens each touchscreen pairs with (a device added or removed, a pen added or
    /// removed, a reload): opens the pens some touchscreen wants, closes those none wants, updates each
    /// touchscreen's `PenLink` (logging and announcing a change, unless it is `quiet`: a device being added
    /// says its pens in its device-added line) and brings each engine's arbitration in line with its pens.
    func refreshPens(quiet: DeviceRuntime? = nil) {
        var wanted: [(runtime: DeviceRuntime, pen: UdevInputDevice, pairing: PairedPen.Pairing)] = []
        // A replay runs on its recording's clock: no live pen pairs with it.
        for runtime in runtimes where runtime.settings.penArbitration && runtime.udevDevice != nil {
            for pen in penCandidates where pen.devnode != runtime.source.path {
                if let pairing = PenPairing.pairing(pen: pen, screen: runtime.udevDevice, configured: runtime.settings.pen) {
                    wanted.append((runtime, pen, pairing))
                }
            }
        }
        for pen in pens where !wanted.contains(where: { $0.pen.devnode == pen.path }) {
            closePen(pen, "no touchscreen pairs with it")
        }
        for candidate in wanted.map(\.pen) where !pens.contains(where: { $0.path == candidate.devnode }) {
            openPen(candidate)
        }
        // A replay has no pens: its device object says nothing of them.
        for runtime in runtimes where runtime.udevDevice != nil {
            let link: PenLink
            if !runtime.settings.penArbitration {
                link = .off
            } else {
                let paired = wanted.filter { $0.runtime === runtime }.compactMap { entry -> PairedPen? in
                    guard let pen = pens.first(where: { $0.path == entry.pen.devnode }) else { return nil }
                    return PairedPen(path: pen.path, name: pen.name, pairedBy: entry.pairing)
                }
                link = paired.isEmpty ? .unpaired : .paired(paired)
            }
            if link != runtime.penLink {
                let before = runtime.penLink
                runtime.setPenLink(link)
                if runtime !== quiet {
                    Log.info("\(runtime.info.id): \(DeviceHub.penChange(from: before, to: link))")
                    runtime.announceChange(devices: self)
                }
            }
            syncPenProximity(runtime, atMicroseconds: runtime.now)
        }
    }

    /// "pen event6 "Wacom Pen" paired by the same LIBINPUT_DEVICE_GROUP", "pen event6 unpaired", "pen
    /// arbitration off".
    static func penChange(from before: PenLink, to after: PenLink) -> String {
        switch after {
        case .off: return "pen arbitration off"
        case .unpaired, .paired:
            var lines: [String] = []
            for pen in after.pens where !before.pens.contains(pen) {
                lines.append("pen \(pen.path) \"\(escapingControlCharacters(pen.name))\" paired by \(pen.how)")
            }
            for pen in before.pens where !after.pens.contains(where: { $0.path == pen.path }) {
                lines.append("pen \(pen.path) unpaired")
            }
            if case .off = before, after.pens.isEmpty { lines.append("pen arbitration on, no pen paired") }
            return lines.joined(separator: "; ")
        }
    }

    /// The engine's arbitration follows the device's pens: in proximity while one of them is (a change the
    /// engine already knows changes nothing there).
    func syncPenProximity(_ runtime: DeviceRuntime, atMicroseconds time: Int64) {
        let near = runtime.penLink.pens.contains { paired in pens.first(where: { $0.path == paired.path })?.inProximity ?? false }
        let engineNear: Bool
        switch runtime.engine.penArbitration {
        case .penInProximity: engineNear = true
        case .clear, .settling: engineNear = false
        }
        guard near != engineNear else { return }
        runtime.runEngine(at: time) { $0.penProximity(near, atMicroseconds: time, into: &$1) }
    }

    /// A pen's descriptor is readable: its proximity changes go, each at its own time, to the touchscreens
    /// it is paired with, after what those have to read (touches stamped before the pen's change happened
    /// first). A pen gone ends its arbitration.
    func readPen(_ pen: PenDevice) {
        let changes: [(inProximity: Bool, atMicroseconds: Int64)]
        do {
            changes = try pen.read()
        } catch {
            if case .removed = error { closePen(pen, "removed") } else { closePen(pen, "\(error)") }
            penCandidates.removeAll { $0.devnode == pen.path }
            refreshPens()
            return
        }
        guard !changes.isEmpty else { return }
        for runtime in runtimes where runtime.penLink.pens.contains(where: { $0.path == pen.path }) {
            if runtime.source.pollDescriptor != nil {
                handle(runtime.pump(now: SystemCall.monotonicMicroseconds()), of: runtime)
            }
        }
        for (inProximity, time) in changes {
            for runtime in runtimes where runtime.penLink.pens.contains(where: { $0.path == pen.path }) {
                let others = runtime.penLink.pens.contains { paired in
                    paired.path != pen.path && (pens.first(where: { $0.path == paired.path })?.inProximity ?? false)
                }
                let near = inProximity || others
                runtime.runEngine(at: time) { $0.penProximity(near, atMicroseconds: time, into: &$1) }
            }
        }
    }

    private func openPen(_ candidate: UdevInputDevice) {
        guard !penRefusals.contains(candidate.devnode) else { return }
        let pen: PenDevice
        do {
            pen = try PenDevice(udev: candidate)
        } catch {
            // Logged once; tried again when udev announces the node again.
            penRefusals.insert(candidate.devnode)
            Log.warning("cannot read the pen \(candidate.devnode) (\"\(escapingControlCharacters(candidate.name))\") for touch arbitration: \(error)")
            return
        }
        pen.token = watches.upcomingToken
        do {
            try watches.add(pen.fd, .pen(pen), interest: .readable)
        } catch {
            penRefusals.insert(candidate.devnode)
            Log.error("cannot watch the pen \(pen.path): \(error)")
            return
        }
        pens.append(pen)
        Log.debug("pen \(pen.path) \"\(escapingControlCharacters(pen.name))\" (\(pen.vendorProduct)) opened for its proximity\(pen.masked ? "" : " (the kernel cannot filter its events: every event is read)")")
    }

    /// Closes a pen: the touchscreens it was paired with see it leave (their arbitration ends once the
    /// time after a pen leaves is over) and lose it from their pens.
    private func closePen(_ pen: PenDevice, _ why: String) {
        guard let index = pens.firstIndex(where: { $0 === pen }) else { return }
        let now = SystemCall.monotonicMicroseconds()
        _ = pen.lost()
        pens.remove(at: index)
        watches.remove(pen.token, fd: pen.fd)
        Log.debug("pen \(pen.path) closed (\(why))")
        for runtime in runtimes where runtime.penLink.pens.contains(where: { $0.path == pen.path }) {
            let remaining = runtime.penLink.pens.filter { $0.path != pen.path }
            runtime.setPenLink(remaining.isEmpty ? .unpaired : .paired(remaining))
            Log.info("\(runtime.info.id): pen \(pen.path) unpaired (\(why))")
            runtime.announceChange(devices: self)
            syncPenProximity(runtime, atMicroseconds: runtime.source.eventMicroseconds(forMonotonic: now))
        }
    }

    /// Every pen closed (the daemon stops).
    func closeAllPens() {
        for pen in pens { watches.remove(pen.token, fd: pen.fd) }
        pens.removeAll()
    }
}
