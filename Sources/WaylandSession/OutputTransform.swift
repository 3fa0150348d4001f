// What an output's transform means for a touchscreen on it.
//
// wl_output's `transform` (wayland.xml, enum wl_output.transform) is the transform the compositor applies
// to buffer contents on that output: "90" is a rotation of 90 degrees counter-clockwise, the flipped
// values a flip around the vertical axis followed by that rotation. A picture drawn turned by T degrees
// counter-clockwise on the panel is upright for a user who turned the device T degrees clockwise from its
// natural position. So transform T is gestured's orientation T (degrees clockwise, DeviceOrientation):
// normal 0, 90 90, 180 180, 270 270. A flipped transform mirrors the picture, which no turn of the device
// undoes and gestured's orientation cannot express: those are reported, never mapped.
//
// (sway's `output NAME transform 90` turns the picture 90 degrees clockwise, its own convention, and so
// publishes wl_output transform 270: gestured's orientation 270, the panel's top edge on the user's left.)

/// wl_output.transform, by its protocol value.
public enum OutputTransform: UInt32, CaseIterable, Equatable, Sendable {
    case normal = 0
    case rotated90 = 1
    case rotated180 = 2
    case rotated270 = 3
    case flipped = 4
    case flipped90 = 5
    case flipped180 = 6
    case flipped270 = 7

    /// The protocol's names (normal, 90, ..., flipped-270), as sway and wlr-randr write them.
    public var name: String {
        switch self {
        case .normal: return "normal"
        case .rotated90: return "90"
        case .rotated180: return "180"
        case .rotated270: return "270"
        case .flipped: return "flipped"
        case .flipped90: return "flipped-90"
        case .flipped180: return "flipped-180"
        case .flipped270: return "flipped-270"
        }
    }

    /// Whether the picture is mirrored.
    public var isFlipped: Bool { rawValue & 4 != 0 }

    /// The degrees the user turned the device clockwise so that the picture is upright (gestured's
    /// orientation): the transform's counter-clockwise rotation. Nil for a mirrored picture.
    public var clockwiseDeviceDegrees: Int? {
        isFlipped ? nil : Int(rawValue) * 90
    }
}
