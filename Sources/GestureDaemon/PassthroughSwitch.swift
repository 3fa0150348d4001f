import GestureCore
import GestureProtocol
import SystemCalls
import TouchForwarding

/// A device's passthrough (touch ownership), one phase at a time. The panel is grabbed, or let go, only
/// while nothing is down on it (at open, at hotplug and at reload alike): a grab taken or released under a
/// finger would leave that touch down for the compositor. So a switch the configuration asks for waits
/// in `turningOn` or `turningOff` until the fingers lift.
enum PassthroughState {
    /// Not in passthrough, and the configuration does not ask for it.
    case off
    /// The configuration asks for it; it starts once nothing is down on the panel.
    case turningOn
    /// The panel grabbed, its touches forwarded to the copy.
    case on(Passthrough)
    /// The configuration turned it off; the touches are still forwarded until nothing is down on the panel.
    case turningOff(Passthrough)
    /// The configuration asks for it but it could not start, or broke down: the panel is read without it
    /// until a reload asks again.
    case failed(PassthroughFailure)

    /// The passthrough the panel's touches go through now (`on`, or `turningOff` until the lift).
    var forwarding: Passthrough? {
        switch self {
        case .on(let passthrough), .turningOff(let passthrough): return passthrough
        case .off, .turningOn, .failed: return nil
        }
    }

    /// Waiting for the panel to be idle to switch.
    var isSwitching: Bool {
        switch self {
        case .turningOn, .turningOff: return true
        case .off, .on, .failed: return false
        }
    }
}

/// Why passthrough could not start, or stopped on its own.
enum PassthroughFailure: Error, CustomStringConvertible {
    /// The panel is not one the forwarder can copy (no slots).
    case unsupportedPanel(TouchForwarder.UnsupportedError)
    /// The virtual copy could not be made (no /dev/uinput, no permission to it, ...).
    case cannotCreateCopy(SystemError)
    /// The panel could not be grabbed.
    case cannotGrab(EvdevError)
    /// Writing to the copy failed.
    case writeFailed(SystemError)

    var description: String {
        switch self {
        case .unsupportedPanel(let error): return error.description
        case .cannotCreateCopy(let error): return "cannot create the passthrough copy: \(error)"
        case .cannotGrab(let error): return "cannot grab the panel: \(error)"
        case .writeFailed(let error): return "cannot write to the passthrough copy: \(error)"
        }
    }
}

/// What happens to a device's passthrough.
enum PassthroughEvent {
    /// The device was opened with a configuration that asks for passthrough.
    case opened
    /// A reload's configuration asks for passthrough on or off.
    case configured(on: Bool)
    /// A read of the panel ended: what was down may have lifted.
    case panelRead
    /// Writing to the copy failed.
    case writeFailed(SystemError)
    /// The device stops being read: nothing may stay down on the copy.
    case closing(RemovalReason)
}

/// Why passthrough ends.
enum PassthroughEnd: CustomStringConvertible {
    case turnedOffByConfiguration
    case deviceClosing(RemovalReason)

    var description: String {
        switch self {
        case .turnedOffByConfiguration: return "the configuration turned it off"
        case .deviceClosing(let reason): return reason.description
        }
    }
}

extension DeviceRuntime {
    /// Every change of `passthrough` goes through here.
    func switchPassthrough(_ event: PassthroughEvent) {
        switch (passthrough, event) {
        case (.off, .opened):
            if panelIsIdle {
                turnOn()
            } else {
                passthrough = .turningOn
                Log.info("\(info.id): passthrough starts once no finger is on the panel")
            }
        case (.off, .configured(on: true)), (.failed, .configured(on: true)), (.turningOn, .configured(on: true)),
            (.turningOn, .panelRead):
            if panelIsIdle {
                turnOn()
                // Clients learn the copy's node.
                announceChange()
            } else {
                passthrough = .turningOn
            }
        case (.on(let passthrough), .configured(on: true)), (.turningOff(let passthrough), .configured(on: true)):
            self.passthrough = .on(passthrough)
        case (.on(let passthrough), .configured(on: false)), (.turningOff(let passthrough), .configured(on: false)),
            (.turningOff(let passthrough), .panelRead):
            if panelIsIdle {
                turnOff(passthrough, .turnedOffByConfiguration)
                // The engine stops withholding touches too: an edge touch that rests before moving is an
                // edge swipe again, not one the withhold limit failed.
                setWithholding(false)
                // Clients learn that there is no copy any more.
                announceChange()
            } else {
                self.passthrough = .turningOff(passthrough)
            }
        case (.off, .configured(on: false)), (.failed, .configured(on: false)), (.turningOn, .configured(on: false)):
            passthrough = .off
        case (.on, .writeFailed(let error)), (.turningOff, .writeFailed(let error)):
            Log.error("\(info.id): cannot write to the passthrough copy: \(error); passthrough is turned off")
            passthrough = .failed(.writeFailed(error))
            info.virtualPath = nil
            if !settings.grab { try? source.setGrab(false) }
            setWithholding(false)
        case (.on(let passthrough), .closing(let reason)), (.turningOff(let passthrough), .closing(let reason)):
            turnOff(passthrough, .deviceClosing(reason))
        case (.off, .closing), (.turningOn, .closing), (.failed, .closing):
            passthrough = .off
        case (.off, .panelRead), (.on, .panelRead), (.failed, .panelRead),
            // A device is opened once, in `off`.
            (.turningOn, .opened), (.on, .opened), (.turningOff, .opened), (.failed, .opened),
            // Nothing is written without a copy.
            (.off, .writeFailed), (.turningOn, .writeFailed), (.failed, .writeFailed):
            break
        }
    }

    /// Whether the panel has nothing down (as the engine last saw it): passthrough may be switched.
    var panelIsIdle: Bool {
        for i in 0..<max(1, info.slots) where engine.contactSerial(inSlot: i) != nil { return false }
        return true
    }

    /// Grabs the panel and makes its virtual copy: `on`, or `failed` with the reason (logged); the device is
    /// then read as before, without passthrough. Called with nothing down on the panel (other readers would
    /// keep the touches the grab hides from them down).
    private func turnOn() {
        switch makePassthrough() {
        case .success(let made):
            passthrough = .on(made)
            info.virtualPath = made.virtualPath
            setWithholding(true)
            Log.info("\(info.id): passthrough on: \(source.path) grabbed, its touches forwarded to \(made.virtualPath)")
        case .failure(let failure):
            passthrough = .failed(failure)
            switch failure {
            case .unsupportedPanel(let error): Log.warning("\(info.id): \(error)")
            case .cannotCreateCopy(let error): Log.error("\(info.id): cannot create the passthrough copy of \(source.path): \(error)")
            case .cannotGrab(let error): Log.error("\(info.id): passthrough is off: \(error)")
            case .writeFailed(let error): Log.error("\(info.id): passthrough is off: \(error)")
            }
        }
    }

    private func makePassthrough() -> Result<Passthrough, PassthroughFailure> {
        let forwarder: TouchForwarder
        do {
            // From the panel's state now (its current slot and its slots' values), which the kernel will
            // not send again until they change.
            forwarder = try TouchForwarder(device: source.description, panel: source.panelState)
        } catch {
            return .failure(.unsupportedPanel(error))
        }
        let copy: any PassthroughCopy
        do {
            copy = try source.makeVirtualCopy()
        } catch {
            return .failure(.cannotCreateCopy(error))
        }
        do {
            try source.setGrab(true)
        } catch {
            return .failure(.cannotGrab(error))
        }
        return .success(Passthrough(forwarder: forwarder, copy: copy))
    }

    /// Cancels what the copy has down, releases the grab (unless `grab = true`) and retires the copy: it is
    /// destroyed `RetiringCopies.retirementMicroseconds` later, once its readers have read the cancels.
    private func turnOff(_ passthrough: Passthrough, _ end: PassthroughEnd) {
        self.passthrough = .off
        let monotonicNow = SystemCall.monotonicMicroseconds()
        passthrough.forwarder.finish(atMicroseconds: source.eventMicroseconds(forMonotonic: monotonicNow), into: &passthrough.writes)
        do {
            if !passthrough.writes.isEmpty { try passthrough.copy.write(passthrough.writes) }
            retiringCopies.add(passthrough.copy, now: monotonicNow)
        } catch {
            // The copy goes now: what it had down goes with it.
            Log.error("\(info.id): cannot write to the passthrough copy: \(error); passthrough is turned off")
        }
        passthrough.writes.removeAll(keepingCapacity: true)
        info.virtualPath = nil
        if !settings.grab {
            do {
                try source.setGrab(false)
            } catch {
                if case .removed = error {} else { Log.warning("\(info.id): \(error)") }
            }
        }
        Log.info("\(info.id): passthrough off (\(end))")
    }

    /// Writes what the forwarder produced to the copy: one write for the loop iteration. A failed write
    /// ends passthrough for the device (the panel is released to the compositor).
    func flushCopy() {
        guard let forwarding = passthrough.forwarding, !forwarding.writes.isEmpty else { return }
        defer { forwarding.writes.removeAll(keepingCapacity: true) }
        do {
            try forwarding.copy.write(forwarding.writes)
        } catch {
            switchPassthrough(.writeFailed(error))
        }
    }

    /// Turns the engine's touch decisions on or off (a reconfiguration, so gestures in flight end).
    func setWithholding(_ on: Bool) {
        guard engine.settings.withholdsTouches != on else { return }
        var settings = engine.settings
        settings.withholdsTouches = on
        let geometry = effectiveGeometry
        let now = self.now
        runEngine(at: now) {
            $0.reconfigure(settings: settings, geometry: geometry, atMicroseconds: now, into: &$1)
        }
    }
}
