import GestureProtocol

/// How often the requests that change what a seat's user gets may come (`RequestDeclaration.rate`): one
/// token bucket per seat and request type, shared by every client and connection, so that no number of
/// them adds up past the rate. Pure: the caller gives the time.
struct SeatRates: Equatable {
    /// Buckets kept at most; idle (full) ones are dropped past it.
    static let keptBuckets = 256

    struct Key: Hashable {
        var seat: String
        var type: RequestType
    }

    private struct Bucket: Equatable {
        var tokens: Double
        var atMicroseconds: Int64
    }

    private var buckets: [Key: Bucket] = [:]

    /// Buckets kept now.
    var count: Int { buckets.count }

    /// Whether a request of `type` limited by `rate` may change `seats` at `now`: it takes a token from
    /// each seat's bucket, or from none when one is empty; then how long until it may (microseconds).
    mutating func admit(_ type: RequestType, _ rate: RequestRateLimit, seats: [String], now: Int64) -> (admitted: Bool, retryAfterMicroseconds: Int64) {
        var refilled: [(Key, Bucket)] = []
        var wait: Int64 = 0
        for seat in Set(seats) {
            let key = Key(seat: seat, type: type)
            var bucket = buckets[key] ?? Bucket(tokens: rate.burst, atMicroseconds: now)
            let elapsed = Double(max(0, now - bucket.atMicroseconds)) / 1_000_000
            bucket.tokens = min(rate.burst, bucket.tokens + elapsed * rate.perSecond)
            bucket.atMicroseconds = now
            if bucket.tokens < 1 {
                wait = max(wait, Int64(((1 - bucket.tokens) / rate.perSecond * 1_000_000).rounded(.up)))
            }
            refilled.append((key, bucket))
        }
        let admitted = wait == 0
        for (key, var bucket) in refilled {
            if admitted { bucket.tokens -= 1 }
            buckets[key] = bucket
        }
        if buckets.count > SeatRates.keptBuckets { dropFullBuckets(now: now) }
        return (admitted, wait)
    }

    /// Drops the buckets that have refilled; should still more than four times `keptBuckets` be busy, it
    /// forgets them all rather than grow.
    private mutating func dropFullBuckets(now: Int64) {
        buckets = buckets.filter { key, bucket in
            guard let rate = key.type.declaration.rate else { return false }
            return bucket.tokens + Double(max(0, now - bucket.atMicroseconds)) / 1_000_000 * rate.perSecond < rate.burst
        }
        if buckets.count > 4 * SeatRates.keptBuckets { buckets.removeAll() }
    }
}
