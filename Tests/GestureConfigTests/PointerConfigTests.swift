import GestureCore
import GestureVocabulary
import Testing

@testable import GestureConfig

/// Touch that points in the configuration (issue 39): a panel's `pointer`, `pointer_scroll_mm` and
/// `pointer_fling`, [[pointer]] sections per app, what a device resolves to, and every mistake with its
/// place.
@Suite struct PointerConfigTests {
    @Test func keysAndSectionsLoadAndResolve() throws {
        let c = try load(
            """
            [[device]]
            match_name = "*"
            passthrough = true
            pointer = "long-press"
            pointer_scroll_mm = 12.5
            pointer_fling = true

            [[pointer]]
            app = ["org.gnome.*", "firefox"]
            mode = "touch"

            [[pointer]]
            app = "org.remmina.Remmina"
            mode = "mouse"
            device = "Wacom*"

            [[pointer]]
            app = "org.gnome.Maps"
            mode = "mouse"
            """)
        #expect(c.devices[0].pointerMode == .longPress && c.devices[0].pointerScrollMM == 12.5 && c.devices[0].pointerFling == true)
        #expect(c.pointers.count == 3)
        #expect(c.pointers[1].device == "Wacom*" && c.pointers[1].location.description == "gestured.toml:12:1")
        let wacom = c.resolve(for: touchscreen("Wacom HID 52C2 Finger"), paths: [])
        #expect(wacom.pointerMode == .longPress && wacom.pointerScrollMM == 12.5 && wacom.pointerFling)
        #expect(wacom.pointerSections.count == 3 && wacom.makesPointer)
        // The last section naming the app wins; none names it, the panel's own.
        #expect(wacom.pointerMode(forApp: "org.gnome.Maps") == .mouse)
        #expect(wacom.pointerMode(forApp: "org.gnome.Calendar") == .touch)
        #expect(wacom.pointerMode(forApp: "org.remmina.Remmina") == .mouse)
        #expect(wacom.pointerMode(forApp: "xterm") == .longPress)
        #expect(wacom.pointerMode(forApp: nil) == .longPress)
        let goodix = c.resolve(for: touchscreen("Goodix Capacitive TouchScreen"), paths: [])
        #expect(goodix.pointerMode(forApp: "org.remmina.Remmina") == .longPress, "that section is the Wacom's")
    }

    @Test func theDefaultsAreTouchAndNoPointer() throws {
        let d = try load("").resolve(for: touchscreen("Any Panel"), paths: [])
        #expect(d.pointerMode == .touch && d.pointerScrollMM == 10 && !d.pointerFling && !d.makesPointer)
        #expect(d.pointerMode(forApp: "anything") == .touch)
    }

    /// A pointer is made only with passthrough, and only when something asks for more than touch.
    @Test(arguments: [
        ("passthrough = true\npointer = \"mouse\"\n", "", true),
        ("passthrough = true\npointer = \"touch\"\n", "", false),
        ("passthrough = true\n", "[[pointer]]\napp = \"x\"\nmode = \"long-press\"\n", true),
        ("passthrough = true\n", "[[pointer]]\napp = \"x\"\nmode = \"touch\"\n", false),
        ("passthrough = false\npointer = \"mouse\"\n", "", false),
        ("pointer = \"long-press\"\n", "[[pointer]]\napp = \"x\"\nmode = \"mouse\"\n", false),
    ])
    func whenAPointerIsMade(device: String, sections: String, makes: Bool) throws {
        let c = try load("[[device]]\nmatch_name = \"*\"\n" + device + "\n" + sections)
        #expect(c.resolve(for: touchscreen("Panel"), paths: []).makesPointer == makes)
    }

    @Test func aPointerWithoutPassthroughIsAWarning() throws {
        let c = try load("[[device]]\nmatch_name = \"*\"\npointer = \"long-press\"\n")
        let r = c.resolve(for: touchscreen("Panel"), paths: [])
        #expect(r.warnings == ["pointer = \"long-press\" needs passthrough = true (the pointer would click beside a touch the app also gets): the device has no virtual pointer"])
        #expect(try load("[[device]]\nmatch_name = \"*\"\npointer = \"touch\"\n").resolve(for: touchscreen("Panel"), paths: []).warnings.isEmpty)
    }

    @Test func mistakesAreSaidWithTheirPlace() {
        #expect(errors("[[device]]\nmatch_name = \"*\"\npointer = \"mose\"\n") == [
            "gestured.toml:3:1: device[1].pointer: expected \"touch\", \"long-press\" or \"mouse\", got \"mose\" (did you mean mouse?)"
        ])
        #expect(errors("[[device]]\nmatch_name = \"*\"\npointer = true\n") == [
            "gestured.toml:3:1: device[1].pointer: expected \"touch\", \"long-press\" or \"mouse\", got the boolean true"
        ])
        #expect(errors("[[device]]\nmatch_name = \"*\"\npointer_scroll_mm = 0\n").first?.hasPrefix("gestured.toml:3:1: device[1].pointer_scroll_mm: must be between 1 and 100 (mm)") == true)
        #expect(errors("[[device]]\nmatch_name = \"*\"\npointer_fling = \"yes\"\n") == [
            "gestured.toml:3:1: device[1].pointer_fling: expected true or false, got the string \"yes\""
        ])
        #expect(errors("[[pointer]]\nmode = \"mouse\"\n") == [
            "gestured.toml:1:1: pointer[1]: a [[pointer]] section needs app (such as app = [\"org.remmina.Remmina\"]); a panel's mode for every app is pointer = \"...\" in its [[device]] section"
        ])
        #expect(errors("[[pointer]]\napp = \"x\"\n") == [
            "gestured.toml:1:1: pointer[1]: a [[pointer]] section needs mode: \"touch\", \"long-press\" or \"mouse\""
        ])
        #expect(errors("[[pointer]]\napp = []\nmode = \"mouse\"\n").first?.hasPrefix("gestured.toml:2:1: pointer[1].app: must name at least one app") == true)
        #expect(errors("[[pointer]]\napp = \"x\"\nmode = \"mouse\"\ndevice = \"\"\n").first?.hasPrefix("gestured.toml:4:1: pointer[1].device: must not be empty") == true)
        #expect(errors("[[pointer]]\napp = \"x\"\nmode = \"mouse\"\nmodes = 1\n").first?.hasPrefix("gestured.toml:4:1: pointer[1].modes:") == true)
        #expect(errors("[pointer]\napp = \"x\"\n").first?.contains("write [[pointer]], not [pointer]") == true)
    }

    @Test func checkConfigSaysIt() throws {
        let c = try load("[[device]]\nmatch_name = \"*\"\npassthrough = true\npointer = \"mouse\"\npointer_fling = true\n\n[[pointer]]\napp = \"x*\"\nmode = \"touch\"\n")
        let summary = c.checkConfigSummary()
        #expect(summary.contains("sets passthrough = true, pointer = mouse, pointer_fling = true"), "\(summary)")
        #expect(summary.contains("pointers: 1 [[pointer]] section\n  pointer[1] at gestured.toml:7:1: touch while \"x*\" has the focus, on every device"), "\(summary)")
    }
}

/// Every [[pointer]] key is documented: in config/gestured.toml's comments, docs/configuration.md and
/// gestured.toml(5); the commented example loads.
@Suite struct PointerDocumentationTests {
    @Test func everyKeyIsDocumented() throws {
        let file = try fileText(repositoryRoot + "/config/gestured.toml")
        let docs = try fileText(repositoryRoot + "/docs/configuration.md")
        let man = try fileText(repositoryRoot + "/man/gestured.toml.5.scd")
        let after = try #require(man.split(separator: "\n# [[pointer]]\n", omittingEmptySubsequences: false).dropFirst().first)
        let section = String(after.split(separator: "\n# ", omittingEmptySubsequences: false).first ?? after)
        let docsSection = try #require(docs.split(separator: "\n## [[pointer]] sections\n", omittingEmptySubsequences: false).dropFirst().first)
        for key in pointerKeys {
            #expect(file.contains("#   \(key) = "), "config/gestured.toml does not document pointer key \(key)")
            #expect(docsSection.contains("| `\(key)` |"), "docs/configuration.md does not explain pointer key \(key)")
            #expect(section.contains("*\(key)* = "), "gestured.toml(5) does not document pointer key \(key)")
        }
    }

    @Test func defaultFilePointerExampleLoads() throws {
        let text = try fileText(repositoryRoot + "/config/gestured.toml")
        let example = try #require(text.split(separator: "\n# [[pointer]]\n", omittingEmptySubsequences: false).last)
        let lines = example.split(separator: "\n").map { $0.hasPrefix("# ") ? String($0.dropFirst(2)) : String($0) }
        let c = try load("[[pointer]]\n" + lines.joined(separator: "\n") + "\n")
        #expect(c.pointers.first?.mode == .mouse && c.pointers.first?.apps.isEmpty == false)
    }
}
