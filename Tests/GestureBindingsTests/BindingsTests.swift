import GestureCore
import GestureProtocol
import GestureVocabulary
import Testing

@testable import GestureBindings
import GestureConfig
import PlainText

/// The messages a bindings file gives, one per problem, or [] when it loads.
private func bindingErrors(_ text: String) -> [String] {
    do {
        _ = try BindingsFile.parse(text: text, fileName: "bindings.toml")
        return []
    } catch {
        return error.diagnostics.map(\.description)
    }
}

private func bindings(_ text: String) throws -> [Binding] {
    try BindingsFile.parse(text: text, fileName: "bindings.toml").bindings
}

private func event(
    _ kind: GestureKind, _ phase: GesturePhase, id: UInt64 = 1, fingers: Int = 1, edge: Edge? = nil,
    edgePosition: Double? = nil, startEdge: Edge? = nil, taps: Int? = nil, committed: Bool? = nil,
    direction: SwipeDirection? = nil, translationMM: Vector2 = .zero, progress: Double? = nil, scale: Double? = nil
) -> GestureEvent {
    GestureEvent(
        kind: kind, phase: phase, id: id, timeMicroseconds: 0, fingers: fingers, edge: edge, edgePosition: edgePosition,
        startEdge: startEdge, taps: taps, committed: phase == .end ? (committed ?? true) : nil, direction: direction,
        translationMM: translationMM, progress: progress, scale: scale)
}

/// The names of the bindings that fire for each event, in order.
private func fired(_ text: String, _ events: [GestureEvent], device: (String, String)? = nil) throws -> [String] {
    var matcher = BindingMatcher(bindings: try bindings(text))
    return events.flatMap { e in
        matcher.handle(e, deviceID: device?.0, deviceName: device?.1).map { $0.binding.label }
    }
}

@Suite("Bindings file")
struct BindingsFileTests {
    @Test func theThreeLineFileLoads() throws {
        let b = try bindings("[[binding]]\nedge = \"left\"\ncommand = [\"notify-send\", \"back\"]\n")
        #expect(b.count == 1)
        #expect(b[0].edges == [.left])
        #expect(b[0].trigger == .end && b[0].committed == .committed && b[0].ifRunning == .skip)
        #expect(b[0].command == .argv(["notify-send", "back"]))
        #expect(b[0].possibleKinds == [.edgeSwipe])
        #expect(b[0].maxPerSecond == Binding.defaultMaxPerSecond)
    }

    @Test func everyKeyIsRead() throws {
        let b = try bindings(
            """
            [[binding]]
            name = "volume up"
            gesture = ["edge-swipe"]
            fingers = [1, 2]
            edge = ["right", "top-right"]
            edge_position = [0, 0.5]
            device = "*Touch*"
            committed = "any"
            shell = "pactl set-sink-volume @DEFAULT_SINK@ +5%"
            if_running = "queue"
            max_per_second = 3

            [[binding]]
            gesture = "pan"
            start_edge = "bottom"
            direction = ["up-left", "right"]
            command = ["true"]

            [[binding]]
            taps = 2
            fingers = 2
            on = "begin"
            command = ["true"]

            [[binding]]
            gesture = "pinch"
            scale = 0.5
            command = ["true"]

            [[binding]]
            edge = "bottom"
            progress = 0.3
            command = ["true"]

            [[binding]]
            gesture = "hold"
            on = "threshold"
            distance_mm = 15
            command = ["true"]
            """)
        #expect(b.count == 6)
        #expect(b[0].name == "volume up" && b[0].label == "volume up")
        #expect(b[0].kinds == [.edgeSwipe] && b[0].fingers == 1...2 && b[0].edges == [.right, .topRight])
        #expect(b[0].edgePosition == 0...0.5 && b[0].device == "*Touch*" && b[0].committed == .any)
        #expect(b[0].command == .shell("pactl set-sink-volume @DEFAULT_SINK@ +5%"))
        #expect(b[0].command.arguments == ["/bin/sh", "-c", "pactl set-sink-volume @DEFAULT_SINK@ +5%"])
        #expect(b[0].ifRunning == .queue && b[0].maxPerSecond == 3)
        #expect(b[1].startEdges == [.bottom] && b[1].directions == [.upLeft, .right] && b[1].label == "binding 2 (bindings.toml:13:1)")
        #expect(b[2].taps == 2 && b[2].trigger == .begin && b[2].possibleKinds == [.tap])
        #expect(b[3].trigger == .threshold(.scale(0.5)))
        #expect(b[4].trigger == .threshold(.progress(0.3)))
        #expect(b[5].trigger == .threshold(.distanceMM(15)) && b[5].kinds == [.hold])
    }

    @Test func errorsSayWhereWhatAndWhatToDo() {
        #expect(
            bindingErrors("[[binding]]\nedge = \"lef\"\ncommand = [\"x\"]\n")
                == ["bindings.toml:2:1: binding[1].edge: \"lef\" is not an edge or corner; did you mean \"left\"?"])
        #expect(
            bindingErrors("[[binding]]\nedge = \"left\"\ncomand = [\"x\"]\n")
                == [
                    "bindings.toml:1:1: binding[1]: has nothing to do: add command = [\"program\", \"arg\"], shell = \"command line\" or keys = \"alt+Left\"",
                    "bindings.toml:3:1: binding[1].comand: unknown key in a [[binding]] section; did you mean command?",
                ])
        #expect(
            bindingErrors("[[binding]]\ngesture = \"edge_swipe\"\ncommand = \"notify-send hi\"\n")
                == [
                    "bindings.toml:2:1: binding[1].gesture: \"edge_swipe\" is not a gesture kind; did you mean \"edge-swipe\"?",
                    "bindings.toml:3:1: binding[1].command: a string is run by a shell: write shell = \"notify-send hi\", or command = [\"notify-send\", \"hi\"] to run it without one",
                ])
        #expect(
            bindingErrors("[[binding]]\ngesture = \"pinch\"\nedge = \"left\"\nshell = \"x\"\n")
                == ["bindings.toml:3:1: binding[1].edge: only edge-swipe gestures have edge; this binding is for pinch"])
        #expect(
            bindingErrors("[[binding]]\ndirection = \"up\"\non = \"begin\"\nshell = \"x\"\n")
                == ["bindings.toml:2:1: binding[1].direction: a pan's direction is known at its end only; this binding fires on begin"])
        #expect(
            bindingErrors("[[binding]]\nfingers = [3, 2]\nshell = \"x\"\n")
                == ["bindings.toml:2:1: binding[1].fingers: a range of finger counts is [min, max] with 1 <= min <= max <= 20, got [the integer 3, the integer 2]"])
        #expect(
            bindingErrors("[binding]\nshell = \"x\"\n")
                == ["bindings.toml:1:2: binding: bindings are an array of tables: write [[binding]], not [binding]"])
        #expect(
            bindingErrors("edge = \"left\"\n")
                == ["bindings.toml:1:1: edge: unknown key at the top level; edge belongs in a [[binding]] section"])
        #expect(
            bindingErrors("[[binding]]\nedge = \"left\"\ntaps = 2\nshell = \"x\"\n")
                == ["bindings.toml:1:1: binding[1]: no gesture has all of these keys (edge and edge_position are on edge swipes, start_edge and direction on pans, taps on taps, secondary_click and region on taps and holds, held_seconds on holds): it would never fire"])
        #expect(
            bindingErrors("[[binding]]\non = \"threshold\"\nprogress = 0.3\nscale = 2\nshell = \"x\"\n")
                == ["bindings.toml:4:1: binding[1].scale: a threshold binding waits for one value; it already has progress"])
        #expect(
            bindingErrors("[[binding]]\non = \"end\"\nprogress = 0.3\nshell = \"x\"\n")
                == ["bindings.toml:3:1: binding[1].progress: progress is a threshold: it needs on = \"threshold\" (this binding fires on end)"])
        #expect(
            bindingErrors("[[binding]]\non = \"bgin\"\nshell = \"x\"\n")
                == ["bindings.toml:2:1: binding[1].on: expected \"end\" (the default), \"begin\" or \"threshold\", got the string \"bgin\"; did you mean \"begin\"?"])
        #expect(bindingErrors("[[binding]]\nshell = \"x\"\ncommand = [\"y\"]\n") == [
            "bindings.toml:3:1: binding[1].command: a binding has one of command (run directly), shell (run by /bin/sh -c) or keys (typed), not shell and command"
        ])
        #expect(
            bindingErrors("[[binding]]\nedge = \n")
                == ["bindings.toml:2:8: TOML syntax error: expected a value after '=', found the end of the line"])
    }

    @Test func aMissingFileSaysSo() {
        do {
            _ = try BindingsFile.load(path: "/nonexistent/bindings.toml")
            Issue.record("loaded a file that does not exist")
        } catch {
            #expect(error.description.hasPrefix("/nonexistent/bindings.toml: cannot open the bindings file: No such file or directory (errno 2); check the path"))
        }
    }

    @Test func theDefaultPathFollowsXDG() {
        #expect(BindingsFile.defaultPath(environment: ["XDG_CONFIG_HOME": "/x/cfg", "HOME": "/h"]) == "/x/cfg/gestured/bindings.toml")
        #expect(BindingsFile.defaultPath(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/h"]) == "/h/.config/gestured/bindings.toml")
        #expect(BindingsFile.defaultPath(environment: ["HOME": "/h"]) == "/h/.config/gestured/bindings.toml")
        #expect(BindingsFile.defaultPath(environment: [:]) == nil)
    }

    @Test func theSubscriptionIsTheNarrowestThatCoversTheBindings() throws {
        let edgesOnly = try BindingsFile.parse(
            text: "[[binding]]\nedge = \"left\"\nshell = \"x\"\n[[binding]]\nedge = [\"bottom\", \"top-left\"]\nfingers = 2\nshell = \"x\"\n",
            fileName: "b")
        #expect(edgesOnly.subscriptionFilter == SubscriptionFilter(kinds: [.edgeSwipe], edges: [.left, .bottom, .topLeft], updates: false))
        let mixed = try BindingsFile.parse(
            text: "[[binding]]\nedge = \"left\"\nfingers = 1\nshell = \"x\"\n[[binding]]\ngesture = \"pinch\"\nscale = 2\nfingers = [2, 3]\nshell = \"x\"\n",
            fileName: "b")
        #expect(mixed.subscriptionFilter == SubscriptionFilter(kinds: [.edgeSwipe, .pinch], edges: [.left], fingers: [1, 2, 3], updates: true))
        let anything = try BindingsFile.parse(text: "[[binding]]\nshell = \"x\"\n", fileName: "b")
        // A binding for any gesture can match a one-finger tap away from the edges: it asks for app touches.
        #expect(anything.subscriptionFilter == SubscriptionFilter(updates: false, appTouches: true))
        let panAndEdge = try BindingsFile.parse(text: "[[binding]]\nstart_edge = \"bottom\"\nshell = \"x\"\n[[binding]]\ngesture = \"edge-swipe\"\nshell = \"x\"\n", fileName: "b")
        #expect(panAndEdge.subscriptionFilter == SubscriptionFilter(kinds: [.edgeSwipe, .pan], updates: false))
    }
}

@Suite("Binding matcher")
struct BindingMatcherTests {
    @Test func firstMatchWinsAndOnlyCommittedEndsByDefault() throws {
        let file = """
            [[binding]]
            name = "left 2"
            edge = "left"
            fingers = 2
            shell = "x"
            [[binding]]
            name = "left"
            edge = "left"
            shell = "x"
            [[binding]]
            name = "left again"
            edge = "left"
            shell = "x"
            [[binding]]
            name = "left abandoned"
            edge = "left"
            committed = false
            shell = "x"
            """
        #expect(try fired(file, [event(.edgeSwipe, .begin, edge: .left), event(.edgeSwipe, .end, edge: .left)]) == ["left"])
        #expect(try fired(file, [event(.edgeSwipe, .end, fingers: 2, edge: .left)]) == ["left 2"])
        #expect(try fired(file, [event(.edgeSwipe, .end, edge: .left, committed: false)]) == ["left abandoned"])
        #expect(try fired(file, [event(.edgeSwipe, .end, edge: .right)]) == [])
        #expect(try fired(file, [event(.edgeSwipe, .cancel, edge: .left)]) == [])
    }

    @Test func everyFieldMatches() throws {
        let file = """
            [[binding]]
            name = "volume up"
            edge = "right"
            edge_position = [0, 0.5]
            shell = "x"
            [[binding]]
            name = "volume down"
            edge = "right"
            edge_position = [0.5, 1]
            shell = "x"
            [[binding]]
            name = "corner"
            edge = "bottom-right"
            shell = "x"
            [[binding]]
            name = "along the bottom"
            start_edge = "bottom"
            direction = ["left", "right"]
            shell = "x"
            [[binding]]
            name = "diagonal"
            gesture = "pan"
            direction = "up-right"
            fingers = [2, 3]
            shell = "x"
            [[binding]]
            name = "double tap"
            taps = 2
            shell = "x"
            [[binding]]
            name = "single tap"
            taps = 1
            shell = "x"
            [[binding]]
            name = "hold"
            gesture = "hold"
            on = "begin"
            shell = "x"
            """
        #expect(try fired(file, [event(.edgeSwipe, .end, edge: .right, edgePosition: 0.2)]) == ["volume up"])
        #expect(try fired(file, [event(.edgeSwipe, .end, edge: .right, edgePosition: 0.8)]) == ["volume down"])
        #expect(try fired(file, [event(.edgeSwipe, .end, edge: .bottomRight, edgePosition: 0.9)]) == ["corner"])
        #expect(try fired(file, [event(.pan, .end, startEdge: .bottom, direction: .right)]) == ["along the bottom"])
        #expect(try fired(file, [event(.pan, .end, direction: .right)]) == [])
        #expect(try fired(file, [event(.pan, .end, startEdge: .bottom, direction: .up)]) == [])
        #expect(try fired(file, [event(.pan, .end, fingers: 3, direction: .upRight)]) == ["diagonal"])
        #expect(try fired(file, [event(.pan, .end, fingers: 1, direction: .upRight)]) == [])
        #expect(
            try fired(file, [event(.tap, .begin, taps: 1), event(.tap, .update, taps: 2), event(.tap, .end, taps: 2)])
                == ["double tap"])
        #expect(try fired(file, [event(.tap, .begin, taps: 1), event(.tap, .end, taps: 1)]) == ["single tap"])
        #expect(try fired(file, [event(.hold, .begin), event(.hold, .end)]) == ["hold"])
    }

    @Test func thresholdsFireOncePerGesture() throws {
        let file = """
            [[binding]]
            name = "pressed"
            edge = "top"
            progress = 0.2
            shell = "x"
            [[binding]]
            name = "zoom in"
            gesture = "pinch"
            scale = 1.5
            shell = "x"
            [[binding]]
            name = "zoom out"
            gesture = "pinch"
            scale = 0.7
            shell = "x"
            [[binding]]
            name = "dragged"
            gesture = "pan"
            distance_mm = 20
            shell = "x"
            [[binding]]
            name = "top end"
            edge = "top"
            shell = "x"
            """
        let swipe = [0.05, 0.1, 0.25, 0.4, 0.1, 0.3].map { event(.edgeSwipe, .update, edge: .top, progress: $0) }
        #expect(
            try fired(file, [event(.edgeSwipe, .begin, edge: .top, progress: 0.02)] + swipe + [event(.edgeSwipe, .end, edge: .top, progress: 0.5)])
                == ["pressed", "top end"])
        // A second gesture fires again; a cancelled one stops.
        #expect(
            try fired(
                file,
                [event(.edgeSwipe, .update, id: 1, edge: .top, progress: 0.3), event(.edgeSwipe, .cancel, id: 1, edge: .top),
                 event(.edgeSwipe, .update, id: 2, edge: .top, progress: 0.3)]) == ["pressed", "pressed"])
        #expect(try fired(file, [1.2, 1.6, 1.8].map { event(.pinch, .update, scale: $0) }) == ["zoom in"])
        #expect(try fired(file, [0.9, 0.6].map { event(.pinch, .update, scale: $0) }) == ["zoom out"])
        #expect(try fired(file, [event(.pan, .update, translationMM: Vector2(12, 16)), event(.pan, .update, translationMM: Vector2(30, 0))]) == ["dragged"])
        // Passed on the end event only: fires then, beside the end binding.
        #expect(try fired(file, [event(.edgeSwipe, .end, edge: .top, progress: 0.4)]) == ["pressed", "top end"])
    }

    @Test func devicesMatchByGlobOnNameOrID() throws {
        let file = "[[binding]]\nname = \"dell\"\ndevice = \"Dell*\"\nshell = \"x\"\n[[binding]]\nname = \"event5\"\ndevice = \"event5\"\nshell = \"x\"\n"
        #expect(try fired(file, [event(.pan, .end)], device: ("event9", "Dell Canvas Touch")) == ["dell"])
        #expect(try fired(file, [event(.pan, .end)], device: ("event5", "Wacom")) == ["event5"])
        #expect(try fired(file, [event(.pan, .end)], device: ("event6", "Wacom")) == [])
    }

    @Test func theEnvironmentCarriesTheEventsFields() throws {
        let b = try bindings("[[binding]]\nname = \"n\"\nshell = \"x\"\n")[0]
        var e = event(.edgeSwipe, .end, id: 7, fingers: 2, edge: .topLeft, edgePosition: 0.125, committed: true, progress: 0.66666)
        e.positionMM = Vector2(12.5, -0.03125)
        let env = BindingMatcher.environment(e, deviceID: "event3", deviceName: "Panel", binding: b)
        for line in [
            "GESTURE_KIND=edge-swipe", "GESTURE_PHASE=end", "GESTURE_FINGERS=2", "GESTURE_ID=7", "GESTURE_TIME=0.000000", "GESTURE_EDGE=top-left",
            "GESTURE_EDGE_POSITION=0.125", "GESTURE_COMMITTED=true", "GESTURE_PROGRESS=0.6667", "GESTURE_X_MM=12.5",
            "GESTURE_Y_MM=-0.0313", "GESTURE_DEVICE=event3", "GESTURE_DEVICE_NAME=Panel", "GESTURE_BINDING=n",
        ] {
            #expect(env.contains(line), "\(line) not in \(env)")
        }
        #expect(!env.contains { $0.hasPrefix("GESTURE_DIRECTION=") || $0.hasPrefix("GESTURE_TAPS=") || $0.hasPrefix("GESTURE_SCALE=") })
        let tap = BindingMatcher.environment(event(.tap, .end, taps: 2), deviceID: nil, deviceName: nil, binding: b)
        #expect(tap.contains("GESTURE_TAPS=2"))
        let pan = BindingMatcher.environment(event(.pan, .end, startEdge: .bottom, direction: .downLeft), deviceID: nil, deviceName: nil, binding: b)
        #expect(pan.contains("GESTURE_START_EDGE=bottom") && pan.contains("GESTURE_DIRECTION=down-left"))
        #expect(BindingMatcher.decimal(3) == "3" && BindingMatcher.decimal(-0.5) == "-0.5" && BindingMatcher.decimal(0.00004) == "0")
    }
}

@Suite("The example bindings file")
struct ExampleBindingsTests {
    /// config/bindings.toml loads and holds the common phone set the README and docs/bindings.md promise.
    @Test func theExampleLoadsWithTheCommonPhoneSet() throws {
        let file = try BindingsFile.load(path: repositoryRoot + "/config/bindings.toml")
        let names = file.bindings.compactMap(\.name)
        #expect(names == [
            "firefox back", "back", "app switcher", "notifications", "keyboard", "volume up", "volume down", "next workspace",
            "previous workspace",
        ])
        #expect(file.bindings.first { $0.name == "back" }?.command == .keys([KeyChord(modifiers: [.alt], key: "Left")]))
        #expect(file.bindings.first { $0.name == "next workspace" }?.command.chords?.first?.modifiers == [.super, .ctrl])
        var matcher = BindingMatcher(bindings: file.bindings)
        func firing(_ e: GestureEvent, app: FocusedApp = .unknown) -> String? {
            matcher.handle(e, deviceID: nil, deviceName: nil, app: app).first?.binding.name
        }
        #expect(firing(event(.edgeSwipe, .end, edge: .left), app: .app("firefox")) == "firefox back")
        #expect(firing(event(.edgeSwipe, .end, edge: .left), app: .app("foot")) == "back")
        #expect(firing(event(.edgeSwipe, .end, edge: .left)) == "back")
        #expect(firing(event(.edgeSwipe, .end, edge: .bottom)) == "app switcher")
        #expect(firing(event(.edgeSwipe, .end, edge: .top)) == "notifications")
        #expect(firing(event(.edgeSwipe, .end, edge: .bottomRight)) == "keyboard")
        #expect(firing(event(.edgeSwipe, .end, edge: .right, edgePosition: 0.3)) == "volume up")
        #expect(firing(event(.edgeSwipe, .end, edge: .right, edgePosition: 0.7)) == "volume down")
        #expect(firing(event(.pan, .end, fingers: 3, direction: .left)) == "next workspace")
        #expect(firing(event(.pan, .end, fingers: 3, direction: .right)) == "previous workspace")
        #expect(firing(event(.pan, .end, fingers: 2, direction: .right)) == nil)
    }
}

@Suite("Bindings for the focused app and bindings that type keys")
struct AppAndKeysBindingsTests {
    /// A stand-in for libxkbcommon's names (WaylandSessionTests checks the real one): a few keysyms.
    struct FewKeyNames: KeyNameChecking {
        let names = ["Left", "Right", "Tab", "XF86Back", "2", "leftt"]
        func isKnown(_ name: String) -> Bool { names.contains(name) }
        func caseInsensitiveMatch(_ name: String) -> String? { names.first { $0.lowercased() == name.lowercased() } }
        func allNames() -> [String] { names }
    }

    func errors(_ text: String) -> [String] {
        do {
            _ = try BindingsFile.parse(text: text, fileName: "bindings.toml", keyNames: FewKeyNames())
            return []
        } catch {
            return error.diagnostics.map(\.description)
        }
    }

    @Test func keysAreChordsTypedInOrder() throws {
        let file = try BindingsFile.parse(
            text: "[[binding]]\nedge = \"left\"\nkeys = [\"Ctrl+ALT+Left\", \"XF86Back\", \"super+2\"]\n", fileName: "b.toml",
            keyNames: FewKeyNames())
        #expect(file.bindings[0].command == .keys([
            KeyChord(modifiers: [.ctrl, .alt], key: "Left"), KeyChord(key: "XF86Back"), KeyChord(modifiers: [.super], key: "2"),
        ]))
        #expect(file.bindings[0].command.arguments.isEmpty)
        #expect(file.keyBindings.count == 1)
        #expect(file.bindings[0].summary.hasSuffix("-> keys ctrl+alt+Left, XF86Back, super+2"))
    }

    @Test func badKeysAreErrorsWithTheirPlaceAndASuggestion() {
        #expect(errors("[[binding]]\nedge = \"left\"\nkeys = \"alt+left\"\n") == [
            "bindings.toml:3:1: binding[1].keys: \"left\" is not an xkb key name (keysym); did you mean \"Left\"?"
        ])
        #expect(errors("[[binding]]\nedge = \"left\"\nkeys = [\"Left\", \"alt+Rigth\"]\n") == [
            "bindings.toml:3:17: binding[1].keys: \"Rigth\" is not an xkb key name (keysym); did you mean \"Right\"?"
        ])
        #expect(errors("[[binding]]\nedge = \"left\"\nkeys = \"atl+Left\"\n") == [
            "bindings.toml:3:1: binding[1].keys: \"atl\" in \"atl+Left\" is not a modifier (ctrl, alt, shift, super); did you mean \"alt\"?"
        ])
        #expect(errors("[[binding]]\nedge = \"left\"\nkeys = \"ctrl+alt\"\n") == [
            "bindings.toml:3:1: binding[1].keys: \"ctrl+alt\" ends with a modifier; it needs a key to type (like \"alt+Left\")"
        ])
        #expect(errors("[[binding]]\nedge = \"left\"\nkeys = \"alt+alt+Left\"\n") == [
            "bindings.toml:3:1: binding[1].keys: \"alt+alt+Left\" names alt twice"
        ])
        #expect(errors("[[binding]]\nedge = \"left\"\nkeys = []\n").count == 1)
        #expect(errors("[[binding]]\nedge = \"left\"\nkeys = \"Left\"\nshell = \"x\"\n") == [
            "bindings.toml:4:1: binding[1].shell: a binding has one of command (run directly), shell (run by /bin/sh -c) or keys (typed), not keys and shell"
        ])
    }

    @Test func appIsAGlobOrAListOnTheFocusedApp() throws {
        let file = try BindingsFile.parse(
            text: """
                [[binding]]
                name = "firefox"
                app = "firefox*"
                edge = "left"
                shell = "a"

                [[binding]]
                name = "terminals"
                app = ["foot", "org.gnome.Console"]
                edge = "left"
                shell = "b"

                [[binding]]
                name = "general"
                edge = "left"
                shell = "c"

                """, fileName: "b.toml")
        #expect(file.appBindings.map(\.name) == ["firefox", "terminals"])
        var matcher = BindingMatcher(bindings: file.bindings)
        func fired(_ app: FocusedApp) -> BindingFiring? {
            matcher.handle(event(.edgeSwipe, .end, edge: .left), deviceID: "event5", deviceName: "panel", app: app).first
        }
        #expect(fired(.app("firefox-esr"))?.binding.name == "firefox")
        #expect(fired(.app("firefox-esr"))?.environment.contains("GESTURE_APP=firefox-esr") == true)
        #expect(fired(.app("org.gnome.Console"))?.binding.name == "terminals")
        #expect(fired(.app("gedit"))?.binding.name == "general")
        #expect(fired(.app("gedit"))?.environment.contains("GESTURE_APP=gedit") == true)
        // Nothing focused, or nobody to say: the app bindings never match, GESTURE_APP is unset.
        #expect(fired(.none)?.binding.name == "general")
        #expect(fired(.unknown)?.binding.name == "general")
        #expect(fired(.unknown)?.environment.contains { $0.hasPrefix("GESTURE_APP=") } == false)
        #expect(errors("[[binding]]\nedge = \"left\"\napp = \"[firefox\"\nshell = \"x\"\n").count == 1)
        #expect(errors("[[binding]]\nedge = \"left\"\napp = 3\nshell = \"x\"\n").count == 1)
    }
}

/// The repository root, found from this file's path (Tests/GestureBindingsTests/BindingsTests.swift).
let repositoryRoot: String = {
    var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    return parts.joined(separator: "/")
}()

@Suite("Bindings: what the issues of the first attacks and the first hour found")
struct BindingsHardeningTests {
    /// A NUL byte would end the argument where exec reads it: `rm -rf /home/u\0/.cache` runs `rm -rf /home/u`.
    @Test func aNULInACommandAShellLineOrANameIsRefusedWithItsPlace() {
        #expect(
            bindingErrors("[[binding]]\nedge = \"left\"\ncommand = [\"rm\", \"-rf\", \"/home/u\\u0000/.cache\"]\n")
                == ["bindings.toml:3:25: binding[1].command: argument 2 contains a NUL byte (\\u0000), which would cut it short when it runs: \"/home/u\\u{0}/.cache\""])
        #expect(
            bindingErrors("[[binding]]\nedge = \"left\"\nshell = \"rm -rf /home/u\\u0000/.cache\"\n")
                == ["bindings.toml:3:1: binding[1].shell: the command line contains a NUL byte (\\u0000), which would cut it short when it runs: \"rm -rf /home/u\\u{0}/.cache\""])
        #expect(
            bindingErrors("[[binding]]\nname = \"a\\u0000b\"\nedge = \"left\"\nshell = \"x\"\n")
                == ["bindings.toml:2:1: binding[1].name: the name (GESTURE_BINDING) contains a NUL byte (\\u0000), which would cut it short when it runs: \"a\\u{0}b\""])
    }

    /// `gesture = "swipe"` says which kinds a swipe is here, and the message after it is not cut short.
    @Test func swipeGetsADidYouMeanAndNothingAfterItIsCutOff() {
        #expect(
            bindingErrors("[[binding]]\ngesture = \"swipe\"\nedge = \"left\"\nshell = \"x\"\n")
                == ["bindings.toml:2:1: binding[1].gesture: \"swipe\" is not a gesture kind; did you mean \"edge-swipe\" (from an edge of the screen) or \"pan\" (a swipe anywhere, with direction)?"])
        #expect(
            bindingErrors("[[binding]]\ngesture = [\"pan\", \"swipe\"]\ntaps = 2\nshell = \"x\"\n")
                == ["bindings.toml:2:19: binding[1].gesture: \"swipe\" is not a gesture kind; did you mean \"edge-swipe\" (from an edge of the screen) or \"pan\" (a swipe anywhere, with direction)?"])
    }

    /// What --check prints is escaped: a name cannot retitle or clear the terminal, nor start a line.
    @Test func theSummaryEscapesWhatTheFileSays() throws {
        let file = try BindingsFile.parse(
            text: "[[binding]]\nname = \"x\\u001b]0;owned\\u0007\\nforged\"\nedge = \"left\"\ncommand = [\"echo\", \"\\u001b[2J\"]\n",
            fileName: "bindings.toml")
        #expect(!file.summary.contains("\u{1b}") && !file.summary.contains("\u{7}"))
        #expect(file.summary.split(separator: "\n").count == 2, "\(file.summary)")
        #expect(file.summary.contains("x\\u{1b}]0;owned\\u{7}\\u{a}forged: edge-swipe, edge left, on end -> echo \\u{1b}[2J"), "\(file.summary)")
    }

    /// Issue 28, item 8: a backslash in what the file says is escaped too, once, so a name holding the text
    /// `\u{a}` and one holding a newline are shown apart; bidirectional overrides and line separators do
    /// not reach the terminal.
    @Test func theSummaryEscapesBackslashesFormatAndSeparatorCharactersOnce() throws {
        let file = try BindingsFile.parse(
            text: """
                [[binding]]
                name = 'x\\u{a}y'
                edge = "left"
                app = "fire\\\\fox\\u202e"
                device = "pan\\u2028el"
                command = ["echo", "a\\\\b", "\\u202egnp.exe", "two words\\u2029"]

                [[binding]]
                name = "x\\ny"
                edge = "right"
                keys = "alt+Left"

                """,
            fileName: "bindings.toml")
        let lines = file.summary.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(file.summary)")
        #expect(!file.summary.unicodeScalars.contains { isEscapedInMessages($0) && $0 != "\n" }, "\(file.summary)")
        #expect(
            lines[1] == "  x\\\\u{a}y: edge-swipe, edge left, device \"pan\\u{2028}el\", app \"fire\\\\fox\\u{202e}\", on end "
                + "-> echo a\\\\b \\u{202e}gnp.exe \"two words\\u{2029}\"", "\(lines[1])")
        #expect(lines[2] == "  x\\u{a}y: edge-swipe, edge right, on end -> keys alt+Left", "\(lines[2])")
    }

    /// `region` (fractions) and `region_mm` match taps and holds where the fingers are; anything else is
    /// refused with what it should be.
    @Test func regionsMatchTapsAndHoldsWhereTheyAre() throws {
        let b = try bindings(
            """
            [[binding]]
            region = [0.9, 0, 1, 0.1]
            taps = 3
            shell = "x"

            [[binding]]
            gesture = "hold"
            region_mm = [0, 0, 15, 15]
            shell = "y"
            """)
        #expect(b[0].possibleKinds == [.tap] && b[1].possibleKinds == [.hold])
        var corner = event(.tap, .end, taps: 3)
        corner.position = Vector2(0.95, 0.05)
        var middle = corner
        middle.position = Vector2(0.5, 0.5)
        #expect(b[0].matchesFields(of: corner, deviceID: nil, deviceName: nil))
        #expect(!b[0].matchesFields(of: middle, deviceID: nil, deviceName: nil))
        var hold = event(.hold, .begin)
        hold.positionMM = Vector2(10, 14)
        #expect(b[1].matchesFields(of: hold, deviceID: nil, deviceName: nil))
        hold.positionMM = Vector2(10, 16)
        #expect(!b[1].matchesFields(of: hold, deviceID: nil, deviceName: nil))
        #expect(b[0].summary.contains("region x 0.9-1, y 0-0.1"))
        #expect(
            bindingErrors("[[binding]]\nregion = [1, 0, 0.9, 0.1]\nshell = \"x\"\n")
                == ["bindings.toml:2:1: binding[1].region: expected a rectangle [x_from, y_from, x_to, y_to] with 0 <= from < to <= 1 (fractions of the screen from the top-left corner), such as [0.9, 0, 1, 0.1] for the top-right corner, got an array of 4"])
        #expect(
            bindingErrors("[[binding]]\ngesture = \"pan\"\nregion = [0, 0, 0.1, 0.1]\nshell = \"x\"\n")
                == ["bindings.toml:3:1: binding[1].region: only hold and tap gestures have region; this binding is for pan"])
        #expect(
            bindingErrors("[[binding]]\nregion = [0, 0, 0.1, 0.1]\nregion_mm = [0, 0, 10, 10]\nshell = \"x\"\n")
                == ["bindings.toml:3:1: binding[1].region_mm: a binding has one region: region (fractions of the screen) or region_mm, not both"])
    }

    /// A `held_seconds` binding waits at the hold's begin, fires when the caller says the time has passed,
    /// and never once the hold ended first; the first matching one wins.
    @Test func heldSecondsWaitsForTheHoldAndNeverFiresAfterALift() throws {
        let b = try bindings(
            """
            [[binding]]
            name = "admin"
            region = [0.9, 0, 1, 0.1]
            held_seconds = 5
            shell = "admin"

            [[binding]]
            name = "long"
            held_seconds = 2
            shell = "long"
            """)
        #expect(b[0].trigger == .held(seconds: 5) && b[0].possibleKinds == [.hold])
        #expect(b[0].summary.hasSuffix("hold, region x 0.9-1, y 0-0.1, held 5 s from the landing -> sh -c \"admin\""), "\(b[0].summary)")
        var matcher = BindingMatcher(bindings: b)
        var begin = event(.hold, .begin, id: 7)
        begin.position = Vector2(0.95, 0.05)
        #expect(matcher.handle(begin, deviceID: "event5", deviceName: nil).isEmpty)
        let waits = matcher.newWaits()
        #expect(waits.count == 1 && waits.first?.seconds == 5)
        #expect(matcher.newWaits().isEmpty)
        let fired = matcher.heldLongEnough(waits[0].hold)
        #expect(fired?.binding.name == "admin" && fired?.environment.contains("GESTURE_KIND=hold") == true)
        #expect(matcher.heldLongEnough(waits[0].hold) == nil)
        // Lifted before the time: nothing.
        var other = event(.hold, .begin, id: 8)
        other.position = Vector2(0.5, 0.5)
        _ = matcher.handle(other, deviceID: "event5", deviceName: nil)
        let second = matcher.newWaits()
        #expect(second.count == 1 && second.first?.seconds == 2)
        // Counted from the landing: a hold that began after 0.5 s down waits 4.5 s more for held_seconds = 5
        // (it fired 5.5 s after the landing before), and one already down longer than that fires at once.
        for (down, left) in [(0.5, 4.5), (7.0, 0.0)] {
            var late = event(.hold, .begin, id: down == 0.5 ? 20 : 21)
            late.position = Vector2(0.95, 0.05)
            late[EventFields.downSeconds] = .number(down)
            _ = matcher.handle(late, deviceID: "event5", deviceName: nil)
            let w = matcher.newWaits()
            #expect(w.count == 1 && abs((w.first?.seconds ?? -1) - left) < 1e-9, "down \(down): \(w)")
        }
        _ = matcher.handle(event(.hold, .end, id: 8), deviceID: "event5", deviceName: nil)
        #expect(matcher.heldLongEnough(second[0].hold) == nil)
        #expect(
            bindingErrors("[[binding]]\nheld_seconds = 2\non = \"begin\"\nshell = \"x\"\n")
                == ["bindings.toml:3:1: binding[1].on: held_seconds fires while the hold lasts; it goes without on (this binding says on = \"begin\")"])
        #expect(
            bindingErrors("[[binding]]\nheld_seconds = 0\nshell = \"x\"\n")
                == ["bindings.toml:2:1: binding[1].held_seconds: expected the seconds the fingers must be down, from the landing, above 0 and at most 600, got the integer 0"])
    }

    /// `bind --verbose`: a three-finger swipe down at about 35° ends committed with no direction; the
    /// binding for a swipe down comes closest, and its direction key is named with the angle.
    @Test func anEndThatFiresNothingNamesTheClosestBindingAndItsKey() throws {
        let b = try bindings(
            """
            [[binding]]
            gesture = "pinch"
            shell = "zoom"

            [[binding]]
            fingers = 3
            direction = "down"
            shell = "close"
            """)
        let matcher = BindingMatcher(bindings: b)
        // 35° off down, towards the right: (sin 35°, cos 35°) × 40 mm.
        let swipe = event(.pan, .end, fingers: 3, committed: true, translationMM: Vector2(22.94, 32.77))
        let miss = try #require(matcher.nearestMiss(for: swipe, deviceID: "event5", deviceName: "panel"))
        #expect(miss.binding.index == 2 && miss.key == "direction")
        #expect(
            miss.line == "binding 2 (bindings.toml:5:1): direction is none: moved 35° off down, beyond the daemon's pan.angle_tolerance_degrees",
            "\(miss.line)")
        // Two fingers down, straight: the fingers are what did not match.
        let two = event(.pan, .end, fingers: 2, committed: true, direction: .down, translationMM: Vector2(0, 40))
        #expect(matcher.nearestMiss(for: two, deviceID: nil, deviceName: nil)?.explanation == "fingers is 2, not 3")
        // Not committed: said so.
        let short = event(.pan, .end, fingers: 3, committed: false, translationMM: Vector2(0, 8))
        #expect(matcher.nearestMiss(for: short, deviceID: nil, deviceName: nil)?.key == "direction")
        #expect(matcher.nearestMiss(for: short, deviceID: nil, deviceName: nil)?.explanation == "direction is none: the pan did not commit")
        // Only ends are explained.
        #expect(matcher.nearestMiss(for: event(.pan, .begin, fingers: 3), deviceID: nil, deviceName: nil) == nil)
    }

    /// `bind --check --replay`: in the recording's time, a held_seconds binding fires when the fingers
    /// have been down that long, and never for a hold that ended first; an end that fires nothing says
    /// which binding came closest.
    @Test func aRehearsalFiresInTheRecordingsTime() throws {
        let b = try bindings(
            """
            [[binding]]
            held_seconds = 2
            shell = "long"

            [[binding]]
            direction = "up"
            shell = "up"
            """)
        func at(_ e: GestureEvent, _ seconds: Double, down: Double? = nil) -> GestureEvent {
            var e = e
            e.timeMicroseconds = Int64(seconds * 1_000_000)
            if let down { e[EventFields.downSeconds] = .number(down) }
            return e
        }
        let events = [
            at(event(.hold, .begin, id: 1), 10.5, down: 0.5),  // landed at 10 s: fires at 12 s
            at(event(.hold, .end, id: 1), 13, down: 3),
            at(event(.hold, .begin, id: 2), 20.5, down: 0.5),  // lifted at 21 s: never fires
            at(event(.hold, .end, id: 2), 21, down: 1),
            at(event(.pan, .begin, id: 3), 30),
            at(event(.pan, .end, id: 3, direction: .down, translationMM: Vector2(0, 40)), 30.4),
        ]
        let entries = BindingRehearsal.run(events, bindings: b, deviceID: "replay", deviceName: "panel")
        let summary = entries.map { entry -> String in
            switch entry.outcome {
            case .fires(let f): return "\(entry.timeMicroseconds) fires \(f.binding.index) for \(f.event.id)"
            case .missed(let e, let miss): return "\(entry.timeMicroseconds) \(e.id) missed: \(miss?.explanation ?? "-")"
            }
        }
        #expect(
            summary == [
                "12000000 fires 1 for 1",
                "21000000 2 missed: no on = \"end\" binding is for hold gestures (the closest is for pan)",
                "30400000 3 missed: direction is down",
            ], "\(summary)")
    }
}
