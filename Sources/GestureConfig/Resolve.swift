import GestureCore
import GestureVocabulary

extension Configuration {
    /// The settings for one device: the [recognizer] thresholds and default geometry, then every
    /// [[device]] section that matches it applied in file order, each overriding only the keys it sets.
    /// `path` is the device node (/dev/input/eventN) when known.
    public func resolve(for device: DeviceDescription, path: String?) -> ResolvedDeviceSettings {
        resolve(for: device, paths: path.map { [$0] } ?? [])
    }

    /// As `resolve(for:path:)`, matching `match_path` against any of `paths`: the device node and its udev
    /// links (/dev/input/by-path/..., /dev/input/by-id/...).
    public func resolve(for device: DeviceDescription, paths: [String]) -> ResolvedDeviceSettings {
        var resolved = ResolvedDeviceSettings(
            recognizer: recognizer, geometry: GeometrySettings(), ignore: false, grab: false)
        for (index, section) in devices.enumerated() where section.matches(device, paths: paths) {
            resolved.matchedSections.append(index)
            if let rotation = section.rotation { resolved.geometry.rotation = rotation }
            if let flipX = section.flipX { resolved.geometry.flipX = flipX }
            if let flipY = section.flipY { resolved.geometry.flipY = flipY }
            if let calibration = section.calibration { resolved.geometry.calibration = calibration }
            if let width = section.panelWidthMM, let height = section.panelHeightMM {
                resolved.geometry.panelSizeMM = (width, height)
                resolved.geometry.panelDiagonalMM = nil
                resolved.geometry.panelAspect = nil
            }
            if let inches = section.panelDiagonalInches {
                resolved.geometry.panelDiagonalMM = inches * 25.4
                resolved.geometry.panelAspect = section.panelAspect
                resolved.geometry.panelSizeMM = nil
            }
            if let ignore = section.ignore { resolved.ignore = ignore }
            if let grab = section.grab { resolved.grab = grab }
            if let passthrough = section.passthrough { resolved.passthrough = passthrough }
            if let penArbitration = section.penArbitration { resolved.penArbitration = penArbitration }
            if let pen = section.pen { resolved.pen = pen }
            if let mode = section.pointerMode { resolved.pointerMode = mode }
            if let mm = section.pointerScrollMM { resolved.pointerScrollMM = mm }
            if let fling = section.pointerFling { resolved.pointerFling = fling }

            var candidate = resolved.recognizer
            candidate.apply(section.recognizerOverrides)
            // Each section is valid over [recognizer] alone (the loader checked), but two sections may
            // combine into a pair out of order (min_fingers above max_fingers); keep the earlier values of
            // that pair then.
            for pair in RecognizerSettings.tables.flatMap(\.orderedKeys) {
                guard let lowKey = recognizerKeysByName[pair.low], let highKey = recognizerKeysByName[pair.high],
                    case .integer(let low) = lowKey.get(candidate), case .integer(let high) = highKey.get(candidate),
                    low > high
                else { continue }
                lowKey.set(&candidate, lowKey.get(resolved.recognizer))
                highKey.set(&candidate, highKey.get(resolved.recognizer))
                resolved.warnings.append(
                    "device section at \(section.location) would make \(pair.low) (\(low)) more than "
                        + "\(pair.high) (\(high)) together with earlier sections; keeping "
                        + "\(lowKey.get(candidate))...\(highKey.get(candidate))\(pair.high.hasSuffix("fingers") ? " fingers" : "")")
            }
            resolved.recognizer = candidate
        }
        resolved.exclusionSections = exclusions.filter { $0.applies(to: device) }
        resolved.pointerSections = pointers.filter { $0.applies(to: device) }
        if resolved.pointerMode.usesPointer && !resolved.passthrough {
            resolved.warnings.append(
                "pointer = \"\(resolved.pointerMode.rawValue)\" needs passthrough = true (the pointer would click beside a touch the app "
                    + "also gets): the device has no virtual pointer")
        }
        return resolved
    }
}
