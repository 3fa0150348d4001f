import Foundation
import Testing

/// `gesturectl explain` over every golden recording (Tests/Fixtures/golden/manifest.tsv, with its device
/// description and configuration): its explanations cover exactly the gestures the golden file has, every
/// setting they name is a real key of gestured.toml, and the numbers are the ones computed by hand from
/// the raw events.
///
/// The hand-computed numbers: a landing in millimetres is (value - minimum) / (maximum - minimum) of the
/// axis (its first ABS_MT_POSITION_X/Y after the tracking id), times the panel's size: the resolution's
/// (span / units per mm) when the axes have one, else the assumed 350 mm diagonal split in the axes'
/// aspect (Wacom: 304.699 × 172.2164 mm; QUANTA: 305.0514 × 171.5914; Atmel: 300.1888 × 179.963; EP:
/// 300.1639 × 180.0045; Dell: 32767 / 55 × 32767 / 98 = 595.7636 × 334.3571; N4 from its resolution:
/// 77.1596 × 128.6328). A rotation turns the panel's distances to the sides as the screen is turned (90°
/// clockwise: the panel's left edge is the screen's top, its top the screen's right). Times are the
/// events' own.
@Suite struct ExplainCommandTests {
    typealias Case = GoldenReplayTests.Case

    static func explain(_ c: Case, extra: [String] = ["--json"]) throws -> (lines: [[String: Any]], stderr: String) {
        var args = ["explain"] + extra
        if let d = c.description { args += ["--device", ReplayCommandTests.recordings + d] }
        if let config = c.config { args += ["--config", GoldenReplayTests.golden + "configs/" + config] }
        args.append(ReplayCommandTests.recordings + c.recording)
        let r = try ReplayCommandTests.run(args)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map { line -> [String: Any] in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
        }
        return (lines, r.stderr)
    }

    /// Every gesture of the golden file is in exactly one explanation, with its kind and how it ended.
    @Test(arguments: GoldenReplayTests.cases) func explanationsCoverTheGoldenGestures(_ c: Case) throws {
        let (blocks, _) = try Self.explain(c)
        #expect(!blocks.isEmpty)
        var explained: [Int: (kind: String, outcome: String)] = [:]
        for block in blocks {
            #expect(block["type"] as? String == "explanation")
            for g in block["gestures"] as? [[String: Any]] ?? [] {
                let id = g["id"] as? Int ?? -1
                #expect(explained[id] == nil, "gesture \(id) explained twice")
                explained[id] = (g["gesture"] as? String ?? "", g["outcome"] as? String ?? "")
            }
        }
        // The golden gestures, from `gesturectl replay` (the forward goldens' gestures are the replay's).
        var args = ["replay", "--no-updates"]
        if let d = c.description { args += ["--device", ReplayCommandTests.recordings + d] }
        if let config = c.config { args += ["--config", GoldenReplayTests.golden + "configs/" + config] }
        args.append(ReplayCommandTests.recordings + c.recording)
        let replay = try ReplayCommandTests.run(args)
        var golden: [Int: (kind: String, outcome: String)] = [:]
        for line in replay.stdout.split(separator: "\n") {
            let e = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let id = e["id"] as? Int ?? -1
            let kind = e["gesture"] as? String ?? ""
            switch e["phase"] as? String {
            case "begin": golden[id] = (kind, "running")
            case "end": golden[id] = (kind, (e["committed"] as? Bool) == true ? "committed" : "not-committed")
            case "cancel": golden[id] = (kind, "cancelled")
            default: break
            }
        }
        #expect(!golden.isEmpty)
        #expect(Set(explained.keys) == Set(golden.keys))
        for (id, g) in golden {
            #expect(explained[id]?.kind == g.kind, "gesture \(id)")
            #expect(explained[id]?.outcome == g.outcome, "gesture \(id)")
        }
    }

    /// Every key a reason names is a key of config/gestured.toml (relative to [recognizer]), so a user can
    /// copy it; every reason has its text and, unless it is about a cancellation, a number.
    @Test(arguments: GoldenReplayTests.cases) func reasonsNameRealKeys(_ c: Case) throws {
        let config = try String(contentsOfFile: ReplayCommandTests.packageRoot + "/config/gestured.toml", encoding: .utf8)
        let (blocks, _) = try Self.explain(c)
        var reasons = 0
        for block in blocks {
            for r in block["reasons"] as? [[String: Any]] ?? [] {
                reasons += 1
                #expect((r["text"] as? String)?.isEmpty == false)
                let measurements = r["measurements"] as? [[String: Any]] ?? []
                let cause = r["cause"] as? String ?? ""
                if !["another-kind-began", "stillness-unknown", "palm", "pen-in-proximity", "events-dropped", "cancelled-by-daemon", "excluded"]
                    .contains(cause)
                {
                    #expect(!measurements.isEmpty, "\(cause) without a number")
                }
                for m in measurements {
                    let key = m["key"] as? String ?? ""
                    let parts = key.split(separator: ".")
                    // "edge_swipe.left.zone_mm": [recognizer.edge_swipe.left] zone_mm; "slop_mm": [recognizer] slop_mm.
                    let table = parts.count > 1 ? "[recognizer." + parts.dropLast().joined(separator: ".") + "]" : "[recognizer]"
                    let name = String(parts.last ?? "")
                    let inTable = config.components(separatedBy: "\n" + table + "\n").dropFirst().first?.components(separatedBy: "\n[").first ?? ""
                    let shorthand = key == "edge_swipe.zone_mm" && config.contains("zone_mm")
                    #expect(
                        shorthand || inTable.range(of: "(?m)^#? ?" + name + " = ", options: .regularExpression) != nil,
                        "\(key) is not a key of \(table) in config/gestured.toml")
                    #expect(m["value"] is NSNumber && m["setting"] is NSNumber)
                }
            }
        }
        #expect(reasons > 0)
    }

    /// Numbers computed by hand from the raw events, golden by golden: (block, finger) landings and the
    /// reasons' measured values.
    struct Expected {
        /// Per finger: block index, finger index, side, millimetres from it.
        var landings: [(block: Int, finger: Int, side: String, mm: Double)] = []
        /// Per reason: block index, kind (nil: about the touch), cause, measured value.
        var reasons: [(block: Int, kind: String?, cause: String, value: Double)] = []
        /// The zones the first finger of the first block landed in.
        var zones: [String]? = nil
    }

    static let expected: [String: Expected] = [
        // Both fingers at t = 0.000001 s; they lift at 0.355991 s and 0.362062 s: no hold (0.362061 s < 0.5 s).
        "dell.jsonl": Expected(
            landings: [(0, 0, "left", 160.4), (0, 0, "bottom", 114.8163), (0, 1, "left", 149.2909), (0, 1, "bottom", 123.1939)],
            reasons: [(0, "hold", "lifted-too-soon", 0.362061)], zones: []),
        "forward-dell-claims.evemu": Expected(landings: [(0, 0, "left", 160.4), (0, 1, "bottom", 123.1939)], reasons: [(0, "hold", "lifted-too-soon", 0.362061)]),
        // 44.7375 mm from the left is farther than 32.4221 from the right: the right is the nearer side.
        "n4.jsonl": Expected(landings: [(0, 0, "right", 32.4221), (0, 0, "top", 28.9537)], reasons: [(0, "edge-swipe", "outside-zone", 28.9537)]),
        "quanta.jsonl": Expected(landings: [(0, 0, "left", 81.5059), (0, 0, "top", 50.8419)], reasons: [(0, "edge-swipe", "outside-zone", 50.8419)]),
        // 12.5129 mm from the top is nearer than 13.1714 from the left, and 12.5129 > 2 × 5 mm: no near miss.
        "wacom-top-swipe.jsonl": Expected(
            landings: [(0, 0, "left", 13.1714), (0, 0, "top", 12.5129)], reasons: [(0, "edge-swipe", "outside-zone", 12.5129)], zones: []),
        "wacom-double-circle.jsonl": Expected(landings: [(0, 0, "left", 141.9221), (0, 0, "top", 47.966), (0, 1, "left", 125.4579), (0, 1, "top", 62.0155)]),
        "ep-4-drag.jsonl": Expected(landings: [(0, 0, "left", 62.1919), (0, 0, "bottom", 57.9675), (0, 1, "bottom", 36.8458)]),
        "atmel-drag.jsonl": Expected(landings: [(0, 0, "left", 135.6297), (0, 0, "bottom", 37.5706)], reasons: [(0, "edge-swipe", "outside-zone", 37.5706)]),
        // With 15 mm zones the landing (13.1714, 12.5129) is in two zones, turned with the panel.
        "edge-left.jsonl": Expected(landings: [(0, 0, "left", 13.1714), (0, 0, "top", 12.5129)], zones: ["left", "top"]),
        "edge-top.jsonl": Expected(landings: [(0, 0, "top", 13.1714), (0, 0, "right", 12.5129)], zones: ["right", "top"]),
        "edge-right.jsonl": Expected(landings: [(0, 0, "right", 13.1714), (0, 0, "bottom", 12.5129)], zones: ["right", "bottom"]),
        "edge-bottom.jsonl": Expected(landings: [(0, 0, "left", 12.5129), (0, 0, "bottom", 13.1714)], zones: ["left", "bottom"]),
        // (213.1455 / 595.7636 - 0.3528) × 595.7636 = 2.9601 mm; (1 - (215.8878 / 334.3571 + 0.3453)) × 334.3571 = 3.0158 mm.
        "corner-bottom-left.jsonl": Expected(landings: [(0, 0, "left", 2.9601), (0, 0, "bottom", 3.0158)], zones: ["left", "bottom"]),
        // Taps at 0.000001 s (lifted 0.095573 s) and 0.233856 s (lifted 0.316645 s): a double tap; the hold's
        // first reason is the first tap's: lifted 0.095573 - 0.000001 = 0.095572 s after its landing.
        "double-taps.jsonl": Expected(
            landings: [(0, 0, "left", 127.7399), (0, 0, "bottom", 89.0422), (0, 1, "left", 132.9998)],
            reasons: [(0, "hold", "lifted-too-soon", 0.095572)]),
        // Lands 20.1779 mm from the left (a 5 mm zone by default: outside, and more than twice its width).
        "hold-drag.jsonl": Expected(
            landings: [(0, 0, "left", 20.1779), (0, 0, "top", 70.5431)], reasons: [(0, "edge-swipe", "outside-zone", 20.1779)], zones: []),
        // The same landing with a 40 mm left zone: in it.
        "forward-quanta-edge-zone.evemu": Expected(landings: [(0, 0, "left", 20.1779)], zones: ["left"]),
    ]

    @Test func everyGoldenHasHandComputedNumbers() {
        #expect(Set(Self.expected.keys) == Set(GoldenReplayTests.cases.map(\.golden)))
    }

    @Test(arguments: GoldenReplayTests.cases) func numbersMatchTheHandComputedOnes(_ c: Case) throws {
        let want = try #require(Self.expected[c.golden])
        let (blocks, _) = try Self.explain(c)
        for l in want.landings {
            let fingers = try #require(blocks[l.block]["fingers"] as? [[String: Any]])
            let edges = try #require(fingers[l.finger]["from_edges_mm"] as? [String: Double])
            let got = try #require(edges[l.side])
            #expect(abs(got - l.mm) < 0.001, "\(c.golden) block \(l.block) finger \(l.finger): \(got) mm from the \(l.side), want \(l.mm)")
        }
        for r in want.reasons {
            let reasons = try #require(blocks[r.block]["reasons"] as? [[String: Any]])
            let reason = reasons.first { $0["gesture"] as? String == r.kind && $0["cause"] as? String == r.cause }
            let value = (reason?["measurements"] as? [[String: Any]])?.first?["value"] as? Double
            let measured: Double = value ?? .nan
            let close = abs(measured - r.value) < 0.001
            #expect(close, "\(c.golden): \(r.kind ?? "touch") \(r.cause) measured \(measured), want \(r.value)")
        }
        if let zones = want.zones {
            let fingers = try #require(blocks.first?["fingers"] as? [[String: Any]])
            #expect(Set(fingers.first?["zones"] as? [String] ?? ["?"]) == Set(zones))
        }
    }

    /// `--all` says the same as the JSON: a block per touch, with the landing and the reasons.
    @Test func textBlocks() throws {
        let c = try #require(GoldenReplayTests.cases.first { $0.golden == "hold-drag.jsonl" })
        var args = ["explain", "--all"]
        if let d = c.description { args += ["--device", ReplayCommandTests.recordings + d] }
        args.append(ReplayCommandTests.recordings + c.recording)
        let r = try ReplayCommandTests.run(args)
        #expect(r.status == 0)
        #expect(r.stdout.hasPrefix("touch 1 at 0.000 s to 0.928 s, 1 finger:\n  finger 1 landed 20.2 mm from the left, 70.5 mm from the top (no edge zone)\n"))
        #expect(r.stdout.contains("  became: hold #1, 1 finger, committed\n"))
        #expect(r.stdout.contains("  edge-swipe: landed 20.2 mm from the left edge (edge_swipe.left.zone_mm 5)\n"))
        #expect(r.stdout.contains("  tap: down 0.50 s (tap.max_duration_seconds 0.4)\n"))
        #expect(r.stderr.hasPrefix("panel: 305.1 × 171.6 mm"))
    }

    /// Issue 38, item 8: by default a line a touch, numbered, its time from the first touch shown, what it
    /// became and the one reason that decided; --edges and --kinds show only the touches that concern
    /// them, with their reasons; the key named is the one that decided (the side's own, or the shorthand
    /// where it set the width).
    @Test func oneLineATouchAndFilters() throws {
        let quanta = ["--device", ReplayCommandTests.recordings + "QUANTA_OpticalTouchScreen.desc", ReplayCommandTests.recordings + "QUANTA_OpticalTouchScreen.events"]
        let all = try ReplayCommandTests.run(["explain"] + quanta)
        #expect(all.status == 0, "\(all.stderr)")
        let lines = all.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count >= 5, "\(all.stdout)")
        #expect(lines.first?.hasPrefix("touch 1 at 0.000 s, 1 finger: ") == true, "\(all.stdout)")
        for (i, line) in lines.enumerated() { #expect(line.hasPrefix("touch \(i + 1) at "), "\(line)") }
        // The Wacom top swipe landed 12.5 mm below the top: a pan; asked about the top edge, it says why
        // it was no top edge swipe, by the side's own key.
        let wacom = ["--device", ReplayCommandTests.recordings + "Wacom_ISDv4_E6_Finger.desc", ReplayCommandTests.recordings + "Wacom_ISDv4_E6_Finger.single-top-swipe.events"]
        let plain = try ReplayCommandTests.run(["explain"] + wacom)
        #expect(plain.stdout == "touch 1 at 0.000 s, 1 finger: pan right, committed\n", "\(plain.stdout)")
        let top = try ReplayCommandTests.run(["explain", "--edges", "top"] + wacom)
        #expect(
            top.stdout == "touch 1 at 0.000 s, 1 finger: pan right, committed; edge-swipe: landed 12.5 mm from the top edge, outside its zone (edge_swipe.top.zone_mm is 5)\n",
            "\(top.stdout)")
        let bottom = try ReplayCommandTests.run(["explain", "--edges", "bottom"] + wacom)
        #expect(bottom.stdout == "no touches for --edges bottom (1 touch explained)\n", "\(bottom.stdout)")
        let taps = try ReplayCommandTests.run(["explain", "--kinds", "tap"] + wacom)
        #expect(taps.stdout == "no touches for --kinds tap (1 touch explained)\n", "\(taps.stdout)")
        // Where the shorthand set the width in force, it is the key named.
        let directory = TemporaryDirectory()
        let config = directory.write("gestured.toml", "[[device]]\nmatch_name = \"Wacom*\"\nedge_swipe.zone_mm = 8\n")
        // With 8 mm zones the landing, 13.2 mm from the left, is within twice the left zone: a near miss.
        let shorthand = try ReplayCommandTests.run(["explain", "--edges", "left", "--config", config] + wacom)
        #expect(
            shorthand.stdout
                == "touch 1 at 0.000 s, 1 finger: pan right, committed; edge-swipe: near miss: landed 13.2 mm from the left edge, just outside its zone, and moved inward (edge_swipe.zone_mm is 8)\n",
            "\(shorthand.stdout)")
    }

    /// Issue 38, item 5: a --focus that puts no [[exclusion]] section in force is said, with the section it
    /// would match but for case.
    @Test func aFocusMatchingNoSectionIsSaid() throws {
        let directory = TemporaryDirectory()
        let config = directory.write("gestured.toml", "[[exclusion]]\napp = \"sketch\"\nedges = [\"left\"]\n")
        let recording = [ReplayCommandTests.recordings + "dell_canvas_touch.evemu"]
        for command in ["explain", "replay", "plot"] {
            let extra = command == "plot" ? ["-o", directory.path + "/p.svg"] : []
            let r = try ReplayCommandTests.run([command, "--config", config, "--focus", "Sketch"] + extra + recording)
            #expect(r.status == 0, "\(command): \(r.stderr)")
            #expect(
                r.stderr.contains(
                    "warning: --focus Sketch: no [[exclusion]] section names \"Sketch\": app_id globs are case-sensitive; did you mean \"sketch\" (the section at \(config):1:1)?\n"),
                "\(command): \(r.stderr)")
            let right = try ReplayCommandTests.run([command, "--config", config, "--focus", "sketch"] + extra + recording)
            #expect(!right.stderr.contains("--focus"), "\(command): \(right.stderr)")
            #expect(right.stderr.contains("excluded left 0.0...1.0 from \(config):1:1"), "\(command): \(right.stderr)")
        }
    }

    /// A configured [[exclusion]] for the focused app (`--focus`, as for replay): the Wacom top swipe,
    /// which lands 13.17 mm from the left in a 15 mm left zone, is an edge swipe without it and says it is
    /// excluded with it.
    @Test func anExclusionOfTheFocusedAppIsSaid() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("explain-exclusion-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("gestured.toml")
        try """
            [recognizer.edge_swipe.left]
            zone_mm = 15

            [[exclusion]]
            app = "org.example.paint"
            edges = ["left"]

            """.write(to: config, atomically: true, encoding: .utf8)
        let args = [
            "explain", "--config", config.path, "--device", ReplayCommandTests.recordings + "Wacom_ISDv4_E6_Finger.desc",
            ReplayCommandTests.recordings + "Wacom_ISDv4_E6_Finger.single-top-swipe.events",
        ]
        let plain = try ReplayCommandTests.run(args)
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stdout == "touch 1 at 0.000 s, 1 finger: edge-swipe from the left, committed\n", "\(plain.stdout)")
        let focused = try ReplayCommandTests.run(Array(args.prefix(3)) + ["--focus", "org.example.paint", "--all"] + args.dropFirst(3))
        #expect(focused.status == 0, "\(focused.stderr)")
        // The reason names who keeps the edge: the [[exclusion]] section's place in the file.
        #expect(
            focused.stdout.contains(
                "  edge-swipe: edge swipes are excluded here (exclusion from 0.00 to 1.00 of the left edge, set by \(config.path):4:1)\n"),
            "\(focused.stdout)")
        #expect(focused.stdout.contains("  finger 1 landed 13.2 mm from the left, 12.5 mm from the top (no edge zone)\n"))
    }

    @Test func usage() throws {
        let help = try ReplayCommandTests.run(["explain", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.hasPrefix("usage: gesturectl explain [--device DESC] [--config FILE [--focus APP]] [--all] [--kinds LIST] [--edges LIST] [--json] RECORDING\n"))
        let both = try ReplayCommandTests.run(["explain", "--count", "2", ReplayCommandTests.recordings + "dell_canvas_touch.evemu"])
        #expect(both.status == 2)
        #expect(both.stderr.hasPrefix("gesturectl explain: --socket and --count are for the running daemon, not a recording\n"))
        let config = try ReplayCommandTests.run(["explain", "--config", "x.toml", "--socket", "/nonexistent/gestured.sock"])
        #expect(config.status == 2)
    }
}
