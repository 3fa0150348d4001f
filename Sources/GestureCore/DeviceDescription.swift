/// The range and resolution of one absolute axis (`struct input_absinfo`).
public struct AxisInfo: Equatable, Sendable {
    public var minimum: Int32
    public var maximum: Int32
    public var fuzz: Int32
    public var flat: Int32
    /// Units per millimetre; 0 when the device does not report it (many touchscreens do not).
    public var resolution: Int32

    public init(minimum: Int32, maximum: Int32, fuzz: Int32 = 0, flat: Int32 = 0, resolution: Int32 = 0) {
        self.minimum = minimum
        self.maximum = maximum
        self.fuzz = fuzz
        self.flat = flat
        self.resolution = resolution
    }

    /// Number of device units the axis spans (at least 1, so a broken axis never divides by zero).
    public var span: Double { Double(max(1, Int64(maximum) - Int64(minimum))) }
}

/// How a device reports its contacts.
public enum TouchProtocol: Equatable, Sendable {
    /// Multitouch protocol B: slots and tracking ids.
    case multitouchSlots(slotCount: Int)
    /// Single-touch: ABS_X/ABS_Y and BTN_TOUCH, no MT axes.
    case singleTouch
    /// Multitouch protocol A (SYN_MT_REPORT, no slots): refused, see docs/gestures.md.
    case multitouchProtocolA
    /// No usable position axes.
    case unusable
}

/// What the core needs to know of an input device: its identity and its axes. Built from an evemu header
/// in a recording, or from libevdev on a live device.
public struct DeviceDescription: Equatable, Sendable {
    public var name: String
    public var busType: UInt16
    public var vendor: UInt16
    public var product: UInt16
    public var version: UInt16
    /// INPUT_PROP_* bits the device declares.
    public var properties: Set<Int>
    /// Absolute axes by ABS_* code.
    public var axes: [UInt16: AxisInfo]
    /// EV_KEY codes the device declares.
    public var keys: Set<UInt16>

    public init(
        name: String, busType: UInt16 = 0, vendor: UInt16 = 0, product: UInt16 = 0, version: UInt16 = 0,
        properties: Set<Int> = [], axes: [UInt16: AxisInfo] = [:], keys: Set<UInt16> = []
    ) {
        self.name = name
        self.busType = busType
        self.vendor = vendor
        self.product = product
        self.version = version
        self.properties = properties
        self.axes = axes
        self.keys = keys
    }

    public var touchProtocol: TouchProtocol {
        if axes[ABS.mtPositionX] != nil, axes[ABS.mtPositionY] != nil {
            if let slot = axes[ABS.mtSlot] {
                let count = Int(slot.maximum) - Int(slot.minimum) + 1
                return count >= 1 ? .multitouchSlots(slotCount: count) : .unusable
            }
            return .multitouchProtocolA
        }
        if axes[ABS.x] != nil, axes[ABS.y] != nil { return .singleTouch }
        return .unusable
    }

    /// The X and Y axes positions are read from: the MT axes where the device has them, else ABS_X/ABS_Y.
    public var positionAxes: (x: AxisInfo, y: AxisInfo)? {
        if let x = axes[ABS.mtPositionX], let y = axes[ABS.mtPositionY] { return (x, y) }
        if let x = axes[ABS.x], let y = axes[ABS.y] { return (x, y) }
        return nil
    }

    /// True for direct-touch devices (touchscreens, INPUT_PROP_DIRECT); touchpads are indirect.
    public var isDirect: Bool { properties.contains(INPUT_PROP.direct) }

    /// "vvvv:pppp" in lower-case hex, as configuration sections match it.
    public var vendorProduct: String {
        func hex4(_ v: UInt16) -> String {
            let s = String(v, radix: 16)
            return String(repeating: "0", count: max(0, 4 - s.count)) + s
        }
        return "\(hex4(vendor)):\(hex4(product))"
    }
}
