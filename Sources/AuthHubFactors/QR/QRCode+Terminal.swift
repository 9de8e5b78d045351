extension QRCode {
    /// Draws the symbol for a terminal with Unicode half blocks, two module rows per text line.
    ///
    /// Each character covers one module column and two module rows: `█` both inked, `▀` the upper
    /// one, `▄` the lower one, a space neither. "Inked" modules are drawn in the terminal's
    /// foreground colour: the dark modules by default, which suits dark text on a light background;
    /// with `inverted` the light modules (quiet zone included), which suits light text on a dark
    /// background, so that the symbol's dark modules show as the terminal background. When the
    /// symbol plus quiet zone has an odd number of rows, the last line's lower half is left blank.
    ///
    /// Scanners want a quiet zone of four modules; two usually suffice on a screen, and a terminal
    /// whose background matches the light colour extends it anyway.
    ///
    /// - Parameters:
    ///   - quietZone: light modules drawn around the symbol on every side; 2 by default. Values are
    ///     clamped to 0...100.
    ///   - inverted: ink the light modules instead of the dark ones, for dark-background terminals.
    /// - Returns: the lines joined by `"\n"`, with a final `"\n"`.
    public func terminalRendering(quietZone: Int = 2, inverted: Bool = false) -> String {
        let margin = min(max(0, quietZone), 100)
        let extent = size + 2 * margin
        func inked(_ column: Int, _ row: Int) -> Bool {
            guard row < extent else { return false }  // below the last row of an odd-height drawing
            return self[column - margin, row - margin] != inverted
        }
        var output = ""
        output.reserveCapacity((extent + 1) * ((extent + 1) / 2) * 3)
        for row in stride(from: 0, to: extent, by: 2) {
            for column in 0..<extent {
                switch (inked(column, row), inked(column, row + 1)) {
                case (true, true): output += "█"
                case (true, false): output += "▀"
                case (false, true): output += "▄"
                case (false, false): output += " "
                }
            }
            output += "\n"
        }
        return output
    }
}
