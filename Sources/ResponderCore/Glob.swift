/// A shell-style wildcard pattern over whole strings: `*` matches any run of characters (none
/// included), `?` any one character; everything else is literal (no escapes, no classes).
public struct Glob: Sendable, Hashable, CustomStringConvertible {
  /// The pattern as written.
  public let pattern: String
  private let characters: [Character]

  public init(_ pattern: String) {
    self.pattern = pattern
    self.characters = Array(pattern)
  }

  public var description: String { pattern }

  /// Whether the whole of `text` matches the pattern.
  public func matches(_ text: String) -> Bool { Self.match(characters, Array(text)) }

  /// Iterative wildcard match with backtracking to the last `*` (linear in practice).
  private static func match(_ pattern: [Character], _ text: [Character]) -> Bool {
    var p = 0
    var t = 0
    var starP = -1
    var starT = 0
    while t < text.count {
      if p < pattern.count, pattern[p] == "?" || (pattern[p] != "*" && pattern[p] == text[t]) {
        p += 1
        t += 1
      } else if p < pattern.count, pattern[p] == "*" {
        starP = p
        starT = t
        p += 1
      } else if starP >= 0 {
        p = starP + 1
        starT += 1
        t = starT
      } else {
        return false
      }
    }
    while p < pattern.count, pattern[p] == "*" { p += 1 }
    return p == pattern.count
  }
}
