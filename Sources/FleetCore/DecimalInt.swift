/// A decimal integer read from bytes as `Int(_:)` reads it from a String — an optional `+` or
/// `-`, then one or more ASCII digits; nil for anything else or an overflow — without making the
/// String. For readers of short numeric fields over a buffer (app versions, timezone offsets),
/// where a String and an array per field were most of the cost.
public enum DecimalInt {
    public static func parse(_ u: UnsafeBufferPointer<UInt8>) -> Int? {
        var k = 0
        let negative = k < u.count && u[k] == UInt8(ascii: "-")
        if negative || (k < u.count && u[k] == UInt8(ascii: "+")) { k += 1 }
        guard k < u.count else { return nil }
        var v = 0
        while k < u.count {
            let c = u[k]
            guard c >= 0x30 && c <= 0x39 else { return nil }
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (s, o2) = negative ? m.subtractingReportingOverflow(Int(c - 0x30)) : m.addingReportingOverflow(Int(c - 0x30))
            if o1 || o2 { return nil }
            v = s
            k += 1
        }
        return v
    }
}
