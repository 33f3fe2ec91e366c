import Foundation

/// Reading the configuration's JSON with errors a person can act on: Foundation says
/// where a syntax error is as a byte offset ("around character 46"); this turns it into
/// a line and a column, and shows the line.
enum ConfigJSON {
    /// The top-level object of `data`.
    ///
    /// - Throws: ``ServerError`` "`source`: JSON syntax error at line L, column C: …",
    ///   or "not a JSON object" for valid JSON of another kind.
    static func object(_ data: Data, source: String) throws -> [String: Any] {
        let value: Any
        do {
            value = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw ServerError("\(source): \(describe(error, in: data))")
        }
        guard let object = value as? [String: Any] else { throw ServerError("\(source): not a JSON object") }
        return object
    }

    /// The syntax error with its position, as far as Foundation tells it.
    static func describe(_ error: Error, in data: Data) -> String {
        let detail = ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String) ?? "\(error)"
        let offset: Int
        if let range = detail.range(of: #"character (\d+)"#, options: .regularExpression),
           let n = Int(detail[range].dropFirst("character ".count)) {
            offset = n
        } else if detail.localizedCaseInsensitiveContains("end of file") {
            offset = data.count
        } else {
            return "JSON syntax error: \(detail)"
        }
        let (line, column, text) = position(of: tokenStart(before: offset, in: data), in: data)
        let reason = detail.replacingOccurrences(of: #" around character \d+\.?"#, with: "", options: .regularExpression)
            .trimmingCharacters(in: CharacterSet(charactersIn: ". "))
        return "JSON syntax error at line \(line), column \(column): \(reason)\n  \(text)"
    }

    /// Foundation names the byte after a bad bare word (`tru`); the word's first byte is
    /// where a person looks.
    static func tokenStart(before offset: Int, in data: Data) -> Int {
        let bytes = [UInt8](data)
        var start = min(max(offset, 0), bytes.count)
        func isWord(_ b: UInt8) -> Bool {
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2B || b == 0x2D || b == 0x2E
        }
        while start > 0, isWord(bytes[start - 1]) { start -= 1 }
        return start
    }

    /// The 1-based line and column (in characters) of byte `offset`, and that line.
    static func position(of offset: Int, in data: Data) -> (line: Int, column: Int, text: String) {
        let bytes = [UInt8](data)
        let end = min(max(offset, 0), bytes.count)
        var line = 1
        var lineStart = 0
        for i in 0..<end where bytes[i] == 0x0A {
            line += 1
            lineStart = i + 1
        }
        let column = String(decoding: bytes[lineStart..<end], as: UTF8.self).count + 1
        let lineEnd = bytes[lineStart...].firstIndex(of: 0x0A) ?? bytes.count
        let text = String(decoding: bytes[lineStart..<lineEnd], as: UTF8.self)
        return (line, column, text.count > 200 ? String(text.prefix(200)) + "…" : text)
    }
}
