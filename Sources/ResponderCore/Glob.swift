/// A shell-style wildcard pattern over whole strings, as `fnmatch(3)` reads one: `*` matches any
/// run of characters (none included), `?` any one character, `[…]` one character of a class
/// (`[12]`, `[0-9]`, `[!0-9]` or `[^0-9]` for any other; a `]` first in the class is literal);
/// everything else is literal, and so is a `[` that no `]` closes. No escapes: `[[]` matches `[`.
public struct Glob: Sendable, Hashable, CustomStringConvertible {
  /// The pattern as written.
  public let pattern: String
  private let elements: [Element]

  /// One step of a pattern.
  private enum Element: Sendable, Hashable {
    case literal(Character)
    case anyOne
    case anyRun
    case oneOf([ClosedRange<Character>], negated: Bool)

    /// Whether this element, other than `*`, takes `character`.
    func takes(_ character: Character) -> Bool {
      switch self {
      case .literal(let literal): return literal == character
      case .anyOne: return true
      case .anyRun: return false
      case .oneOf(let ranges, let negated): return ranges.contains { $0.contains(character) } != negated
      }
    }
  }

  public init(_ pattern: String) {
    self.pattern = pattern
    self.elements = Self.parse(Array(pattern))
  }

  public var description: String { pattern }

  /// Whether the whole of `text` matches the pattern.
  public func matches(_ text: String) -> Bool { Self.match(elements, Array(text)) }

  private static func parse(_ characters: [Character]) -> [Element] {
    var elements: [Element] = []
    var index = 0
    while index < characters.count {
      let character = characters[index]
      index += 1
      switch character {
      case "*": elements.append(.anyRun)
      case "?": elements.append(.anyOne)
      case "[":
        if let (element, next) = bracket(characters, from: index) {
          elements.append(element)
          index = next
        } else {
          elements.append(.literal("["))
        }
      default: elements.append(.literal(character))
      }
    }
    return elements
  }

  /// The class that starts after a `[` at `start`, and the index after its `]`; nil when no `]`
  /// closes it.
  private static func bracket(_ characters: [Character], from start: Int) -> (Element, Int)? {
    var index = start
    let negated = index < characters.count && (characters[index] == "!" || characters[index] == "^")
    if negated { index += 1 }
    var ranges: [ClosedRange<Character>] = []
    var first = true
    while index < characters.count {
      let low = characters[index]
      if low == "]" && !first { return (.oneOf(ranges, negated: negated), index + 1) }
      first = false
      if index + 2 < characters.count, characters[index + 1] == "-", characters[index + 2] != "]" {
        let high = characters[index + 2]
        // A reversed range (`[z-a]`) matches nothing, as in fnmatch.
        if low <= high { ranges.append(low...high) }
        index += 3
      } else {
        ranges.append(low...low)
        index += 1
      }
    }
    return nil
  }

  /// Iterative wildcard match with backtracking to the last `*` (linear in practice).
  private static func match(_ pattern: [Element], _ text: [Character]) -> Bool {
    var p = 0
    var t = 0
    var starP = -1
    var starT = 0
    while t < text.count {
      if p < pattern.count, pattern[p].takes(text[t]) {
        p += 1
        t += 1
      } else if p < pattern.count, pattern[p] == .anyRun {
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
    while p < pattern.count, pattern[p] == .anyRun { p += 1 }
    return p == pattern.count
  }
}
