import GestureVocabulary
import RecordingFormats
import Testing

@testable import GestureCore

/// With updates off (`GestureEngine.reportsUpdates`, what the daemon does while no client takes them) a
/// running gesture makes no `update` events as its fingers move or stop (a tap sequence's next tap, an
/// update of a gesture waiting for it, still is), and everything else is the same: every begin, end and
/// cancel with every field, every warning and every touch decision, whenever updates are turned off or on.
@Suite struct UpdatesOffTests {
    /// Everything the engine makes from `events`, updates left out, with `updatesOn(frame)` saying at each
    /// frame (counted from 0) whether updates are on.
    static func run(
        _ events: [InputEvent], device: DeviceDescription, settings: RecognizerSettings,
        updatesOn: (Int) -> Bool
    ) throws -> (outputs: [EngineEvent], touches: [TouchDecision], updates: [GestureEvent]) {
        var engine = try GestureEngine(device: device, settings: settings)
        var out = EngineOutput()
        var frame = 0
        engine.reportsUpdates = updatesOn(0)
        for e in events {
            engine.process(e, into: &out)
            if e.type == EV.syn && e.code == SYN.report {
                frame += 1
                engine.reportsUpdates = updatesOn(frame)
            }
        }
        // Deadlines still armed fire, then whatever runs is cancelled, as when a device goes.
        let end = (events.last?.timeMicroseconds ?? 0) + 10_000_000
        engine.cancelAll(atMicroseconds: end, into: &out)
        let updates = out.gestures.filter { $0.phase == .update }
        let kept = out.events.filter { if case .gesture(let g) = $0 { return g.phase != .update } else { return true } }
        return (kept, out.touches, updates)
    }

    static func recordings() throws -> [(name: String, device: DeviceDescription, events: [InputEvent])] {
        let dir = RecordingGoldenTests.fixtures
        let pairs: [(String, String?)] = [
            ("dell_canvas_touch.evemu", nil), ("dell_canvas_touch.diagonal.events", "dell_canvas_touch.evemu"),
            ("n4.events", "n4.desc"), ("QUANTA_OpticalTouchScreen.events", "QUANTA_OpticalTouchScreen.desc"),
            ("QUANTA_OpticalTouchScreen.touch-on-left.events", "QUANTA_OpticalTouchScreen.desc"),
            ("Atmel_maXTouch_Touchscreen.1-finger-fast-taps.events", "Atmel_maXTouch_Touchscreen.desc"),
            ("Atmel_maXTouch_Touchscreen.4-finger-drag-down.events", "Atmel_maXTouch_Touchscreen.desc"),
            ("EP0430M09.2-finger-scroll-down.events", "EP0430M09.desc"),
            ("EP0430M09.4-finger-drag-down.events", "EP0430M09.desc"),
            ("Wacom_ISDv4_E6_Finger.double-center-circle.events", "Wacom_ISDv4_E6_Finger.desc"),
            ("Wacom_ISDv4_E6_Finger.double-top-swipe.events", "Wacom_ISDv4_E6_Finger.desc"),
            ("Wacom_ISDv4_E6_Finger.2fg-double-tap.events", "Wacom_ISDv4_E6_Finger.desc"),
            ("Wacom_ISDv4_E6_Finger.single-center-scroll.events", "Wacom_ISDv4_E6_Finger.desc"),
        ]
        return try pairs.map { events, desc in
            let recording = try RecordingFile.load(dir + events, description: desc.map { dir + $0 })
            return (events, recording.device, recording.events)
        }
    }

    static var settingsVariants: [(String, RecognizerSettings)] {
        var passthrough = RecognizerSettings()
        passthrough.withholdsTouches = true
        passthrough.pan.claim = true
        passthrough.pan.claimMinFingers = 2
        return [("defaults", RecognizerSettings()), ("passthrough", passthrough)]
    }

    @Test func recordingsEndTheSameWithUpdatesOff() throws {
        var updatesSeen = 0
        for (name, device, events) in try UpdatesOffTests.recordings() {
            for (variant, settings) in UpdatesOffTests.settingsVariants {
                let on = try UpdatesOffTests.run(events, device: device, settings: settings) { _ in true }
                let off = try UpdatesOffTests.run(events, device: device, settings: settings) { _ in false }
                #expect(
                    off.updates == on.updates.filter { $0.kind == .tap }, "\(name) (\(variant)): updates were made with updates off")
                #expect(off.updates.allSatisfy { ($0.taps ?? 0) >= 2 })
                #expect(on.outputs == off.outputs, "\(name) (\(variant)): begin, end or cancel differ with updates off")
                #expect(on.touches == off.touches, "\(name) (\(variant)): touch decisions differ with updates off")
                #expect(on.outputs.gestures.contains { $0.phase == .end }, "\(name) ends gestures")
                updatesSeen += on.updates.count
            }
        }
        #expect(updatesSeen > 1000, "the recordings have running gestures to leave updates out of")
    }

    /// Updates turned on and off at random frames, on the random streams (drops, palms, garbage): the same.
    @Test(arguments: [1, 2, 3, 4])
    func togglingUpdatesChangesNothingElse(seed: Int) throws {
        let events = RandomStreamTests.stream(seed: seed)
        var g = RandomStreamTests.Generator(state: UInt64(seed) &* 31)
        var pattern: [Bool] = []
        for _ in 0..<20_000 { pattern.append(g.next(4) != 0) }
        for (variant, settings) in UpdatesOffTests.settingsVariants {
            let on = try UpdatesOffTests.run(events, device: TouchScript.phone, settings: settings) { _ in true }
            let toggled = try UpdatesOffTests.run(events, device: TouchScript.phone, settings: settings) {
                pattern[$0 % pattern.count]
            }
            let off = try UpdatesOffTests.run(events, device: TouchScript.phone, settings: settings) { _ in false }
            #expect(on.outputs == off.outputs, "seed \(seed) (\(variant)): begin, end or cancel differ with updates off")
            #expect(on.outputs == toggled.outputs, "seed \(seed) (\(variant)): begin, end or cancel differ")
            #expect(on.touches == toggled.touches, "seed \(seed) (\(variant))")
            #expect(toggled.updates.count < on.updates.count)
        }
    }
}
