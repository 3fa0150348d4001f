/// Something worth telling the user that is not a gesture (a slot beyond the declared count, a value
/// out of range, events dropped). The daemon logs these; `gesturectl replay` prints them to stderr.
public struct CoreWarning: Equatable, Sendable, CustomStringConvertible {
    public var timeMicroseconds: Int64
    public var message: String
    public init(timeMicroseconds: Int64, message: String) {
        self.timeMicroseconds = timeMicroseconds
        self.message = message
    }
    public var description: String { message }
}
