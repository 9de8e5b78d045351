extension QRCode {
    /// The symbol as an SVG document fragment for a web page: one `<path>` of the dark modules on a
    /// white background, `quietZone` modules of margin (4 by default, ISO/IEC 18004's), scaled by
    /// the page (`viewBox`), with `label` as its accessible name. Only presentation attributes (no
    /// `style`), so a page's Content-Security-Policy needs no inline-style allowance.
    public func svg(quietZone: Int = 4, label: String = "QR code") -> String {
        let margin = max(0, min(quietZone, 16))
        let total = size + 2 * margin
        var path = ""
        path.reserveCapacity(size * size * 4)
        for y in 0..<size {
            var x = 0
            while x < size {
                guard self[x, y] else { x += 1; continue }
                var run = 1
                while x + run < size, self[x + run, y] { run += 1 }
                path += "M\(x + margin) \(y + margin)h\(run)v1h-\(run)z"
                x += run
            }
        }
        let escaped = label.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: "\"", with: "&quot;")
        return "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(total) \(total)\" width=\"\(total * 6)\" height=\"\(total * 6)\" "
            + "role=\"img\" aria-label=\"\(escaped)\" shape-rendering=\"crispEdges\"><rect width=\"\(total)\" height=\"\(total)\" fill=\"#fff\"/>"
            + "<path fill=\"#000\" d=\"\(path)\"/></svg>"
    }
}
