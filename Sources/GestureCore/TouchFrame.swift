import GestureVocabulary

/// A position in the panel's own units (ABS_MT_POSITION_X/Y as the kernel reports them, clamped to the
/// axes' ranges), before flips, rotation and calibration: where a device with the panel's axes (the
/// passthrough copy, the virtual pointer) puts the finger, the compositor mapping both alike.
public struct DevicePoint: Equatable, Sendable {
    public var x: Int32
    public var y: Int32
    public init(x: Int32, y: Int32) {
        self.x = x
        self.y = y
    }
}

/// One finger on the screen in a frame, in screen coordinates.
public struct Contact: Equatable, Sendable {
    /// Unique for the life of the contact (never reused, unlike tracking ids and slots).
    public var serial: UInt64
    /// Normalised screen position, [0,1]², origin top-left.
    public var position: Vector2
    /// Millimetres from the screen's top-left corner.
    public var positionMM: Vector2
    /// Where the panel reports it, in its own units.
    public var devicePosition: DevicePoint

    public init(serial: UInt64, position: Vector2, positionMM: Vector2, devicePosition: DevicePoint = DevicePoint(x: 0, y: 0)) {
        self.serial = serial
        self.position = position
        self.positionMM = positionMM
        self.devicePosition = devicePosition
    }
}

/// The state of the screen at one SYN_REPORT: the fingers down, and the fingers that left since the
/// last frame, told apart by how they left.
public struct TouchFrame: Sendable {
    public var timeMicroseconds: Int64 = 0
    /// Fingers down, in slot order. Palms are not fingers.
    public var contacts: [Contact] = []
    /// Fingers lifted since the last frame.
    public var lifted: [UInt64] = []
    /// Fingers lost since the last frame without a lift: the contact turned into a palm.
    public var lost: [UInt64] = []

    public init() {
        contacts.reserveCapacity(10)
        lifted.reserveCapacity(10)
        lost.reserveCapacity(4)
    }

    /// Starts the frame of the next SYN_REPORT, keeping the arrays' storage: its contacts are then set
    /// one by one (`setContact`) and the rest dropped (`keepContacts`). Lifts and palms are rare: an empty
    /// array is left alone (emptying one still costs a call into the standard library).
    mutating func reset(time: Int64) {
        timeMicroseconds = time
        if !lifted.isEmpty { lifted.removeAll(keepingCapacity: true) }
        if !lost.isEmpty { lost.removeAll(keepingCapacity: true) }
    }

    /// Sets the contact at `index` (at most `contacts.count`): most frames have the fingers of the last
    /// one, so the contact is written over its predecessor rather than the array emptied and refilled.
    @inline(__always)
    mutating func setContact(_ index: Int, _ contact: Contact) {
        if index < contacts.count { contacts[index] = contact } else { contacts.append(contact) }
    }

    /// Drops the contacts from `count` on (the previous frame's that were not written over).
    @inline(__always)
    mutating func keepContacts(_ count: Int) {
        if contacts.count > count { contacts.removeSubrange(count...) }
    }
}
