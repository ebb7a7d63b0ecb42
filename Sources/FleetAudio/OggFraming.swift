/// A structural check of Ogg page framing, used where libsndfile cannot tell truncation apart.
///
/// Cut exactly at a page boundary, an Ogg Opus stream still reports a length (from the last
/// granule position it finds) and decodes cleanly, only shorter; the one sign left is that its
/// last page lacks the end-of-stream flag. This walks the page headers (no audio decoding; that
/// stays with libsndfile) and says whether the bytes end with a whole page flagged end-of-stream.
enum OggFraming {
    /// nil when the bytes are a complete run of pages ending in end-of-stream; otherwise what is
    /// wrong with the framing.
    static func truncation(in bytes: UnsafeRawBufferPointer) -> String? {
        let headerLength = 27
        var offset = 0
        var lastFlags: UInt8 = 0
        var pages = 0
        while offset < bytes.count {
            guard offset + headerLength <= bytes.count else {
                return "Ogg page \(pages + 1) header cut off at byte \(bytes.count)"
            }
            guard bytes[offset] == 0x4F, bytes[offset + 1] == 0x67, bytes[offset + 2] == 0x67, bytes[offset + 3] == 0x53 else {
                return "no Ogg page starts at byte \(offset)"
            }
            let flags = bytes[offset + 5]
            let segments = Int(bytes[offset + 26])
            guard offset + headerLength + segments <= bytes.count else {
                return "Ogg page \(pages + 1) segment table cut off at byte \(bytes.count)"
            }
            var body = 0
            for i in 0..<segments { body += Int(bytes[offset + headerLength + i]) }
            let end = offset + headerLength + segments + body
            guard end <= bytes.count else {
                return "Ogg page \(pages + 1) needs \(end) bytes but only \(bytes.count) are present"
            }
            lastFlags = flags
            pages += 1
            offset = end
        }
        return lastFlags & 0x04 != 0 ? nil : "Ogg stream ends after page \(pages) without its end-of-stream flag"
    }
}
