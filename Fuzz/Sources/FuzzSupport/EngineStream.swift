import GestureCore
import GestureVocabulary

/// A device and an input stream built from a fuzzer's bytes, so that a mutated byte makes a small change:
/// a different axis range, one more finger, a longer pause, a dropped report. Short inputs are padded with
/// zeros (defaults), so every byte string is a valid stream.
///
/// Layout: a 24-byte header, then operations of 1 to 11 bytes each.
///   header: flags (bits 0-1: 0-2 multitouch slots, 3 single-touch; bit 2 flip x; bit 3 flip y; bits 4-5
///           rotation; bit 6 a configured panel size; bit 7 a calibration matrix), slot count - 1,
///           x minimum, x maximum, y minimum, y maximum (Int32 little-endian each), x and y resolution,
///           recognizer settings variant, panel size byte, calibration byte.
///   operation: one byte whose low 4 bits choose it (see `Operation.decode`), then its operands.
public struct EngineStream {
    public enum Operation: Equatable {
        /// An evdev event through the engine, at the stream's current time.
        case event(type: UInt16, code: UInt16, value: Int32)
        /// The clock moves (SYN_REPORT operations also move it by their own delta).
        case wait(microseconds: Int64)
        /// The daemon's timer fires now (it may fire late; deadlines due before `now` are reported).
        case timer
        /// libevdev reports SYN_DROPPED and resynchronises: gestures in flight are cancelled.
        case eventsDropped
        /// The device is reset (read error recovery): in-flight gestures cancelled, a fresh engine.
        case reset
        /// A configuration reload with one of the settings variants.
        case reconfigure(variant: UInt8)
    }

    public var device: DeviceDescription
    public var geometry: GeometrySettings
    public var settings: RecognizerSettings
    public var startMicroseconds: Int64 = 1_000_000_000
    public var operations: [Operation]

    public init(device: DeviceDescription, geometry: GeometrySettings, settings: RecognizerSettings, operations: [Operation]) {
        self.device = device
        self.geometry = geometry
        self.settings = settings
        self.operations = operations
    }

    /// Recognizer settings a configuration file can give (every value inside the ranges GestureConfig
    /// accepts), so a gesture stream that breaks an invariant is a bug, not an impossible configuration.
    public static func settingsVariant(_ v: UInt8) -> RecognizerSettings {
        var s = RecognizerSettings()
        switch v % 8 {
        case 0: break
        case 1:
            s.edgeSwipe.maxFingers = 3
            s.pan.minFingers = 2
        case 2:
            s.edgeSwipe.enabled = false
            s.pinch.minFingers = 3
        case 3:
            s.pan.enabled = false
            s.pinch.enabled = false
        case 4:
            s.slopMM = 0.5
            s.velocityWindowSeconds = 0.01
            s.fingerLandingWindowSeconds = 0
        case 5:
            s.slopMM = 20
            s.angleToleranceDegrees = 45
            s.edgeZones[.top] = EdgeZone(enabled: true, widthMM: 30)
            s.edgeZones[.left] = EdgeZone(enabled: false, widthMM: 5)
        case 6:
            s.fingerLandingWindowSeconds = 1
            s.pinch.beginRotationDegrees = 1
            s.pinch.beginSpanChangeMM = 0.5
            s.pinchDifferentialRatio = 0
        default:
            s.edgeSwipe.enabled = false
            s.pan.maxFingers = 10
            s.pinch.maxFingers = 10
            s.pan.commitDistanceMM = 1
        }
        return s
    }

    /// Calibration entries a udev LIBINPUT_CALIBRATION_MATRIX or the configuration can hold: the usual
    /// rotations and offsets, and finite extremes.
    static let calibrationValues: [Double] = [0, 1, -1, 0.5, 2, -0.25, 1e-300, 1e300, -1e300, 3]

    /// Decodes `bytes` (any bytes) into a stream.
    public init(bytes: UnsafeRawBufferPointer) {
        var r = ByteReader(bytes)
        let flags = r.u8()
        let slots = Int32(r.u8())
        let xMin = r.i32(), xMax = r.i32(), yMin = r.i32(), yMax = r.i32()
        let xRes = Int32(r.u8()), yRes = Int32(r.u8())
        let variant = r.u8()
        let panel = r.u8()
        let calibration = r.u8()
        var axes: [UInt16: AxisInfo] = [:]
        let x = AxisInfo(minimum: xMin, maximum: xMax, resolution: xRes)
        let y = AxisInfo(minimum: yMin, maximum: yMax, resolution: yRes)
        let singleTouch = flags & 3 == 3
        if singleTouch {
            axes[ABS.x] = x
            axes[ABS.y] = y
        } else {
            axes[ABS.mtPositionX] = x
            axes[ABS.mtPositionY] = y
            axes[ABS.mtSlot] = AxisInfo(minimum: 0, maximum: slots)
            axes[ABS.mtTrackingID] = AxisInfo(minimum: 0, maximum: 65535)
            if flags & 3 == 1 { axes[ABS.x] = x; axes[ABS.y] = y }
            if flags & 3 == 2 { axes[ABS.mtToolType] = AxisInfo(minimum: 0, maximum: 2) }
        }
        device = DeviceDescription(
            name: "fuzz panel", busType: 3, vendor: 0x1234, product: 0x5678, properties: [INPUT_PROP.direct],
            axes: axes, keys: [BTN.touch])
        var g = GeometrySettings()
        g.flipX = flags & 4 != 0
        g.flipY = flags & 8 != 0
        g.rotation = Rotation.allCases[Int(flags >> 4) & 3]
        if flags & 64 != 0 {
            // Configured sizes are positive millimetres (the configuration refuses others).
            g.panelSizeMM = (Double(panel & 15) * 20 + 0.5, Double(panel >> 4) * 20 + 0.5)
        }
        if flags & 128 != 0 {
            var m: [Double] = []
            var c = UInt32(calibration) &* 2_654_435_761
            for _ in 0..<6 {
                m.append(Self.calibrationValues[Int(c % UInt32(Self.calibrationValues.count))])
                c /= UInt32(Self.calibrationValues.count)
            }
            // The identity-like default for the bytes 0: a 90° rotation matrix, the commonest udev one.
            g.calibration = calibration == 0 ? [0, 1, 0, -1, 0, 1] : m
        }
        geometry = g
        settings = Self.settingsVariant(variant)
        operations = []
        var trackingID: Int32 = 1
        let positionCodes = singleTouch ? (ABS.x, ABS.y) : (ABS.mtPositionX, ABS.mtPositionY)
        // Mostly inside the axis range, sometimes a little outside (panels report such values).
        func position(_ axis: AxisInfo, _ raw: UInt16) -> Int32 {
            let span = Int64(axis.maximum) - Int64(axis.minimum)
            let margin = max(span, 0) / 16
            let v = Int64(axis.minimum) - margin + (Int64(raw) * (max(span, 0) + 2 * margin)) / 65535
            return Int32(clamping: v)
        }
        let extraCodes: [UInt16] = [ABS.pressure, ABS.mtPressure, ABS.mtTouchMajor, ABS.mtTouchMinor,
                                    ABS.mtWidthMajor, ABS.mtOrientation, ABS.mtDistance, ABS.mtToolType]
        while !r.atEnd {
            let op = r.u8()
            switch op & 15 {
            case 0:
                // A frame ends: up to 12.7 ms in 0.1 ms steps, or up to 1.28 s in 10 ms steps.
                let d = r.u8()
                operations.append(.wait(microseconds: d < 128 ? Int64(d) * 100 : Int64(d - 127) * 10_000))
                operations.append(.event(type: EV.syn, code: SYN.report, value: 0))
            case 1:
                operations.append(.event(type: EV.abs, code: ABS.mtSlot, value: Int32(r.u8() % 20)))
            case 2:
                if singleTouch {
                    operations.append(.event(type: EV.key, code: BTN.touch, value: 1))
                } else {
                    operations.append(.event(type: EV.abs, code: ABS.mtTrackingID, value: trackingID))
                    trackingID = trackingID == 65535 ? 0 : trackingID + 1
                }
            case 3:
                if singleTouch {
                    operations.append(.event(type: EV.key, code: BTN.touch, value: 0))
                } else {
                    operations.append(.event(type: EV.abs, code: ABS.mtTrackingID, value: -1))
                }
            case 4:
                operations.append(.event(type: EV.abs, code: positionCodes.0, value: position(x, r.u16())))
            case 5:
                operations.append(.event(type: EV.abs, code: positionCodes.1, value: position(y, r.u16())))
            case 6:
                operations.append(.event(type: EV.abs, code: positionCodes.0, value: position(x, r.u16())))
                operations.append(.event(type: EV.abs, code: positionCodes.1, value: position(y, r.u16())))
            case 7:
                operations.append(.event(type: EV.abs, code: ABS.mtToolType, value: Int32(r.u8() % 4)))
            case 8:
                operations.append(
                    .event(type: EV.abs, code: extraCodes[Int(op >> 4) % extraCodes.count], value: r.i32()))
            case 9:
                operations.append(.event(type: EV.syn, code: SYN.dropped, value: 0))
            case 10:
                // Anything at all: any type, code and value.
                let type = UInt16(r.u8())
                let code = r.u16()
                operations.append(.event(type: type, code: code, value: r.i32()))
            case 11:
                // A jump of the clock, forwards or backwards (a replayed file, a clock set back).
                operations.append(.wait(microseconds: Int64(r.i32())))
            case 12:
                operations.append(.timer)
            case 13:
                operations.append(.eventsDropped)
            case 14:
                operations.append(op >> 4 == 0 ? .reset : .reconfigure(variant: op >> 4))
            default:
                // The next events come in the same frame, some time later (a slow bus).
                operations.append(.wait(microseconds: Int64(op >> 4) * 1000))
            }
        }
    }

    /// The bytes that decode to `events` on `device` exactly (header from the device, each event as an
    /// operation "anything at all" after a clock jump): seeds the engine corpus with real recordings.
    public static func encode(device: DeviceDescription, events: [InputEvent]) -> [UInt8]? {
        guard let axes = device.positionAxes else { return nil }
        var out: [UInt8] = []
        let singleTouch = device.touchProtocol == .singleTouch
        let slots = device.axes[ABS.mtSlot].map { max(0, min(255, $0.maximum)) } ?? 0
        out.append(singleTouch ? 3 : 0)
        out.append(UInt8(slots))
        for v in [axes.x.minimum, axes.x.maximum, axes.y.minimum, axes.y.maximum] {
            withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) }
        }
        out.append(UInt8(clamping: axes.x.resolution))
        out.append(UInt8(clamping: axes.y.resolution))
        out.append(contentsOf: [0, 0, 0])
        var time = events.first?.timeMicroseconds ?? 0
        for e in events {
            var delta = e.timeMicroseconds - time
            while delta != 0 {
                let step = Int32(clamping: delta)
                out.append(11)
                withUnsafeBytes(of: step.littleEndian) { out.append(contentsOf: $0) }
                delta -= Int64(step)
            }
            time = e.timeMicroseconds
            out.append(10)
            out.append(UInt8(truncatingIfNeeded: e.type))
            withUnsafeBytes(of: e.code.littleEndian) { out.append(contentsOf: $0) }
            withUnsafeBytes(of: e.value.littleEndian) { out.append(contentsOf: $0) }
        }
        return out
    }
}

/// Reads integers from the input; past its end every read is 0.
struct ByteReader {
    let bytes: UnsafeRawBufferPointer
    var offset = 0
    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }
    var atEnd: Bool { offset >= bytes.count }
    mutating func u8() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }
    mutating func u16() -> UInt16 { UInt16(u8()) | UInt16(u8()) << 8 }
    mutating func i32() -> Int32 {
        Int32(bitPattern: UInt32(u16()) | UInt32(u16()) << 16)
    }
}
