import GestureCore
import GestureProtocol
import GestureVocabulary
import SystemCalls
import TouchForwarding

/// A passthrough device's virtual pointer, one phase at a time (touch that points, docs/gestures.md).
enum PointerState {
    /// The configuration asks for none (no `pointer` but "touch" for the device, and no [[pointer]]
    /// section for it that asks for more).
    case none
    /// The pointer and what drives it.
    case on(PointerLink)
    /// It could not be made, or a write to it failed: none until a reload asks again (the reason was
    /// logged).
    case failed(SystemError)

    var link: PointerLink? {
        if case .on(let link) = self { return link }
        return nil
    }
}

/// The pointer's decisions (`TouchPointer`, pure) and the uinput device they are written to.
final class PointerLink {
    var pointer: TouchPointer
    let device: any PassthroughCopy
    /// What the step being run produced: claims for the forwarder, events for the device (written once
    /// per loop iteration, after the copy's).
    var output = PointerOutput()

    init(pointer: TouchPointer, device: any PassthroughCopy) {
        self.pointer = pointer
        self.device = device
        output.events.reserveCapacity(32)
    }

    /// The node clients are told the pointer is.
    var path: String { device.devnode ?? device.syspath ?? VirtualTouchscreen.uinputPath }

    /// After an operation of the engine: what the pointer makes of it; its claims join the operation's
    /// touch decisions (before the forwarder acts on them).
    /// `latest` is the engine's latest frame, `followed` its followed fingers (GestureEngine.followedSerials),
    /// asked only when a gesture began: passed rather than the engine, which is not copied for it.
    func observe(
        _ out: inout EngineOutput, from start: Int, frame: TouchFrame?, latest: TouchFrame, followed: () -> [UInt64], at time: Int64
    ) {
        pointer.observe(&out.events, from: start, decisions: out.touches, frame: frame, latest: latest, followed: followed, at: time, into: &output)
        if !output.claims.isEmpty {
            out.touches.append(.claim(output.claims))
            output.claims.removeAll(keepingCapacity: true)
        }
    }
}

extension DeviceRuntime {
    /// What the device's touches do for the focused app now: the last [[pointer]] section naming it, else
    /// the device's `pointer`.
    var pointerMode: PointerMode { settings.pointerMode(forApp: info.focusedApp) }

    /// The pointer's settings: the recognizer's slop, velocity window and pan fling, the device's scroll.
    var pointerSettings: PointerSettings {
        var p = PointerSettings()
        p.slopMM = settings.recognizer.slopMM
        p.velocityWindowSeconds = settings.recognizer.velocityWindowSeconds
        p.flingVelocityMMPerSecond = settings.recognizer.pan.flingVelocityMMPerSecond
        p.scrollDetentMM = settings.pointerScrollMM
        p.fling = settings.pointerFling
        return p
    }

    /// Brings the pointer up to what the configuration, the focused app and the clients' hold claims say,
    /// while passthrough is on: made when asked for, retired when no longer, its mode, settings and claims
    /// set (a change of mode or settings releases what it holds, where the finger is). `info` follows.
    /// Run at passthrough's start, at a reload (`retryingFailed`: a pointer that could not be made or
    /// written is tried again) and at every device state the policy gives; never per frame.
    func refreshPointer(retryingFailed: Bool = false) {
        defer { refreshPointerWake() }
        guard let passthrough = passthrough.forwarding else {
            info.pointerPath = nil
            info.pointerMode = nil
            return
        }
        let now = self.now
        // Made only while passthrough is on (not while it waits for the lift to turn off).
        var wanted = settings.makesPointer
        if case .turningOff = self.passthrough { wanted = passthrough.pointer.link != nil && wanted }
        switch (passthrough.pointer, wanted) {
        case (.failed, true) where !retryingFailed:
            break
        case (.none, true), (.failed, true):
            do {
                let device = try source.makeVirtualPointer()
                let link = PointerLink(pointer: TouchPointer(settings: pointerSettings, mode: pointerMode), device: device)
                passthrough.pointer = .on(link)
                Log.info("\(info.id): virtual pointer \(link.path) beside the copy (touch that points, \(pointerMode.rawValue) now)")
            } catch {
                passthrough.pointer = .failed(error)
                Log.error("\(info.id): cannot create the virtual pointer: \(error); touches stay touches")
            }
        case (.on, false):
            retirePointer(passthrough, now: now)
        case (.failed, false):
            passthrough.pointer = .none
        case (.on, true), (.none, false):
            break
        }
        guard let link = passthrough.pointer.link else {
            info.pointerPath = nil
            info.pointerMode = nil
            return
        }
        link.pointer.holdClaims = holdClaims
        link.pointer.setMode(pointerMode, settings: pointerSettings, atMicroseconds: now, into: &link.output)
        flushPointer()
        info.pointerPath = link.path
        info.pointerMode = pointerMode
    }

    /// The daemon cancels what the device runs (the screen turned, the seat's user changed): the pointer
    /// releases what it holds, where the finger is.
    func cancelPointer() {
        guard let link = passthrough.forwarding?.pointer.link else { return }
        link.pointer.cancel(atMicroseconds: now, into: &link.output)
        flushPointer()
    }

    /// The pointer goes (passthrough ends, the configuration no longer asks for it): what it holds is
    /// released, written, and the device kept `RetiringCopies.retirementMicroseconds` longer so that the
    /// compositor reads the release before it goes.
    func retirePointer(_ passthrough: Passthrough, now: Int64) {
        defer { refreshPointerWake() }
        guard let link = passthrough.pointer.link else {
            passthrough.pointer = .none
            return
        }
        link.pointer.finish(atMicroseconds: now, into: &link.output)
        do {
            try link.device.write(link.output.events)
        } catch {
            // The device goes now: what it had pressed goes with it.
            Log.error("\(info.id): cannot write to the virtual pointer: \(error)")
        }
        link.output.events.removeAll()
        passthrough.pointer = .none
        retiringCopies.add(link.device, now: SystemCall.monotonicMicroseconds())
        info.pointerPath = nil
        info.pointerMode = nil
        Log.info("\(info.id): virtual pointer \(link.path) removed")
    }

    /// Writes what the pointer produced: one write for the loop iteration, after the copy's (so the app's
    /// touch is cancelled before a click lands). A failed write ends the pointer until a reload: its device
    /// goes at once, and with it whatever it had pressed (its readers see it removed).
    func flushPointer() {
        // Every operation of the pointer ends here: its next wake-up follows.
        defer { refreshPointerWake() }
        guard let passthrough = passthrough.forwarding, let link = passthrough.pointer.link, !link.output.events.isEmpty else { return }
        defer { link.output.events.removeAll(keepingCapacity: true) }
        do {
            try link.device.write(link.output.events)
        } catch {
            Log.error("\(info.id): cannot write to the virtual pointer: \(error); it is removed until a reload")
            passthrough.pointer = .failed(error)
            info.pointerPath = nil
            info.pointerMode = nil
            announceChange()
        }
    }

    /// A fling's wheel events due by `now` (CLOCK_MONOTONIC). A wake-up kept from a pointer that has gone
    /// since is dropped here.
    func servePointer(now: Int64) {
        guard let link = passthrough.forwarding?.pointer.link else {
            refreshPointerWake()
            return
        }
        link.pointer.advance(toMicroseconds: source.eventMicroseconds(forMonotonic: now), into: &link.output)
        flushPointer()
    }
}
