// libxkbcommon's keysym names, the typing keymap it compiles, and what each output transform means for a
// touchscreen (no compositor needed; WaylandTests in IntegrationTests run a real one).
import GestureBindings
import GestureProtocol
import Testing
import WaylandSession

@Suite struct KeyNameTests {
    @Test func xkbKnowsTheNamesBindingsUse() {
        let names = XkbKeyNames()
        for name in ["Left", "Right", "Return", "2", "a", "XF86Back", "XF86AudioRaiseVolume", "Super_L"] {
            #expect(names.isKnown(name), "\(name)")
        }
        #expect(!names.isKnown("left"))
        #expect(!names.isKnown("Lefft"))
        #expect(names.suggestion(for: "left") == "Left")
        #expect(names.suggestion(for: "xf86back") == "XF86Back")
        #expect(names.suggestion(for: "Lefft") == "Left")
        #expect(names.suggestion(for: "XF86Bakc") == "XF86Back")
        #expect(XkbKeyNames.keysym(named: "XF86Back") == 0x1008ff26)
        #expect(XkbKeyNames.name(of: 0xff51) == "Left")
    }

    /// The keymap types each keysym with a key of its own, and the modifiers set the masks clients read.
    @Test func theTypingKeymapHasAKeyForEachKeysym() throws {
        let left = XkbKeyNames.keysym(named: "Left")!
        let back = XkbKeyNames.keysym(named: "XF86Back")!
        let keymap = try TypingKeymap.compile(keysyms: [left, back, left])
        #expect(keymap.codes == [left: 5, back: 6])
        #expect(Set(keymap.modifierCodes.values) == [1, 2, 3, 4])
        #expect(Set(keymap.modifierMasks.values).count == 4)
        #expect(keymap.text.contains("xkb_keymap"))
        #expect(keymap.text.contains("Left") && keymap.text.contains("XF86Back"))
        #expect(throws: CompositorError.self) { try TypingKeymap.compile(keysyms: (0..<300).map { 0x61 + UInt32($0) }) }
    }

    /// wl_output transform T turns the picture T degrees counter-clockwise: the user turned the device T
    /// degrees clockwise. A mirrored picture has no orientation.
    @Test func transformsAreOrientations() {
        #expect(OutputTransform.allCases.map(\.clockwiseDeviceDegrees) == [0, 90, 180, 270, nil, nil, nil, nil])
        #expect(OutputTransform.allCases.map(\.name) == [
            "normal", "90", "180", "270", "flipped", "flipped-90", "flipped-180", "flipped-270",
        ])
    }

    @Test func eachDeviceFollowsItsOutput() {
        let panel = DeviceInfo(id: "event5", name: "panel", vendorProduct: "04f3:2234", path: nil, source: .evdev, slots: 10)
        var mapped = panel
        mapped.output = "DSI-1"
        let dsi = WaylandOutput(globalName: 1, name: "DSI-1", transform: .rotated270)
        let hdmi = WaylandOutput(globalName: 2, name: "HDMI-A-1", transform: .normal)
        func decide(_ d: DeviceInfo, _ o: [WaylandOutput], _ option: String?) -> OrientationDecision {
            OrientationPlan.decide(device: d, outputs: o, outputOption: option)
        }
        #expect(decide(panel, [dsi], nil) == .follow(.clockwise270, output: "DSI-1", transform: .rotated270))
        #expect(decide(mapped, [hdmi, dsi], nil) == .follow(.clockwise270, output: "DSI-1", transform: .rotated270))
        // WL_OUTPUT wins over --output; --output names the output of devices without it.
        #expect(decide(mapped, [hdmi, dsi], "HDMI-A-1") == .follow(.clockwise270, output: "DSI-1", transform: .rotated270))
        #expect(decide(panel, [hdmi, dsi], "HDMI-A-1") == .follow(.normal, output: "HDMI-A-1", transform: .normal))
        #expect(decide(panel, [hdmi, dsi], nil) == .ambiguous(outputs: ["HDMI-A-1", "DSI-1"]))
        #expect(decide(mapped, [hdmi], nil) == .outputMissing("DSI-1"))
        #expect(decide(panel, [], nil) == .noOutput)
        let mirrored = WaylandOutput(globalName: 1, name: "DSI-1", transform: .flipped90)
        #expect(decide(panel, [mirrored], nil) == .mirrored(output: "DSI-1", transform: .flipped90))
    }
}
