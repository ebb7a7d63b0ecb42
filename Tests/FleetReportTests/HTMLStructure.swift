import Foundation

/// The outline of an HTML page: landmark elements with their id and class, headings and table
/// headers with their text, one line per element, indented by nesting.
///
/// Snapshot tests compare this outline instead of the raw page, so a change of a pixel coordinate
/// in a chart does not break them but a lost section, table column or chart does.
enum HTMLStructure {
    static let kept: Set<String> = ["html", "head", "title", "style", "body", "header", "main", "footer", "section", "h1", "h2", "h3",
                                    "h4", "table", "thead", "tbody", "tr", "th", "figure", "figcaption", "svg", "dl", "ul", "div", "p"]
    static let withText: Set<String> = ["title", "h1", "h2", "h3", "h4", "th", "figcaption"]
    /// HTML void elements; SVG elements are empty only when written `<… />`.
    static let void: Set<String> = ["meta", "br", "img", "input", "link", "hr", "wbr"]

    static func outline(_ html: String) -> String {
        var out: [String] = []
        var stack: [(name: String, kept: Bool)] = []
        var inSVG = 0
        let scanner = html as NSString
        let regex = try! NSRegularExpression(pattern: "<(/?)([a-zA-Z0-9]+)([^>]*?)(/?)>")
        for m in regex.matches(in: html, range: NSRange(location: 0, length: scanner.length)) {
            let closing = scanner.substring(with: m.range(at: 1)) == "/"
            let name = scanner.substring(with: m.range(at: 2)).lowercased()
            let attrs = scanner.substring(with: m.range(at: 3))
            let selfClosing = scanner.substring(with: m.range(at: 4)) == "/" || void.contains(name)
            if closing {
                while let top = stack.popLast() { if top.name == "svg" { inSVG -= 1 }; if top.name == name { break } }
                continue
            }
            let depth = stack.filter(\.kept).count
            // Inside a chart only the <svg> line itself is kept (with its <title>), not its drawing.
            let keep = kept.contains(name) && (inSVG == 0 || (name == "title" && stack.last?.name == "svg"))
            if keep {
                var line = String(repeating: "  ", count: depth) + name
                if let id = attribute("id", in: attrs) { line += "#" + id }
                if let cls = attribute("class", in: attrs) { line += "." + cls.split(separator: " ").joined(separator: ".") }
                if withText.contains(name) {
                    let start = m.range.location + m.range.length
                    let rest = scanner.substring(from: start)
                    let text = rest.prefix { $0 != "<" }.trimmingCharacters(in: .whitespacesAndNewlines)
                    if !text.isEmpty && name != "style" { line += " \"" + text + "\"" }
                }
                out.append(line)
            }
            if !selfClosing {
                stack.append((name, keep))
                if name == "svg" { inSVG += 1 }
            }
        }
        return out.joined(separator: "\n") + "\n"
    }

    private static func attribute(_ name: String, in attrs: String) -> String? {
        guard let r = attrs.range(of: " \(name)=\"") else { return nil }
        return String(attrs[r.upperBound...].prefix { $0 != "\"" })
    }
}
