import GestureVocabulary

/// The kinds' rules, each holding its thresholds, in the order the recognizer asks them (its arbitration
/// order): the one place the settings hold a kind. Equality, the [recognizer] tables and the order all
/// come from this collection; a kind is added by putting its rule here (docs/architecture.md, "Adding a
/// gesture kind").
public struct GestureRules: RandomAccessCollection, Equatable, Sendable {
    public private(set) var elements: [any GestureRule]

    public init(_ rules: [any GestureRule]) { elements = rules }

    /// gestured's own kinds, in their arbitration order. An edge swipe first: a pan requires it to fail
    /// (UIKit's require-to-fail), so a touch landing in an edge zone and moving inward is never also a pan.
    /// Then a pinch: fingers whose motion differs between them are never a pan. Then a pan. A hold and a
    /// tap are decided on stillness (the hold at its time, the tap at the lift), never on motion: they
    /// come last.
    public static let standard = GestureRules([EdgeSwipeRule(), PinchRule(), PanRule(), HoldRule(), TapRule()])

    public var startIndex: Int { elements.startIndex }
    public var endIndex: Int { elements.endIndex }
    public subscript(position: Int) -> any GestureRule { elements[position] }

    /// The kinds, in arbitration order.
    public var kinds: [GestureKind] { elements.map(\.kind) }

    /// The rule of `kind`, nil when none is here.
    public func rule(for kind: GestureKind) -> (any GestureRule)? { elements.first { $0.kind == kind } }

    /// The rule of type `R`, with its thresholds; set, it replaces that rule where it is (or, when none
    /// was here, is asked last); set to nil, it is taken out.
    public subscript<R: GestureRule>(_ type: R.Type) -> R? {
        get {
            for rule in elements { if let rule = rule as? R { return rule } }
            return nil
        }
        set {
            let index = elements.firstIndex { $0 is R }
            switch (index, newValue) {
            case (let i?, let rule?): elements[i] = rule
            case (let i?, nil): elements.remove(at: i)
            case (nil, let rule?): elements.append(rule)
            case (nil, nil): break
            }
        }
    }

    /// Puts `rule` before the rule of `kind` in the order (last when there is none).
    public mutating func insert(_ rule: any GestureRule, before kind: GestureKind) {
        elements.insert(rule, at: elements.firstIndex { $0.kind == kind } ?? elements.endIndex)
    }

    /// Puts `rule` after the rule of `kind` in the order (last when there is none).
    public mutating func insert(_ rule: any GestureRule, after kind: GestureKind) {
        elements.insert(rule, at: elements.firstIndex { $0.kind == kind }.map { $0 + 1 } ?? elements.endIndex)
    }

    /// The same rules, with the same thresholds, in the same order.
    public static func == (a: GestureRules, b: GestureRules) -> Bool {
        a.elements.count == b.elements.count && zip(a.elements, b.elements).allSatisfy { isSameRule($0, $1) }
    }
}

/// Whether two rules are the same rule with the same thresholds (a rule's own `==`).
func isSameRule(_ a: any GestureRule, _ b: any GestureRule) -> Bool {
    func compare<R: GestureRule>(_ a: R) -> Bool { (b as? R) == a }
    return compare(a)
}
