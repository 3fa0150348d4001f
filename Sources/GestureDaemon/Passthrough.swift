import GestureCore
import GestureProtocol
import SystemCalls

/// A device in passthrough: its touch forwarder and its virtual copy.
final class Passthrough {
    var forwarder: TouchForwarder
    let copy: VirtualTouchscreen
    /// Events for the copy, written once per loop iteration that produced them.
    var writes: [InputEvent] = []
    /// The touch decisions of the event being forwarded (kept with its capacity).
    var decisions: [TouchDecision] = []

    init(forwarder: TouchForwarder, copy: VirtualTouchscreen) {
        self.forwarder = forwarder
        self.copy = copy
        writes.reserveCapacity(64)
    }
}

/// Passthrough copies whose panel went (unplugged, passthrough turned off, the daemon stopping), each kept
/// until its time: the kernel hands a device's readers nothing more once it is destroyed, so the copy
/// outlives its last writes (the cancel and lift of what it had down) long enough for the compositor to
/// read them.
struct RetiringCopies {
    /// How long a copy outlives its panel's passthrough: a compositor reads its input within
    /// milliseconds; this leaves room for a loaded machine.
    static let retirementMicroseconds: Int64 = 250_000

    private var copies: [(copy: VirtualTouchscreen, untilMicroseconds: Int64)] = []

    mutating func add(_ copy: VirtualTouchscreen, now: Int64) {
        copies.append((copy, now + RetiringCopies.retirementMicroseconds))
    }

    /// When the next copy is due to go (CLOCK_MONOTONIC microseconds).
    var nextMicroseconds: Int64? {
        var earliest: Int64?
        for copy in copies { earliest = min(earliest ?? copy.untilMicroseconds, copy.untilMicroseconds) }
        return earliest
    }

    /// Destroys the copies whose time has come.
    mutating func retire(now: Int64) {
        copies.removeAll { $0.untilMicroseconds <= now }
    }

    /// Waits until the last copy's time, then destroys them all (the daemon stops: the loop is over, so
    /// waiting holds up nothing but the exit, and lets the compositor read the cancels first).
    mutating func retireAll() {
        if let last = copies.map(\.untilMicroseconds).max() {
            SystemCall.sleep(microseconds: max(0, last - SystemCall.monotonicMicroseconds()))
        }
        copies.removeAll()
    }
}

extension DeviceHub {
    /// Grabs the panel and makes its virtual copy (`passthrough = true`). On failure the device is read
    /// as before, without passthrough, and the log says why. Call with nothing down on the panel (other
    /// readers would keep the touches the grab hides from them down).
    func startPassthrough(_ slot: DeviceSlot) {
        guard slot.passthrough == nil else { return }
        let forwarder: TouchForwarder
        do {
            // From the panel's state now (its current slot and its slots' values), which the kernel will
            // not send again until they change.
            forwarder = try TouchForwarder(device: slot.source.description, panel: slot.source.panelState)
        } catch {
            Log.warning("\(slot.info.id): \(error)")
            return
        }
        let copy: VirtualTouchscreen
        do {
            copy = try slot.source.makeVirtualCopy()
        } catch {
            Log.error("\(slot.info.id): cannot create the passthrough copy of \(slot.source.path): \(error)")
            return
        }
        do {
            try slot.source.setGrab(true)
        } catch {
            Log.error("\(slot.info.id): passthrough is off: \(error)")
            return
        }
        slot.passthrough = Passthrough(forwarder: forwarder, copy: copy)
        slot.info.virtualPath = copy.devnode ?? copy.syspath ?? VirtualTouchscreen.uinputPath
        setWithholding(slot, true)
        Log.info("\(slot.info.id): passthrough on: \(slot.source.path) grabbed, its touches forwarded to \(slot.info.virtualPath!)")
    }

    /// Cancels what the copy has down, releases the grab (unless `grab = true`) and retires the copy: it
    /// is destroyed `RetiringCopies.retirementMicroseconds` later, once its readers have read the cancels.
    func stopPassthrough(_ slot: DeviceSlot, reason: String) {
        guard let passthrough = slot.passthrough else { return }
        let monotonicNow = SystemCall.monotonicMicroseconds()
        let now = slot.source.eventMicroseconds(forMonotonic: monotonicNow)
        passthrough.forwarder.finish(atMicroseconds: now, into: &passthrough.writes)
        flushPassthrough(slot)
        if slot.passthrough != nil {  // nil when the write failed: the copy is gone already
            retiringCopies.add(passthrough.copy, now: monotonicNow)
        }
        slot.passthrough = nil
        slot.info.virtualPath = nil
        if !slot.settings.grab {
            do {
                try slot.source.setGrab(false)
            } catch {
                if case .removed = error {} else { Log.warning("\(slot.info.id): \(error)") }
            }
        }
        Log.info("\(slot.info.id): passthrough off (\(reason))")
    }

    /// Writes what the forwarder produced to the copy: one write for the loop iteration. A failed write
    /// ends passthrough for the device (the panel is released to the compositor).
    func flushPassthrough(_ slot: DeviceSlot) {
        guard let passthrough = slot.passthrough, !passthrough.writes.isEmpty else { return }
        defer { passthrough.writes.removeAll(keepingCapacity: true) }
        do {
            try passthrough.copy.write(passthrough.writes)
        } catch {
            Log.error("\(slot.info.id): cannot write to the passthrough copy: \(error); passthrough is turned off")
            passthrough.writes.removeAll(keepingCapacity: true)
            slot.passthrough = nil
            slot.info.virtualPath = nil
            if !slot.settings.grab { try? slot.source.setGrab(false) }
            setWithholding(slot, false)
        }
    }

    /// Turns the engine's touch decisions on or off (a reconfiguration, so gestures in flight end).
    func setWithholding(_ slot: DeviceSlot, _ on: Bool) {
        guard slot.engine.settings.withholdsTouches != on else { return }
        var settings = slot.engine.settings
        settings.withholdsTouches = on
        let geometry = slot.effectiveGeometry
        let now = slot.now
        runEngine(slot, at: now) {
            $0.reconfigure(settings: settings, geometry: geometry, atMicroseconds: now, into: &$1, touches: &$2)
        }
    }

    /// Whether the panel has nothing down (as the engine last saw it): passthrough may be switched.
    func panelIsIdle(_ slot: DeviceSlot) -> Bool {
        for i in 0..<max(1, slot.info.slots) where slot.engine.contactSerial(inSlot: i) != nil { return false }
        return true
    }

    /// Applies a passthrough switch the configuration asked for, once the panel is idle.
    func applyPendingPassthrough(_ slot: DeviceSlot) {
        guard let wanted = slot.passthroughWanted, panelIsIdle(slot) else { return }
        slot.passthroughWanted = nil
        if wanted {
            startPassthrough(slot)
        } else {
            stopPassthrough(slot, reason: "the configuration turned it off")
            // The engine stops withholding touches too: an edge touch that rests before moving is an edge
            // swipe again, not one the withhold limit failed.
            setWithholding(slot, false)
        }
        // Clients learn the copy's node (or that there is none any more).
        clients.notify(.deviceChanged(slot.info), about: slot.info)
    }
}
