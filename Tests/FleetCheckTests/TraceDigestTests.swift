import FleetCore
import XCTest
@testable import FleetCheck

/// A trace line's digest and excerpt: tokens never reach either, equal redacted answers share a
/// digest, different ones do not, and the excerpt is cut at its limit.
final class TraceDigestTests: XCTestCase {
    func testTokensAreRedactedAndDigestsTellAnswersApart() {
        let a: JSONValue = ["access_token": "secret-A", "user": ["id": "u_1", "refresh_token": "r-A"]]
        let b: JSONValue = ["access_token": "secret-B", "user": ["id": "u_1", "refresh_token": "r-B"]]
        let c: JSONValue = ["access_token": "secret-A", "user": ["id": "u_2", "refresh_token": "r-A"]]
        let (da, ea) = digestAndExcerpt(a, limit: 240)
        let (db, _) = digestAndExcerpt(b, limit: 240)
        let (dc, _) = digestAndExcerpt(c, limit: 240)
        XCTAssertFalse(ea.contains("secret") || ea.contains("r-A"), ea)
        XCTAssertEqual(ea, #"{"access_token":"<redacted>","user":{"id":"u_1","refresh_token":"<redacted>"}}"#)
        XCTAssertEqual(da, db, "answers that differ only in their tokens are the same answer to a reader")
        XCTAssertNotEqual(da, dc)
        XCTAssertEqual(da.count, 12)
        XCTAssertTrue(da.allSatisfy(\.isHexDigit), da)
        XCTAssertEqual(digestAndExcerpt(nil, limit: 240).digest, "")
    }

    /// From the raw answer: without a secret key it is the raw bytes' digest and text; with one —
    /// also spelled with a `\u` escape, which only the parsed form shows as `token` — the redacted path.
    func testRawAnswersWithoutSecretsAreTakenAsTheyCameAndOthersAreRedacted() throws {
        func both(_ text: String) throws -> (digest: String, excerpt: String) {
            let raw = Array(text.utf8)
            return digestAndExcerpt(raw: raw, parsed: try JSONValue.parse(raw), limit: 240)
        }
        let plain = try both(#"{"id": "s_1",  "stage": "reading"}"#)
        XCTAssertEqual(plain.excerpt, #"{"id": "s_1",  "stage": "reading"}"#, "the answer as it came, spacing and all")
        XCTAssertEqual(plain.digest.count, 12)
        XCTAssertTrue(plain.digest.allSatisfy(\.isHexDigit), plain.digest)
        XCTAssertNotEqual(plain.digest, try both(#"{"id": "s_2",  "stage": "reading"}"#).digest)
        XCTAssertEqual(plain.digest, try both(#"{"id": "s_1",  "stage": "reading"}"#).digest)

        let signedIn = try both(#"{"access_token": "secret-A", "user": {"id": "u_1"}}"#)
        XCTAssertEqual(signedIn.excerpt, #"{"access_token":"<redacted>","user":{"id":"u_1"}}"#)
        let escaped = try both(#"{"tok\u0065n": "secret-B", "n": 1}"#)
        XCTAssertFalse(escaped.excerpt.contains("secret-B"), escaped.excerpt)
        XCTAssertEqual(escaped.excerpt, #"{"n":1,"token":"<redacted>"}"#)
        let signed = try both(#"{"signed_transaction": "jws.secret"}"#)
        XCTAssertFalse(signed.excerpt.contains("jws.secret"), signed.excerpt)

        XCTAssertEqual(digestAndExcerpt(raw: Array("not json".utf8), parsed: nil, limit: 240).digest, "")
        XCTAssertTrue(Redact.mayHoldSecret(Array(#"{"a": "the token is in a value"}"#.utf8)), "a value naming one takes the safe path")
        XCTAssertFalse(Redact.mayHoldSecret(Array(#"{"a": "tok", "b": "signed"}"#.utf8)))
        XCTAssertTrue(Redact.mayHoldSecret(Array("token".utf8)), "a word filling the answer")
        XCTAssertTrue(Redact.mayHoldSecret(Array(#"{"a": 1, "b": "x"}signed_transaction"#.utf8)), "a word at the very end")
        XCTAssertTrue(Redact.mayHoldSecret(Array(#"{"\u0074oken": 1}"#.utf8)), "an escape at the first byte of a key")
        XCTAssertTrue(Redact.mayHoldSecret(Array(#"{"a": "\"}\u"#.utf8)), "an escape in the last two bytes")
        XCTAssertFalse(Redact.mayHoldSecret(Array(#"{"a\\user": "c:\\"}"#.utf8)), "an escaped backslash before u is no escape")
        XCTAssertFalse(Redact.mayHoldSecret(Array(#"{"a": 1}\"#.utf8)), "a trailing backslash")
        XCTAssertFalse(Redact.mayHoldSecret([]))
    }

    /// The digest is taken eight bytes a step: a change in any byte, in a word or in the tail,
    /// and a zero byte more at the end, each changes the 48 bits a trace shows.
    func testEveryByteReachesTheShownDigest() {
        let base = Array(#"{"id":"s_1","stage":"reading","xp":12}"#.utf8)  // 37 bytes: 4 words and a tail
        let shown = { (bytes: [UInt8]) in Redact.digest(of: bytes) >> 16 }
        var seen: Set<UInt64> = [shown(base)]
        for i in base.indices {
            for flip: UInt8 in [0x01, 0x80] {
                var edited = base
                edited[i] ^= flip
                XCTAssertTrue(seen.insert(shown(edited)).inserted, "byte \(i) ^ \(flip) gave a digest already seen")
            }
        }
        XCTAssertTrue(seen.insert(shown(base + [0])).inserted, "a trailing zero byte")
        XCTAssertTrue(seen.insert(shown(Array(base.prefix(32)))).inserted, "a whole number of words")
        XCTAssertTrue(seen.insert(shown(Array(base.prefix(32)) + [0])).inserted)
        XCTAssertNotEqual(shown([]), shown([0]))
    }

    func testExcerptIsCutAtItsLimitInCharacters() {
        let long: JSONValue = ["s": .string(String(repeating: "é", count: 2000))]
        let (_, e) = digestAndExcerpt(long, limit: 240)
        XCTAssertEqual(e.count, 241, "240 characters and the ellipsis")
        XCTAssertTrue(e.hasPrefix(#"{"s":"éé"#))
        XCTAssertTrue(e.hasSuffix("é…"))
    }

    func testAnASCIIExcerptIsCutAtItsLimitAndACombiningMarkAtTheCutStaysWithItsLetter() {
        // {"s":" is 6 bytes; 234 more ASCII letters reach the 240-byte limit exactly.
        let exact: JSONValue = ["s": .string(String(repeating: "a", count: 233))]  // 6 + 233 + 1 quote + 1 brace = 241 bytes
        let (_, e1) = digestAndExcerpt(exact, limit: 240)
        XCTAssertEqual(e1.count, 241)
        XCTAssertEqual(e1, #"{"s":""# + String(repeating: "a", count: 233) + #"""# + "…")
        let fits: JSONValue = ["s": .string(String(repeating: "a", count: 232))]  // 240 bytes: no cut
        XCTAssertEqual(digestAndExcerpt(fits, limit: 240).excerpt, #"{"s":""# + String(repeating: "a", count: 232) + #""}"#)
        // The 240th character is an "e" whose combining acute accent follows it: the cut keeps both.
        let marked: JSONValue = ["s": .string(String(repeating: "a", count: 233) + "e\u{301}" + String(repeating: "b", count: 50))]
        let (_, e2) = digestAndExcerpt(marked, limit: 240)
        XCTAssertEqual(e2.count, 241, "240 characters and the ellipsis")
        XCTAssertTrue(e2.hasSuffix("e\u{301}…"), String(e2.suffix(3)))
    }

    func testACRLFBetweenTokensOfARawAnswerIsOneCharacterOfTheExcerpt() throws {
        // 7 bytes, CR LF (one Character), then ASCII: 240 characters are the first 241 bytes.
        let raw = Array((#"{"a":1,"# + "\r\n" + #""b":""# + String(repeating: "x", count: 300) + #""}"#).utf8)
        let (_, excerpt) = digestAndExcerpt(raw: raw, parsed: try JSONValue.parse(raw), limit: 240)
        XCTAssertEqual(excerpt, String(decoding: raw[..<241], as: UTF8.self) + "…")
    }

    /// Answers of up to `4 × limit + 4` bytes are kept whole and hashed and cut when shown; longer
    /// ones are hashed and cut at once. Either side of that bound a trace line reads the same way:
    /// the first `limit` characters and an ellipsis, a digest that tells the last byte apart.
    func testAnswersEitherSideOfTheKeptWholeBoundShowAlike() throws {
        for total in [963, 964, 965, 3000] {
            for letter in ["x", "é"] {
                let body = String(repeating: letter, count: (total - 8) / letter.utf8.count)
                let a = Array((#"{"s":""# + body + #""}"#).utf8), b = Array((#"{"s":""# + body + #"" }"#).utf8)
                let (da, ea) = digestAndExcerpt(raw: a, parsed: try JSONValue.parse(a), limit: 240)
                let (db, _) = digestAndExcerpt(raw: b, parsed: try JSONValue.parse(b), limit: 240)
                XCTAssertEqual(ea, #"{"s":""# + String(repeating: letter, count: 234) + "…", "\(total) bytes of \(letter)")
                XCTAssertEqual(da.count, 12)
                XCTAssertTrue(da.allSatisfy(\.isHexDigit), da)
                XCTAssertNotEqual(da, db, "\(total) bytes of \(letter): one more byte at the end")
            }
            // A token is redacted on either side too (kept answers are searched when shown).
            let pad = String(repeating: "p", count: total - 40)
            let secret = Array((#"{"access_token": "secret-C", "pad": ""# + pad + #""}"#).utf8)
            let shown = digestAndExcerpt(raw: secret, parsed: try JSONValue.parse(secret), limit: 240)
            XCTAssertTrue(shown.excerpt.hasPrefix(#"{"access_token":"<redacted>","pad":"ppp"#), "\(total): \(shown.excerpt.prefix(60))")
            XCTAssertFalse(shown.excerpt.contains("secret-C"))
        }
    }

    // The trace line's two strings, as `TraceEntry.json()` writes them.
    private func digestAndExcerpt(_ v: JSONValue?, limit: Int) -> (digest: String, excerpt: String) {
        let s = Redact.snippet(v, limit: limit)
        return (s.digest, s.excerpt)
    }

    private func digestAndExcerpt(raw: [UInt8], parsed: JSONValue?, limit: Int) -> (digest: String, excerpt: String) {
        let s = Redact.snippet(raw: raw, parsed: parsed, limit: limit)
        return (s.digest, s.excerpt)
    }
}
