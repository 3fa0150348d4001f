import GestureCore
import GestureProtocol
import GestureVocabulary

// A reload's new settings, applied to a device that stays.
extension DeviceRuntime {
    /// Applies what a reloaded configuration resolves for the device (`ignore` is the hub's to act on):
    /// an engine whose settings or geometry changed is reconfigured, cancelling its gestures in flight, and
    /// the orientation set at run time stays on top of the new geometry; passthrough switches on or off
    /// once nothing is down on the panel. `grab` applies when the device is opened again.
    func reload(_ resolved: DeviceSettings, monotonicNow: Int64) {
        var settings = resolved
        if settings.grab != self.settings.grab {
            Log.notice("\(info.id): a change of grab applies when the device is plugged in again or the daemon restarts")
        }
        for warning in settings.warnings { Log.warning("\(info.id): \(warning)") }
        settings.grab = self.settings.grab
        // The engine withholds touches while passthrough is on, which the file does not say.
        settings.recognizer.withholdsTouches = engine.settings.withholdsTouches
        guard settings.recognizer != engine.settings || settings.geometry != self.settings.geometry else {
            self.settings = settings
            switchPassthrough(.configured(on: settings.passthrough))
            // The pointer's mode and settings may have changed (releasing what it holds when they did).
            refreshPointer(retryingFailed: true)
            if info != announcedInfo { announceChange() }
            return
        }
        let time = source.eventMicroseconds(forMonotonic: monotonicNow)
        self.settings = settings
        // The orientation set at run time stays: it turns the new geometry as it turned the old.
        let geometry = effectiveGeometry
        runEngine(at: time) {
            $0.reconfigure(settings: settings.recognizer, geometry: geometry, atMicroseconds: time, into: &$1)
        }
        // Gestures in flight were cancelled: the pointer releases what it holds too.
        cancelPointer()
        let size = PanelSize(engine.geometry)
        let zones = EdgeZonesInForce(engine)
        if size != info.size || zones != info.edgeZones {
            if size != info.size { Log.info("\(info.id): panel \(size)") }
            info.size = size
            info.edgeZones = zones
        }
        // The screen and zones the exclusion cap is measured on may have changed, whether or not clients see it.
        announceChange()
        switchPassthrough(.configured(on: settings.passthrough))
        refreshPointer(retryingFailed: true)
        if info != announcedInfo { announceChange() }
        Log.info("\(info.id): new settings applied")
    }
}

extension EdgeZonesInForce {
    /// The screen and the zones an engine runs with, as clients are told them.
    init(_ engine: GestureEngine) {
        let zones = engine.settings.edgeZones
        func side(_ edge: Edge) -> Double? { zones[edge].enabled ? zones[edge].widthMM : nil }
        let screen = engine.geometry.screenSizeMM
        self.init(
            screenWidthMM: screen.width, screenHeightMM: screen.height, left: side(.left), right: side(.right), top: side(.top),
            bottom: side(.bottom), cornerSwipes: engine.settings.edgeSwipe.enabled && engine.settings.edgeSwipe.corners)
    }
}

extension PanelSize {
    /// The panel's size as clients are told it: in its own axes, and where it came from.
    init(_ geometry: DeviceGeometry) {
        let source: PanelSize.Source
        switch geometry.sizeSource {
        case .axisResolution: source = .resolution
        case .configured: source = .configuration
        case .assumed: source = .assumed
        }
        self.init(widthMM: geometry.deviceSizeMM.width, heightMM: geometry.deviceSizeMM.height, source: source)
    }
}
