/// One evdev event as the kernel delivers it (`struct input_event`), with its timestamp in microseconds.
///
/// Recordings and live devices both arrive as a stream of these, so a recording replays through exactly
/// the same code the daemon runs.
public struct InputEvent: Equatable, Sendable {
    /// Event timestamp in microseconds (CLOCK_MONOTONIC on a live device, whatever the recording holds).
    public var timeMicroseconds: Int64
    public var type: UInt16
    public var code: UInt16
    public var value: Int32

    public init(timeMicroseconds: Int64, type: UInt16, code: UInt16, value: Int32) {
        self.timeMicroseconds = timeMicroseconds
        self.type = type
        self.code = code
        self.value = value
    }
}

/// The evdev constants GestureCore needs, from linux/input-event-codes.h (kept here so the core needs no
/// system headers).
public enum EV {
    public static let syn: UInt16 = 0x00
    public static let key: UInt16 = 0x01
    public static let abs: UInt16 = 0x03
    public static let msc: UInt16 = 0x04
}

public enum MSC {
    public static let timestamp: UInt16 = 0x05
}

public enum SYN {
    public static let report: UInt16 = 0
    public static let config: UInt16 = 1
    public static let mtReport: UInt16 = 2
    public static let dropped: UInt16 = 3
}

public enum BTN {
    public static let touch: UInt16 = 0x14a
    public static let toolFinger: UInt16 = 0x145
    public static let toolPen: UInt16 = 0x140
    public static let toolRubber: UInt16 = 0x141
}

public enum ABS {
    public static let x: UInt16 = 0x00
    public static let y: UInt16 = 0x01
    public static let pressure: UInt16 = 0x18
    /// A pen's hover distance and tilt (read by the daemon to tell a pen that never moves).
    public static let distance: UInt16 = 0x19
    public static let tiltX: UInt16 = 0x1a
    public static let tiltY: UInt16 = 0x1b
    public static let mtSlot: UInt16 = 0x2f
    public static let mtTouchMajor: UInt16 = 0x30
    public static let mtTouchMinor: UInt16 = 0x31
    public static let mtWidthMajor: UInt16 = 0x32
    public static let mtOrientation: UInt16 = 0x34
    public static let mtPositionX: UInt16 = 0x35
    public static let mtPositionY: UInt16 = 0x36
    public static let mtToolType: UInt16 = 0x37
    public static let mtTrackingID: UInt16 = 0x39
    public static let mtPressure: UInt16 = 0x3a
    public static let mtDistance: UInt16 = 0x3b
}

public enum MTTool {
    public static let finger: Int32 = 0
    public static let pen: Int32 = 1
    public static let palm: Int32 = 2
}

public enum INPUT_PROP {
    public static let pointer: Int = 0x00
    public static let direct: Int = 0x01
}
