// Which orientation `gesturectl orientation --follow` gives each touchscreen: pure, from what the compositor
// says of its outputs and what the daemon says of its devices.
import GestureProtocol

/// What to do about one device.
public enum OrientationDecision: Equatable, Sendable {
    /// Give the device this orientation: its output `output` has transform `transform`.
    case follow(DeviceOrientation, output: String, transform: OutputTransform)
    /// The output's picture is mirrored (a flipped transform): no orientation matches; left as it is.
    case mirrored(output: String, transform: OutputTransform)
    /// The device's output (from WL_OUTPUT or --output) is not there now; followed when it comes (back).
    case outputMissing(String)
    /// Several outputs, and nothing says which is the device's: none is followed rather than a guess.
    case ambiguous(outputs: [String])
    /// The compositor has no output now.
    case noOutput

    /// One line for the log.
    public func described(device: DeviceInfo) -> String {
        let who = "\(device.id) (\(device.name))"
        switch self {
        case .follow(let o, let output, let transform):
            return "\(who) follows \(output): transform \(transform.name), orientation \(o.rawValue)"
        case .mirrored(let output, let transform):
            return "\(who): \(output) has the mirrored transform \(transform.name), which no orientation matches "
                + "(gestured turns, it does not mirror); left at orientation \(device.orientation.rawValue)"
        case .outputMissing(let output):
            return "\(who): its output \(output) is not there; followed when it comes"
        case .ambiguous(let outputs):
            return "\(who): the compositor has \(outputs.count) outputs (\(outputs.joined(separator: ", "))) and nothing says "
                + "which is this touchscreen's: following none. Set its WL_OUTPUT udev property, or pass --output NAME"
        case .noOutput:
            return "\(who): the compositor has no output now"
        }
    }
}

public enum OrientationPlan {
    /// The decision for `device`: its output is its `output` (WL_OUTPUT), else `outputOption` (--output),
    /// else the only output there is.
    public static func decide(device: DeviceInfo, outputs: [WaylandOutput], outputOption: String?) -> OrientationDecision {
        let named = outputs.filter { $0.name != nil }
        let wanted: String
        if let name = device.output ?? outputOption {
            wanted = name
        } else if outputs.count == 1, let only = outputs[0].name {
            wanted = only
        } else if outputs.isEmpty {
            return .noOutput
        } else {
            return .ambiguous(outputs: named.map { $0.name! })
        }
        guard let output = named.first(where: { $0.name == wanted }) else { return .outputMissing(wanted) }
        guard let degrees = output.transform.clockwiseDeviceDegrees, let orientation = DeviceOrientation(rawValue: degrees) else {
            return .mirrored(output: wanted, transform: output.transform)
        }
        return .follow(orientation, output: wanted, transform: output.transform)
    }
}
