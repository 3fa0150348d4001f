import GestureCore
import GestureVocabulary

/// The settings a panel's virtual pointer follows (docs/configuration.md, "Touch that points"): the
/// recognizer's slop and velocity window (so that a long press, a click and a drag are told apart as the
/// recognizer tells a hold, a tap and a pan apart), and its own scroll settings.
public struct PointerSettings: Equatable, Sendable {
    /// How far a finger moves from where it landed before it drags or scrolls (`slop_mm`): a finger still
    /// within it at the hold time is a long press.
    public var slopMM: Double = 3
    /// Finger travel of one wheel detent (120 high-resolution units), millimetres (`pointer_scroll_mm`).
    public var scrollDetentMM: Double = 10
    /// Whether a scroll released while the fingers move goes on, slowing down (`pointer_fling`).
    public var fling: Bool = false
    /// Faster than this at the lift, a scroll flings (the pan's `fling_velocity_mm_per_s`).
    public var flingVelocityMMPerSecond: Double = 200
    /// The samples the fingers' velocity is measured over (`velocity_window_seconds`).
    public var velocityWindowSeconds: Double = 0.08

    public init() {}

    /// A fling's speed decays by e every `flingTimeConstantSeconds` (UIKit's normal deceleration, 0.998 a
    /// millisecond); it stops below `flingStopMMPerSecond`; wheel events come every
    /// `flingTickMicroseconds` (a 60 Hz screen's frame) meanwhile.
    public static let flingTimeConstantSeconds = 0.5
    public static let flingStopMMPerSecond = 20.0
    public static let flingTickMicroseconds: Int64 = 16_667
}

/// What the pointer does at one step: the touches it takes from the app (the forwarder claims them:
/// cancelled if delivered, never delivered otherwise) and the events for the virtual pointer, each frame
/// ending with SYN_REPORT.
public struct PointerOutput: Equatable, Sendable {
    public var claims: [UInt64] = []
    public var events: [InputEvent] = []

    public init() {}

    public var isEmpty: Bool { claims.isEmpty && events.isEmpty }

    public mutating func removeAll() {
        if !claims.isEmpty { claims.removeAll(keepingCapacity: true) }
        if !events.isEmpty { events.removeAll(keepingCapacity: true) }
    }
}

/// Touch that points (docs/gestures.md, "Touch that points"): what a passthrough panel's virtual pointer
/// does, decided from what the engine reports, as a value with no I/O and no clock (the daemon writes its
/// events to uinput; the tests read them back).
///
/// - `long-press`: a one-finger hold that landed in the app area (its audience is the seat's: not in an
///   edge zone or corner) and that no client claims (`holdClaims`) takes its touch from the app (the
///   forwarder cancels it) and clicks the right button where the finger is, at the hold's begin; the
///   hold's events say so (`secondary_click`). The rest of the touch reaches nobody.
/// - `mouse`: every touch that lands in the app area (the recognizer does not withhold it for an edge
///   swipe) is the pointer's from its landing and never reaches the app as a touch. One finger moves the
///   pointer to where it landed; a lift before it moves past the slop clicks the left button there; a
///   finger that moves past the slop presses the left button where it landed and drags; the long press
///   clicks the right button as above. Two fingers scroll through the high-resolution wheels with their
///   centroid's motion once one moves past the slop (a fling goes on when `fling` is on); the
///   recognizer's two-finger tap clicks the right button where they landed. Gestures of one or two
///   fingers on the pointer's touches are app touches (their audience becomes the seat's); three fingers
///   or more, and any gesture the recognizer claims (a system gesture), stop the pointer until the
///   fingers lift.
/// - `touch`: nothing.
///
/// Nothing is left pressed: a change of mode (the focus went to another app), `cancel` (the screen
/// turned, a reload, events dropped) and `finish` (the device goes) release the left button where the
/// finger is and stop a scroll; the pointer's touches stay taken from the app until they lift.
public struct TouchPointer: Sendable {
    /// A finger the pointer follows: where it landed and where it is, on the screen (millimetres) and in
    /// the panel's units (where the pointer goes).
    struct Finger: Sendable, Equatable {
        var serial: UInt64
        var landingMM: Vector2
        var landing: DevicePoint
        var currentMM: Vector2
        var current: DevicePoint
        var down = true

        init(_ c: Contact) {
            serial = c.serial
            landingMM = c.positionMM
            landing = c.devicePosition
            currentMM = c.positionMM
            current = c.devicePosition
        }

        func movedPast(_ slopMM: Double) -> Bool { (currentMM - landingMM).length >= slopMM }
    }

    /// A two-finger scroll: the centroid (millimetres) the last wheel events were for, the wheel units not
    /// sent yet, and the centroid's recent path (its velocity, for a fling).
    struct Scroll: Sendable {
        var centroidMM: Vector2
        var wheels = Wheels()
        var velocity: VelocityTracker
    }

    /// A scroll going on by itself after the lift.
    struct Fling: Sendable {
        var velocityMMPerSecond: Vector2
        var wheels: Wheels
        /// When the next wheel events are due (event clock, microseconds).
        var nextTick: Int64
    }

    /// Wheel units (1/120 of a detent) not sent yet, and the high-resolution units sent since the last
    /// whole detent (each 120 of them is one REL_WHEEL / REL_HWHEEL click, for readers of the low
    /// resolution wheels).
    struct Wheels: Sendable, Equatable {
        var pendingV = 0.0
        var pendingH = 0.0
        var sentV: Int32 = 0
        var sentH: Int32 = 0
    }

    enum State: Sendable {
        /// No touch the pointer acts on.
        case idle
        /// Mouse: one finger down, within the slop; the pointer is where it landed, no button pressed.
        case pressing(Finger)
        /// Mouse: the left button is down and follows the finger.
        case dragging(Finger)
        /// Mouse: two fingers down (or one of them lifted), neither past the slop: a scroll or a tap to be.
        case twoFingers(Finger, Finger)
        /// Mouse: two fingers scroll.
        case scrolling(Finger, Finger, Scroll)
        /// Mouse: a scroll goes on after the lift, slowing down.
        case flinging(Fling)
        /// The pointer's touches that are down do nothing more until they lift (after a click, three
        /// fingers, a system gesture's claim, a cancellation).
        case resting
    }

    /// What happens to the pointer.
    enum Input {
        /// Touches the pointer took landed (mouse).
        case landed([Contact])
        /// The frame's contacts (positions), after lifts and landings were handled.
        case moved(TouchFrame)
        /// The pointer's touches lifted (or were lost).
        case lifted([UInt64])
        /// The recognizer's hold began on one finger in the app area, unclaimed: a long press. The finger
        /// as the latest frame has it.
        case longPress(Contact)
        /// The recognizer's two-finger tap on the pointer's touches began.
        case twoFingerTap
        /// The recognizer claimed touches the pointer follows: a system gesture's.
        case claimedBySystem
        /// The mode changed, or the daemon cancels (turn, reload, events dropped).
        case released
        /// A fling's tick is due.
        case tick(Int64)
    }

    public private(set) var settings: PointerSettings
    public private(set) var mode: PointerMode
    /// Where one-finger holds are clients' (the `claim` request, `gesturectl bind`'s hold bindings): a
    /// hold there is no click.
    public var holdClaims: [ScreenRegion] = []
    private(set) var state: State = .idle
    /// The pointer's touches still down (mouse: every touch it took at its landing; long-press: none it
    /// needs to follow).
    private var owned: [UInt64] = []
    /// The highest contact serial seen: a contact above it is new (serials only grow, until `reset`).
    private var highestSerial: UInt64 = 0
    /// Gestures whose events say `secondary_click` (a long press or a two-finger tap that clicked), until
    /// their end or cancel.
    private var clickedGestures: [UInt64] = []
    /// Where the virtual pointer is, as last written (nil: not written yet).
    private var position: DevicePoint?

    public init(settings: PointerSettings = PointerSettings(), mode: PointerMode = .touch) {
        self.settings = settings
        self.mode = mode
    }

    /// Whether a button of the virtual pointer is down (only while dragging).
    public var hasButtonDown: Bool {
        if case .dragging = state { return true }
        return false
    }

    /// When `advance` has wheel events to send (a fling), event clock; nil when nothing waits on time.
    public var nextDeadlineMicroseconds: Int64? {
        if case .flinging(let fling) = state { return fling.nextTick }
        return nil
    }

    // MARK: - What the engine reports

    /// After each operation of the engine (an event processed, a deadline, a cancellation): `events` is
    /// the engine's output, of which those from `start` on are this operation's (the pointer marks the
    /// hold or tap that became a click, `secondary_click`, and makes the one- and two-finger gestures on
    /// its touches app touches, their `.audience` the seat's); `decisions` the recognizer's touch
    /// decisions of the operation; `frame` the latest frame when the operation completed one (a
    /// SYN_REPORT), else nil, with `latest` the latest frame in any case (where a long press's finger is);
    /// `followed` the fingers the recognizer follows after it (the serials of a gesture that began).
    public mutating func observe(
        _ events: inout [EngineEvent], from start: Int, decisions: [TouchDecision], frame: TouchFrame?, latest: TouchFrame,
        followed: () -> [UInt64], at time: Int64, into out: inout PointerOutput
    ) {
        if mode == .touch && owned.isEmpty && clickedGestures.isEmpty {
            // Nothing to do but know which contacts are old, should the mode change.
            if let frame { noteSerials(frame) }
            return
        }
        // The recognizer's decisions: touches it holds back for an edge swipe are not the pointer's to
        // take; touches it claims for a system gesture stop what the pointer does with them.
        var withheld: [UInt64] = []
        var systemClaimed = false
        for decision in decisions {
            switch decision {
            case .withhold(let serials): withheld += serials
            case .claim(let serials): if serials.contains(where: owned.contains) { systemClaimed = true }
            case .release: break
            }
        }
        if systemClaimed { handle(.claimedBySystem, at: time, into: &out) }
        if start < events.count { gestures(&events, from: start, systemClaimed: systemClaimed, latest: latest, followed: followed, at: time, into: &out) }
        guard let frame else { return }
        let lifted = owned.filter { serial in frame.lifted.contains(serial) || frame.lost.contains(serial) }
        if !lifted.isEmpty {
            owned.removeAll { lifted.contains($0) }
            handle(.lifted(lifted), at: time, into: &out)
        }
        if mode == .mouse {
            var landed: [Contact] = []
            for c in frame.contacts where c.serial > highestSerial && !withheld.contains(c.serial) { landed.append(c) }
            if !landed.isEmpty {
                for c in landed {
                    owned.append(c.serial)
                    out.claims.append(c.serial)
                }
                handle(.landed(landed), at: time, into: &out)
            }
        }
        noteSerials(frame)
        if !owned.isEmpty { handle(.moved(frame), at: time, into: &out) }
    }

    private mutating func noteSerials(_ frame: TouchFrame) {
        for c in frame.contacts where c.serial > highestSerial { highestSerial = c.serial }
    }

    /// The operation's gesture events: a long press or a two-finger tap that clicks; the field on the
    /// events of a gesture that clicked; the audience of gestures on the pointer's touches.
    private mutating func gestures(
        _ events: inout [EngineEvent], from start: Int, systemClaimed: Bool, latest: TouchFrame, followed: () -> [UInt64],
        at time: Int64, into out: inout PointerOutput
    ) {
        var audienceIndex: Int?
        for i in start..<events.count {
            switch events[i] {
            case .audience:
                audienceIndex = i
            case .gesture(var e):
                if e.phase == .begin {
                    began(&e, audienceIndex: audienceIndex, in: &events, systemClaimed: systemClaimed, latest: latest, followed: followed, at: time, into: &out)
                    audienceIndex = nil
                }
                if clickedGestures.contains(e.id) {
                    e[EventFields.secondaryClick] = .flag(true)
                    if e.phase == .end || e.phase == .cancel { clickedGestures.removeAll { $0 == e.id } }
                }
                events[i] = .gesture(e)
            case .warning, .trace, .stopped, .explanation, .reason:
                break
            }
        }
    }

    private mutating func began(
        _ e: inout GestureEvent, audienceIndex: Int?, in events: inout [EngineEvent], systemClaimed: Bool, latest: TouchFrame,
        followed: () -> [UInt64], at time: Int64, into out: inout PointerOutput
    ) {
        var audience = GestureAudience.seat
        if let audienceIndex, case .audience(let a) = events[audienceIndex] { audience = a }
        let serials = followed()
        let onPointerTouches = mode == .mouse && !serials.isEmpty && serials.allSatisfy(owned.contains)
        // Touch as a mouse: what one or two fingers do on the pointer's touches is the app's input.
        if onPointerTouches && e.fingers <= 2 && !systemClaimed, let audienceIndex, audience != .seat {
            events[audienceIndex] = .audience(.seat)
            audience = .seat
        }
        switch e.kind {
        case .hold:
            guard mode.usesPointer, e.fingers == 1, audience == .seat, serials.count == 1,
                mode == .longPress || onPointerTouches,
                !holdClaims.contains(where: { $0.contains(e) }),
                let finger = latest.contacts.first(where: { $0.serial == serials[0] })
            else { return }
            handle(.longPress(finger), at: time, into: &out)
            clickedGestures.append(e.id)
        case .tap:
            guard onPointerTouches, e.fingers == 2, !systemClaimed, case .twoFingers = state else { return }
            handle(.twoFingerTap, at: time, into: &out)
            clickedGestures.append(e.id)
        default:
            return
        }
    }

    // MARK: - From the daemon

    /// The focused app changed the mode (or a reload the settings): when either changed, what the pointer
    /// holds is released where the finger is; its touches down stay taken from the app until they lift.
    public mutating func setMode(_ new: PointerMode, settings newSettings: PointerSettings? = nil, atMicroseconds time: Int64, into out: inout PointerOutput) {
        let changed = new != mode || (newSettings.map { $0 != settings } ?? false)
        if let newSettings { settings = newSettings }
        guard changed else { return }
        handle(.released, at: time, into: &out)
        mode = new
    }

    /// The daemon cancels what runs (the screen turned, a reload, events dropped): as a change of mode.
    public mutating func cancel(atMicroseconds time: Int64, into out: inout PointerOutput) {
        handle(.released, at: time, into: &out)
    }

    /// A replay's pass ended (the engine forgets every touch, and its serials start again): released,
    /// and every touch forgotten.
    public mutating func reset(atMicroseconds time: Int64, into out: inout PointerOutput) {
        handle(.released, at: time, into: &out)
        owned = []
        highestSerial = 0
        clickedGestures = []
        state = .idle
    }

    /// Sends what is due by `time` (a fling's wheel events).
    public mutating func advance(toMicroseconds time: Int64, into out: inout PointerOutput) {
        while let due = nextDeadlineMicroseconds, due <= time { handle(.tick(due), at: due, into: &out) }
    }

    // MARK: - The state machine

    /// Every input goes through here; every change of state through `transition`.
    private mutating func handle(_ input: Input, at time: Int64, into out: inout PointerOutput) {
        switch (state, input) {
        // A long press clicks the right button where the finger is, in either mode.
        case (_, .longPress(let finger)):
            if case .dragging(let f) = state { release(at: f.current, time: time, into: &out) }
            out.claims.append(finger.serial)
            click(BTN.right, at: finger.devicePosition, time: time, into: &out)
            transition(to: owned.isEmpty ? .idle : .resting)

        case (.idle, .landed(let contacts)), (.resting, .landed(let contacts)), (.flinging, .landed(let contacts)):
            // (A finger landing stops a fling, as it would stop a scrolling list.) With no other of the
            // pointer's touches down, they start what the pointer does; beside one resting, nothing.
            if owned.count == contacts.count { start(contacts, time: time, into: &out) } else { transition(to: .resting) }
        case (.pressing(let first), .landed(let contacts)):
            if contacts.count == 1 {
                // The second finger: a scroll or a two-finger tap, the pointer between them.
                let second = Finger(contacts[0])
                moveTo(midpoint(first.landing, second.landing), time: time, into: &out)
                transition(to: .twoFingers(first, second))
            } else {
                transition(to: .resting)
            }
        case (.dragging, .landed):
            break  // the drag goes on with its finger; the others are taken and do nothing
        case (.twoFingers, .landed), (.scrolling, .landed):
            // Three fingers: the system's or nobody's, not the pointer's.
            transition(to: .resting)

        case (.pressing(var f), .moved(let frame)):
            guard update(&f, frame) else { return }
            if f.movedPast(settings.slopMM) {
                // A drag: the button goes down where the finger landed, then follows it.
                moveTo(f.landing, time: time, into: &out)
                button(BTN.left, 1, time: time, into: &out)
                moveTo(f.current, time: time, into: &out)
                transition(to: .dragging(f))
            } else {
                transition(to: .pressing(f))
            }
        case (.dragging(var f), .moved(let frame)):
            guard update(&f, frame) else { return }
            moveTo(f.current, time: time, into: &out)
            transition(to: .dragging(f))
        case (.twoFingers(var a, var b), .moved(let frame)):
            let movedA = update(&a, frame)
            let movedB = update(&b, frame)
            guard movedA || movedB else { return }
            if (a.down && a.movedPast(settings.slopMM)) || (b.down && b.movedPast(settings.slopMM)) {
                // The scroll counts from here: the slop itself scrolls nothing.
                var velocity = VelocityTracker(windowSeconds: settings.velocityWindowSeconds)
                let centroid = centroidMM(a, b)
                velocity.add(time: time, position: centroid)
                transition(to: .scrolling(a, b, Scroll(centroidMM: centroid, velocity: velocity)))
            } else {
                transition(to: .twoFingers(a, b))
            }
        case (.scrolling(var a, var b, var scroll), .moved(let frame)):
            let movedA = update(&a, frame)
            let movedB = update(&b, frame)
            guard movedA || movedB else { return }
            let centroid = centroidMM(a, b)
            scroll.velocity.add(time: time, position: centroid)
            scroll.wheels.add(centroid - scroll.centroidMM, detentMM: settings.scrollDetentMM)
            scroll.centroidMM = centroid
            emitWheels(&scroll.wheels, time: time, into: &out)
            transition(to: .scrolling(a, b, scroll))
        case (.idle, .moved), (.flinging, .moved), (.resting, .moved):
            break

        case (.pressing(let f), .lifted(let serials)):
            guard serials.contains(f.serial) else { return }
            // A click where it landed (a finger that never moved past the slop).
            click(BTN.left, at: f.landing, time: time, into: &out)
            transition(to: owned.isEmpty ? .idle : .resting)
        case (.dragging(let f), .lifted(let serials)):
            guard serials.contains(f.serial) else { return }
            release(at: f.current, time: time, into: &out)
            transition(to: owned.isEmpty ? .idle : .resting)
        case (.twoFingers(var a, var b), .lifted(let serials)):
            // A two-finger tap comes (or not) from the recognizer once both lifted.
            if serials.contains(a.serial) { a.down = false }
            if serials.contains(b.serial) { b.down = false }
            transition(to: owned.isEmpty ? .idle : .twoFingers(a, b))
        case (.scrolling(_, _, let scroll), .lifted):
            let velocity = scroll.velocity.velocity(at: time)
            if settings.fling && velocity.length >= settings.flingVelocityMMPerSecond {
                transition(
                    to: .flinging(
                        Fling(velocityMMPerSecond: velocity, wheels: scroll.wheels, nextTick: time + PointerSettings.flingTickMicroseconds)))
            } else {
                transition(to: owned.isEmpty ? .idle : .resting)
            }
        case (.resting, .lifted):
            if owned.isEmpty { transition(to: .idle) }
        case (.idle, .lifted), (.flinging, .lifted):
            break

        case (.twoFingers(let a, let b), .twoFingerTap):
            click(BTN.right, at: midpoint(a.landing, b.landing), time: time, into: &out)
            transition(to: owned.isEmpty ? .idle : .resting)
        case (.idle, .twoFingerTap), (.pressing, .twoFingerTap), (.dragging, .twoFingerTap), (.scrolling, .twoFingerTap),
            (.flinging, .twoFingerTap), (.resting, .twoFingerTap):
            break

        case (.dragging(let f), .claimedBySystem), (.dragging(let f), .released):
            // Nothing stays pressed: the button goes up where the finger is.
            release(at: f.current, time: time, into: &out)
            transition(to: owned.isEmpty ? .idle : .resting)
        case (.pressing, .claimedBySystem), (.pressing, .released), (.twoFingers, .claimedBySystem), (.twoFingers, .released),
            (.scrolling, .claimedBySystem), (.scrolling, .released), (.flinging, .released), (.resting, .released),
            (.resting, .claimedBySystem):
            transition(to: owned.isEmpty ? .idle : .resting)
        case (.idle, .claimedBySystem), (.idle, .released), (.flinging, .claimedBySystem):
            break

        case (.flinging(var fling), .tick(let due)):
            let seconds = Double(PointerSettings.flingTickMicroseconds) / 1_000_000
            fling.wheels.add(fling.velocityMMPerSecond * seconds, detentMM: settings.scrollDetentMM)
            emitWheels(&fling.wheels, time: due, into: &out)
            fling.velocityMMPerSecond = fling.velocityMMPerSecond * PointerSettings.decay(over: seconds)
            if fling.velocityMMPerSecond.length < PointerSettings.flingStopMMPerSecond {
                transition(to: owned.isEmpty ? .idle : .resting)
            } else {
                fling.nextTick = due + PointerSettings.flingTickMicroseconds
                transition(to: .flinging(fling))
            }
        case (.idle, .tick), (.pressing, .tick), (.dragging, .tick), (.twoFingers, .tick), (.scrolling, .tick), (.resting, .tick):
            break
        }
    }

    private mutating func transition(to new: State) { state = new }

    /// Touches the pointer took landed with no other of its touches down.
    private mutating func start(_ contacts: [Contact], time: Int64, into out: inout PointerOutput) {
        switch contacts.count {
        case 1:
            let f = Finger(contacts[0])
            moveTo(f.landing, time: time, into: &out)
            transition(to: .pressing(f))
        case 2:
            let a = Finger(contacts[0]), b = Finger(contacts[1])
            moveTo(midpoint(a.landing, b.landing), time: time, into: &out)
            transition(to: .twoFingers(a, b))
        default:
            transition(to: .resting)
        }
    }

    /// Brings a finger to where the frame has it; false when it did not move.
    private func update(_ f: inout Finger, _ frame: TouchFrame) -> Bool {
        guard f.down, let c = frame.contacts.first(where: { $0.serial == f.serial }), c.positionMM != f.currentMM || c.devicePosition != f.current
        else { return false }
        f.currentMM = c.positionMM
        f.current = c.devicePosition
        return true
    }

    private func centroidMM(_ a: Finger, _ b: Finger) -> Vector2 {
        switch (a.down, b.down) {
        case (true, true), (false, false): return (a.currentMM + b.currentMM) / 2
        case (true, false): return a.currentMM
        case (false, true): return b.currentMM
        }
    }

    private func midpoint(_ a: DevicePoint, _ b: DevicePoint) -> DevicePoint {
        DevicePoint(x: Int32((Int64(a.x) + Int64(b.x)) / 2), y: Int32((Int64(a.y) + Int64(b.y)) / 2))
    }

    // MARK: - The pointer's events

    private mutating func emit(_ type: UInt16, _ code: UInt16, _ value: Int32, time: Int64, into out: inout PointerOutput) {
        out.events.append(InputEvent(timeMicroseconds: time, type: type, code: code, value: value))
    }

    private mutating func syn(time: Int64, into out: inout PointerOutput) { emit(EV.syn, SYN.report, 0, time: time, into: &out) }

    /// Moves the pointer (a frame of its own), unless it is there already.
    private mutating func moveTo(_ p: DevicePoint, time: Int64, into out: inout PointerOutput) {
        guard p != position else { return }
        if p.x != position?.x { emit(EV.abs, ABS.x, p.x, time: time, into: &out) }
        if p.y != position?.y { emit(EV.abs, ABS.y, p.y, time: time, into: &out) }
        position = p
        syn(time: time, into: &out)
    }

    private mutating func button(_ code: UInt16, _ value: Int32, time: Int64, into out: inout PointerOutput) {
        emit(EV.key, code, value, time: time, into: &out)
        syn(time: time, into: &out)
    }

    /// The pointer moves to `p` (a frame), then the button is pressed and released (a frame each).
    private mutating func click(_ code: UInt16, at p: DevicePoint, time: Int64, into out: inout PointerOutput) {
        moveTo(p, time: time, into: &out)
        button(code, 1, time: time, into: &out)
        button(code, 0, time: time, into: &out)
    }

    /// The left button goes up where the finger is.
    private mutating func release(at p: DevicePoint, time: Int64, into out: inout PointerOutput) {
        moveTo(p, time: time, into: &out)
        button(BTN.left, 0, time: time, into: &out)
    }

    /// Sends the whole wheel units pending, high resolution first, with a low-resolution click for each
    /// 120 of them; one frame.
    mutating func emitWheels(_ w: inout Wheels, time: Int64, into out: inout PointerOutput) {
        let v = Int32(w.pendingV.rounded(.towardZero))
        let h = Int32(w.pendingH.rounded(.towardZero))
        guard v != 0 || h != 0 else { return }
        w.pendingV -= Double(v)
        w.pendingH -= Double(h)
        emitAxis(v, sent: &w.sentV, highResolution: REL.wheelHiRes, detent: REL.wheel, time: time, into: &out)
        emitAxis(h, sent: &w.sentH, highResolution: REL.hwheelHiRes, detent: REL.hwheel, time: time, into: &out)
        syn(time: time, into: &out)
    }

    /// One wheel's whole units: the high-resolution event, then a detent event for each 120 sent so far.
    private mutating func emitAxis(
        _ units: Int32, sent: inout Int32, highResolution: UInt16, detent: UInt16, time: Int64, into out: inout PointerOutput
    ) {
        guard units != 0 else { return }
        emit(EV.rel, highResolution, units, time: time, into: &out)
        sent += units
        let detents = sent / 120
        if detents != 0 {
            emit(EV.rel, detent, detents, time: time, into: &out)
            sent -= detents * 120
        }
    }

    // MARK: - The end

    /// The pointer goes (passthrough off, the device removed, the daemon stopping): what it holds is
    /// released, and nothing more is sent.
    public mutating func finish(atMicroseconds time: Int64, into out: inout PointerOutput) {
        handle(.released, at: time, into: &out)
        owned = []
        clickedGestures = []
        transition(to: .idle)
    }
}

extension TouchPointer.Wheels {
    /// Adds the wheel units for the fingers' motion `deltaMM` on the screen as the user sees it: content
    /// follows the fingers (they move up, the view scrolls down: REL_WHEEL negative; they move left, it
    /// scrolls right: REL_HWHEEL positive), 120 units for each `detentMM`.
    mutating func add(_ deltaMM: Vector2, detentMM: Double) {
        pendingV += deltaMM.y / detentMM * 120
        pendingH -= deltaMM.x / detentMM * 120
    }
}

extension PointerSettings {
    /// How much a fling's speed keeps after `seconds`.
    static func decay(over seconds: Double) -> Double {
        // e^(-t/τ), without libm (TouchForwarding, like the core, links none): the series converges fast
        // for a tick's small t/τ.
        let x = -seconds / flingTimeConstantSeconds
        var term = 1.0, sum = 1.0
        for n in 1...12 {
            term *= x / Double(n)
            sum += term
        }
        return sum
    }
}

extension TouchPointer {
    /// The virtual pointer's absolute axes: the panel's own position axes (range and resolution), so that
    /// a compositor maps the pointer as it maps the panel (with its output and calibration, which the udev
    /// rule gives the pointer too). Nil for a panel without position axes.
    public static func axes(of panel: DeviceDescription) -> (x: AxisInfo, y: AxisInfo)? {
        guard let axes = panel.positionAxes else { return nil }
        func plain(_ a: AxisInfo) -> AxisInfo { AxisInfo(minimum: a.minimum, maximum: a.maximum, resolution: a.resolution) }
        return (plain(axes.x), plain(axes.y))
    }

    /// A pointer's events frame by frame, as a reader of it sees them, for people and tests: "move X Y"
    /// (where it is after the frame), "left 1" (a button's new state), "wheel V H (v h)" (the frame's high
    /// resolution units, then its low resolution detents).
    public static func frames(_ events: [InputEvent]) -> [String] {
        var result: [String] = []
        var x: Int32 = -1, y: Int32 = -1
        var parts: [String] = []
        var moved = false
        var wheel: (v: Int32, h: Int32, lv: Int32, lh: Int32)? = nil
        for e in events {
            switch (e.type, e.code) {
            case (EV.abs, ABS.x):
                x = e.value
                moved = true
            case (EV.abs, ABS.y):
                y = e.value
                moved = true
            case (EV.key, BTN.left): parts.append("left \(e.value)")
            case (EV.key, BTN.right): parts.append("right \(e.value)")
            case (EV.key, BTN.middle): parts.append("middle \(e.value)")
            case (EV.rel, REL.wheelHiRes): wheel = (e.value, wheel?.h ?? 0, wheel?.lv ?? 0, wheel?.lh ?? 0)
            case (EV.rel, REL.hwheelHiRes): wheel = (wheel?.v ?? 0, e.value, wheel?.lv ?? 0, wheel?.lh ?? 0)
            case (EV.rel, REL.wheel): wheel = (wheel?.v ?? 0, wheel?.h ?? 0, e.value, wheel?.lh ?? 0)
            case (EV.rel, REL.hwheel): wheel = (wheel?.v ?? 0, wheel?.h ?? 0, wheel?.lv ?? 0, e.value)
            case (EV.syn, SYN.report):
                if moved { parts.insert("move \(x) \(y)", at: 0) }
                if let w = wheel { parts.append("wheel \(w.v) \(w.h) (\(w.lv) \(w.lh))") }
                result.append(parts.joined(separator: ", "))
                parts = []
                moved = false
                wheel = nil
            default: parts.append("? \(e.type) \(e.code) \(e.value)")
            }
        }
        if !parts.isEmpty || moved { result.append("unterminated: " + parts.joined(separator: ", ")) }
        return result
    }

    /// The buttons and wheels it has.
    public static let buttons: [UInt16] = [BTN.left, BTN.right, BTN.middle]
    public static let wheels: [UInt16] = [REL.hwheel, REL.wheel, REL.wheelHiRes, REL.hwheelHiRes]
}
