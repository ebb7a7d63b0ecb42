/// The bucket layout of a histogram: a pure function of (lowest, highest, significant digits).
///
/// Kept apart from the counts so that the index arithmetic can be read (and tested) on its own.
/// Bucket 0 covers `0 ..< subBucketCount << unitMagnitude` linearly; every later bucket covers
/// the next power of two with `subBucketHalfCount` sub-buckets (its lower half is bucket 0's range
/// or the previous bucket's, so it is not stored twice).
struct HistogramLayout: Sendable, Equatable {
    let unitMagnitude: Int
    let subBucketHalfCountMagnitude: Int
    let subBucketCount: Int
    let subBucketHalfCount: Int
    let subBucketMask: Int64
    let bucketCount: Int
    let countsLength: Int
    /// The dense form's page: a quarter of a bucket's `subBucketHalfCount` indices (256 at 3
    /// digits), so a latency series a few percent wide touches one or two pages of 2 KB.
    let pageMagnitude: Int
    var pageSize: Int { 1 << pageMagnitude }
    /// Pages that cover every index (92 for Fleet's 1 µs–1 h at 3 digits).
    var pageCount: Int { (countsLength + pageSize - 1) >> pageMagnitude }

    init(lowest: Int64, highest: Int64, significantDigits: Int) {
        // Enough linear sub-buckets that one step is at most 10^-digits of the value it sits at.
        var largestSingleUnitResolution: Int64 = 2
        for _ in 0..<significantDigits { largestSingleUnitResolution *= 10 }
        var subBucketCountMagnitude = 0  // ⌈log2(2 · 10^digits)⌉
        while (Int64(1) << Int64(subBucketCountMagnitude)) < largestSingleUnitResolution { subBucketCountMagnitude += 1 }
        unitMagnitude = 63 - lowest.leadingZeroBitCount
        subBucketHalfCountMagnitude = Swift.max(subBucketCountMagnitude, 1) - 1
        subBucketCount = 1 << (subBucketHalfCountMagnitude + 1)
        subBucketHalfCount = subBucketCount / 2
        subBucketMask = Int64(subBucketCount - 1) << Int64(unitMagnitude)

        // Buckets needed until the first untrackable value exceeds `highest`.
        var smallestUntrackable = Int64(subBucketCount) << Int64(unitMagnitude)
        var buckets = 1
        while smallestUntrackable <= highest {
            if smallestUntrackable > Int64.max / 2 { buckets += 1; break }
            smallestUntrackable <<= 1
            buckets += 1
        }
        bucketCount = buckets
        countsLength = (buckets + 1) * subBucketHalfCount
        pageMagnitude = Swift.max(0, subBucketHalfCountMagnitude - 2)
    }

    @inline(__always)
    func bucketIndex(of value: Int64) -> Int {
        // Position of the highest set bit (of value, or of the mask for small values) picks the bucket.
        let pow2Ceiling = 64 - (value | subBucketMask).leadingZeroBitCount
        return pow2Ceiling - unitMagnitude - (subBucketHalfCountMagnitude + 1)
    }

    /// The counts index of a value in `[0, highest]`.
    @inline(__always)
    func index(of value: Int64) -> Int {
        let bucket = bucketIndex(of: value)
        let subBucket = Int(value >> Int64(bucket + unitMagnitude))
        return ((bucket + 1) << subBucketHalfCountMagnitude) + (subBucket - subBucketHalfCount)
    }

    private func bucketAndSubBucket(ofIndex index: Int) -> (bucket: Int, subBucket: Int) {
        var bucket = (index >> subBucketHalfCountMagnitude) - 1
        var subBucket = (index & (subBucketHalfCount - 1)) + subBucketHalfCount
        if bucket < 0 {
            subBucket -= subBucketHalfCount
            bucket = 0
        }
        return (bucket, subBucket)
    }

    /// The smallest value that lands on `index`.
    func lowestEquivalent(ofIndex index: Int) -> Int64 {
        let (bucket, subBucket) = bucketAndSubBucket(ofIndex: index)
        return Int64(subBucket) << Int64(bucket + unitMagnitude)
    }

    /// The largest value that lands on `index`.
    func highestEquivalent(ofIndex index: Int) -> Int64 {
        let (bucket, _) = bucketAndSubBucket(ofIndex: index)
        return lowestEquivalent(ofIndex: index) + (Int64(1) << Int64(bucket + unitMagnitude)) - 1
    }

    /// A value in the middle of `index`'s range, used when re-recording into a different layout.
    func medianEquivalent(ofIndex index: Int) -> Int64 {
        let low = lowestEquivalent(ofIndex: index)
        return low + (highestEquivalent(ofIndex: index) - low) / 2
    }
}
