import Foundation
import Testing

/// docs/touch-apps.md's GTK 4 and SDL 2 code is quoted from the compiled examples: every Swift
/// block after a line naming an example's source file appears in that file, line for line and in
/// order (the file may have more lines between them).
@Suite struct TouchAppsQuotationTests {
  /// The Swift blocks of `markdown`, each with the last `examples/…swift` path named before it.
  static func quotations(_ markdown: String) -> [(file: String, lines: [String])] {
    var result: [(file: String, lines: [String])] = []
    var file: String?
    var block: [String]?
    for line in markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
      if var lines = block {
        if line == "```" {
          if let file { result.append((file, lines)) }
          block = nil
        } else {
          lines.append(line)
          block = lines
        }
      } else if line == "```swift" {
        block = []
      } else if let range = line.range(of: #"examples/[A-Za-z0-9_/-]+\.swift"#, options: .regularExpression) {
        file = String(line[range])
      }
    }
    return result
  }

  /// The lines of `quoted` missing from `source` (in order; blank lines skipped).
  static func missing(_ quoted: [String], from source: String) -> [String] {
    let lines = source.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    var index = lines.startIndex
    var missing: [String] = []
    for line in quoted where !line.trimmingCharacters(in: .whitespaces).isEmpty {
      if let found = lines[index...].firstIndex(of: line) {
        index = found + 1
      } else {
        missing.append(line)
      }
    }
    return missing
  }

  @Test func theGTKAndSDLSnippetsAreTheExamplesCode() throws {
    let page = try DocumentationTests.read("docs/touch-apps.md")
    let quotations = Self.quotations(page)
    #expect(
      Set(quotations.map(\.file)).isSuperset(of: [
        "examples/touch-demo-gtk/TouchArea.swift", "examples/touch-demo-sdl/TouchWindow.swift",
      ]), "\(quotations.map(\.file))")
    for quotation in quotations {
      let source = try DocumentationTests.read(quotation.file)
      #expect(Self.missing(quotation.lines, from: source).isEmpty, "\(quotation.file)")
    }
  }

  @Test func aLineThatIsNotInTheSourceIsFound() throws {
    let source = try DocumentationTests.read("examples/touch-demo-gtk/TouchArea.swift")
    let quoted = [
      "    case GDK_TOUCH_END:", "      contacts[sequence] = nil", "    input.forget(everything)",
    ]
    #expect(Self.missing(quoted, from: source) == ["    input.forget(everything)"])
    // Out of order is missing too.
    #expect(
      Self.missing(["      contacts[sequence] = nil", "    case GDK_TOUCH_END:"], from: source).count == 1)
  }
}
