import GestureCore
import GestureVocabulary
import TouchForwarding

/// The one place the fuzz targets drive GestureEngine, the way the daemon does (DeviceReads.swift and
/// DeviceRuntime.swift, `pump` and `serveDue`): events through `process` (which fires the deadlines they passed), the
/// timer firing (possibly late) with `advance` to the deadline it was set for, SYN_DROPPED, a replay's
/// reset, a configuration reload, and the device going away at the end. When the engine's API changes,
/// this function is what changes.
///
/// Returns the gesture events, or nil when the engine refuses the device (a clear error, not a crash).
public func runEngine(_ stream: EngineStream) -> [GestureEvent]? {
    guard var engine = try? GestureEngine(device: stream.device, settings: stream.settings, geometry: stream.geometry)
    else { return nil }
    var out = EngineOutput()
    var now = stream.startMicroseconds
    /// What the daemon's timer does when it fires at `time`.
    func fireDeadline(upTo time: Int64) {
        guard let deadline = engine.nextDeadlineMicroseconds, deadline <= time else { return }
        engine.advance(toMicroseconds: deadline, into: &out)
        // Otherwise the daemon's timer would fire again at once, for ever: a busy loop.
        if let next = engine.nextDeadlineMicroseconds {
            fuzzCheck(next > deadline, "after advance(to: \(deadline)) the next deadline is \(next), not later")
        }
    }
    for op in stream.operations {
        switch op {
        case .event(let type, let code, let value):
            engine.process(InputEvent(timeMicroseconds: now, type: type, code: code, value: value), into: &out)
        case .wait(let microseconds):
            let (later, overflow) = now.addingReportingOverflow(microseconds)
            now = overflow ? (microseconds > 0 ? .max : .min) : later
        case .timer:
            fireDeadline(upTo: now)
        case .eventsDropped:
            engine.eventsDropped(atMicroseconds: now, into: &out)
        case .reset:
            engine.reset(atMicroseconds: now, into: &out)
        case .reconfigure(let variant):
            engine.reconfigure(
                settings: EngineStream.settingsVariant(variant), geometry: stream.geometry, atMicroseconds: now,
                into: &out)
        }
    }
    engine.cancelAll(atMicroseconds: now, into: &out)
    return out.gestures
}

/// The invariants of a device's gesture stream that the tests state (RecordingGoldenTests.checkWellFormed,
/// RandomStreamTests) and clients rely on (docs/protocol.md): at most one gesture at a time per device,
/// each `begin`, `update`*, then exactly one `end` or `cancel`; ids unique and increasing; `committed` on
/// `end` only; every number finite; positions on the screen, progress and edge position in 0...1, scale
/// and span >= 0, taps >= 1.
public func checkGestureStream(_ events: [GestureEvent], context: @autoclosure () -> String = "") {
    var open: GestureEvent?
    var lastID: UInt64?
    for (i, e) in events.enumerated() {
        func fail(_ what: String) -> String { "event \(i) (\(e.kind.rawValue) \(e.phase.rawValue) id \(e.id)): \(what) \(context())" }
        switch e.phase {
        case .begin:
            fuzzCheck(open == nil, fail("begins while gesture \(open?.id ?? 0) is running"))
            if let lastID { fuzzCheck(e.id > lastID, fail("id not above the previous gesture's \(lastID)")) }
            lastID = e.id
            open = e
        case .update, .end, .cancel:
            guard let running = open else { fuzzCheck(false, fail("no gesture is running")); return }
            fuzzCheck(running.id == e.id, fail("gesture \(running.id) is the one running"))
            fuzzCheck(running.kind == e.kind, fail("gesture \(running.id) began as \(running.kind.rawValue)"))
            if e.phase != .update { open = nil }
        }
        fuzzCheck((e.phase == .end) == (e.committed != nil), fail("committed is \(String(describing: e.committed))"))
        fuzzCheck(e.fingers >= 1, fail("\(e.fingers) fingers"))
        let numbers: [Double] = [
            e.position.x, e.position.y, e.positionMM.x, e.positionMM.y, e.translation.x, e.translation.y,
            e.translationMM.x, e.translationMM.y, e.velocityMMPerSecond.x, e.velocityMMPerSecond.y,
            e.progress ?? 0, e.scale ?? 0, e.rotationDegrees ?? 0, e.spanMM ?? 0, e.edgePosition ?? 0,
        ]
        fuzzCheck(numbers.allSatisfy(\.isFinite), fail("a number is not finite: \(e)"))
        fuzzCheck((0...1).contains(e.position.x) && (0...1).contains(e.position.y), fail("position \(e.position) off the screen"))
        if let p = e.progress { fuzzCheck((0...1).contains(p), fail("progress \(p)")) }
        if let s = e.scale { fuzzCheck(s >= 0, fail("scale \(s)")) }
        if let s = e.spanMM { fuzzCheck(s >= 0, fail("span \(s)")) }
        if let p = e.edgePosition { fuzzCheck((0...1).contains(p), fail("edge position \(p)")) }
        if let t = e.taps { fuzzCheck(t >= 1, fail("\(t) taps")) }
    }
    fuzzCheck(open == nil, "gesture \(open?.id ?? 0) was left open at the end of the stream \(context())")
}

/// The same stream with passthrough on, the way the daemon runs a panel in passthrough (`DeviceRuntime`'s
/// `pump` and `serveDue`, `reload`, `switchPassthrough`): the engine withholds and claims
/// touches, TouchForwarder turns the panel's events and those decisions into the copy's events. Checks
/// what the copy shows, read back as a compositor reads it (a FrameAssembler over the copy's description):
/// nothing is left down once the device goes, every write ends with SYN_REPORT, the copy's values stay in
/// its axes' ranges for the tool type (finger..palm), and the gestures keep their invariants.
///
/// Returns nil when the engine or the forwarder refuses the device (single-touch panels have no
/// passthrough: a clear error, not a crash).
public func runPassthrough(_ stream: EngineStream) -> [GestureEvent]? {
    var settings = stream.settings
    settings.withholdsTouches = true
    guard var engine = try? GestureEngine(device: stream.device, settings: settings, geometry: stream.geometry),
        var forwarder = try? TouchForwarder(device: stream.device)
    else { return nil }
    var out = EngineOutput()
    var written: [InputEvent] = []
    var writes = 0
    var now = stream.startMicroseconds
    /// The daemon writes once per loop iteration: what one iteration produced must be whole frames.
    func flush(_ what: @autoclosure () -> String) {
        guard written.count > writes else { return }
        let last = written[written.count - 1]
        fuzzCheck(last.type == EV.syn && last.code == SYN.report, "a write to the copy ends without SYN_REPORT (\(what()))")
        writes = written.count
    }
    /// An engine step outside a frame (a deadline, SYN_DROPPED, a reset, a reload, the device going), then
    /// its touch decisions applied to the copy, as the daemon's `runEngine` does.
    func engineStep(at time: Int64, _ step: (inout GestureEngine, inout EngineOutput) -> Void) {
        out.touches.removeAll()
        step(&engine, &out)
        forwarder.apply(out.touches, atMicroseconds: time, into: &written)
    }
    for op in stream.operations {
        switch op {
        case .event(let type, let code, let value):
            let event = InputEvent(timeMicroseconds: now, type: type, code: code, value: value)
            out.touches.removeAll()
            engine.process(event, into: &out)
            let current = engine
            forwarder.process(event, decisions: out.touches, serial: { current.contactSerial(inSlot: $0) }, into: &written)
            if type == EV.syn && code == SYN.report { flush("after a frame") }
        case .wait(let microseconds):
            let (later, overflow) = now.addingReportingOverflow(microseconds)
            now = overflow ? (microseconds > 0 ? .max : .min) : later
        case .timer:
            guard let deadline = engine.nextDeadlineMicroseconds, deadline <= now else { break }
            engineStep(at: deadline) { $0.advance(toMicroseconds: deadline, into: &$1) }
            flush("after a deadline")
        case .eventsDropped:
            forwarder.eventsDropped()
            engineStep(at: now) { $0.eventsDropped(atMicroseconds: now, into: &$1) }
        case .reset:
            engineStep(at: now) { $0.reset(atMicroseconds: now, into: &$1) }
            forwarder.finish(atMicroseconds: now, into: &written)
            flush("after a replay's reset")
            fuzzCheck(!forwarder.hasContactsDown, "a replay's reset left contacts down on the copy")
            guard let fresh = try? TouchForwarder(device: stream.device) else { return nil }
            forwarder = fresh
        case .reconfigure(let variant):
            var next = EngineStream.settingsVariant(variant)
            next.withholdsTouches = true
            engineStep(at: now) {
                $0.reconfigure(settings: next, geometry: stream.geometry, atMicroseconds: now, into: &$1)
            }
            flush("after a reload")
        }
    }
    // The device goes: its gestures are cancelled, then what the copy has down.
    engineStep(at: now) { $0.cancelAll(atMicroseconds: now, into: &$1) }
    forwarder.finish(atMicroseconds: now, into: &written)
    flush("when the device goes")
    fuzzCheck(!forwarder.hasContactsDown, "the forwarder still has contacts down on the copy after finish")
    checkCopy(written, device: TouchForwarder.virtualDescription(of: stream.device))
    return out.gestures
}

/// What a compositor reading the copy would see: every frame's contacts, and none left at the end; tool
/// types finger or palm only where the panel had none.
func checkCopy(_ written: [InputEvent], device: DeviceDescription) {
    guard let axes = device.positionAxes else { return }
    var assembler = FrameAssembler(
        geometry: DeviceGeometry(xAxis: axes.x, yAxis: axes.y, settings: GeometrySettings()), touchProtocol: device.touchProtocol)
    var down = 0
    for e in written where assembler.process(e) == .frame { down = assembler.frame.contacts.count }
    fuzzCheck(down == 0, "the copy is left with \(down) contact(s) down after the device went")
}
