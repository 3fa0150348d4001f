import GestureCore
import GestureVocabulary
import Testing

@testable import GestureConfig

/// [[exclusion]] sections (issue 29): read, matched to devices and apps, and every mistake said with
/// file:line:column.
@Suite struct ExclusionConfigTests {
    @Test func sectionsLoadAndApply() throws {
        let c = try load(
            """
            [[exclusion]]
            app = "krita"
            edges = ["left", "bottom-left"]

            [[exclusion]]
            app = ["org.gnome.Maps", "foot*"]
            edges = ["top"]
            edge_position = [0.25, 0.75]
            device = "Wacom*"

            [[exclusion]]
            edges = "right"
            """)
        #expect(c.exclusions.count == 3)
        #expect(c.exclusions[0].apps == ["krita"])
        #expect(c.exclusions[0].exclusions == [EdgeExclusion(edge: .left), EdgeExclusion(edge: .bottomLeft)])
        #expect(c.exclusions[0].location.description == "gestured.toml:1:1")
        #expect(c.exclusions[1].exclusions == [EdgeExclusion(edge: .top, from: 0.25, to: 0.75)])
        #expect(c.exclusions[1].holds(forApp: "footclient") && !c.exclusions[1].holds(forApp: "krita") && !c.exclusions[1].holds(forApp: nil))
        #expect(c.exclusions[2].holds(forApp: nil) && c.exclusions[2].holds(forApp: "anything"))
        let wacom = c.resolve(for: touchscreen("Wacom HID 52C2 Finger"), paths: [])
        #expect(wacom.exclusionSections.count == 3)
        let other = c.resolve(for: touchscreen("Goodix Capacitive TouchScreen"), paths: [])
        #expect(other.exclusionSections.map(\.apps) == [["krita"], nil])
        let byID = try load("[[exclusion]]\nedges = [\"left\"]\ndevice = \"056A:52C2\"\n")
        #expect(byID.exclusions[0].applies(to: touchscreen("x", vendor: 0x056a, product: 0x52c2)))
        #expect(!byID.exclusions[0].applies(to: touchscreen("x", vendor: 0x056a, product: 0x52c3)))
    }

    /// Issue 38: a focused app (`--focus`) that puts no section in force is said, with a section that
    /// would name it but for case (app_id globs are case-sensitive), or one that names it for another
    /// device.
    @Test func aFocusThatMatchesNoSectionIsSaid() throws {
        let c = try load(
            """
            [[exclusion]]
            app = ["sketch", "org.kde.*"]
            edges = ["left"]

            [[exclusion]]
            app = "foot"
            edges = ["top"]
            device = "Wacom*"
            """)
        let elan = DeviceDescription(name: "ELAN Touchscreen")
        #expect(c.focusAdvice("sketch", device: elan) == nil)
        #expect(c.focusAdvice("org.kde.krita", device: elan) == nil)
        #expect(
            c.focusAdvice("Sketch", device: elan)
                == "no [[exclusion]] section names \"Sketch\": app_id globs are case-sensitive; did you mean \"sketch\" (the section at gestured.toml:1:1)?")
        #expect(
            c.focusAdvice("Org.KDE.Krita", device: elan)
                == "no [[exclusion]] section names \"Org.KDE.Krita\": app_id globs are case-sensitive; did you mean \"org.kde.*\" (the section at gestured.toml:1:1)?")
        #expect(
            c.focusAdvice("foot", device: elan)
                == "the [[exclusion]] section at gestured.toml:5:1 names \"foot\" for devices matching \"Wacom*\", not this one; no section applies it here")
        #expect(c.focusAdvice("foot", device: DeviceDescription(name: "Wacom ISDv4 E6 Finger")) == nil)
        #expect(c.focusAdvice("gimp", device: elan) == "no [[exclusion]] section names \"gimp\" (the sections name \"sketch\", \"org.kde.*\", \"foot\")")
        let empty = try load("")
        #expect(empty.focusAdvice("gimp", device: elan) == "no [[exclusion]] section names \"gimp\" (the file has none with an app)")
    }

    @Test func mistakesAreSaidWithTheirPlace() {
        #expect(errors("[[exclusion]]\napp = \"krita\"\n") == [
            "gestured.toml:1:1: exclusion[1]: an [[exclusion]] section needs edges (such as edges = [\"left\"])"
        ])
        #expect(errors("[[exclusion]]\nedges = [\"lfet\"]\n") == [
            "gestured.toml:2:1: exclusion[1].edges: expected sides and corners (left, right, top, bottom, top-left, top-right, bottom-left, bottom-right), got the string \"lfet\" (did you mean left?)"
        ])
        #expect(errors("[[exclusion]]\nedges = [\"left\"]\nedge_position = [0.6, 0.2]\n").first?.hasPrefix("gestured.toml:3:1: exclusion[1].edge_position: expected a range [from, to] with 0 <= from < to <= 1") == true)
        #expect(errors("[[exclusion]]\nedges = [\"top-left\"]\nedge_position = [0, 0.5]\n") == [
            "gestured.toml:3:1: exclusion[1].edge_position: a corner is excluded whole: edge_position applies to sides; give the corners their own section"
        ])
        #expect(errors("[[exclusion]]\nedges = [\"left\"]\napp = []\n") == [
            "gestured.toml:3:1: exclusion[1].app: must name at least one app (leave app out for every app)"
        ])
        #expect(errors("[[exclusion]]\nedges = [\"left\"]\ndevice = \"[abc\"\n").first?.hasPrefix("gestured.toml:3:1: exclusion[1].device: is not a valid glob") == true)
        #expect(errors("[[exclusion]]\nedges = [\"left\"]\napps = \"x\"\n").first?.hasPrefix("gestured.toml:3:1: exclusion[1].apps:") == true)
        #expect(errors("[exclusion]\nedges = [\"left\"]\n").first?.contains("write [[exclusion]], not [exclusion]") == true)
    }
}

/// Every [[exclusion]] key is documented: in config/gestured.toml's comments, docs/configuration.md and
/// gestured.toml(5).
@Suite struct ExclusionDocumentationTests {
    @Test func everyKeyIsDocumented() throws {
        let file = try fileText(repositoryRoot + "/config/gestured.toml")
        let docs = try fileText(repositoryRoot + "/docs/configuration.md")
        let man = try fileText(repositoryRoot + "/man/gestured.toml.5.scd")
        let after = try #require(man.split(separator: "\n# [[exclusion]]\n", omittingEmptySubsequences: false).dropFirst().first)
        let section = String(after.split(separator: "\n# ", omittingEmptySubsequences: false).first ?? after)
        for key in exclusionKeys {
            #expect(file.contains("#   \(key) = "), "config/gestured.toml does not document exclusion key \(key)")
            #expect(docs.contains("| `\(key)` |"), "docs/configuration.md does not explain exclusion key \(key)")
            #expect(section.contains("*\(key)* = "), "gestured.toml(5) does not document exclusion key \(key)")
        }
    }

    /// The commented example loads.
    @Test func defaultFileExclusionExampleLoads() throws {
        let text = try fileText(repositoryRoot + "/config/gestured.toml")
        let example = try #require(text.split(separator: "\n# [[exclusion]]\n", omittingEmptySubsequences: false).last)
        let lines = example.split(separator: "\n").map { $0.hasPrefix("# ") ? String($0.dropFirst(2)) : String($0) }
        let c = try load("[[exclusion]]\n" + lines.joined(separator: "\n") + "\n")
        #expect(c.exclusions.first?.exclusions == [EdgeExclusion(edge: .left, from: 0.5, to: 1)])
    }
}
