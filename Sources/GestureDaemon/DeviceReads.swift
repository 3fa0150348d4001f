import GestureCore
import TouchForwarding

// A device's two read paths: without passthrough, runs of events straight into the engine; in
// passthrough, event by event through the engine and then the forwarder, whose output is written to the
// copy in the same loop iteration.
extension DeviceRuntime {
    /// Reads what the device has (or what a replay has due by `now`, the only source that reads the clock)
    /// through its engine to the clients.
    ///
    /// A kernel device is read with one `read(2)` per wake-up, and no read to find it empty: the gestures
    /// of what was read are then sent to the clients (and the frames written to a passthrough copy), and
    /// the loop goes back to `epoll_wait`. A read that filled its buffer leaves the rest to the next turn of
    /// the loop (the descriptor is watched level-triggered, and a replay's due events rearm the timer), so
    /// a device flooding the daemon takes its turn with the clients and the other devices.
    func pump(now: @autoclosure () -> Int64) -> ReadOutcome {
        var out = takeOutputs()
        defer { returnOutputs(&out) }
        let more: Bool
        do {
            if let forwarding = passthrough.forwarding {
                // Every frame is forwarded as it is read: the write below is in this same loop iteration.
                more = try read(
                    now: now(), into: &engine, forwarder: &forwarding.forwarder, writes: &forwarding.writes,
                    pointer: forwarding.pointer.link, outputs: &out)
                flushCopy()
            } else {
                more = try read(now: now(), into: &engine, outputs: &out)
            }
        } catch {
            flushCopy()
            deliver(out.events)
            return .ended(error)
        }
        deliver(out.events)
        // A switch the configuration asked for waits for the panel to be idle: perhaps it is now.
        if passthrough.isSwitching { switchPassthrough(.panelRead) }
        return more ? .more : .drained
    }

    // The engine (and a passthrough's forwarder and writes) come in as inout arguments: borrowed once for
    // the whole read, rather than reached through the runtime, a class, with a run-time exclusivity check,
    // for every event.

    /// Feeds what the source has due by `now` to `engine`, each run of events at once.
    private func read(
        now: @autoclosure () -> Int64, into engine: inout GestureEngine, outputs out: inout EngineOutput
    ) throws(InputSourceEnded) -> Bool {
        var reports = takeReports()
        defer { returnReports(&reports) }
        let more = try source.read(nowMicroseconds: now(), into: &reports)
        // A replay's recorded pen, unless pen_arbitration = false.
        let arbitrates = settings.penArbitration
        reports.forEach(
            run: { engine.process($0, into: &out) },
            breakReport: { report in
                switch report {
                case .event(let event): engine.process(event, into: &out)
                case .dropped(let time): engine.eventsDropped(atMicroseconds: time, into: &out)
                case .reset(let time): engine.reset(atMicroseconds: time, into: &out)
                case .pen(let near, let time):
                    if arbitrates { engine.penProximity(near, atMicroseconds: time, into: &out) }
                }
            })
        return more
    }

    /// The same for a device in passthrough: each event goes through the engine, then (with a virtual
    /// pointer) the pointer, whose claims join the engine's touch decisions, then the event and those
    /// decisions through the forwarder, which queues what the copy receives in `writes`.
    private func read(
        now: @autoclosure () -> Int64, into engine: inout GestureEngine, forwarder: inout TouchForwarder,
        writes: inout [InputEvent], pointer: PointerLink?, outputs out: inout EngineOutput
    ) throws(InputSourceEnded) -> Bool {
        var reports = takeReports()
        defer { returnReports(&reports) }
        let more = try source.read(nowMicroseconds: now(), into: &reports)
        let source = self.source
        let arbitrates = settings.penArbitration
        func handle(_ report: InputReport) {
            // The forwarder acts on the decisions made at this report; the next report's are its own.
            defer { if !out.touches.isEmpty { out.touches.removeAll(keepingCapacity: true) } }
            let start = out.events.count
            switch report {
            case .event(let event):
                engine.process(event, into: &out)
                if let pointer {
                    // Only where something happened: a frame completed, a gesture or a decision made.
                    let completesFrame = event.type == EV.syn && event.code == SYN.report
                    if completesFrame || out.events.count > start || !out.touches.isEmpty {
                        let latest = engine.latestFrame
                        pointer.observe(
                            &out, from: start, frame: completesFrame ? latest : nil, latest: latest, followed: { engine.followedSerials },
                            at: event.timeMicroseconds)
                    }
                }
                forwarder.process(event, decisions: out.touches, serial: { engine.contactSerial(inSlot: $0) }, into: &writes)
            case .dropped(let time):
                engine.eventsDropped(atMicroseconds: time, into: &out)
                if let pointer {
                    pointer.observe(&out, from: start, frame: nil, latest: engine.latestFrame, followed: { engine.followedSerials }, at: time)
                    // The fingers' motion during the gap is unknown: what the pointer holds is released.
                    pointer.pointer.cancel(atMicroseconds: time, into: &pointer.output)
                }
                forwarder.eventsDropped()
                forwarder.apply(out.touches, atMicroseconds: time, into: &writes)
            case .reset(let time):
                engine.reset(atMicroseconds: time, into: &out)
                if let pointer {
                    pointer.observe(&out, from: start, frame: nil, latest: engine.latestFrame, followed: { engine.followedSerials }, at: time)
                    pointer.pointer.reset(atMicroseconds: time, into: &pointer.output)
                }
                forwarder.apply(out.touches, atMicroseconds: time, into: &writes)
                forwarder.finish(atMicroseconds: time, into: &writes)
                // A replay's next pass starts from nothing, like a device plugged in again.
                if let fresh = try? TouchForwarder(device: source.description) { forwarder = fresh }
            case .pen(let near, let time):
                // Touches held back are released when a pen comes: the copy gets them at once.
                guard arbitrates else { return }
                engine.penProximity(near, atMicroseconds: time, into: &out)
                if let pointer {
                    pointer.observe(&out, from: start, frame: nil, latest: engine.latestFrame, followed: { engine.followedSerials }, at: time)
                    // A pen near: the hand rests; the pointer releases what it holds, as the gesture ended.
                    if near { pointer.pointer.cancel(atMicroseconds: time, into: &pointer.output) }
                }
                forwarder.apply(out.touches, atMicroseconds: time, into: &writes)
            }
        }
        // Event by event: the forwarder acts on each event with the decisions the engine made at it.
        reports.forEach(run: { for event in $0 { handle(.event(event)) } }, breakReport: handle)
        return more
    }
}
