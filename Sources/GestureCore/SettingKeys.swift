import GestureVocabulary
import PlainText

/// A setting's value, as a configuration file gives it.
public enum SettingValue: Equatable, Sendable, CustomStringConvertible {
    case bool(Bool)
    case integer(Int)
    case number(Double)

    public var description: String {
        switch self {
        case .bool(let b): return String(b)
        case .integer(let i): return String(i)
        case .number(let d): return formatNumber(d)
        }
    }
}

/// The type and allowed values of one setting.
public enum ValueSpec: Sendable {
    case bool
    case integer(ClosedRange<Int>, unit: String?)
    case number(ClosedRange<Double>, unit: String?)
}

/// One threshold of a rule: its key in the rule's table, the property it sets, and its allowed values;
/// its default is the rule's initial value of that property.
public struct RuleSetting<Rule: Sendable>: Sendable {
    /// Dotted key relative to the rule's table: "commit_distance_mm", "left.zone_mm".
    public let key: String
    /// The Swift property path within the rule, for the test that every property has a key.
    public let property: String
    public let spec: ValueSpec
    public let get: @Sendable (Rule) -> SettingValue
    public let set: @Sendable (inout Rule, SettingValue) -> Void

    public init(
        key: String, property: String, spec: ValueSpec, get: @escaping @Sendable (Rule) -> SettingValue,
        set: @escaping @Sendable (inout Rule, SettingValue) -> Void
    ) {
        self.key = key
        self.property = property
        self.spec = spec
        self.get = get
        self.set = set
    }

    public static func number(
        _ key: String, _ property: String, _ range: ClosedRange<Double>, _ unit: String?,
        _ path: WritableKeyPath<Rule, Double> & Sendable
    ) -> RuleSetting {
        reaching(path, key, property, spec: .number(range, unit: unit), wrap: SettingValue.number) {
            if case .number(let d) = $0 { d } else { nil }
        }
    }

    public static func integer(
        _ key: String, _ property: String, _ range: ClosedRange<Int>, _ unit: String?,
        _ path: WritableKeyPath<Rule, Int> & Sendable
    ) -> RuleSetting {
        reaching(path, key, property, spec: .integer(range, unit: unit), wrap: SettingValue.integer) {
            if case .integer(let i) = $0 { i } else { nil }
        }
    }

    public static func flag(_ key: String, _ property: String, _ path: WritableKeyPath<Rule, Bool> & Sendable) -> RuleSetting {
        reaching(path, key, property, spec: .bool, wrap: SettingValue.bool) {
            if case .bool(let b) = $0 { b } else { nil }
        }
    }

    /// A setting that reads and writes the property at `path`: `get` wraps its value in the SettingValue
    /// case `wrap` makes, `set` stores what `unwrap` takes out of a value (a value of another case is
    /// ignored, as the key's spec has refused it before).
    private static func reaching<Value>(
        _ path: WritableKeyPath<Rule, Value> & Sendable, _ key: String, _ property: String, spec: ValueSpec,
        wrap: @escaping @Sendable (Value) -> SettingValue, unwrap: @escaping @Sendable (SettingValue) -> Value?
    ) -> RuleSetting {
        RuleSetting(
            key: key, property: property, spec: spec, get: { wrap($0[keyPath: path]) },
            set: { if let value = unwrap($1) { $0[keyPath: path] = value } })
    }
}

/// Two integer keys of a table whose values must be in order (min_fingers ≤ max_fingers).
public struct OrderedKeys: Sendable, Equatable {
    public let low: String
    public let high: String

    public init(_ low: String, _ high: String) {
        self.low = low
        self.high = high
    }
}

/// A rule's configuration: the table it reads under [recognizer] (and in each [[device]] section), the
/// keys there, which of them must be in order, and the checks no single key's range can make.
public protocol ConfigurableRule: GestureRule {
    /// The rule with its defaults.
    init()
    /// The table's name under [recognizer]: "pan".
    static var configTable: String { get }
    /// Every key, in the order config/gestured.toml and docs/configuration.md list them.
    static var settingKeys: [RuleSetting<Self>] { get }
    /// Keys that set several of `settingKeys` at once (`edge_swipe.zone_mm`: every edge's zone); the
    /// keys they cover win over them, wherever they are written.
    static var shorthandKeys: [RuleSetting<Self>] { get }
    /// Keys whose values must be in order.
    static var orderedKeys: [OrderedKeys] { get }
    /// Keys of its table that set what every rule reads rather than this rule (the edge swipe's table
    /// sets the edge zones), relative to the table; after `settingKeys`.
    static var contextKeys: [RuleSetting<RecognizerSettings>] { get }
    /// Shorthands among them (`edge_swipe.zone_mm`).
    static var contextShorthandKeys: [RuleSetting<RecognizerSettings>] { get }
    /// What is wrong with values each within its range (pan.directions must be 4 or 8): the key and the
    /// message.
    func problems() -> [(key: String, message: String)]
}

extension ConfigurableRule {
    public static var shorthandKeys: [RuleSetting<Self>] { [] }
    public static var orderedKeys: [OrderedKeys] { [OrderedKeys("min_fingers", "max_fingers")] }
    public func problems() -> [(key: String, message: String)] { [] }
    public static var contextKeys: [RuleSetting<RecognizerSettings>] { [] }
    public static var contextShorthandKeys: [RuleSetting<RecognizerSettings>] { [] }

    /// Its table, reaching into the settings' `rules` for it.
    public var table: RecognizerTable { RecognizerTable(Self.self) }
}

/// One recognizer threshold, reaching into RecognizerSettings: its key relative to [recognizer] (the same
/// key in a [[device]] section), the property it sets, its allowed values.
public struct RecognizerKey: Sendable {
    /// Dotted key relative to [recognizer]: "slop_mm", "pan.commit_distance_mm", "edge_swipe.left.zone_mm".
    public private(set) var key: String
    /// The Swift property path, for the test that every RecognizerSettings property has a key.
    public let property: String
    public let spec: ValueSpec
    public let get: @Sendable (RecognizerSettings) -> SettingValue
    public let set: @Sendable (inout RecognizerSettings, SettingValue) -> Void

    public var components: [Substring] { key.split(separator: ".") }

    init(_ setting: RuleSetting<RecognizerSettings>) {
        key = setting.key
        property = setting.property
        spec = setting.spec
        get = setting.get
        set = setting.set
    }

    /// A key of `Rule`'s table, for the rule in the settings' `rules` (its property path starts with the
    /// rule's type name: "PanRule.minFingers"). Setting it where the settings have no such rule adds one.
    init<Rule: ConfigurableRule>(_ setting: RuleSetting<Rule>, of rule: Rule.Type) {
        key = Rule.configTable + "." + setting.key
        property = String(describing: Rule.self) + "." + setting.property
        spec = setting.spec
        let get = setting.get
        let set = setting.set
        self.get = { get($0.rules[Rule.self] ?? Rule()) }
        self.set = { settings, value in
            var rule = settings.rules[Rule.self] ?? Rule()
            set(&rule, value)
            settings.rules[Rule.self] = rule
        }
    }

    /// A key of a rule's table that sets the settings themselves (`ConfigurableRule.contextKeys`).
    init(_ setting: RuleSetting<RecognizerSettings>, inTable table: String) {
        self.init(setting)
        key = table + "." + setting.key
    }
}

/// A rule's table as RecognizerSettings holds it: its keys (relative to [recognizer]), the pairs that
/// must be in order and its combined checks.
public struct RecognizerTable: Sendable {
    /// "pan".
    public let name: String
    /// The kind of its rule.
    public let kind: GestureKind
    public let keys: [RecognizerKey]
    /// Keys that set several of `keys` at once.
    public let shorthands: [RecognizerKey]
    /// Full keys ("pan.min_fingers", "pan.max_fingers").
    public let orderedKeys: [OrderedKeys]
    /// Combined checks: full key and message.
    public let problems: @Sendable (RecognizerSettings) -> [(key: String, message: String)]

    /// The table of `Rule`, for the rule of that type in the settings' `rules`.
    init<Rule: ConfigurableRule>(_ rule: Rule.Type) {
        name = Rule.configTable
        kind = Rule().kind
        keys = Rule.settingKeys.map { RecognizerKey($0, of: Rule.self) }
            + Rule.contextKeys.map { RecognizerKey($0, inTable: Rule.configTable) }
        shorthands = Rule.shorthandKeys.map { RecognizerKey($0, of: Rule.self) }
            + Rule.contextShorthandKeys.map { RecognizerKey($0, inTable: Rule.configTable) }
        orderedKeys = Rule.orderedKeys.map { OrderedKeys(Rule.configTable + "." + $0.low, Rule.configTable + "." + $0.high) }
        problems = { settings in
            (settings.rules[Rule.self]?.problems() ?? []).map { (Rule.configTable + "." + $0.key, $0.message) }
        }
    }
}
