/// BCP 47 language tags compared the way the app needs: by primary subtag.
///
/// The codes a client may send are the ones the server lists (`GET /config`), and servers name
/// the same language differently (`zh`, `zh-Hans`); a device locale (`zh-Hans-CN`) or a corpus
/// clip's tag (`zh`) is matched to the server's code by its primary subtag, never by string
/// equality with a code of ours.
public enum LanguageTag {
    /// The primary subtag, lower-cased: `zh-Hans-CN` → `zh`, `EN_us` → `en`.
    public static func primary(_ tag: String) -> String {
        String(tag.prefix { $0 != "-" && $0 != "_" }).lowercased()
    }

    /// Whether two tags name the same language (same primary subtag; both non-empty).
    public static func sameLanguage(_ a: String, _ b: String) -> Bool {
        let p = primary(a)
        return !p.isEmpty && p == primary(b)
    }

    /// The code in `codes` for the language of `tag`: an exact match first (case-insensitive),
    /// else the first code with the same primary subtag; nil when `codes` has none.
    public static func match(_ tag: String, in codes: [String]) -> String? {
        codes.first { $0.lowercased() == tag.lowercased() } ?? codes.first { sameLanguage($0, tag) }
    }

    /// The one locale → language rule of app and stack alike: the code in `codes` for a device
    /// locale (`match`), else the first code (the server's default). `codes` must not be empty.
    public static func closest(to locale: String, in codes: [String]) -> String {
        match(locale, in: codes) ?? codes[0]
    }
}
