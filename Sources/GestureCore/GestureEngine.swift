/// Why a device cannot be used for gestures.
public struct UnsupportedDeviceError: Error, Equatable, Sendable, CustomStringConvertible {
    public var deviceName: String
    public var reason: String
    public var description: String { "\(deviceName): \(reason)" }
}

/// The whole pipeline for one device: evdev events -> frame assembler -> recognizer -> gesture events.
///
/// A value with no clock and no I/O: time is the events' timestamps, so a recording replays exactly as
/// the live daemon sees it.
public struct GestureEngine: Sendable {
    public let device: DeviceDescription
    public private(set) var geometry: DeviceGeometry
    private var assembler: FrameAssembler
    private var recognizer: GestureRecognizer
    private var warnings: [CoreWarning] = []

    public init(
        device: DeviceDescription, settings: RecognizerSettings = RecognizerSettings(),
        geometry geometrySettings: GeometrySettings = GeometrySettings()
    ) throws(UnsupportedDeviceError) {
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
        self.device = device
        let geometry = DeviceGeometry(xAxis: axes.x, yAxis: axes.y, settings: geometrySettings)
        self.geometry = geometry
        assembler = FrameAssembler(geometry: geometry, touchProtocol: proto)
        recognizer = GestureRecognizer(settings: settings, screenSizeMM: geometry.screenSizeMM)
        if geometry.sizeSource == .assumed {
            warnings.append(
                CoreWarning(
                    timeMicroseconds: 0,
                    message: "\(device.name) reports no axis resolution and no panel size is configured; "
                        + "assuming a \(Int(geometry.assumedDiagonalMM ?? 0)) mm diagonal "
                        + "(set panel_width_mm and panel_height_mm for this device)"))
        }
    }

    public var settings: RecognizerSettings { recognizer.settings }

    /// The id the next gesture gets; the daemon sets it so ids are unique across devices.
    public var nextGestureID: UInt64 {
        get { recognizer.nextGestureID }
        set { recognizer.nextGestureID = newValue }
    }

    /// Debug tracing of recognizer transitions ("possible -> moved inward from the left edge -> …").
    public var traceTransitions: Bool {
        get { recognizer.traceTransitions }
        set { recognizer.traceTransitions = newValue }
    }

    /// Feeds one event; gesture events it completes are appended to `out`.
    public mutating func process(_ event: InputEvent, into out: inout [GestureEvent]) {
        switch assembler.process(event) {
        case .pending:
            break
        case .frame:
            recognizer.handle(assembler.frame, into: &out)
        case .dropped:
            warnings.append(
                CoreWarning(
                    timeMicroseconds: event.timeMicroseconds,
                    message: "\(device.name): events were dropped (SYN_DROPPED); gestures in flight are cancelled"))
            recognizer.eventsDropped(at: event.timeMicroseconds, into: &out)
        }
        if !assembler.warnings.isEmpty {
            warnings.append(contentsOf: assembler.warnings)
            assembler.warnings.removeAll()
        }
    }

    /// Feeds a batch of events.
    public mutating func process(_ events: [InputEvent], into out: inout [GestureEvent]) {
        for e in events { process(e, into: &out) }
    }

    /// The kernel dropped events and libevdev resynchronised the device: the sync events that follow are
    /// fed through `process` as usual. Gestures in flight are cancelled.
    public mutating func eventsDropped(atMicroseconds time: Int64, into out: inout [GestureEvent]) {
        warnings.append(
            CoreWarning(
                timeMicroseconds: time,
                message: "\(device.name): events were dropped (SYN_DROPPED); gestures in flight are cancelled"))
        recognizer.eventsDropped(at: time, into: &out)
    }

    /// The device is going away: a gesture in flight is cancelled.
    public mutating func cancelAll(atMicroseconds time: Int64, into out: inout [GestureEvent]) {
        recognizer.cancelAll(at: time, into: &out)
    }

    /// When `advance` has something to report (fingers that stopped moving), in event-clock
    /// microseconds; nil when nothing waits on time.
    public var nextDeadlineMicroseconds: Int64? { recognizer.nextDeadlineMicroseconds }

    /// Reports what became true by `time` without new input.
    public mutating func advance(toMicroseconds time: Int64, into out: inout [GestureEvent]) {
        recognizer.advance(to: time, into: &out)
    }

    /// New thresholds and geometry (a configuration reload). A gesture in flight is cancelled and
    /// recognition restarts when every finger has lifted.
    public mutating func reconfigure(
        settings: RecognizerSettings, geometry geometrySettings: GeometrySettings, atMicroseconds time: Int64,
        into out: inout [GestureEvent]
    ) {
        recognizer.cancelAll(at: time, into: &out)
        guard let axes = device.positionAxes else { return }
        let geometry = DeviceGeometry(xAxis: axes.x, yAxis: axes.y, settings: geometrySettings)
        self.geometry = geometry
        assembler.geometry = geometry
        let id = recognizer.nextGestureID
        let traced = recognizer.traceTransitions
        recognizer = GestureRecognizer(settings: settings, screenSizeMM: geometry.screenSizeMM)
        recognizer.nextGestureID = id
        recognizer.traceTransitions = traced
        if !assembler.frame.contacts.isEmpty { recognizer.waitForLift() }
    }

    /// Recognizer transitions recorded since the last call (only while `traceTransitions` is on).
    public mutating func takeTransitions() -> [String] {
        defer { recognizer.transitions.removeAll() }
        return recognizer.transitions
    }

    /// Warnings raised since the last call.
    public mutating func takeWarnings() -> [CoreWarning] {
        defer { warnings.removeAll() }
        return warnings
    }
}
