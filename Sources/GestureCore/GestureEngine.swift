import GestureVocabulary
import PlainText

/// Why a device cannot be used for gestures.
public struct UnsupportedDeviceError: Error, Equatable, Sendable, CustomStringConvertible {
    public var deviceName: String
    public var reason: String
    /// The device's name escaped: it is the device's to choose, and a newline in it must not forge a line.
    public var description: String { "\(escapingControlCharacters(deviceName)): \(reason)" }
}

/// Hands out gesture ids. The daemon shares one between all its devices' engines, so ids are unique
/// across devices for its lifetime; an engine made without one counts from 1 on its own.
///
/// A reference, so engines (values) can share it; used from one thread at a time (the daemon's loop).
public final class GestureIDSource: @unchecked Sendable {
    private var next: UInt64

    public init(first: UInt64 = 1) { next = first }

    /// The id of a gesture that begins now.
    public func take() -> UInt64 {
        defer { next &+= 1 }
        return next
    }

    /// The id the next gesture will get.
    public var upcoming: UInt64 { next }
}

/// What the recognizer decides about touches of a device whose touches go through gestured
/// (passthrough; `RecognizerSettings.withholdsTouches`): a system gesture owns its touches, so the
/// application under the finger never sees them (UIKit's delaysTouchesBegan and cancelsTouchesInView).
public enum TouchDecision: Equatable, Sendable {
    /// Contacts (by Contact.serial, from TouchFrame) that landed in the zone of an edge whose edge swipe is
    /// possible: hold them back until the recognizer decides.
    case withhold([UInt64])
    /// Not a system gesture's: deliver them now (landing, then current state) and live from then on.
    case release([UInt64])
    /// A system gesture owns them from now: withheld ones are never delivered; ones already delivered are
    /// cancelled (MT_TOOL_PALM then lift); nothing more of them is delivered.
    case claim([UInt64])
}

extension Array where Element == TouchDecision {
    /// How many touches these decisions claim.
    public var claimedCount: Int {
        reduce(0) { count, decision in
            if case .claim(let serials) = decision { return count + serials.count }
            return count
        }
    }
}

/// What the engine produces, in one value: `events` for clients and the log, in order, and `touches`, the
/// touch decisions a passthrough's forwarder applies (empty unless `RecognizerSettings.withholdsTouches`).
/// Every operation of `GestureEngine` appends to one; a driver empties it (`removeAll`) and reuses it, so
/// its storage is allocated once.
public struct EngineOutput: Equatable, Sendable {
    public var events: [EngineEvent]
    public var touches: [TouchDecision]

    public init(events: [EngineEvent] = [], touches: [TouchDecision] = []) {
        self.events = events
        self.touches = touches
    }

    /// Nothing produced.
    @inlinable public var isEmpty: Bool { events.isEmpty && touches.isEmpty }

    /// Empties both, keeping their storage for the next operation. An array's removeAll goes through the
    /// generic replaceSubrange even when it is empty, as most are after most events: skipped then.
    @inlinable public mutating func removeAll() {
        if !events.isEmpty { events.removeAll(keepingCapacity: true) }
        if !touches.isEmpty { touches.removeAll(keepingCapacity: true) }
    }

    /// The gesture events among `events`, in order.
    public var gestures: [GestureEvent] { events.gestures }

    /// The warnings among `events`, in order.
    public var warnings: [CoreWarning] { events.warnings }

    /// What a palm or the pen stopped (only while tracing), in order.
    public var stops: [GestureStop] { events.stops }
}

/// One thing the engine produces for clients and the log, in order: gestures, warnings, and (only while
/// tracing) the recognizer's transitions and decisions. Touch decisions (passthrough) come beside them
/// (`EngineOutput.touches`).
public enum EngineEvent: Equatable, Sendable {
    case gesture(GestureEvent)
    /// Who receives the gesture whose `begin` comes next in the same output (decided where its touches
    /// landed, `KindAudience`); its other events follow that decision. Drivers that publish nothing ignore it.
    case audience(GestureAudience)
    case warning(CoreWarning)
    case trace(String)
    /// Only while tracing, beside the trace: a palm or the pen stopped a gesture (or an attempt).
    case stopped(GestureStop)
    /// Only while explaining (`GestureEngine.explaining`): one touch sequence explained, when it is over
    /// (every finger lifted and nothing waits for a further touch, or the engine cancelled everything).
    case explanation(Explanation)
    /// A rule's reason, from the recognizer to the engine, which gathers them into the `.explanation`:
    /// never among what the engine gives its driver.
    case reason(Reason)
}

/// What stopped a gesture that had not ended by itself.
public enum StopReason: Equatable, Sendable {
    /// A finger of it became a palm (MT_TOOL_PALM, or its size reached `palm_size_mm`).
    case palm
    /// A pen of the same panel came into proximity (touch arbitration).
    case penInProximity
}

/// A gesture (or an attempt nothing had begun for yet: no kind, no id) that a palm or the pen stopped.
public struct GestureStop: Equatable, Sendable, CustomStringConvertible {
    public var reason: StopReason
    public var kind: GestureKind?
    public var id: UInt64?
    public var timeMicroseconds: Int64

    public init(reason: StopReason, kind: GestureKind?, id: UInt64?, timeMicroseconds: Int64) {
        self.reason = reason
        self.kind = kind
        self.id = id
        self.timeMicroseconds = timeMicroseconds
    }

    /// "the pen in proximity stopped pan #3", for the trace.
    public var description: String {
        let what = kind.map { "\($0) #\(id ?? 0)" } ?? "a possible gesture"
        switch reason {
        case .palm: return "a palm stopped \(what)"
        case .penInProximity: return "the pen in proximity stopped \(what)"
        }
    }
}

/// Touch arbitration with a pen of the same panel, as the engine is told of it (`penProximity`): while a
/// pen is in proximity and for `GestureEngine.penArbitrationSeconds` after it left, the panel makes no
/// gestures.
public enum PenArbitration: Equatable, Sendable {
    /// No pen near: touches are recognized.
    case clear
    /// A pen is in proximity.
    case penInProximity
    /// The pen left; until this time (event clock) nothing is recognized still.
    case settling(untilMicroseconds: Int64)
}

/// The whole pipeline for one device: evdev events -> frame assembler -> recognizer -> gesture events.
///
/// A value with no clock and no I/O: time is the events' timestamps, so a recording replays exactly as
/// the live daemon sees it. The engine fires its own deadlines: before an event whose time has passed one
/// (input first reports what became true before it), and when the driver calls `advance` at a deadline
/// it asked for (`nextDeadlineMicroseconds`), which is all a daemon's timer has to do.
public struct GestureEngine: Sendable {
    public let device: DeviceDescription
    public private(set) var settings: RecognizerSettings
    public private(set) var geometry: DeviceGeometry
    /// Warnings about the device itself (no resolution and no configured size), for when it is added.
    public private(set) var deviceWarnings: [CoreWarning] = []
    /// Where gesture ids come from.
    public let ids: GestureIDSource
    /// The parts of the edges that are no edge zone now (`setExclusions`).
    public private(set) var exclusions = EdgeExclusions()
    /// Time of the last event processed, microseconds (event clock).
    public private(set) var lastEventTimeMicroseconds: Int64?
    private var assembler: FrameAssembler
    /// Touch arbitration with the panel's pen (`penProximity`).
    public private(set) var penArbitration = PenArbitration.clear {
        didSet { refreshPlainFrames() }
    }
    /// Whether a frame only goes through the recognizer (no pen arbitration, not explaining): the one flag
    /// the frame path reads, so that explaining costs nothing while it is off.
    private var plainFrames = true
    /// The touch sequence being explained (`explaining`).
    private var explainer = Explainer()
    /// How long after the pen left proximity the panel still makes no gestures. libinput waits 90 ms on a
    /// touchpad, enough for the kernel's proximity-out arriving a few ms before the touch-up of the same
    /// lift; a hand that writes on a screen lifts and lands again while the pen is above its hover range,
    /// and a wrist's edge swipe takes the user out of the app, so gestured waits longer (docs/gestures.md).
    public static let penArbitrationSeconds = 0.5
    // Internal (not private) only so that `nextDeadlineMicroseconds`, read by the daemon every wake-up, can
    // be inlined there: a call through the module boundary copies the whole engine for the getter.
    @usableFromInline private(set) var recognizer: GestureRecognizer

    public init(
        device: DeviceDescription, settings: RecognizerSettings = RecognizerSettings(),
        geometry geometrySettings: GeometrySettings = GeometrySettings(), ids: GestureIDSource = GestureIDSource(),
        tracing: Bool = false
    ) throws(UnsupportedDeviceError) {
        if case .nonsense(let minimum, let maximum) = device.slotAxis, device.axes[ABS.mtPositionX] != nil {
            // Found with a recording that said -5…-1, which was taken for 5 slots no event can name.
            throw UnsupportedDeviceError(
                deviceName: device.name,
                reason: "its ABS_MT_SLOT axis has the range \(minimum)...\(maximum), but the kernel numbers slots 0 to N-1 "
                    + "(ABS_MT_SLOT 0...N-1); the device description is broken")
        }
        let proto = device.touchProtocol
        switch proto {
        case .multitouchSlots, .singleTouch:
            break
        case .multitouchProtocolA:
            throw UnsupportedDeviceError(
                deviceName: device.name,
                reason: "uses the multitouch protocol A (SYN_MT_REPORT, no slots), which gestured does not "
                    + "support; kernels since 2.6.36 drive most such panels with protocol B (hid-multitouch)")
        case .unusable:
            throw UnsupportedDeviceError(
                deviceName: device.name,
                reason: "has no absolute position axes (ABS_MT_POSITION_X/Y or ABS_X/Y); it is not a touchscreen")
        }
        guard let axes = device.positionAxes else {
            throw UnsupportedDeviceError(deviceName: device.name, reason: "has no absolute position axes")
        }
        // An empty or inverted range maps every touch off the screen (found by fuzzing: a recording may say
        // anything, and a driver could).
        for (name, axis) in [("X", axes.x), ("Y", axes.y)] where axis.maximum <= axis.minimum {
            throw UnsupportedDeviceError(
                deviceName: device.name,
                reason: "its \(name) position axis has the empty range \(axis.minimum)...\(axis.maximum) (the maximum "
                    + "must be above the minimum); the device description is broken")
        }
        self.device = device
        self.settings = settings
        self.ids = ids
        let geometry = DeviceGeometry(xAxis: axes.x, yAxis: axes.y, settings: geometrySettings)
        self.geometry = geometry
        assembler = FrameAssembler(
            geometry: geometry, touchProtocol: proto,
            palmSize: PalmSizeThreshold(device: device, geometry: geometry, palmSizeMM: settings.palmSizeMM))
        recognizer = GestureRecognizer(settings: settings, screenSizeMM: geometry.screenSizeMM)
        recognizer.tracing = tracing
        if case .capped(let declared) = device.slotAxis {
            deviceWarnings.append(
                CoreWarning(
                    timeMicroseconds: 0,
                    message: "\(escapingControlCharacters(device.name)) declares \(declared) slots (ABS_MT_SLOT 0...\(declared - 1)); "
                        + "gestured follows the first \(FrameAssembler.maximumSlots), and touches in the others are ignored"))
        }
        if let r = geometry.implausibleResolution {
            let size = "\(formatNumber((geometry.xAxis.span / Double(r.x > 0 ? r.x : r.y) * 10).rounded() / 10)) x "
                + "\(formatNumber((geometry.yAxis.span / Double(r.y > 0 ? r.y : r.x) * 10).rounded() / 10)) mm"
            deviceWarnings.append(
                CoreWarning(
                    timeMicroseconds: 0,
                    message: "\(escapingControlCharacters(device.name)) reports an axis resolution of \(r.x) x \(r.y) units/mm, which makes a "
                        + "\(size) panel, not a touchscreen's (\(formatNumber(DeviceGeometry.plausibleSideMM.lowerBound)) to "
                        + "\(formatNumber(DeviceGeometry.plausibleSideMM.upperBound)) mm a side): the resolution is not used, the panel is "
                        + (geometry.sizeSource == .configured ? "the configured one" : "assumed (set panel_diagonal_inches, or panel_width_mm and panel_height_mm, for this device)")))
        }
        if let ignored = palmSize?.ignoredResolution {
            deviceWarnings.append(
                CoreWarning(
                    timeMicroseconds: 0,
                    message: "\(escapingControlCharacters(device.name)) reports a contact-size resolution of \(ignored) units/mm, which no panel has "
                        + "(at most \(Int(PalmSizeThreshold.maximumPlausibleUnitsPerMM))): it is not used; contact sizes are measured through the "
                        + "position axes' scale"))
        }
        if geometry.sizeSource == .assumed && geometry.implausibleResolution == nil {
            deviceWarnings.append(
                CoreWarning(
                    timeMicroseconds: 0,
                    message: "\(escapingControlCharacters(device.name)) reports no axis resolution and no panel size is configured; "
                        + "assuming a \(Int(geometry.assumedDiagonalMM ?? 0)) mm diagonal "
                        + "(set panel_diagonal_inches, or panel_width_mm and panel_height_mm, for this device)"))
        }
        if geometry.isSquareFromDiagonal {
            deviceWarnings.append(
                CoreWarning(
                    timeMicroseconds: 0,
                    message: "\(escapingControlCharacters(device.name)): panel_diagonal_inches on axes of equal range "
                        + "(\(axes.x.minimum)…\(axes.x.maximum) × \(axes.y.minimum)…\(axes.y.maximum)) makes a square panel, "
                        + "\(geometry.sizeDescription.prefix { $0 != "," }); most panels are not: set panel_aspect "
                        + "(\"16:9\" for most monitors and kiosks, \"16:10\" or \"3:2\" for many laptops and tablets) for this device"))
        }
    }

    /// Takes the parts of the edges that are no edge zone from now on (an app keeps them: the configured
    /// exclusions matching the focused app, and clients' `exclude` requests, worked out by the driver when
    /// they change). Nothing in flight is cancelled: a touch that lands in an excluded part is an ordinary
    /// touch, and with passthrough is not withheld.
    public mutating func setExclusions(_ new: EdgeExclusions) {
        exclusions = new
        recognizer.setExclusions(new)
    }

    /// Whether the running gestures' `update` events are made (on unless the driver turns them off). The
    /// daemon turns them off while no client takes updates and the log does not show gestures: a frame
    /// then only follows the fingers, and begin, end and cancel events are the same as with updates on.
    public var reportsUpdates: Bool {
        get { recognizer.reportsUpdates }
        set { recognizer.reportsUpdates = newValue }
    }

    /// Whether the engine explains its decisions: every touch sequence, when it is over, comes out as an
    /// `.explanation` (where each finger landed, what it became, and each rule's reason with its numbers,
    /// `Reason`). Off, no rule is asked why and a frame reads one flag more than none (`plainFrames`,
    /// shared with the pen's arbitration).
    public var explaining: Bool {
        get { recognizer.explaining }
        set {
            // Fingers down when explaining starts landed unseen: the explainer says so rather than giving
            // them a landing where they are now.
            if newValue && !recognizer.explaining { explainer = Explainer(fingersDown: assembler.frame) }
            recognizer.explaining = newValue
            if !newValue { explainer = Explainer() }
            refreshPlainFrames()
        }
    }

    private mutating func refreshPlainFrames() {
        var plain = !recognizer.explaining
        if case .clear = penArbitration {} else { plain = false }
        plainFrames = plain
    }

    /// Takes what the recognizer produced from `start` on into the explanation (while explaining).
    @inline(never)
    private mutating func explain(_ out: inout EngineOutput, from start: Int, newFrame: Bool = false) {
        explainer.observe(
            &out.events, from: start, frame: assembler.frame, newFrame: newFrame, idle: recognizer.isIdle, tracing: recognizer.tracing,
            context: recognizer.context)
    }

    /// Whether the recognizer's transitions and decisions are traced ("possible -> moved inward from the
    /// left edge -> edge-swipe #3"). Off, no trace string is built.
    public var tracing: Bool {
        get { recognizer.tracing }
        set { recognizer.tracing = newValue }
    }

    /// Feeds one event: deadlines it passed fire first; the gestures, warnings and traces it completes are
    /// appended to `out.events`, the touch decisions it makes (passthrough: `settings.withholdsTouches`) to
    /// `out.touches`.
    public mutating func process(_ event: InputEvent, into out: inout EngineOutput) {
        step(event, &out)
        lastEventTimeMicroseconds = event.timeMicroseconds
    }

    /// Feeds events in order, exactly as `process` would one at a time (how the daemon feeds what one read
    /// of a device brought, without a call per event).
    public mutating func process(_ events: UnsafeBufferPointer<InputEvent>, into out: inout EngineOutput) {
        guard let last = events.last else { return }
        for event in events { step(event, &out) }
        lastEventTimeMicroseconds = last.timeMicroseconds
    }

    /// Feeds events in order (a recording, a test's script).
    public mutating func process(_ events: [InputEvent], into out: inout EngineOutput) {
        events.withUnsafeBufferPointer { process($0, into: &out) }
    }

    @inline(__always)
    private mutating func step(_ event: InputEvent, _ out: inout EngineOutput) {
        let time = event.timeMicroseconds
        if time >= recognizer.deadlines.earliestTime { passDeadlines(upTo: time, &out) }
        switch assembler.process(event) {
        case .pending:
            break
        case .frame:
            recognizeFrame(&out)
        case .dropped:
            dropped(at: time, &out)
        }
        if !assembler.warnings.isEmpty { takeWarnings(&out) }
    }

    @inline(never)
    private mutating func passDeadlines(upTo time: Int64, _ out: inout EngineOutput) {
        let start = out.events.count
        recognize(&out) { $0.fireDeadlines(upTo: time, frame: $1, &$2) }
        if recognizer.explaining { explain(&out, from: start) }
    }

    /// The recognizer's turn at the frame a SYN_REPORT completed.
    @inline(never)
    private mutating func recognizeFrame(_ out: inout EngineOutput) {
        if plainFrames {
            recognize(&out) { $0.handle($1, &$2) }
        } else {
            specialFrame(&out)
        }
    }

    /// A frame while the pen's arbitration runs or the engine explains.
    @inline(never)
    private mutating func specialFrame(_ out: inout EngineOutput) {
        let start = out.events.count
        if case .clear = penArbitration {
            recognize(&out) { $0.handle($1, &$2) }
        } else {
            arbitratedFrame(&out)
        }
        if recognizer.explaining { explain(&out, from: start, newFrame: true) }
    }

    /// A frame while the pen is in proximity or has just left: nothing is recognized and every finger down
    /// rests; once the arbitration time is over, the frame is recognized as usual (fingers that landed
    /// before rest until they lift).
    @inline(never)
    private mutating func arbitratedFrame(_ out: inout EngineOutput) {
        if case .settling(let until) = penArbitration, assembler.frame.timeMicroseconds >= until {
            penArbitration = .clear
            if recognizer.tracing { out.events.append(.trace("pen arbitration over")) }
            recognize(&out) { $0.handle($1, &$2) }
            return
        }
        recognize(&out) { r, frame, _ in r.suppress(frame) }
    }

    /// A pen of this panel came into proximity (`true`) or left it (`false`) at `time` (event clock, the
    /// pen's own event time). Coming in, the gesture running is cancelled, touches held back are released
    /// to applications, and until the pen has been gone for `penArbitrationSeconds` no touch starts a
    /// gesture and none is held back or claimed.
    public mutating func penProximity(
        _ inProximity: Bool, atMicroseconds time: Int64, into out: inout EngineOutput
    ) {
        switch (penArbitration, inProximity) {
        case (.clear, true), (.settling, true):
            let start = out.events.count
            recognize(&out) { $0.fireDeadlines(upTo: time, frame: $1, &$2) }
            penArbitration = .penInProximity
            if recognizer.tracing { out.events.append(.trace("pen in proximity: no gestures")) }
            recognize(&out) { $0.handle(.penArrived(atMicroseconds: time), frame: $1, &$2) }
            if recognizer.explaining { explain(&out, from: start) }
        case (.penInProximity, false):
            penArbitration = .settling(untilMicroseconds: time + Int64(GestureEngine.penArbitrationSeconds * 1_000_000))
            if recognizer.tracing { out.events.append(.trace("pen out of proximity: no gestures for \(GestureEngine.penArbitrationSeconds) s")) }
        case (.penInProximity, true), (.clear, false), (.settling, false):
            break
        }
    }

    @inline(never)
    private mutating func takeWarnings(_ out: inout EngineOutput) {
        for w in assembler.warnings { out.events.append(.warning(w)) }
        assembler.warnings.removeAll()
    }

    /// The kernel dropped events and libevdev resynchronised the device: gestures in flight are cancelled,
    /// and the sync events that follow are fed through `process` as usual.
    public mutating func eventsDropped(atMicroseconds time: Int64, into out: inout EngineOutput) {
        let start = out.events.count
        recognize(&out) { $0.fireDeadlines(upTo: time, frame: $1, &$2) }
        if recognizer.explaining { explain(&out, from: start) }
        dropped(at: time, &out)
    }

    private mutating func dropped(at time: Int64, _ out: inout EngineOutput) {
        out.events.append(
            .warning(
                CoreWarning(
                    timeMicroseconds: time,
                    message: "\(escapingControlCharacters(device.name)): events were dropped (SYN_DROPPED); gestures in flight are cancelled")))
        let start = out.events.count
        recognize(&out) { $0.handle(.dropped(atMicroseconds: time), frame: $1, &$2) }
        if recognizer.explaining { explain(&out, from: start) }
    }

    /// Runs the recognizer on the latest frame (read where the assembler keeps it, not copied) with the
    /// caller's arrays as its outputs (moved in and back out, not copied).
    private mutating func recognize(
        _ out: inout EngineOutput,
        _ body: (inout GestureRecognizer, TouchFrame, inout Outputs) -> Void
    ) {
        var outputs = Outputs(events: [], touches: [], ids: ids)
        swap(&outputs.events, &out.events)
        swap(&outputs.touches, &out.touches)
        body(&recognizer, assembler.frame, &outputs)
        swap(&outputs.events, &out.events)
        swap(&outputs.touches, &out.touches)
    }

    /// Starts from what the panel has when gestured starts reading it (`PanelState`, libevdev's view at
    /// open) instead of from nothing: the slots' values and the current slot are taken over, and the
    /// contacts already down rest until they lift (they landed before gestured saw them, and belong to
    /// whoever read the panel then). Call before the first event.
    public mutating func adopt(_ state: PanelState, atMicroseconds time: Int64, into out: inout EngineOutput) {
        let singleTouch: Bool
        switch device.touchProtocol {
        case .multitouchSlots: singleTouch = false
        case .singleTouch, .multitouchProtocolA, .unusable: singleTouch = true
        }
        for event in state.events(atMicroseconds: time, singleTouch: singleTouch) { _ = assembler.process(event) }
        lastEventTimeMicroseconds = time
        if !assembler.frame.contacts.isEmpty {
            recognize(&out) { $0.waitForLift($1, &$2) }
        }
        assembler.warnings.removeAll()
    }

    /// How this panel's palms are told by their size (nil: it reports no contact size).
    public var palmSize: PalmSizeThreshold? { assembler.palmSize }

    /// The latest frame (the fingers down at the last SYN_REPORT, with where the panel reports each): what
    /// a passthrough's virtual pointer follows (TouchPointer).
    public var latestFrame: TouchFrame { assembler.frame }

    /// The contacts (`Contact.serial`) of the fingers the recognizer follows now: those of the gesture
    /// that began, when read after the operation that began it (a one-finger hold's finger, which the
    /// virtual pointer takes from the app).
    public var followedSerials: [UInt64] { recognizer.followedSerials }

    /// The slot the panel's next slot events apply to, as of the last event.
    public var currentSlot: Int { assembler.currentSlot }

    /// The serial (`Contact.serial`) of the contact down in multitouch slot `slot` as of the last frame,
    /// nil when the slot is empty: how a passthrough's `TouchForwarder` ties decisions to slots.
    public func contactSerial(inSlot slot: Int) -> UInt64? { assembler.contactSerial(inSlot: slot) }

    /// When `advance` has something to report (fingers that stopped moving), in event-clock
    /// microseconds; nil when nothing waits on time (an idle engine never needs waking).
    @inlinable public var nextDeadlineMicroseconds: Int64? { recognizer.nextDeadlineMicroseconds }

    /// Reports what became true by `time` without new input: every deadline due by then fires.
    public mutating func advance(toMicroseconds time: Int64, into out: inout EngineOutput) {
        let start = out.events.count
        recognize(&out) { $0.fireDeadlines(upTo: time, frame: $1, &$2) }
        if recognizer.explaining { explain(&out, from: start) }
    }

    /// The device is going away (or the daemon stops): deadlines due by `time` fire, then a gesture in
    /// flight is cancelled at `time`, and nothing begins until the fingers now down have lifted.
    public mutating func cancelAll(atMicroseconds time: Int64, into out: inout EngineOutput) {
        let start = out.events.count
        recognize(&out) {
            $0.fireDeadlines(upTo: time, frame: $1, &$2)
            $0.handle(.cancelled(atMicroseconds: time), frame: $1, &$2)
        }
        if recognizer.explaining {
            // Whatever is down is gone for the engine: the sequence open now is over.
            explain(&out, from: start)
            explainer.finish(at: time, into: &out.events)
        }
    }

    /// As if the device had been unplugged and plugged back in at `time`: a gesture in flight is
    /// cancelled and every touch forgotten (a replay's pass ended; the next starts from nothing).
    public mutating func reset(atMicroseconds time: Int64, into out: inout EngineOutput) {
        cancelAll(atMicroseconds: time, into: &out)
        rebuild()
    }

    /// New thresholds and geometry (a configuration reload, a turned screen, passthrough switched). A
    /// gesture in flight is cancelled, and recognition restarts once every finger now down has lifted.
    public mutating func reconfigure(
        settings: RecognizerSettings, geometry geometrySettings: GeometrySettings, atMicroseconds time: Int64,
        into out: inout EngineOutput
    ) {
        cancelAll(atMicroseconds: time, into: &out)
        guard let axes = device.positionAxes else { return }
        self.settings = settings
        geometry = DeviceGeometry(xAxis: axes.x, yAxis: axes.y, settings: geometrySettings)
        assembler.geometry = geometry
        assembler.palmSize = PalmSizeThreshold(device: device, geometry: geometry, palmSizeMM: settings.palmSizeMM)
        renewRecognizer()
        if !assembler.frame.contacts.isEmpty {
            recognize(&out) { $0.waitForLift($1, &$2) }
        }
    }

    /// A fresh assembler and recognizer with the same settings, geometry, id source, tracing and updates.
    private mutating func rebuild() {
        penArbitration = .clear
        assembler = FrameAssembler(geometry: geometry, touchProtocol: device.touchProtocol, palmSize: assembler.palmSize)
        // The new assembler numbers contacts from 1 again (the sequence was finished by `cancelAll`).
        explainer = Explainer()
        renewRecognizer()
    }

    /// A new recognizer for the settings and geometry in force, keeping what the driver turned on (tracing,
    /// updates, explaining) and the exclusions in force.
    private mutating func renewRecognizer() {
        let (tracing, reportsUpdates, explaining) = (recognizer.tracing, recognizer.reportsUpdates, recognizer.explaining)
        recognizer = GestureRecognizer(settings: settings, screenSizeMM: geometry.screenSizeMM)
        recognizer.tracing = tracing
        recognizer.reportsUpdates = reportsUpdates
        recognizer.explaining = explaining
        recognizer.setExclusions(exclusions)
    }
}

extension Array where Element == EngineEvent {
    /// The gesture events among the outputs, in order.
    public var gestures: [GestureEvent] {
        compactMap { if case .gesture(let e) = $0 { return e } else { return nil } }
    }
}

extension Array where Element == EngineEvent {
    /// The warnings among the outputs, in order.
    public var warnings: [CoreWarning] {
        compactMap { if case .warning(let w) = $0 { return w } else { return nil } }
    }

    /// What a palm or the pen stopped (only while tracing), in order.
    public var stops: [GestureStop] {
        compactMap { if case .stopped(let s) = $0 { return s } else { return nil } }
    }

    /// The trace lines among the outputs, in order.
    public var traces: [String] {
        compactMap { if case .trace(let t) = $0 { return t } else { return nil } }
    }
}
