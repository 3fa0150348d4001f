import Testing
@testable import GestureCore
import GestureVocabulary
@testable import TouchForwarding

/// Touch that points: scripted touches through the recognizer (with passthrough's decisions), the
/// pointer and the forwarder, driven as the daemon drives them (each event, then each deadline at its
/// time), the copy's events written before the pointer's at each step. What the pointer writes is read
/// back frame by frame; what the copy shows as a compositor reads it.
@Suite struct TouchPointerTests {
    /// One run: what the copy and the pointer were given, in the order written, and the gestures with the
    /// audience each was published under.
    struct Drive {
        var engine: GestureEngine
        var forwarder: TouchForwarder
        var pointer: TouchPointer
        var copy: [InputEvent] = []
        var pointerEvents: [InputEvent] = []
        /// "copy" or "pointer" for each event written, in order.
        var order: [String] = []
        var gestures: [(event: GestureEvent, audience: GestureAudience)] = []
        var claims: [UInt64] = []
        private var nextAudience = GestureAudience.seat

        init(
            _ device: DeviceDescription = TouchScript.phone, mode: PointerMode, configure: (inout RecognizerSettings) -> Void = { _ in },
            pointerSettings: PointerSettings = PointerSettings(), holdClaims: [ScreenRegion] = []
        ) throws {
            var settings = RecognizerSettings()
            settings.withholdsTouches = true
            configure(&settings)
            engine = try GestureEngine(device: device, settings: settings)
            forwarder = try TouchForwarder(device: device)
            var ps = pointerSettings
            ps.slopMM = settings.slopMM
            pointer = TouchPointer(settings: ps, mode: mode)
            pointer.holdClaims = holdClaims
        }

        /// One operation of the engine (an event, or a deadline when `event` is nil), then the pointer,
        /// then the copy and the pointer written, as DeviceRuntime does.
        mutating func step(event: InputEvent?, time: Int64, _ operation: (inout GestureEngine, inout EngineOutput) -> Void) {
            var out = EngineOutput()
            operation(&engine, &out)
            var pout = PointerOutput()
            let completesFrame = event.map { $0.type == EV.syn && $0.code == SYN.report } ?? false
            let engine = self.engine
            pointer.observe(
                &out.events, from: 0, decisions: out.touches, frame: completesFrame ? engine.latestFrame : nil, latest: engine.latestFrame,
                followed: { engine.followedSerials }, at: time, into: &pout)
            var decisions = out.touches
            if !pout.claims.isEmpty { decisions.append(.claim(pout.claims)) }
            claims += pout.claims
            let before = copy.count
            if let event {
                forwarder.process(event, decisions: decisions, serial: { engine.contactSerial(inSlot: $0) }, into: &copy)
            } else {
                forwarder.apply(decisions, atMicroseconds: time, into: &copy)
            }
            order += Array(repeating: "copy", count: copy.count - before)
            pointerEvents += pout.events
            order += Array(repeating: "pointer", count: pout.events.count)
            for e in out.events {
                switch e {
                case .audience(let a): nextAudience = a
                case .gesture(let g):
                    gestures.append((g, nextAudience))
                    if g.phase == .begin { nextAudience = .seat }
                case .warning, .trace, .stopped, .explanation, .reason: break
                }
            }
        }

        /// The pointer alone (a change of mode, a cancellation, a fling's tick).
        mutating func pointerStep(_ operation: (inout TouchPointer, inout PointerOutput) -> Void) {
            var pout = PointerOutput()
            operation(&pointer, &pout)
            pointerEvents += pout.events
            order += Array(repeating: "pointer", count: pout.events.count)
        }

        /// Deadlines (the engine's and the pointer's) due by `time`, each at its own time.
        mutating func serveDeadlines(upTo time: Int64) {
            while true {
                let due = [engine.nextDeadlineMicroseconds, pointer.nextDeadlineMicroseconds].compactMap { $0 }.min()
                guard let due, due <= time else { return }
                if let d = engine.nextDeadlineMicroseconds, d == due {
                    step(event: nil, time: d) { $0.advance(toMicroseconds: d, into: &$1) }
                } else {
                    pointerStep { $0.advance(toMicroseconds: due, into: &$1) }
                }
            }
        }

        mutating func run(_ events: [InputEvent], then seconds: Double = 2) {
            for e in events {
                serveDeadlines(upTo: e.timeMicroseconds)
                step(event: e, time: e.timeMicroseconds) { $0.process(e, into: &$1) }
            }
            if let last = events.last { serveDeadlines(upTo: last.timeMicroseconds + Int64(seconds * 1_000_000)) }
        }

        /// The pointer's frames, as a reader of it sees them.
        var pointerFrames: [String] { TouchPointerTests.frames(pointerEvents) }
        /// The copy's frames, as a compositor reads them.
        var copyFrames: [TouchForwarderTests.Seen] { TouchForwarderTests.read(copy, device: TouchForwarder.virtualDescription(of: engine.device)) }
        var kinds: [String] { gestures.map { "\($0.event.kind.rawValue):\($0.event.phase.rawValue)" }.reduce(into: []) { r, s in if r.last != s || !s.hasSuffix("update") { r.append(s) } } }
    }

    /// The pointer's events frame by frame (`TouchPointer.frames`).
    static func frames(_ events: [InputEvent]) -> [String] { TouchPointer.frames(events) }

    /// The wheel totals over the whole run: high resolution (vertical, horizontal), low resolution.
    static func wheelTotals(_ events: [InputEvent]) -> (v: Int32, h: Int32, lv: Int32, lh: Int32) {
        var t: (v: Int32, h: Int32, lv: Int32, lh: Int32) = (0, 0, 0, 0)
        for e in events where e.type == EV.rel {
            switch e.code {
            case REL.wheelHiRes: t.v += e.value
            case REL.hwheelHiRes: t.h += e.value
            case REL.wheel: t.lv += e.value
            case REL.hwheel: t.lh += e.value
            default: break
            }
        }
        return t
    }

    // MARK: - Scripts (the phone panel: 100 × 160 mm, 10 units a millimetre)

    /// One finger lands at (x, y) mm and stays still for `seconds`, then lifts.
    static func still(_ x: Double, _ y: Double, seconds: Double) -> TouchScript {
        var s = TouchScript()
        s.down(0, x, y); s.raw(EV.key, BTN.touch, 1); s.frame()
        let frames = Int(seconds / 0.01)
        for _ in 0..<frames { s.frame() }  // a panel that reports nothing new still sends frames (pressure)
        s.up(0); s.raw(EV.key, BTN.touch, 0); s.frame()
        return s
    }

    static func drag(from: (Double, Double), by: (Double, Double), fingers: Int = 1, steps: Int = 20, thenHold: Double = 0) -> TouchScript {
        var s = TouchScript()
        for f in 0..<fingers { s.down(f, from.0 + Double(f) * 15, from.1) }
        s.raw(EV.key, BTN.touch, 1); s.frame()
        s.drag(Array(0..<fingers), by: by.0, by.1, steps: steps)
        for _ in 0..<Int(thenHold / 0.01) { s.frame() }
        for f in 0..<fingers { s.up(f) }
        s.raw(EV.key, BTN.touch, 0); s.frame()
        return s
    }

    // MARK: - Long press

    @Test func aLongPressInTheMiddleClicksTheRightButtonWhereTheFingerIs() throws {
        var d = try Drive(mode: .longPress)
        d.run(Self.still(50, 80, seconds: 0.8).events)
        #expect(d.pointerFrames == ["move 500 800", "right 1", "right 0"])
        #expect(d.claims.count == 1)
        // The app saw the touch land, then lost (libinput's cancel), before the click was written.
        let seen = d.copyFrames
        #expect(seen.first?.down.count == 1)
        #expect(seen.contains { $0.lost.count == 1 })
        #expect(!seen.contains { !$0.lifted.isEmpty })
        let lastCopy = d.order.lastIndex(of: "copy") ?? -1
        let firstRight = d.order.indices.first { d.order[$0] == "pointer" && d.pointerEvents[d.order[..<$0].filter { $0 == "pointer" }.count].code == BTN.right }
        #expect(firstRight != nil && lastCopy < firstRight!)
        // Every event of the hold says it became a click.
        let holds = d.gestures.filter { $0.event.kind == .hold }
        #expect(holds.map(\.event.phase) == [.begin, .end])
        #expect(holds.allSatisfy { $0.event[EventFields.secondaryClick] == .flag(true) })
        #expect(holds.first?.audience == .seat)
    }

    /// What each touch makes of the long press, in long-press mode (the pointer's frames and whether the
    /// touch was taken from the app).
    @Test(arguments: [
        // name, script, pointer frames, touches taken
        ("moved past the slop first", drag(from: (50, 80), by: (0, 10), steps: 10, thenHold: 0.8), [String](), 0),
        ("lifted before the hold time", still(50, 80, seconds: 0.3), [], 0),
        ("in the left edge zone", still(1, 80, seconds: 0.8), [], 0),
        ("two fingers", drag(from: (40, 80), by: (0, 0), fingers: 2, steps: 1, thenHold: 0.8), [], 0),
        ("still within the slop", drag(from: (50, 80), by: (2, 0), steps: 10, thenHold: 0.8), ["move 520 800", "right 1", "right 0"], 1),
    ])
    func longPressCases(name: String, script: TouchScript, frames: [String], taken: Int) throws {
        var d = try Drive(mode: .longPress)
        d.run(script.events)
        #expect(d.pointerFrames == frames, "\(name)")
        #expect(d.claims.count == taken, "\(name)")
        if taken == 0 {
            // The app keeps the whole touch: it lands and lifts on the copy.
            #expect(!d.copyFrames.contains { !$0.lost.isEmpty }, "\(name)")
        }
    }

    @Test func aHoldAClientClaimsIsNoClick() throws {
        var d = try Drive(mode: .longPress, holdClaims: [.normalized(x: 0.4...0.6, y: 0.4...0.6)])
        d.run(Self.still(50, 80, seconds: 0.8).events)
        #expect(d.pointerFrames.isEmpty)
        #expect(d.claims.isEmpty)
        #expect(d.gestures.first { $0.event.kind == .hold }?.event[EventFields.secondaryClick] == nil)
        // Outside the claimed region, a click.
        var e = try Drive(mode: .longPress, holdClaims: [.millimetres(x: 0...20, y: 0...20)])
        e.run(Self.still(50, 80, seconds: 0.8).events)
        #expect(e.pointerFrames.count == 3)
    }

    @Test func touchModeDoesNothing() throws {
        var d = try Drive(mode: .touch)
        d.run(Self.still(50, 80, seconds: 0.8).events)
        #expect(d.pointerEvents.isEmpty && d.claims.isEmpty)
        #expect(d.copyFrames.last?.lifted.count == 1)
    }

    @Test func aDisabledHoldMakesNoLongPress() throws {
        var d = try Drive(mode: .longPress) { $0.hold.enabled = false }
        d.run(Self.still(50, 80, seconds: 0.8).events)
        #expect(d.pointerEvents.isEmpty)
    }

    // MARK: - Touch as a mouse

    @Test func aTapClicksTheLeftButtonWhereItLandedAndNeverReachesTheApp() throws {
        var d = try Drive(mode: .mouse)
        d.run(Self.still(30, 40, seconds: 0.1).events)
        #expect(d.pointerFrames == ["move 300 400", "left 1", "left 0"])
        #expect(d.claims.count == 1)
        #expect(d.copy.isEmpty)
        // The tap is the app's input: the seat's.
        #expect(d.gestures.first?.event.kind == .tap && d.gestures.first?.audience == .seat)
        #expect(d.gestures.first?.event[EventFields.secondaryClick] == nil)
    }

    @Test func aDragPressesWhereItLandedFollowsAndReleasesWhereItLifted() throws {
        var d = try Drive(mode: .mouse)
        d.run(Self.drag(from: (30, 40), by: (20, 10), steps: 10).events)
        let frames = d.pointerFrames
        #expect(frames.first == "move 300 400")
        #expect(frames.dropFirst().first == "left 1")
        #expect(frames.last == "left 0")
        #expect(frames.dropLast().last == "move 500 500")
        #expect(frames.filter { $0 == "left 1" }.count == 1 && frames.filter { $0 == "left 0" }.count == 1)
        // Between press and release, only motion.
        let between = frames.dropFirst(2).dropLast()
        #expect(between.allSatisfy { $0.hasPrefix("move ") })
        #expect(d.copy.isEmpty)
    }

    @Test func aLongPressInMouseModeClicksTheRightButtonOnlyAndTheLiftDoesNothing() throws {
        var d = try Drive(mode: .mouse)
        d.run(Self.still(30, 40, seconds: 0.8).events)
        #expect(d.pointerFrames == ["move 300 400", "right 1", "right 0"])
        #expect(d.gestures.first { $0.event.kind == .hold }?.event[EventFields.secondaryClick] == .flag(true))
        #expect(d.copy.isEmpty)
    }

    @Test func twoFingersScrollWithTheHighResolutionWheelsContentFollowingTheFingers() throws {
        var d = try Drive(mode: .mouse)
        // Two fingers 15 mm apart move up 40 mm; the slop's 3 mm scroll nothing: 37 mm at 10 mm a detent.
        d.run(Self.drag(from: (30, 100), by: (0, -40), fingers: 2, steps: 40).events)
        let t = Self.wheelTotals(d.pointerEvents)
        #expect(t.v <= -420 && t.v >= -450, "hi-res \(t.v)")
        #expect(t.lv == t.v / 120)
        #expect(t.h == 0 && t.lh == 0)
        #expect(!d.pointerFrames.contains { $0.contains("left") || $0.contains("right") })
        // The pointer stood between the fingers where they landed.
        #expect(d.pointerFrames.first == "move 375 1000")
        // Fingers moving left scroll right (REL_HWHEEL positive).
        var h = try Drive(mode: .mouse)
        h.run(Self.drag(from: (60, 100), by: (-30, 0), fingers: 2, steps: 30).events)
        #expect(Self.wheelTotals(h.pointerEvents).h > 0 && Self.wheelTotals(h.pointerEvents).v == 0)
        // The two-finger pan is an app touch now.
        #expect(d.gestures.first { $0.event.kind == .pan && $0.event.phase == .begin }?.audience == .seat)
    }

    @Test func aTwoFingerTapClicksTheRightButtonBetweenWhereTheyLanded() throws {
        var d = try Drive(mode: .mouse)
        d.run(Self.drag(from: (30, 100), by: (0, 0), fingers: 2, steps: 5).events)
        #expect(d.pointerFrames == ["move 375 1000", "right 1", "right 0"])
        let tap = d.gestures.first { $0.event.kind == .tap && $0.event.phase == .begin }
        #expect(tap?.event.fingers == 2 && tap?.event[EventFields.secondaryClick] == .flag(true))
        // Public without the pointer (two fingers), the seat's with it.
        #expect(tap?.audience == .seat)
    }

    @Test func aScrollFlingsOnlyWhenAskedAndSlowsToAStop() throws {
        var still = try Drive(mode: .mouse)
        still.run(Self.drag(from: (30, 100), by: (0, -40), fingers: 2, steps: 8).events)
        let plain = Self.wheelTotals(still.pointerEvents).v
        var settings = PointerSettings()
        settings.fling = true
        var d = try Drive(mode: .mouse, pointerSettings: settings)
        let script = Self.drag(from: (30, 100), by: (0, -40), fingers: 2, steps: 8)
        d.run(script.events)
        let flung = Self.wheelTotals(d.pointerEvents).v
        #expect(flung < plain - 240, "flung \(flung), not flung \(plain)")
        #expect(d.pointer.nextDeadlineMicroseconds == nil)
        // After the lift, a tick each 1/60 s, its steps shrinking (whole units, the fractions carried to
        // the next: within one of it), to a stop.
        let lift = script.events.last!.timeMicroseconds
        let ticks = d.pointerEvents.filter { $0.code == REL.wheelHiRes && $0.timeMicroseconds > lift }
        #expect(ticks.count > 10)
        #expect(zip(ticks, ticks.dropFirst()).allSatisfy { $0.1.timeMicroseconds - $0.0.timeMicroseconds == PointerSettings.flingTickMicroseconds })
        let values = ticks.map(\.value)
        #expect(zip(values, values.dropFirst()).allSatisfy { abs($0.1) <= abs($0.0) + 1 }, "\(values)")
        #expect(values.allSatisfy { $0 < 0 } && abs(values.last!) * 3 < abs(values.first!), "\(values)")
    }

    @Test func aFingerLandingStopsAFling() throws {
        var settings = PointerSettings()
        settings.fling = true
        var d = try Drive(mode: .mouse, pointerSettings: settings)
        var s = Self.drag(from: (30, 100), by: (0, -40), fingers: 2, steps: 8)
        s.wait(0.05)
        s.down(0, 50, 50); s.frame()
        d.run(s.events, then: 0)
        let atLanding = Self.wheelTotals(d.pointerEvents).v
        #expect(d.pointer.nextDeadlineMicroseconds == nil)
        d.serveDeadlines(upTo: s.time + 2_000_000)
        #expect(Self.wheelTotals(d.pointerEvents).v == atLanding)
    }

    @Test func anEdgeSwipeInMouseModeIsTheSystemsAndThePointerStaysStill() throws {
        var d = try Drive(mode: .mouse)
        d.run(Self.drag(from: (1, 80), by: (60, 0), steps: 20).events)
        #expect(d.gestures.first?.event.kind == .edgeSwipe)
        #expect(d.pointerEvents.isEmpty && d.claims.isEmpty)
        #expect(d.copy.isEmpty)  // withheld, then the edge swipe's
    }

    @Test func threeFingersAreNotThePointers() throws {
        var d = try Drive(mode: .mouse)
        d.run(Self.drag(from: (20, 100), by: (0, -40), fingers: 3, steps: 30).events)
        #expect(!d.pointerFrames.contains { $0.contains("wheel") || $0.contains("left") || $0.contains("right") })
        // The three-finger pan keeps its audience: public.
        #expect(d.gestures.first { $0.event.kind == .pan }?.audience == .everyone)
    }

    @Test func aSystemGestureClaimingTheFingersReleasesTheButton() throws {
        // Pans of one finger claimed (a shell that owns them): the pan begins after the landing window, the
        // drag has pressed the button by then; the claim releases it where the finger is.
        var d = try Drive(mode: .mouse) {
            $0.pan.claim = true
            $0.pan.claimMinFingers = 1
        }
        d.run(Self.drag(from: (30, 40), by: (0, 40), steps: 40).events)
        let frames = d.pointerFrames
        #expect(frames.filter { $0 == "left 1" }.count == 1 && frames.filter { $0 == "left 0" }.count == 1)
        // Released at the claim, long before the lift: the frames after it move nothing.
        #expect(frames.last == "left 0")
        #expect(!d.pointer.hasButtonDown)
        #expect(d.gestures.first { $0.event.kind == .pan }?.audience == .seat)  // one finger: the seat's anyway
    }

    // MARK: - Nothing left pressed

    /// A change of mode (the focus went to another app) or a cancellation mid-drag releases the button
    /// where the finger is, once; the rest of the touch stays taken from the app and moves nothing.
    @Test(arguments: ["mode", "cancel", "finish"])
    func midDragTheButtonIsReleasedWhereTheFingerIs(how: String) throws {
        var d = try Drive(mode: .mouse)
        var s = TouchScript()
        s.down(0, 30, 40); s.raw(EV.key, BTN.touch, 1); s.frame()
        s.drag([0], by: 10, 0, steps: 10)
        d.run(s.events, then: 0)
        #expect(d.pointer.hasButtonDown)
        let time = s.time
        d.pointerStep { p, out in
            switch how {
            case "mode": p.setMode(.longPress, atMicroseconds: time, into: &out)
            case "cancel": p.cancel(atMicroseconds: time, into: &out)
            default: p.finish(atMicroseconds: time, into: &out)
            }
        }
        #expect(!d.pointer.hasButtonDown)
        #expect(d.pointerFrames.last == "left 0")
        #expect(d.pointerFrames.dropLast().last == "move 400 400")
        let count = d.pointerEvents.count
        var tail = s
        tail.drag([0], by: 10, 10, steps: 5)
        tail.up(0); tail.raw(EV.key, BTN.touch, 0); tail.frame()
        d.run(Array(tail.events[s.events.count...]))
        #expect(d.pointerEvents.count == count)
        #expect(d.copy.isEmpty)
    }

    @Test func aModeChangeBetweenTouchesChangesWhatTheNextTouchDoes() throws {
        var d = try Drive(mode: .mouse)
        let tap = Self.still(30, 40, seconds: 0.1)
        d.run(tap.events)
        d.pointerStep { $0.setMode(.touch, atMicroseconds: tap.time, into: &$1) }
        var later = TouchScript()
        later.wait(1)
        later.down(0, 30, 40); later.frame(); later.up(0); later.frame()
        d.run(later.events)
        #expect(d.pointerFrames == ["move 300 400", "left 1", "left 0"])
        #expect(d.copyFrames.map(\.down.count) == [1, 0])
    }

    @Test func wheelsSendALowResolutionClickForEach120Units() {
        var w = TouchPointer.Wheels()
        w.add(Vector2(0, 25), detentMM: 10)  // 300 units: content down, the view up
        #expect(Int(w.pendingV) == 300)
        var out = PointerOutput()
        var pointer = TouchPointer(mode: .mouse)
        // 300 hi-res, 2 detents, 60 towards the next.
        pointer.emitWheels(&w, time: 0, into: &out)
        #expect(Self.wheelTotals(out.events) == (300, 0, 2, 0))
        #expect(w.sentV == 60)
        w.add(Vector2(0, 5), detentMM: 10)
        pointer.emitWheels(&w, time: 0, into: &out)
        #expect(Self.wheelTotals(out.events) == (360, 0, 3, 0))
    }

    @Test func flingDecayMatchesTheTimeConstant() {
        let one = PointerSettings.decay(over: PointerSettings.flingTimeConstantSeconds)
        #expect(abs(one - 0.36787944) < 1e-6)
        #expect(abs(PointerSettings.decay(over: 0.016667) - 0.967216) < 1e-5)
    }

    @Test func thePointersAxesAreThePanels() {
        let axes = TouchPointer.axes(of: TouchScript.phone)
        #expect(axes?.x == AxisInfo(minimum: 0, maximum: 1000, resolution: 10))
        #expect(axes?.y == AxisInfo(minimum: 0, maximum: 1600, resolution: 10))
    }
}
