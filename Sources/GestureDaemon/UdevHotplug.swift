import Glibc

/// Which input event nodes the daemon has open, and what a udev change means for them. Pure state: the
/// event loop asks it what to do with each discovered device or udev change, does it (opens an
/// `EvdevDevice`, or closes one and cancels its gestures) and reports back how that went.
///
/// It handles the udev race where `add` arrives before the node's group and mode are final (udevd applies
/// its rules, then a later rule or the seat manager changes them): an `add` that fails with EACCES leaves
/// the node waiting for permission, and its next `change` (or `add`) tries again. A permission problem is
/// logged once per node until the node opens; other refusals once per `add`.
public struct HotplugTracker: Equatable, Sendable {
    /// What the daemon knows of one node.
    public enum NodeState: Equatable, Sendable {
        /// An `EvdevDevice` is open on it.
        case open
        /// Opening failed with EACCES/EPERM; retried on the next `change` or `add`.
        case waitingForPermission
        /// The device is not one gestured can use (a touchpad, not evdev, a failed grab, ...); not retried
        /// until it is added again.
        case refused
    }

    /// What the event loop should do.
    public enum Action: Equatable, Sendable {
        /// Open this node (`EvdevDevice(path: device.devnode, udevTouchscreen: device.isTouchscreen, ...)`),
        /// then call `opened` or `openFailed`.
        case open(UdevInputDevice)
        /// Close the device on this node and cancel its gestures, then call `closed`.
        case close(devnode: String)
        case ignore
    }

    public private(set) var nodes: [String: NodeState] = [:]
    /// Nodes whose permission failure has been logged and not yet cured by a successful open.
    private var permissionLogged: Set<String> = []

    public init() {}

    /// A device found by `UdevDiscovery` at start-up: the same as a udev `add`.
    public mutating func discovered(_ device: UdevInputDevice, wanted: Bool) -> Action {
        handle(UdevDeviceChange(action: .add, device: device), wanted: wanted)
    }

    /// Decides what a udev change means. `wanted` says whether the daemon wants this device at all (udev
    /// tags it a touchscreen, or a configuration section names it and does not ignore it).
    public mutating func handle(_ change: UdevDeviceChange, wanted: Bool) -> Action {
        let devnode = change.device.devnode
        let state = nodes[devnode]
        switch change.action {
        case .remove:
            nodes[devnode] = nil
            switch state {
            case .open: return .close(devnode: devnode)
            case .waitingForPermission, .refused, nil: return .ignore
            }
        case .add:
            switch state {
            case .open:
                // Already open: the device was both enumerated and announced by the monitor.
                return .ignore
            case .waitingForPermission, .refused, nil:
                if wanted { return .open(change.device) }
                nodes[devnode] = nil
                return .ignore
            }
        case .change:
            switch state {
            case .open, .refused:
                return .ignore
            case .waitingForPermission, nil:
                // A node waiting for its permissions, or one a late rule has just tagged a touchscreen.
                return wanted ? .open(change.device) : .ignore
            }
        case .other:
            return .ignore
        }
    }

    /// The node opened.
    public mutating func opened(_ devnode: String) {
        nodes[devnode] = .open
        permissionLogged.remove(devnode)
    }

    /// Opening the node failed. Returns whether the failure deserves a warning in the log now: the first
    /// permission failure of a node, and every refusal; not the repeats, nor a node that vanished (ENODEV,
    /// or ENOENT: udev announced a node that was gone again before it could be opened).
    @discardableResult
    public mutating func openFailed(_ devnode: String, _ error: EvdevError) -> Bool {
        switch error {
        case .permissionDenied:
            nodes[devnode] = .waitingForPermission
            return permissionLogged.insert(devnode).inserted
        case .removed:
            nodes[devnode] = nil
            return false
        case .system(let cause) where cause.errno == ENOENT:
            // The node went away between udev's message and the open: a removal, not a problem.
            nodes[devnode] = nil
            return false
        case .notEvdevDevice, .unsupported, .ownPassthroughCopy, .grabFailed, .system:
            nodes[devnode] = .refused
            return true
        }
    }

    /// The node's device is not one the daemon reads (the configuration ignores it): not retried until it
    /// is added again.
    public mutating func refused(_ devnode: String) {
        nodes[devnode] = .refused
    }

    /// The device on the node was closed (after `.close`, or after a read reported it removed).
    public mutating func closed(_ devnode: String) {
        nodes[devnode] = nil
    }
}
