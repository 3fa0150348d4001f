import GestureVocabulary

/// Every threshold the recognizer uses: the ones all kinds share, the edge zones, and each kind's rule
/// with its own (`rules`).
/// Defaults are chosen to hold on any panel, phones to 32-inch monitors; docs/gestures.md gives each
/// one's reason.
public struct RecognizerSettings: Equatable, Sendable {
    /// Distance a finger must move before anything is recognized: below it a touch is a tap or a resting
    /// finger with jitter.
    public var slopMM: Double = 3
    /// How far a finger may roll as it presses and still tap: twice the slop. A contact that passed the
    /// slop by less and lifted before any gesture began is a tap (a finger rolling a few millimetres on a
    /// large, imprecise panel), on every panel size; one that went farther is not (docs/gestures.md).
    public var rollLimitMM: Double { 2 * slopMM }

    /// How far off an axis a movement may point and still count as along it: edge swipes inward, and
    /// pan swipe directions.
    public var angleToleranceDegrees: Double = 30
    /// Velocities are measured over the samples of this window (and are zero when the fingers have not
    /// moved for this long).
    public var velocityWindowSeconds: Double = 0.08
    /// Two or more fingers are a pinch rather than a pan when the part of their motion that differs
    /// between fingers is at least this fraction of the motion they share.
    public var pinchDifferentialRatio: Double = 0.5
    /// Fingers of one hand land up to this far apart (each within this time of the previous one): they are
    /// one gesture. A pan or pinch that could still gain fingers begins only once this time has passed
    /// since the last landing (or at once when flung, or at the lift), so a hand still landing is not
    /// seen as a gesture begun and cancelled. A finger landing later than this does not join: the fingers
    /// already down rest (they take part in nothing until they lift) and the new ones are recognized on
    /// their own.
    public var fingerLandingWindowSeconds: Double = 0.2
    /// A contact whose reported size (ABS_MT_TOUCH_MAJOR, else ABS_MT_WIDTH_MAJOR) reaches this is a palm
    /// until it lifts, as one the kernel marks MT_TOOL_PALM: fingertips are 7–12 mm, a thumb laid flat up
    /// to 20 mm, a palm or the side of a writing hand 30 mm and more.
    public var palmSizeMM: Double = 25

    /// The screen's edge zones, which every rule reads (Recognition/EdgeZones.swift); their keys are in
    /// the edge swipe's table.
    public var edgeZones = EdgeZones()

    /// Every kind's rule, holding its thresholds, in the order the recognizer asks them: gestured's own
    /// (`GestureRules.standard`), and any added outside GestureCore where it must be asked
    /// (docs/architecture.md, "Adding a gesture kind"). Each rule file has a typed accessor for its own
    /// (`settings.pan`).
    public var rules = GestureRules.standard

    /// The device's touches go through gestured (passthrough): the recognizer says which touches to hold
    /// back, deliver or cancel (`TouchDecision`). Set from the device's configuration, not a [recognizer]
    /// key.
    public var withholdsTouches: Bool = false

    public init() {}

    /// The rule of `kind`, nil when the settings have none.
    public func rule(for kind: GestureKind) -> (any GestureRule)? { rules.rule(for: kind) }

    /// The tables under [recognizer]: one for each of gestured's rules that has one (`ConfigurableRule`),
    /// in the order the configuration and the docs list the kinds (`GestureKind.allCases`).
    public static let tables: [RecognizerTable] = GestureRules.standard
        .compactMap { rule -> RecognizerTable? in
            guard let rule = rule as? any ConfigurableRule else { return nil }
            return rule.table
        }
        .sorted { a, b in
            (GestureKind.allCases.firstIndex(of: a.kind) ?? Int.max) < (GestureKind.allCases.firstIndex(of: b.kind) ?? Int.max)
        }

    /// The thresholds all kinds share, keys directly under [recognizer].
    public static let sharedKeys: [RecognizerKey] = [
        RuleSetting<RecognizerSettings>.number("slop_mm", "slopMM", 0.5...20, "mm", \.slopMM),
        .number("angle_tolerance_degrees", "angleToleranceDegrees", 5...45, "degrees", \.angleToleranceDegrees),
        .number("velocity_window_seconds", "velocityWindowSeconds", 0.01...0.5, "s", \.velocityWindowSeconds),
        .number("pinch_differential_ratio", "pinchDifferentialRatio", 0.05...10, nil, \.pinchDifferentialRatio),
        .number("finger_landing_window_seconds", "fingerLandingWindowSeconds", 0...1, "s", \.fingerLandingWindowSeconds),
        .number("palm_size_mm", "palmSizeMM", 10...500, "mm", \.palmSizeMM),
    ].map(RecognizerKey.init)

    /// Every [recognizer] key (the same keys in a [[device]] section): the shared ones, then each table's,
    /// in the order config/gestured.toml and docs/configuration.md list them.
    public static let keys: [RecognizerKey] = sharedKeys + tables.flatMap(\.keys)

    /// Keys that set several `keys` at once (`edge_swipe.zone_mm`).
    public static let shorthandKeys: [RecognizerKey] = tables.flatMap(\.shorthands)

    /// The keys a shorthand sets (`edge_swipe.zone_mm`: `edge_swipe.left.zone_mm`, right, top and
    /// bottom): the keys of its table one sub-table down with its name, each of which wins over it.
    public static func keys(coveredBy shorthand: String) -> [String] {
        let parts = shorthand.split(separator: ".")
        guard let name = parts.last else { return [] }
        let table = parts.dropLast()
        return keys.map(\.key).filter { key in
            let k = key.split(separator: ".")
            return k.count == parts.count + 1 && k.last == name && k.prefix(table.count).elementsEqual(table)
        }
    }

    /// Sets what a configuration's table gives (key relative to [recognizer] -> value): shorthands first,
    /// then every key, so that a key beats a shorthand that covers it, whatever their order in the file.
    public mutating func apply(_ overrides: [String: SettingValue]) {
        guard !overrides.isEmpty else { return }
        for key in RecognizerSettings.shorthandKeys {
            if let value = overrides[key.key] { key.set(&self, value) }
        }
        for key in RecognizerSettings.keys {
            if let value = overrides[key.key] { key.set(&self, value) }
        }
    }
    // Equality is the compiler's, over every stored property: a setting added here is compared on a
    // reload without anyone remembering to (SettingsEqualityTests).
}

/// The device's mounting relative to the screen, clockwise.
public enum Rotation: Int, CaseIterable, Sendable {
    case none = 0, clockwise90 = 90, upsideDown = 180, clockwise270 = 270
}

/// How device coordinates map onto the screen and onto millimetres.
public struct GeometrySettings: Equatable, Sendable {
    /// Rotation of the touch panel relative to the screen as the user sees it, applied after the flips.
    public var rotation: Rotation = .none
    public var flipX: Bool = false
    public var flipY: Bool = false
    /// A libinput-style calibration matrix [a, b, c, d, e, f] on normalised coordinates:
    /// x' = a·x + b·y + c, y' = d·x + e·y + f. Applied after rotation and flips; nil means identity.
    public var calibration: [Double]? = nil
    /// Physical size of the touch area (width × height in millimetres, in the device's own axes),
    /// for devices that report no axis resolution.
    public var panelSizeMM: (width: Double, height: Double)? = nil
    /// The touch area's diagonal in millimetres, for devices that report no axis resolution and have no
    /// `panelSizeMM`: width and height follow from the axis ranges' aspect (square device units), as a
    /// person knows a panel ("6-inch, 18:9").
    public var panelDiagonalMM: Double? = nil
    /// The panel's aspect (`panel_aspect = "16:9"`), with `panelDiagonalMM`: the long side goes along the
    /// axis with the longer range (the x axis when they are equal). Without it the axis ranges' aspect is
    /// the panel's, which for axes of equal range (0…4095 both, common on panels without resolution) is a
    /// square panel: the engine warns then.
    public var panelAspect: PanelAspect? = nil

    public init() {}

    /// Diagonal assumed for a landscape panel (wider than tall in its own axes) that reports no
    /// resolution and has no configured size: tablets, convertibles, kiosks and monitors.
    public static let assumedLandscapeDiagonalMM: Double = 350
    /// Diagonal assumed for a portrait panel (taller than wide in its own axes) with no resolution and no
    /// configured size: panels built portrait are phones and small tablets (PinePhone, Librem 5, Nexus).
    public static let assumedPortraitDiagonalMM: Double = 150

    /// The diagonal assumed for a panel whose axes span `widthUnits` × `heightUnits`.
    public static func assumedDiagonalMM(widthUnits: Double, heightUnits: Double) -> Double {
        heightUnits > widthUnits * 1.2 ? assumedPortraitDiagonalMM : assumedLandscapeDiagonalMM
    }

    public static func == (a: GeometrySettings, b: GeometrySettings) -> Bool {
        a.rotation == b.rotation && a.flipX == b.flipX && a.flipY == b.flipY && a.calibration == b.calibration
            && a.panelSizeMM?.width == b.panelSizeMM?.width && a.panelSizeMM?.height == b.panelSizeMM?.height
            && a.panelDiagonalMM == b.panelDiagonalMM && a.panelAspect == b.panelAspect
    }
}

/// A panel's aspect ratio as people write it: "16:9", "3:2", "18:9", "16:10".
public struct PanelAspect: Equatable, Sendable, CustomStringConvertible {
    /// The two sides, longer first (16 and 9); both positive.
    public let long: Double
    public let short: Double

    public init?(_ a: Double, _ b: Double) {
        guard a.isFinite, b.isFinite, a > 0, b > 0 else { return nil }
        (long, short) = a >= b ? (a, b) : (b, a)
    }

    /// "16:9": two positive numbers (whole or decimal) and a colon; nil for anything else.
    public init?(parsing text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let a = PanelAspect.number(parts[0]), let b = PanelAspect.number(parts[1]) else { return nil }
        self.init(a, b)
    }

    private static func number(_ s: Substring) -> Double? {
        let t = s.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()
        let text = String(t)
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) || $0 == 0x2e }),
            text.utf8.filter({ $0 == 0x2e }).count <= 1, let d = Double(text)
        else { return nil }
        return d
    }

    /// Long side over short side, at least 1.
    public var ratio: Double { long / short }

    public var description: String { "\(PanelAspect.short(long)):\(PanelAspect.short(short))" }

    private static func short(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e9 ? String(Int(d)) : String(d)
    }
}
