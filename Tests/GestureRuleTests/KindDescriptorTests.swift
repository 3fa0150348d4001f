import GestureBindings
import GestureConfig
import GestureCore
import GestureProtocol
import GestureVocabulary
import Testing

/// A kind's fields are declared once, beside its rule: TapAndDragRule.swift declares `drag_mm`, and with
/// no edit anywhere else that field reaches the JSON line, the text line, a bindings key and the commands'
/// environment, and the kind is in every generated list (docs/architecture.md, "Adding a gesture kind").
@Suite struct KindDescriptorTests {
    static let kinds = GestureKind.allCases + [TapAndDragRule.kind]

    static func fixed(_ v: Double, _ decimals: Int) -> String {
        var s = ""
        JSONObjectWriter.appendFixed(v, decimals: decimals, to: &s)
        return s
    }

    /// The tap-and-drag's end, from AddedKindTests' tap then 30 mm drag.
    static func dragEnd() throws -> GestureEvent {
        let g = try AddedKindTests.gestures(AddedKindTests.tapThenDrag(), settings: AddedKindTests.withTapAndDrag)
        return try #require(g.last { $0.kind == TapAndDragRule.kind && $0.phase == .end })
    }

    @Test func theRuleFillsItsOwnField() throws {
        let end = try Self.dragEnd()
        guard case .number(let drag)? = end[TapAndDragRule.dragMM] else {
            Issue.record("no drag_mm on \(end)")
            return
        }
        #expect(abs(drag - end.translationMM.length) < 1e-9 && drag > 25)
        // No field of gestured's own kinds that has a stored property is set on it. (The extra slots are
        // each kind's own: a hold's down_seconds is slot 0 too, and a hold's event is never a tap-and-drag's.)
        let stored = EventFields.shipped.filter { if case .extra = $0.storage { return false } else { return true } }
        #expect(stored.count == 9 && stored.allSatisfy { end[$0] == nil })
    }

    @Test func theFieldReachesTheJSONLineInItsPlace() throws {
        let end = try Self.dragEnd()
        let line = GestureEventJSON.encode(end)
        let drag = Self.fixed(end.translationMM.length, 2)
        #expect(line.hasSuffix(",\"drag_mm\":\(drag)}"), "\(line)")
        #expect(line.contains("\"gesture\":\"tap-and-drag\""))
        // A kind that does not declare it never writes it, even when the slot holds a value.
        var pan = end
        pan.kind = .pan
        #expect(!GestureEventJSON.encode(pan).contains("drag_mm"))
    }

    @Test func theFieldReachesTheTextLine() throws {
        let end = try Self.dragEnd()
        let text = GestureEventText.format(end)
        #expect(text.contains("  dragged \(Self.fixed(end.translationMM.length, 1)) mm"), "\(text)")
    }

    static let bindings = """
        [[binding]]
        gesture = "tap-and-drag"
        drag_mm = [20, 40]
        command = ["true"]

        [[binding]]
        drag_mm = [40, 60]
        command = ["false"]
        """

    @Test func theFieldIsABindingKeyAndAnEnvironmentVariable() throws {
        let file = try BindingsFile.parse(text: Self.bindings, fileName: "bindings.toml", kinds: Self.kinds)
        #expect(file.bindings[1].possibleKinds == [TapAndDragRule.kind], "drag_mm implies the kind that declares it")
        #expect(file.bindings[0].summary.contains("drag_mm 20-40"), "\(file.bindings[0].summary)")
        var matcher = BindingMatcher(bindings: file.bindings)
        let end = try Self.dragEnd()
        let firings = matcher.handle(end, deviceID: "replay1", deviceName: "panel")
        try #require(firings.count == 1)
        #expect(firings[0].binding.index == 1)
        #expect(firings[0].environment.contains("GESTURE_DRAG_MM=\(BindingMatcher.decimal(end.translationMM.length))"), "\(firings[0].environment)")
        #expect(firings[0].environment.contains("GESTURE_KIND=tap-and-drag"))

        // A drag outside both ranges fires nothing.
        var short = end
        short[TapAndDragRule.dragMM] = .number(5)
        #expect(matcher.handle(short, deviceID: "replay1", deviceName: "panel").isEmpty)
    }

    @Test func aFileReadWithoutTheKindDoesNotKnowItsKey() throws {
        #expect(throws: ConfigError.self) { try BindingsFile.parse(text: Self.bindings, fileName: "bindings.toml") }
        #expect(!BindingsFile.keys().contains("drag_mm"))
        #expect(BindingsFile.keys(for: Self.kinds).contains("drag_mm"))
    }

    @Test func aValueOutsideTheDeclaredRangeIsRefusedWithItsMeaning() throws {
        let text = "[[binding]]\ndrag_mm = [10, 3000]\ncommand = [\"true\"]\n"
        do {
            _ = try BindingsFile.parse(text: text, fileName: "b.toml", kinds: Self.kinds)
            Issue.record("accepted \(text)")
        } catch {
            #expect(
                error.description
                    == "b.toml:2:1: binding[1].drag_mm: expected a range [from, to] with 0 <= from <= to <= 2000 (how far the fingers dragged since they landed again), got an array of 2")
        }
    }

    @Test func theKindIsInEveryGeneratedList() {
        #expect(KindCatalog.names(Self.kinds).hasSuffix(", hold, tap-and-drag"))
        let colours = Self.kinds.map { KindCatalog.colour(of: $0, among: Self.kinds) }
        #expect(Set(colours).count == Self.kinds.count && !colours.contains("#000000"), "\(colours)")
        #expect(KindCatalog.colour(of: TapAndDragRule.kind) == "#000000", "not among gestured's kinds")
        let rows = KindCatalog.fieldRows(Self.kinds)
        #expect(rows.last == KindCatalog.FieldRow(field: TapAndDragRule.dragMM, kinds: [TapAndDragRule.kind]))
        #expect(KindCatalog.environmentNames(Self.kinds).last == "GESTURE_DRAG_MM")
    }

    /// The shipped kinds' fields are the ones the docs list, each declared by the kinds that carry it: one
    /// kind each, but `secondary_click`, which taps and holds carry (touch that points).
    @Test func theShippedFieldsAndTheirKinds() {
        let rows = KindCatalog.fieldRows().map { ($0.field.name, $0.kinds.map(\.rawValue)) }
        #expect(
            rows.map(\.0) == [
                "edge", "edge_position", "progress", "start_edge", "direction", "scale", "rotation", "span_mm", "taps", "secondary_click",
                "down_seconds",
            ])
        #expect(rows.allSatisfy { $0.0 == "secondary_click" ? $0.1 == ["tap", "hold"] : $0.1.count == 1 })
        #expect(Set(KindCatalog.fieldRows().map(\.field.name)) == Set(EventFields.shipped.map(\.name)))
        #expect(
            BindingsFile.keys().prefix(8) == ["name", "gesture", "fingers", "edge", "edge_position", "start_edge", "direction", "taps"])
    }
}
