/// Text a client chose (an `error` message's text), made safe for one log line.
enum ClientText {
    /// `text` with every control character (line breaks, ANSI escapes, C1 controls,
    /// bidirectional overrides) written as `\u{..}`, cut to `limit` characters: a client
    /// cannot forge log lines or recolour a terminal.
    static func forLog(_ text: String, limit: Int = 512) -> String {
        var out = ""
        var count = 0
        for scalar in text.unicodeScalars {
            guard count < limit else { return out + "…" }
            let value = scalar.value
            let unsafe = value < 0x20 || (0x7F...0x9F).contains(value) || (0x202A...0x202E).contains(value)
                || (0x2066...0x2069).contains(value) || value == 0x2028 || value == 0x2029
            if unsafe { out += "\\u{" + String(value, radix: 16) + "}" } else { out.unicodeScalars.append(scalar) }
            count += 1
        }
        return out
    }
}
