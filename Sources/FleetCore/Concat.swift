/// Strings joined into one string of their exact length, written once.
///
/// `a + b + c` and `"…\(x)…"` grow their result as each part arrives: an interpolation reserves
/// room for its literals and two bytes a value, so a path around a 36-byte id is allocated, then
/// grown and copied, and the client's URL (`baseURL + path`) is a third allocation. Under
/// callgrind those appends were ~2.4k instructions a request of the daily quest
/// (bench/instructions.sh). The parts' lengths are known up front (`utf8.count` of a native
/// string is stored), so one allocation of the sum holds them all.
public enum Concat {
    public static func join(_ a: String, _ b: String, _ c: String = "", _ d: String = "") -> String {
        let n = a.utf8.count + b.utf8.count + c.utf8.count + d.utf8.count
        return String(unsafeUninitializedCapacity: n) { out in
            put(d, out, put(c, out, put(b, out, put(a, out, 0))))
        }
    }

    /// Copies `s` into `out` at `at`; where it ends. A native or small string's bytes are read
    /// in place (no `var` copy to call `withUTF8` on: that was a retain and a release a part).
    @inline(__always)
    private static func put(_ s: String, _ out: UnsafeMutableBufferPointer<UInt8>, _ at: Int) -> Int {
        if s.isEmpty { return at }
        let copied = s.utf8.withContiguousStorageIfAvailable { b -> Int in
            (out.baseAddress! + at).initialize(from: b.baseAddress!, count: b.count)
            return at + b.count
        }
        if let copied { return copied }
        var i = at
        for byte in s.utf8 { out[i] = byte; i += 1 }
        return i
    }
}
