/// A slot's fourteen values (ABS_MT_TOUCH_MAJOR ... ABS_MT_TOOL_Y) held inline, with no heap allocation:
/// what `InlineArray<14, Int32>` held here before. InlineArray came with Swift 6.2, and Debian trixie's
/// Swift is 6.0.3; a tuple works with both, read and written through a pointer to its first element (the
/// elements of a homogeneous tuple are laid out like a C array).
struct SlotValues: Sendable {
    static let count = 14
    private var storage: (Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32)

    init(repeating value: Int32) {
        storage = (value, value, value, value, value, value, value, value, value, value, value, value, value, value)
    }

    subscript(index: Int) -> Int32 {
        get {
            precondition(index >= 0 && index < Self.count, "SlotValues index \(index) out of range")
            return withUnsafeBytes(of: storage) { $0.load(fromByteOffset: index * MemoryLayout<Int32>.stride, as: Int32.self) }
        }
        set {
            precondition(index >= 0 && index < Self.count, "SlotValues index \(index) out of range")
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: newValue, toByteOffset: index * MemoryLayout<Int32>.stride, as: Int32.self) }
        }
    }
}
