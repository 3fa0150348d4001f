import GestureProtocol
import Testing

@testable import GestureDaemon

/// Which pens belong with which touchscreen (`PenPairing`, `UdevInputDevice.isPen`, `.physicalParent`),
/// and how the daemon says it (`PenLink`).
@Suite struct PenPairingTests {
    /// An i2c-hid panel of a convertible: the touchscreen and the pen are input devices of one HID device.
    static let hid = "/sys/devices/pci0000:00/0000:00:15.1/i2c_designware.1/i2c-2/i2c-WCOM50C1:00/0018:056A:5146.0001"
    static func device(
        _ node: String, parent: String, input: Int, properties: [String: String], name: String = "x", ids: String? = nil
    ) -> UdevInputDevice {
        UdevInputDevice(
            devnode: "/dev/input/" + node, syspath: "\(parent)/input/input\(input)/\(node)", name: name, properties: properties,
            vendorProduct: ids)
    }
    static let tablet = ["ID_INPUT": "1", "ID_INPUT_TABLET": "1"]
    static let touch = ["ID_INPUT": "1", "ID_INPUT_TOUCHSCREEN": "1"]

    static func with(_ base: [String: String], group: String?) -> [String: String] {
        var p = base
        p["LIBINPUT_DEVICE_GROUP"] = group
        return p
    }

    @Test func pensAreUdevTabletsButNotPadsNorTouchscreens() {
        #expect(Self.device("event6", parent: Self.hid, input: 6, properties: Self.tablet).isPen)
        #expect(!Self.device("event7", parent: Self.hid, input: 7, properties: Self.tablet.merging(["ID_INPUT_TABLET_PAD": "1"]) { $1 }).isPen)
        #expect(!Self.device("event5", parent: Self.hid, input: 5, properties: Self.touch.merging(["ID_INPUT_TABLET": "1"]) { $1 }).isPen)
        #expect(!Self.device("event5", parent: Self.hid, input: 5, properties: Self.touch).isPen)
    }

    @Test func physicalParents() {
        #expect(Self.device("event6", parent: Self.hid, input: 6, properties: [:]).physicalParent == Self.hid)
        // USB: the pen and the touchscreen on two interfaces of one device.
        let usb = "/sys/devices/pci0000:00/0000:00:14.0/usb1/1-7"
        let pen = Self.device("event12", parent: usb + "/1-7:1.0/0003:056A:5099.0002", input: 20, properties: [:])
        let screen = Self.device("event13", parent: usb + "/1-7:1.1/0003:056A:5099.0003", input: 21, properties: [:])
        #expect(pen.physicalParent == usb)
        #expect(screen.physicalParent == usb)
        #expect(UdevInputDevice.isUSBInterface("3-1.2:1.0"))
        #expect(!UdevInputDevice.isUSBInterface("0018:056A:5146.0001"))
        #expect(!UdevInputDevice.isUSBInterface("i2c-WCOM50C1:00"))
        // uinput devices have no physical parent: they pair with nothing by it.
        #expect(Self.device("event9", parent: "/sys/devices/virtual", input: 9, properties: [:]).physicalParent == nil)
        #expect(UdevInputDevice(devnode: "/dev/input/event1", syspath: "/sys/x", name: "x", properties: [:]).physicalParent == nil)
    }

    @Test func theGroupDecidesWhereUdevGivesBothOne() {
        let screen = Self.device("event5", parent: Self.hid, input: 5, properties: Self.with(Self.touch, group: "18/56a/5146:i2c-WCOM50C1:00"))
        let pen = Self.device("event6", parent: Self.hid, input: 6, properties: Self.with(Self.tablet, group: "18/56a/5146:i2c-WCOM50C1:00"))
        #expect(PenPairing.pairing(pen: pen, screen: screen, configured: nil) == .group)
        // Another group, though the same parent: not paired (as libinput would not), unless named.
        let other = Self.device("event6", parent: Self.hid, input: 6, properties: Self.with(Self.tablet, group: "3/56a/5099"))
        #expect(PenPairing.pairing(pen: other, screen: screen, configured: nil) == nil)
        #expect(PenPairing.pairing(pen: other, screen: screen, configured: "x") == .configuration)
    }

    @Test func theParentDecidesWhereUdevGivesNoGroup() {
        let screen = Self.device("event5", parent: Self.hid, input: 5, properties: Self.touch)
        let pen = Self.device("event6", parent: Self.hid, input: 6, properties: Self.with(Self.tablet, group: "18/56a/5146"))
        #expect(PenPairing.pairing(pen: pen, screen: screen, configured: nil) == .parent)
        let elsewhere = Self.device("event8", parent: "/sys/devices/pci0000:00/0000:00:14.0/usb1/1-3", input: 8, properties: Self.tablet)
        #expect(PenPairing.pairing(pen: elsewhere, screen: screen, configured: nil) == nil)
        // Two uinput devices share no parent.
        let virtualScreen = Self.device("event20", parent: "/sys/devices/virtual", input: 20, properties: Self.touch)
        let virtualPen = Self.device("event21", parent: "/sys/devices/virtual", input: 21, properties: Self.tablet)
        #expect(PenPairing.pairing(pen: virtualPen, screen: virtualScreen, configured: nil) == nil)
    }

    @Test func theConfigurationNamesAPenByNameOrIds() {
        let screen = Self.device("event5", parent: Self.hid, input: 5, properties: Self.touch)
        let pen = Self.device(
            "event8", parent: "/sys/devices/pci0000:00/0000:00:14.0/usb1/1-3", input: 8, properties: Self.tablet,
            name: "Wacom One Pen", ids: "056a:037a")
        #expect(PenPairing.pairing(pen: pen, screen: screen, configured: "Wacom*Pen") == .configuration)
        #expect(PenPairing.pairing(pen: pen, screen: screen, configured: "056a:037a") == .configuration)
        #expect(PenPairing.pairing(pen: pen, screen: screen, configured: "056a:0000") == nil)
        #expect(PenPairing.pairing(pen: pen, screen: screen, configured: "Huion*") == nil)
        // A replay has no udev description: only the key pairs.
        #expect(PenPairing.pairing(pen: pen, screen: nil, configured: "Wacom*") == .configuration)
    }

    @Test func theLogSaysThePensAndHow() {
        let pen = PairedPen(path: "/dev/input/event6", name: "Wacom HID 5146 Pen", pairedBy: .group)
        #expect(PenLink.off.summary == "pen arbitration off")
        #expect(PenLink.unpaired.summary == "no pen paired")
        #expect(PenLink.paired([pen]).summary == "pen /dev/input/event6 \"Wacom HID 5146 Pen\" paired by same LIBINPUT_DEVICE_GROUP")
        #expect(DeviceHub.penChange(from: .unpaired, to: .paired([pen])) == "pen /dev/input/event6 \"Wacom HID 5146 Pen\" paired by same LIBINPUT_DEVICE_GROUP")
        #expect(DeviceHub.penChange(from: .paired([pen]), to: .unpaired) == "pen /dev/input/event6 unpaired")
        #expect(DeviceHub.penChange(from: .paired([pen]), to: .off) == "pen arbitration off")
        #expect(DeviceHub.penChange(from: .off, to: .unpaired) == "pen arbitration on, no pen paired")
    }
}
