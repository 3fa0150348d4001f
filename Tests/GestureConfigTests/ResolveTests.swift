import GestureCore
import Testing

@testable import GestureConfig

@Suite("Device sections: matching and precedence")
struct ResolveTests {
    let goodix = touchscreen("Goodix Capacitive TouchScreen", vendor: 0x27c6, product: 0x0111)
    let elan = touchscreen("ELAN9008:00 04F3:2A1C", vendor: 0x04f3, product: 0x2a1c)

    @Test func noSectionsGivesTheRecognizerDefaults() throws {
        let configuration = try load("[recognizer]\nslop_mm = 2\n")
        let resolved = configuration.resolve(for: goodix, path: "/dev/input/event3")
        var expected = RecognizerSettings()
        expected.slopMM = 2
        #expect(resolved.recognizer == expected)
        #expect(resolved.geometry == GeometrySettings())
        #expect(!resolved.ignore)
        #expect(!resolved.grab)
        #expect(!resolved.passthrough)
        #expect(resolved.matchedSections.isEmpty)
        #expect(resolved.warnings.isEmpty)
    }

    @Test func sectionsMatchByNameIdAndPath() throws {
        let configuration = try load(
            """
            [[device]]
            match_name = "Goodix*"
            rotation = 90
            [[device]]
            match_id = "04F3:2A1C"
            rotation = 180
            [[device]]
            match_path = "/dev/input/by-path/platform-*-event"
            grab = true
            """)
        #expect(configuration.devices[1].matchID == "04f3:2a1c")
        let g = configuration.resolve(for: goodix, path: "/dev/input/event3")
        #expect(g.geometry.rotation == .clockwise90)
        #expect(g.matchedSections == [0])
        #expect(!g.grab)
        let e = configuration.resolve(for: elan, path: nil)
        #expect(e.geometry.rotation == .upsideDown)
        #expect(e.matchedSections == [1])
        // match_path matches the device node or one of its udev links.
        let linked = configuration.resolve(
            for: goodix, paths: ["/dev/input/event3", "/dev/input/by-path/platform-1c2ac00.i2c-event"])
        #expect(linked.matchedSections == [0, 2])
        #expect(linked.grab)
        // With no path known, a match_path section never matches.
        #expect(configuration.resolve(for: goodix, paths: []).matchedSections == [0])
    }

    @Test func passthroughIsPerDeviceAndLaterSectionsOverrideIt() throws {
        let configuration = try load(
            """
            [[device]]
            match_name = "*"
            passthrough = true
            [[device]]
            match_id = "04f3:2a1c"
            passthrough = false
            """)
        #expect(configuration.resolve(for: goodix, path: nil).passthrough)
        #expect(!configuration.resolve(for: elan, path: nil).passthrough)
        #expect(throws: (any Error).self) { try load("[[device]]\nmatch_name = \"*\"\npassthrough = 1\n") }
    }

    @Test func allMatchKeysOfASectionMustMatch() throws {
        let configuration = try load(
            """
            [[device]]
            match_name = "Goodix*"
            match_path = "/dev/input/event3"
            ignore = true
            """)
        #expect(configuration.resolve(for: goodix, path: "/dev/input/event3").ignore)
        #expect(!configuration.resolve(for: goodix, path: "/dev/input/event4").ignore)
        #expect(!configuration.resolve(for: elan, path: "/dev/input/event3").ignore)
    }

    @Test func laterSectionsOverrideEarlierOnesKeyByKey() throws {
        let configuration = try load(
            """
            [recognizer]
            slop_mm = 2
            [recognizer.pan]
            commit_distance_mm = 10

            [[device]]
            match_name = "*"
            rotation = 90
            flip_x = true
            grab = true
            slop_mm = 4
            pan.commit_distance_mm = 30
            [device.edge_swipe.left]
            zone_mm = 8

            [[device]]
            match_name = "Goodix*"
            rotation = 270
            grab = false
            panel_width_mm = 154
            panel_height_mm = 86
            calibration = [0, 1, 0, -1, 0, 1]
            [device.pan]
            commit_distance_mm = 40
            [device.edge_swipe.right]
            enabled = false
            """)
        let g = configuration.resolve(for: goodix, path: nil)
        #expect(g.matchedSections == [0, 1])
        #expect(g.geometry.rotation == .clockwise270)  // the later section wins
        #expect(g.geometry.flipX)  // set only by the earlier section: kept
        #expect(!g.geometry.flipY)  // set by neither: the default
        #expect(g.geometry.calibration == [0, 1, 0, -1, 0, 1])
        #expect(g.geometry.panelSizeMM?.width == 154)
        #expect(g.geometry.panelSizeMM?.height == 86)
        #expect(!g.grab)
        #expect(g.recognizer.slopMM == 4)
        #expect(g.recognizer.pan.commitDistanceMM == 40)
        #expect(g.recognizer.edgeZones[.left] == EdgeZone(enabled: true, widthMM: 8))
        #expect(g.recognizer.edgeZones[.right] == EdgeZone(enabled: false, widthMM: 5))
        #expect(g.recognizer.pinch == PinchRule())

        let e = configuration.resolve(for: elan, path: nil)
        #expect(e.matchedSections == [0])
        #expect(e.geometry.rotation == .clockwise90)
        #expect(e.grab)
        #expect(e.recognizer.slopMM == 4)
        #expect(e.recognizer.pan.commitDistanceMM == 30)
        #expect(e.recognizer.edgeZones[.right] == EdgeZone())
        #expect(e.geometry.panelSizeMM == nil)

        // The global settings are not touched by device sections.
        #expect(configuration.recognizer.slopMM == 2)
        #expect(configuration.recognizer.pan.commitDistanceMM == 10)
    }

    @Test func sectionsRecordOnlyWhatTheySet() throws {
        let section = try #require(
            try load("[[device]]\nmatch_name = \"x\"\nflip_y = true\npinch.enabled = false\n").devices.first)
        #expect(
            section
                == DeviceSection(
                    matchName: "x", flipY: true, recognizerOverrides: ["pinch.enabled": .bool(false)],
                    location: ConfigLocation(file: "gestured.toml", line: 1, column: 1)))
    }

    @Test func contradictingSectionsKeepTheEarlierFingerCounts() throws {
        let configuration = try load(
            """
            [[device]]
            match_name = "*"
            pan.max_fingers = 3
            [[device]]
            match_name = "Goodix*"
            pan.min_fingers = 4
            slop_mm = 5
            """)
        let g = configuration.resolve(for: goodix, path: nil)
        #expect(g.recognizer.pan.minFingers == 1)
        #expect(g.recognizer.pan.maxFingers == 3)
        #expect(g.recognizer.slopMM == 5)  // the rest of the section still applies
        #expect(
            g.warnings == [
                "device section at gestured.toml:4:1 would make pan.min_fingers (4) more than pan.max_fingers (3) together with earlier sections; keeping 1...3 fingers"
            ])
    }
}
