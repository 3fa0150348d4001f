/// How a panel's contacts are told to be palms by their size: the contact-size axis read
/// (ABS_MT_TOUCH_MAJOR, else ABS_MT_WIDTH_MAJOR) and the size, in that axis's own units, at or above which
/// a contact is a palm (`RecognizerSettings.palmSizeMM`). A panel that reports neither axis has none: its
/// palms are those the kernel marks MT_TOOL_PALM.
public struct PalmSizeThreshold: Equatable, Sendable {
    /// ABS_MT_TOUCH_MAJOR or ABS_MT_WIDTH_MAJOR.
    public let axis: UInt16
    /// The axis value at or above which a contact is a palm.
    public let units: Int32
    /// The threshold it stands for.
    public let millimetres: Double
    /// Device units per millimetre along the size axis.
    public let unitsPerMM: Double
    /// The size axis's own resolution when it was not used, being more than any panel's
    /// (`maximumPlausibleUnitsPerMM`): the position axes' scale was used instead.
    public let ignoredResolution: Int32?

    /// The finest contact-size resolution a panel has, units per millimetre (a micrometre a unit); one
    /// beyond it (2147483647 from a forged device) is not used.
    public static let maximumPlausibleUnitsPerMM = 1000.0

    /// The threshold for `device`: its size axis in millimetres through that axis's own resolution where
    /// the kernel gives one, else through the position axes' scale (the kernel reports contact sizes in
    /// surface units, the position axes' units), which is the geometry's: resolution, a configured panel
    /// size, or the assumed one.
    public init?(device: DeviceDescription, geometry: DeviceGeometry, palmSizeMM: Double) {
        let axis: UInt16
        if device.axes[ABS.mtTouchMajor] != nil {
            axis = ABS.mtTouchMajor
        } else if device.axes[ABS.mtWidthMajor] != nil {
            axis = ABS.mtWidthMajor
        } else {
            return nil
        }
        guard let info = device.axes[axis], info.maximum > 0 else { return nil }
        let perMM: Double
        if info.resolution > 0 && Double(info.resolution) <= PalmSizeThreshold.maximumPlausibleUnitsPerMM {
            perMM = Double(info.resolution)
            ignoredResolution = nil
        } else {
            ignoredResolution = info.resolution > 0 ? info.resolution : nil
            let x = geometry.xAxis.span / geometry.deviceSizeMM.width
            let y = geometry.yAxis.span / geometry.deviceSizeMM.height
            perMM = (x + y) / 2
        }
        guard perMM > 0, perMM.isFinite else { return nil }
        let raw = (palmSizeMM * perMM).rounded(.up)
        self.axis = axis
        self.units = raw >= Double(Int32.max) ? Int32.max : Int32(max(1, raw))
        self.millimetres = palmSizeMM
        self.unitsPerMM = perMM
    }

    /// For the device-added line: "palms from 25 mm on ABS_MT_TOUCH_MAJOR".
    public var summary: String {
        let name = axis == ABS.mtTouchMajor ? "ABS_MT_TOUCH_MAJOR" : "ABS_MT_WIDTH_MAJOR"
        let mm = millimetres.rounded() == millimetres ? String(Int(millimetres)) : String(millimetres)
        return "palms from \(mm) mm on \(name)"
    }

    /// For the device-added line of a panel that reports no contact size.
    public static let noContactSize = "no contact size reported, palms only as MT_TOOL_PALM"
}
