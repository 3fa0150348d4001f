import GestureVocabulary

/// Every threshold the recognizer uses: the ones all kinds share, and each kind's rule with its own.
/// Defaults are chosen to hold on any panel, phones to 32-inch monitors; docs/gestures.md gives each
/// one's reason.
public struct RecognizerSettings: Equatable, Sendable {
    /// Distance a finger must move before anything is recognized: below it a touch is a tap or a resting
    /// finger with jitter.
    public var slopMM: Double = 3
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

    // Each kind's rule, holding its thresholds (Recognition/*Rule.swift).
    public var edgeSwipe = EdgeSwipeRule()
    public var pan = PanRule()
    public var pinch = PinchRule()
    public var tap = TapRule()
    public var hold = HoldRule()

    /// Rules of kinds besides gestured's own, added outside GestureCore (docs/architecture.md, "Adding a
    /// gesture kind"); each takes part once its kind is named in `arbitrationOrder`.
    public var additionalRules: [any GestureRule] = []

    /// The order in which the kinds' rules are asked, declared once (`standardOrder`); a kind added by an
    /// additional rule is named in it where it must be asked.
    public var arbitrationOrder: [GestureKind] = RecognizerSettings.standardOrder

    /// An edge swipe first: a pan requires it to fail (UIKit's require-to-fail), so a touch landing in an
    /// edge zone and moving inward is never also a pan. Then a pinch: fingers whose motion differs between
    /// them are never a pan. Then a pan. A hold and a tap are decided on stillness (the hold at its time,
    /// the tap at the lift), never on motion: they come last.
    public static let standardOrder: [GestureKind] = [.edgeSwipe, .pinch, .pan, .hold, .tap]

    /// The device's touches go through gestured (passthrough): the recognizer says which touches to hold
    /// back, deliver or cancel (`TouchDecision`). Set from the device's configuration, not a [recognizer]
    /// key.
    public var withholdsTouches: Bool = false

    public init() {}

    /// The rule of `kind`: gestured's own, or one of `additionalRules`.
    public func rule(for kind: GestureKind) -> (any GestureRule)? {
        switch kind {
        case .edgeSwipe: return edgeSwipe
        case .pan: return pan
        case .pinch: return pinch
        case .tap: return tap
        case .hold: return hold
        default: return additionalRules.first { $0.kind == kind }
        }
    }

    /// The rules, in `arbitrationOrder` (a kind without a rule is left out).
    public var rules: [any GestureRule] { arbitrationOrder.compactMap(rule(for:)) }

    /// The tables of gestured's own kinds under [recognizer], in the order the configuration lists them.
    public static let tables: [RecognizerTable] = [
        RecognizerTable(\.edgeSwipe, property: "edgeSwipe"), RecognizerTable(\.pan, property: "pan"),
        RecognizerTable(\.pinch, property: "pinch"), RecognizerTable(\.tap, property: "tap"),
        RecognizerTable(\.hold, property: "hold"),
    ]

    /// The thresholds all kinds share, keys directly under [recognizer].
    public static let sharedKeys: [RecognizerKey] = [
        RuleSetting<RecognizerSettings>.number("slop_mm", "slopMM", 0.5...20, "mm", \.slopMM),
        .number("angle_tolerance_degrees", "angleToleranceDegrees", 5...45, "degrees", \.angleToleranceDegrees),
        .number("velocity_window_seconds", "velocityWindowSeconds", 0.01...0.5, "s", \.velocityWindowSeconds),
        .number("pinch_differential_ratio", "pinchDifferentialRatio", 0.05...10, nil, \.pinchDifferentialRatio),
        .number("finger_landing_window_seconds", "fingerLandingWindowSeconds", 0...1, "s", \.fingerLandingWindowSeconds),
    ].map(RecognizerKey.init)

    /// Every [recognizer] key (the same keys in a [[device]] section): the shared ones, then each table's,
    /// in the order config/gestured.toml and docs/configuration.md list them.
    public static let keys: [RecognizerKey] = sharedKeys + tables.flatMap(\.keys)

    /// Keys that set several `keys` at once (`edge_swipe.zone_mm`).
    public static let shorthandKeys: [RecognizerKey] = tables.flatMap(\.shorthands)

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

    public static func == (a: RecognizerSettings, b: RecognizerSettings) -> Bool {
        a.slopMM == b.slopMM && a.angleToleranceDegrees == b.angleToleranceDegrees
            && a.velocityWindowSeconds == b.velocityWindowSeconds && a.pinchDifferentialRatio == b.pinchDifferentialRatio
            && a.fingerLandingWindowSeconds == b.fingerLandingWindowSeconds && a.edgeSwipe == b.edgeSwipe && a.pan == b.pan
            && a.pinch == b.pinch && a.tap == b.tap && a.hold == b.hold && a.arbitrationOrder == b.arbitrationOrder
            && a.withholdsTouches == b.withholdsTouches && a.additionalRules.count == b.additionalRules.count
            && zip(a.additionalRules, b.additionalRules).allSatisfy { isSameRule($0, $1) }
    }
}

/// Whether two rules are the same rule with the same thresholds.
func isSameRule(_ a: any GestureRule, _ b: any GestureRule) -> Bool {
    func compare<R: GestureRule>(_ a: R) -> Bool { (b as? R) == a }
    return compare(a)
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
            && a.panelDiagonalMM == b.panelDiagonalMM
    }
}
