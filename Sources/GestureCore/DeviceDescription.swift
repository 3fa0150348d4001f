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

/// What a device's ABS_MT_SLOT axis says, checked against how the kernel numbers slots: 0 to N-1.
public enum SlotAxis: Equatable, Sendable {
    /// The device has no ABS_MT_SLOT axis.
    case none
    /// 0…N-1, N slots, at most `FrameAssembler.maximumSlots`.
    case slots(Int)
    /// 0…N-1 with more slots than gestured follows (2147483648 for 0…2147483647): the first
    /// `FrameAssembler.maximumSlots` are followed, touches in the others are ignored.
    case capped(declared: Int64)
    /// A range that does not start at 0, or is empty (-5…-1, 3…1): it numbers no slot a kernel sends.
    case nonsense(minimum: Int32, maximum: Int32)
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

    /// The ABS_MT_SLOT axis, checked (`SlotAxis`).
    public var slotAxis: SlotAxis {
        guard let slot = axes[ABS.mtSlot] else { return .none }
        guard slot.minimum == 0, slot.maximum >= 0 else { return .nonsense(minimum: slot.minimum, maximum: slot.maximum) }
        let count = Int64(slot.maximum) + 1
        return count <= Int64(FrameAssembler.maximumSlots) ? .slots(Int(count)) : .capped(declared: count)
    }

    /// How the device reports contacts. A slot count is never more than `FrameAssembler.maximumSlots`
    /// (`SlotAxis.capped`), and a slot range that does not start at 0 makes the device unusable
    /// (`GestureEngine` says why).
    public var touchProtocol: TouchProtocol {
        if axes[ABS.mtPositionX] != nil, axes[ABS.mtPositionY] != nil {
            switch slotAxis {
            case .none: return .multitouchProtocolA
            case .slots(let count): return .multitouchSlots(slotCount: count)
            case .capped: return .multitouchSlots(slotCount: FrameAssembler.maximumSlots)
            case .nonsense: return .unusable
            }
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
