import GestureCore
import GestureVocabulary

/// The type and allowed values of one setting.
enum ValueSpec: Sendable {
    case bool
    case integer(ClosedRange<Int>, unit: String?)
    case number(ClosedRange<Double>, unit: String?)
}

/// One recognizer threshold: its key relative to [recognizer] (the same key in a [[device]] section),
/// the RecognizerSettings property it sets, and its allowed values.
struct RecognizerKey: Sendable {
    /// Dotted key relative to [recognizer]: "slop_mm", "pan.commit_distance_mm", "edge_swipe.left.zone_mm".
    let key: String
    /// The Swift property path, for the test that every RecognizerSettings property has a key.
    let property: String
    let spec: ValueSpec
    let get: @Sendable (RecognizerSettings) -> SettingValue
    let set: @Sendable (inout RecognizerSettings, SettingValue) -> Void

    var components: [Substring] { key.split(separator: ".") }
}

private func number(
    _ key: String, _ property: String, _ range: ClosedRange<Double>, _ unit: String?,
    _ path: WritableKeyPath<RecognizerSettings, Double> & Sendable
) -> RecognizerKey {
    RecognizerKey(
        key: key, property: property, spec: .number(range, unit: unit),
        get: { .number($0[keyPath: path]) },
        set: { if case .number(let d) = $1 { $0[keyPath: path] = d } })
}

private func integer(
    _ key: String, _ property: String, _ range: ClosedRange<Int>, _ unit: String?,
    _ path: WritableKeyPath<RecognizerSettings, Int> & Sendable
) -> RecognizerKey {
    RecognizerKey(
        key: key, property: property, spec: .integer(range, unit: unit),
        get: { .integer($0[keyPath: path]) },
        set: { if case .integer(let i) = $1 { $0[keyPath: path] = i } })
}

private func flag(
    _ key: String, _ property: String, _ path: WritableKeyPath<RecognizerSettings, Bool> & Sendable
) -> RecognizerKey {
    RecognizerKey(
        key: key, property: property, spec: .bool,
        get: { .bool($0[keyPath: path]) },
        set: { if case .bool(let b) = $1 { $0[keyPath: path] = b } })
}

private func edgeKeys(_ edge: Edge) -> [RecognizerKey] {
    let name = edge.rawValue
    return [
        RecognizerKey(
            key: "edge_swipe.\(name).enabled", property: "edgeSwipe.zones.\(name).enabled", spec: .bool,
            get: { .bool($0.edgeSwipe.zone(edge).enabled) },
            set: { settings, value in
                if case .bool(let b) = value {
                    var zone = settings.edgeSwipe.zone(edge)
                    zone.enabled = b
                    settings.edgeSwipe.zones[edge] = zone
                }
            }),
        RecognizerKey(
            key: "edge_swipe.\(name).zone_mm", property: "edgeSwipe.zones.\(name).widthMM",
            spec: .number(0.5...50, unit: "mm"),
            get: { .number($0.edgeSwipe.zone(edge).widthMM) },
            set: { settings, value in
                if case .number(let d) = value {
                    var zone = settings.edgeSwipe.zone(edge)
                    zone.widthMM = d
                    settings.edgeSwipe.zones[edge] = zone
                }
            }),
    ]
}

/// Every recognizer threshold, in the order config/gestured.toml and docs/configuration.md list them.
let recognizerKeys: [RecognizerKey] =
    [
        number("slop_mm", "slopMM", 0.5...20, "mm", \.slopMM),
        number("angle_tolerance_degrees", "angleToleranceDegrees", 5...45, "degrees", \.angleToleranceDegrees),
        number("velocity_window_seconds", "velocityWindowSeconds", 0.01...0.5, "s", \.velocityWindowSeconds),
        number("pinch_differential_ratio", "pinchDifferentialRatio", 0.05...10, nil, \.pinchDifferentialRatio),
        number(
            "finger_landing_window_seconds", "fingerLandingWindowSeconds", 0...1, "s", \.fingerLandingWindowSeconds),

        flag("edge_swipe.enabled", "edgeSwipe.enabled", \.edgeSwipe.enabled),
        integer("edge_swipe.min_fingers", "edgeSwipe.minFingers", 1...10, "fingers", \.edgeSwipe.minFingers),
        integer("edge_swipe.max_fingers", "edgeSwipe.maxFingers", 1...10, "fingers", \.edgeSwipe.maxFingers),
        number("edge_swipe.commit_progress", "edgeSwipe.commitProgress", 0.05...1, "of the screen", \.edgeSwipe.commitProgress),
        number(
            "edge_swipe.fling_velocity_mm_per_s", "edgeSwipe.flingVelocityMMPerSecond", 10...10000, "mm/s",
            \.edgeSwipe.flingVelocityMMPerSecond),
        flag("edge_swipe.corners", "edgeSwipe.corners", \.edgeSwipe.corners),
        number(
            "edge_swipe.withhold_max_seconds", "edgeSwipe.withholdMaxSeconds", 0.02...0.15, "s",
            \.edgeSwipe.withholdMaxSeconds),
    ]
    + Edge.sides.flatMap(edgeKeys)
    + [
        flag("pan.enabled", "pan.enabled", \.pan.enabled),
        integer("pan.min_fingers", "pan.minFingers", 1...10, "fingers", \.pan.minFingers),
        integer("pan.max_fingers", "pan.maxFingers", 1...10, "fingers", \.pan.maxFingers),
        number("pan.commit_distance_mm", "pan.commitDistanceMM", 1...500, "mm", \.pan.commitDistanceMM),
        number(
            "pan.fling_velocity_mm_per_s", "pan.flingVelocityMMPerSecond", 10...10000, "mm/s",
            \.pan.flingVelocityMMPerSecond),
        integer("pan.directions", "pan.directions", 4...8, "directions", \.pan.directions),
        flag("pan.claim", "pan.claim", \.pan.claim),
        integer("pan.claim_min_fingers", "pan.claimMinFingers", 1...10, "fingers", \.pan.claimMinFingers),
        integer("pan.claim_max_fingers", "pan.claimMaxFingers", 1...10, "fingers", \.pan.claimMaxFingers),

        flag("pinch.enabled", "pinch.enabled", \.pinch.enabled),
        integer("pinch.min_fingers", "pinch.minFingers", 2...10, "fingers", \.pinch.minFingers),
        integer("pinch.max_fingers", "pinch.maxFingers", 2...10, "fingers", \.pinch.maxFingers),
        number("pinch.begin_span_change_mm", "pinch.beginSpanChangeMM", 0.5...50, "mm", \.pinch.beginSpanChangeMM),
        number(
            "pinch.begin_rotation_degrees", "pinch.beginRotationDegrees", 1...90, "degrees",
            \.pinch.beginRotationDegrees),
        number("pinch.commit_scale_change", "pinch.commitScaleChange", 0.01...5, nil, \.pinch.commitScaleChange),
        number(
            "pinch.commit_rotation_degrees", "pinch.commitRotationDegrees", 1...360, "degrees",
            \.pinch.commitRotationDegrees),
        flag("pinch.claim", "pinch.claim", \.pinch.claim),
        integer("pinch.claim_min_fingers", "pinch.claimMinFingers", 2...10, "fingers", \.pinch.claimMinFingers),
        integer("pinch.claim_max_fingers", "pinch.claimMaxFingers", 2...10, "fingers", \.pinch.claimMaxFingers),

        flag("tap.enabled", "tap.enabled", \.tap.enabled),
        integer("tap.min_fingers", "tap.minFingers", 1...10, "fingers", \.tap.minFingers),
        integer("tap.max_fingers", "tap.maxFingers", 1...10, "fingers", \.tap.maxFingers),
        number("tap.max_duration_seconds", "tap.maxDurationSeconds", 0.05...2, "s", \.tap.maxDurationSeconds),
        number(
            "tap.multi_tap_interval_seconds", "tap.multiTapIntervalSeconds", 0.05...2, "s",
            \.tap.multiTapIntervalSeconds),
        number("tap.multi_tap_distance_mm", "tap.multiTapDistanceMM", 1...100, "mm", \.tap.multiTapDistanceMM),
        integer("tap.max_taps", "tap.maxTaps", 1...10, "taps", \.tap.maxTaps),

        flag("hold.enabled", "hold.enabled", \.hold.enabled),
        integer("hold.min_fingers", "hold.minFingers", 1...10, "fingers", \.hold.minFingers),
        integer("hold.max_fingers", "hold.maxFingers", 1...10, "fingers", \.hold.maxFingers),
        number("hold.hold_seconds", "hold.holdSeconds", 0.1...5, "s", \.hold.holdSeconds),
    ]

let recognizerKeysByName: [String: RecognizerKey] = Dictionary(
    uniqueKeysWithValues: recognizerKeys.map { ($0.key, $0) })

/// The sub-tables a recognizer-shaped table may have ("edge_swipe", "edge_swipe.left", "pan", ...).
let recognizerTables: Set<String> = {
    var tables: Set<String> = []
    for key in recognizerKeys {
        let parts = key.components
        for n in 1..<parts.count { tables.insert(parts[0..<n].joined(separator: ".")) }
    }
    return tables
}()

/// Keys of [daemon], in file order.
let daemonKeys = ["socket_path", "socket_mode", "socket_group", "max_clients", "client_buffer_bytes", "log_level"]

/// Keys a [[device]] section has besides the recognizer thresholds, in file order.
let deviceOwnKeys = [
    "match_name", "match_id", "match_path", "rotation", "flip_x", "flip_y", "calibration", "panel_width_mm",
    "panel_height_mm", "ignore", "grab", "passthrough",
]

let topLevelKeys = ["daemon", "recognizer", "device"]

/// Ranges of the daemon and device settings (the recognizer's are in `recognizerKeys`).
enum Limits {
    static let maxClients = 1...4096
    /// At least one maximal protocol line (64 KiB); at most 256 MiB.
    static let clientBufferBytes = 65536...(256 << 20)
    /// sun_path holds 108 bytes including the terminating NUL.
    static let socketPathBytes = 107
    static let panelMM: ClosedRange<Double> = 10...2000
}
