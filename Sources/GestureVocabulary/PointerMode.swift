/// What a touchscreen's touches do besides touching, for the app that has the focus (docs/configuration.md,
/// "Touch that points"): set per panel (`pointer` in a [[device]] section) and per app ([[pointer]]
/// sections), carried out by gestured's virtual pointer beside the passthrough copy.
public enum PointerMode: String, CaseIterable, Sendable, Equatable {
    /// Touches stay touches (the default).
    case touch
    /// Touches stay touches, and a one-finger long press in the app area is a secondary (right) click.
    case longPress = "long-press"
    /// Touches in the app area are a mouse: one finger moves the pointer, clicks and drags with the left
    /// button, two scroll and a two-finger tap right-clicks; a long press right-clicks too.
    case mouse

    /// Whether the mode needs the virtual pointer.
    public var usesPointer: Bool {
        switch self {
        case .touch: return false
        case .longPress, .mouse: return true
        }
    }
}
