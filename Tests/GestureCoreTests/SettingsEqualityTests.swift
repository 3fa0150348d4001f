import GestureVocabulary
import Testing

@testable import GestureCore

/// A reload keeps a device's engine when its settings are equal to the running ones, so equality must see
/// every setting: one it missed would make a reload silently keep the old value (issue 32). Every stored
/// setting has a key (DefaultFileTests.everyRecognizerPropertyHasAKey); here every key, every shorthand,
/// the rules themselves and passthrough's flag, each changed alone, make the settings unequal.
@Suite struct SettingsEqualityTests {
    /// A value of `key` other than its default.
    static func otherValue(_ key: RecognizerKey) -> SettingValue? {
        switch (key.spec, key.get(RecognizerSettings())) {
        case (.bool, .bool(let b)): return .bool(!b)
        case (.integer(let range, _), .integer(let i)): return .integer(i == range.upperBound ? range.lowerBound : range.upperBound)
        case (.number(let range, _), .number(let d)): return .number(d == range.upperBound ? range.lowerBound : range.upperBound)
        default: return nil
        }
    }

    @Test(arguments: (RecognizerSettings.keys + RecognizerSettings.shorthandKeys).map(\.key))
    func everyKeyCountsInEquality(_ name: String) throws {
        let key = try #require((RecognizerSettings.keys + RecognizerSettings.shorthandKeys).first { $0.key == name })
        let value = try #require(Self.otherValue(key), "\(name): spec and default disagree")
        var changed = RecognizerSettings()
        key.set(&changed, value)
        try #require(key.get(changed) == value, "\(name) did not take \(value)")
        #expect(changed != RecognizerSettings(), "RecognizerSettings' == does not see \(name)")
    }

    /// The rules are compared by kind, thresholds and order; passthrough's flag too.
    @Test func theRulesAndPassthroughCountInEquality() {
        let standard = RecognizerSettings()
        var reordered = standard
        let pan = reordered.pan
        reordered.rules[PanRule.self] = nil
        reordered.rules.insert(pan, before: .edgeSwipe)
        #expect(reordered.pan == standard.pan && reordered != standard)
        var without = standard
        without.rules[TapRule.self] = nil
        #expect(without != standard)
        var withholding = standard
        withholding.withholdsTouches = true
        #expect(withholding != standard)
        #expect(RecognizerSettings() == RecognizerSettings())
    }

    /// GeometrySettings' `==` is written by hand (a tuple is not Equatable): each of its properties,
    /// changed alone, makes it unequal, and a property added without a case here fails the count.
    @Test func everyGeometrySettingCountsInEquality() {
        let changes: [(String, (inout GeometrySettings) -> Void)] = [
            ("rotation", { $0.rotation = .clockwise90 }),
            ("flipX", { $0.flipX = true }),
            ("flipY", { $0.flipY = true }),
            ("calibration", { $0.calibration = [1, 0, 0, 0, 1, 0] }),
            ("panelSizeMM", { $0.panelSizeMM = (width: 100, height: 60) }),
            ("panelDiagonalMM", { $0.panelDiagonalMM = 150 }),
            ("panelAspect", { $0.panelAspect = PanelAspect(16, 9) }),
        ]
        let properties = Mirror(reflecting: GeometrySettings()).children.compactMap(\.label)
        #expect(Set(properties) == Set(changes.map(\.0)))
        for (name, change) in changes {
            var changed = GeometrySettings()
            change(&changed)
            #expect(changed != GeometrySettings(), "GeometrySettings' == does not see \(name)")
        }
        var width = GeometrySettings()
        width.panelSizeMM = (width: 100, height: 60)
        var height = width
        height.panelSizeMM = (width: 100, height: 61)
        #expect(width != height)
    }
}
