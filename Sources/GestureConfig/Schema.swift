import GestureCore
import GestureVocabulary

/// Every recognizer threshold, in the order config/gestured.toml and docs/configuration.md list them: the
/// shared ones, then each kind's rule's table (the rules declare their keys: Sources/GestureCore/Recognition).
let recognizerKeys: [RecognizerKey] = RecognizerSettings.keys

/// Keys that set several recognizer keys at once (`edge_swipe.zone_mm`), read like them.
let recognizerShorthandKeys: [RecognizerKey] = RecognizerSettings.shorthandKeys

let recognizerKeysByName: [String: RecognizerKey] = Dictionary(
    uniqueKeysWithValues: (recognizerKeys + recognizerShorthandKeys).map { ($0.key, $0) })

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
let daemonKeys = [
    "socket_path", "socket_mode", "socket_group", "max_clients", "max_clients_per_uid", "client_buffer_bytes", "log_level",
    "app_touches_for",
]

/// Keys a [[device]] section has besides the recognizer thresholds, in file order.
let deviceOwnKeys = [
    "match_name", "match_id", "match_path", "rotation", "flip_x", "flip_y", "calibration", "panel_width_mm",
    "panel_height_mm", "panel_diagonal_inches", "panel_aspect", "ignore", "grab", "passthrough", "pen_arbitration",
    "pen", "pointer", "pointer_scroll_mm", "pointer_fling",
]

/// Keys of an [[exclusion]] section, in file order.
let exclusionKeys = ["app", "edges", "edge_position", "device"]

/// Keys of a [[pointer]] section, in file order.
let pointerKeys = ["app", "mode", "device"]

let topLevelKeys = ["daemon", "recognizer", "device", "exclusion", "pointer"]

/// Ranges of the daemon and device settings (the recognizer's are in `recognizerKeys`).
enum Limits {
    static let maxClients = 1...4096
    /// At least one maximal protocol line (64 KiB); at most 256 MiB.
    static let clientBufferBytes = 65536...(256 << 20)
    /// sun_path holds 108 bytes including the terminating NUL.
    static let socketPathBytes = 107
    static let panelMM: ClosedRange<Double> = 10...2000
    /// A 1-inch watch to a 100-inch board.
    static let panelInches: ClosedRange<Double> = 1...100
    /// Finger travel of a wheel detent: a millimetre (every tremor scrolls) to 100 (a whole phone's height
    /// for one detent).
    static let pointerScrollMM: ClosedRange<Double> = 1...100
}
