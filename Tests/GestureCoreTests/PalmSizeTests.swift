import GestureCore
import GestureVocabulary
import Testing
import TouchForwarding

/// Palms told by their size (`palm_size_mm`): ABS_MT_TOUCH_MAJOR, else ABS_MT_WIDTH_MAJOR, in millimetres
/// through the size axis's resolution or the panel's scale, on panels with and without resolution.
@Suite struct PalmSizeTests {
    /// The test phone (10 units/mm) with a contact-size axis of `code` (no resolution of its own unless
    /// given).
    static func panel(sizeAxis code: UInt16?, sizeResolution: Int32 = 0, positionResolution: Int32 = 10) -> DeviceDescription {
        var d = TouchScript.phone
        d.axes[ABS.mtPositionX]!.resolution = positionResolution
        d.axes[ABS.mtPositionY]!.resolution = positionResolution
        d.axes[ABS.x]!.resolution = positionResolution
        d.axes[ABS.y]!.resolution = positionResolution
        if let code { d.axes[code] = AxisInfo(minimum: 0, maximum: 2000, resolution: sizeResolution) }
        return d
    }

    /// Sets the contact size of `finger`'s slot, in device units.
    static func size(_ s: inout TouchScript, _ finger: Int, _ units: Int32, axis: UInt16 = ABS.mtTouchMajor) {
        s.raw(EV.abs, ABS.mtSlot, Int32(finger))
        s.raw(EV.abs, axis, units)
    }

    @Test func thresholdFromThePositionScale() throws {
        let device = Self.panel(sizeAxis: ABS.mtTouchMajor)
        let engine = try GestureEngine(device: device)
        let palm = try #require(engine.palmSize)
        #expect(palm.axis == ABS.mtTouchMajor)
        #expect(palm.units == 250)  // 25 mm at the position axes' 10 units/mm
        #expect(palm.summary == "palms from 25 mm on ABS_MT_TOUCH_MAJOR")
    }

    @Test func thresholdFromTheSizeAxisResolution() throws {
        let device = Self.panel(sizeAxis: ABS.mtTouchMajor, sizeResolution: 4)
        let palm = try #require(try GestureEngine(device: device).palmSize)
        #expect(palm.units == 100)  // 25 mm at the size axis's own 4 units/mm
    }

    @Test func widthMajorWhenNoTouchMajor() throws {
        let device = Self.panel(sizeAxis: ABS.mtWidthMajor)
        let palm = try #require(try GestureEngine(device: device).palmSize)
        #expect(palm.axis == ABS.mtWidthMajor)
        #expect(palm.summary == "palms from 25 mm on ABS_MT_WIDTH_MAJOR")
        // Both: touch major wins.
        var both = device
        both.axes[ABS.mtTouchMajor] = AxisInfo(minimum: 0, maximum: 2000)
        #expect(try GestureEngine(device: both).palmSize?.axis == ABS.mtTouchMajor)
    }

    @Test func panelWithoutResolutionUsesTheConfiguredOrAssumedSize() throws {
        let device = Self.panel(sizeAxis: ABS.mtTouchMajor, positionResolution: 0)
        // 1000 × 1600 units, configured as 50 × 80 mm: 20 units/mm.
        var geometry = GeometrySettings()
        geometry.panelSizeMM = (50, 80)
        let configured = try #require(try GestureEngine(device: device, geometry: geometry).palmSize)
        #expect(configured.units == 500)
        // Assumed: a portrait panel gets a 150 mm diagonal over sqrt(1000² + 1600²) ≈ 1887 units.
        let assumed = try #require(try GestureEngine(device: device).palmSize)
        let perMM = (1000.0 * 1000 + 1600 * 1600).squareRoot() / 150
        #expect(assumed.units == Int32((25 * perMM).rounded(.up)))
    }

    /// A forged or broken panel's resolutions (issue 36, hole 8): a contact-size axis at 2147483647
    /// units/mm, and position axes that would make the panel a micrometre wide, are not used: each is said
    /// in a warning naming the device, and an ordinary finger is still a finger.
    @Test func implausibleResolutionsAreNotUsed() throws {
        let device = Self.panel(sizeAxis: ABS.mtTouchMajor, sizeResolution: Int32.max)
        let engine = try GestureEngine(device: device)
        let palm = try #require(engine.palmSize)
        #expect(palm.ignoredResolution == Int32.max)
        #expect(palm.units == 250, "25 mm through the position axes' 10 units/mm")
        #expect(engine.deviceWarnings.contains { $0.message.contains("Test Panel reports a contact-size resolution of 2147483647 units/mm") })
        var s = TouchScript(device: device)
        s.down(0, 30, 80); Self.size(&s, 0, 90); s.frame()
        s.drag([0], by: 40, 0)
        s.up(0); s.frame()
        #expect(try s.run().phases == ["pan:begin", "pan:update", "pan:end"])

        let tiny = Self.panel(sizeAxis: ABS.mtTouchMajor, positionResolution: Int32.max)
        let forged = try GestureEngine(device: tiny)
        #expect(forged.geometry.sizeSource == .assumed)
        #expect(forged.geometry.screenSizeMM.width > 20)
        #expect(forged.deviceWarnings.contains { $0.message.contains("reports an axis resolution of 2147483647 x 2147483647 units/mm") })
        #expect(!forged.deviceWarnings.contains { $0.message.contains("reports no axis resolution") })
    }

    @Test func noSizeAxisNoThreshold() throws {
        let device = Self.panel(sizeAxis: nil)
        #expect(try GestureEngine(device: device).palmSize == nil)
        #expect(PalmSizeThreshold.noContactSize.contains("no contact size"))
        // Size events the panel does not declare change nothing: a pan.
        var s = TouchScript(device: device)
        s.down(0, 30, 80); Self.size(&s, 0, 900); s.frame()
        s.drag([0], by: 40, 0)
        s.up(0); s.frame()
        #expect(try s.run().phases == ["pan:begin", "pan:update", "pan:end"])
    }

    /// The same sequences on three geometries: resolution on the positions, a configured size, and the size
    /// axis's own resolution; `unit` is the device units per mm of the size axis there.
    static let geometries: [(DeviceDescription, GeometrySettings, Double)] = {
        var configured = GeometrySettings()
        configured.panelSizeMM = (100, 160)
        return [
            (panel(sizeAxis: ABS.mtTouchMajor), GeometrySettings(), 10),
            (panel(sizeAxis: ABS.mtTouchMajor, positionResolution: 0), configured, 10),
            (panel(sizeAxis: ABS.mtWidthMajor, sizeResolution: 3), GeometrySettings(), 3),
        ]
    }()

    @Test(arguments: 0..<3) func bigContactIsNoFinger(_ which: Int) throws {
        let (device, geometry, unit) = Self.geometries[which]
        let axis: UInt16 = device.axes[ABS.mtTouchMajor] != nil ? ABS.mtTouchMajor : ABS.mtWidthMajor
        // A 35 mm contact moving 40 mm: no gesture.
        var s = TouchScript(device: device)
        s.down(0, 30, 80); Self.size(&s, 0, Int32(35 * unit), axis: axis); s.frame()
        s.drag([0], by: 40, 0)
        s.up(0); s.frame()
        #expect(try s.run(geometry: geometry).isEmpty)
        // A 10 mm fingertip moving the same: a pan.
        var f = TouchScript(device: device)
        f.down(0, 30, 80); Self.size(&f, 0, Int32(10 * unit), axis: axis); f.frame()
        f.drag([0], by: 40, 0)
        f.up(0); f.frame()
        #expect(try f.run(geometry: geometry).phases == ["pan:begin", "pan:update", "pan:end"])
        // A palm resting while a finger swipes: a one-finger pan.
        var r = TouchScript(device: device)
        r.down(0, 10, 140); Self.size(&r, 0, Int32(40 * unit), axis: axis)
        r.down(1, 50, 60); Self.size(&r, 1, Int32(9 * unit), axis: axis); r.frame()
        r.drag([0, 1], by: 0, 30)
        r.up(1); r.frame()
        r.up(0); r.frame()
        let events = try r.run(geometry: geometry)
        #expect(events.phases == ["pan:begin", "pan:update", "pan:end"])
        #expect(events.allSatisfy { $0.fingers == 1 })
    }

    @Test(arguments: 0..<3) func fingerGrowingIntoPalmCancelsAndStaysPalm(_ which: Int) throws {
        let (device, geometry, unit) = Self.geometries[which]
        let axis: UInt16 = device.axes[ABS.mtTouchMajor] != nil ? ABS.mtTouchMajor : ABS.mtWidthMajor
        var s = TouchScript(device: device)
        s.down(0, 30, 80); Self.size(&s, 0, Int32(10 * unit), axis: axis); s.frame()
        s.drag([0], by: 30, 0)
        // At the threshold exactly: a palm.
        Self.size(&s, 0, Int32((25 * unit).rounded(.up)), axis: axis); s.frame()
        s.drag([0], by: 10, 0)
        // Shrinking again does not make it a finger: a palm until it lifts.
        Self.size(&s, 0, Int32(8 * unit), axis: axis); s.frame()
        s.drag([0], by: 30, 0)
        s.up(0); s.frame()
        #expect(try s.run(geometry: geometry).phases == ["pan:begin", "pan:update", "pan:cancel"])
    }

    @Test func justBelowTheThresholdIsAFinger() throws {
        var s = TouchScript(device: Self.panel(sizeAxis: ABS.mtTouchMajor))
        s.down(0, 30, 80); Self.size(&s, 0, 249); s.frame()
        s.drag([0], by: 40, 0)
        s.up(0); s.frame()
        #expect(try s.run().phases == ["pan:begin", "pan:update", "pan:end"])
    }

    @Test func theNextContactInTheSlotIsJudgedByItsOwnSize() throws {
        var s = TouchScript(device: Self.panel(sizeAxis: ABS.mtTouchMajor))
        s.down(0, 30, 80); Self.size(&s, 0, 400); s.frame()
        s.drag([0], by: 40, 0)
        s.up(0); s.frame()
        // A fingertip in the same slot: the kernel sends its (smaller) size with its tracking id.
        s.down(0, 30, 80); Self.size(&s, 0, 90); s.frame()
        s.drag([0], by: 40, 0)
        s.up(0); s.frame()
        // Another contact whose size the kernel does not send again (unchanged at 90): still a finger.
        s.wait(1)
        s.down(0, 30, 80); s.frame()
        s.drag([0], by: 40, 0)
        s.up(0); s.frame()
        #expect(try s.run().phases == ["pan:begin", "pan:update", "pan:end", "pan:begin", "pan:update", "pan:end"])
    }

    @Test func settingTheKeyHighTurnsItOff() throws {
        var s = TouchScript(device: Self.panel(sizeAxis: ABS.mtTouchMajor))
        s.down(0, 30, 80); Self.size(&s, 0, 400); s.frame()
        s.drag([0], by: 40, 0)
        s.up(0); s.frame()
        var settings = RecognizerSettings()
        settings.palmSizeMM = 500
        #expect(try s.run(settings: settings).phases == ["pan:begin", "pan:update", "pan:end"])
        #expect(try s.run().isEmpty)
    }

    @Test func reconfigureTakesTheNewSize() throws {
        var engine = try GestureEngine(device: Self.panel(sizeAxis: ABS.mtTouchMajor))
        var settings = RecognizerSettings()
        settings.palmSizeMM = 40
        var out = EngineOutput()
        engine.reconfigure(settings: settings, geometry: GeometrySettings(), atMicroseconds: 0, into: &out)
        #expect(engine.palmSize?.units == 400)
    }

    /// The gestures and stops (tracing) of a script.
    static func traced(_ s: TouchScript, geometry: GeometrySettings = GeometrySettings()) throws -> [EngineEvent] {
        var engine = try GestureEngine(device: s.device, geometry: geometry, tracing: true)
        var out = EngineOutput()
        engine.process(s.events, into: &out)
        return out.events
    }

    @Test(arguments: 0..<3) func palmJoiningARunningGestureCancelsIt(_ which: Int) throws {
        let (device, geometry, unit) = Self.geometries[which]
        let axis: UInt16 = device.axes[ABS.mtTouchMajor] != nil ? ABS.mtTouchMajor : ABS.mtWidthMajor
        var s = TouchScript(device: device)
        s.down(0, 50, 60); Self.size(&s, 0, Int32(9 * unit), axis: axis); s.frame()
        s.drag([0], by: 0, 30)
        // The side of the hand lands while the pan runs: the pan is cancelled, the finger rests.
        s.down(1, 70, 140); Self.size(&s, 1, Int32(40 * unit), axis: axis); s.frame()
        s.drag([0], by: 0, 30)
        s.up(0); s.up(1); s.frame()
        let out = try Self.traced(s, geometry: geometry)
        #expect(out.gestures.phases == ["pan:begin", "pan:update", "pan:cancel"])
        #expect(out.stops.map(\.reason) == [.palm])
        #expect(out.stops.first?.kind == .pan)
        #expect(out.traces.contains { $0.contains("finger lost (palm) -> cancel") })
    }

    @Test func kernelPalmJoiningARunningGestureCancelsIt() throws {
        var s = TouchScript()
        s.down(0, 50, 60); s.frame()
        s.drag([0], by: 0, 30)
        s.down(1, 70, 140, tool: MTTool.palm); s.frame()
        s.drag([0], by: 0, 30)
        s.up(0); s.up(1); s.frame()
        let out = try Self.traced(s)
        #expect(out.gestures.phases == ["pan:begin", "pan:update", "pan:cancel"])
        #expect(out.stops.map(\.reason) == [.palm])
    }

    @Test func palmLandingWithTheFingersIsNoPartOfTheirGesture() throws {
        // The palm first, resting; a finger lands later and pans: the palm is no finger and joins nothing.
        var s = TouchScript(device: Self.panel(sizeAxis: ABS.mtTouchMajor))
        s.down(1, 70, 140); Self.size(&s, 1, 400); s.frame()
        s.frame()
        s.down(0, 50, 60); Self.size(&s, 0, 90); s.frame()
        s.drag([0], by: 0, 30)
        s.up(0); s.frame()
        s.up(1); s.frame()
        let out = try Self.traced(s)
        #expect(out.gestures.phases == ["pan:begin", "pan:update", "pan:end"])
        #expect(out.stops.isEmpty)
    }

    @Test func passthroughForwardsAPalmAsThePanelReportedIt() throws {
        let device = Self.panel(sizeAxis: ABS.mtTouchMajor)
        var s = TouchScript(device: device)
        // A palm by the left edge, sliding in: a finger there would be held back for an edge swipe.
        s.down(0, 1, 80); Self.size(&s, 0, 400); s.frame()
        s.drag([0], by: 40, 0)
        s.up(0); s.frame()
        var settings = RecognizerSettings()
        settings.withholdsTouches = true
        var replay = RecordingReplay(engine: try GestureEngine(device: device, settings: settings))
        var forwarder: TouchForwarder? = try TouchForwarder(device: device)
        var written: [InputEvent] = []
        var gestures: [GestureEvent] = []
        replay.run(s.events, forwarder: &forwarder, written: &written) { gestures += $0.gestures }
        #expect(gestures.isEmpty)
        // On the copy at the panel's own landing frame, with its size, and never cancelled.
        let landing = try #require(written.first { $0.type == EV.abs && $0.code == ABS.mtTrackingID && $0.value >= 0 })
        #expect(landing.timeMicroseconds == s.events[0].timeMicroseconds)
        #expect(written.contains { $0.type == EV.abs && $0.code == ABS.mtTouchMajor && $0.value == 400 })
        #expect(!written.contains { $0.type == EV.abs && $0.code == ABS.mtToolType && $0.value == MTTool.palm })
        // The same contact a fingertip's size is held back, then claimed by the edge swipe: never written.
        var f = TouchScript(device: device)
        f.down(0, 1, 80); Self.size(&f, 0, 90); f.frame()
        f.drag([0], by: 40, 0)
        f.up(0); f.frame()
        var fingerReplay = RecordingReplay(engine: try GestureEngine(device: device, settings: settings))
        var fingerForwarder: TouchForwarder? = try TouchForwarder(device: device)
        var fingerWritten: [InputEvent] = []
        var fingerGestures: [GestureEvent] = []
        fingerReplay.run(f.events, forwarder: &fingerForwarder, written: &fingerWritten) { fingerGestures += $0.gestures }
        #expect(fingerGestures.phases == ["edge-swipe:begin", "edge-swipe:update", "edge-swipe:end"])
        // In a let: Swift 6.0.3's #expect expands a trailing closure's $0 inside its own closure and gets
        // it wrong: the expectation failed there while this value is false.
        let fingerReachedTheCopy = fingerWritten.contains { $0.type == EV.abs && $0.code == ABS.mtTrackingID && $0.value >= 0 }
        #expect(!fingerReachedTheCopy)
    }
}
