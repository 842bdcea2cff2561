import Foundation
import Testing

/// The rule that keeps touch frames free of run-time exclusivity checks: a class a touch frame goes
/// through has no public stored `var`. Another module checks every access to a public stored
/// property at run time, since the compiler cannot see the accesses made elsewhere; a public
/// property is a computed one over a private `xStorage` field, whose accesses the compiler sees
/// and proves apart (see TouchDispatch's OutOfPlace.swift). Constants (`let`) need no check.
@Suite struct HotPathRulesTests {
  /// Every public class of TouchDispatch, and the classes of ResponderCore a touch frame reads.
  static let responderCoreClasses: Set<String> = ["Touch", "Event", "Responder", "Application"]

  @Test func noClassOnThePerTouchPathHasAPublicStoredProperty() throws {
    let root = DocumentationTests.root.appendingPathComponent("Sources")
    var found: [String] = []
    for module in ["ResponderCore", "TouchDispatch"] {
      let folder = root.appendingPathComponent(module)
      let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
        $0.hasSuffix(".swift")
      }
      #expect(!files.isEmpty, "no source in Sources/\(module)")
      for file in files.sorted() {
        let source = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
        let classes = module == "ResponderCore" ? Self.responderCoreClasses : nil
        found += PublicStoredProperties.find(in: source, classes: classes).map {
          "Sources/\(module)/\(file): \($0)"
        }
      }
    }
    #expect(
      found.isEmpty, "public stored properties on the per-touch path:\n\(found.joined(separator: "\n"))")
  }

  @Test func aPublicStoredPropertyIsFoundAndAccessorsAreNot() {
    let source = """
      public final class Touch: Hashable {
        /// The phase.
        public var phase: TouchPhase {
          get { phaseStorage }
          set { phaseStorage = newValue }
        }
        private var phaseStorage: TouchPhase
        public let identifier: Int
        public var force: Double
        public private(set) weak var owner: Responder?
        public var isHeld = false { didSet { changed() } }
        public var description: String { "touch" }
        struct Slot { public var index: Int }
      }
      public final class Press {
        public var force: Double
      }
      open class View {
        open var next: Responder? { nil }
        public var tag = 0
      }
      """
    #expect(
      PublicStoredProperties.find(in: source, classes: ["Touch"])
        == ["Touch.force", "Touch.owner", "Touch.isHeld"])
    #expect(
      PublicStoredProperties.find(in: source, classes: nil)
        == ["Touch.force", "Touch.owner", "Touch.isHeld", "Press.force", "View.tag"])
  }
}

/// Finds the public stored `var`s of the public and open classes of a Swift source file, by
/// reading its lines as swift-format writes them (a declaration's `{` on its own line).
enum PublicStoredProperties {
  /// `Class.property` for each one, in source order; `classes` limits the classes looked at.
  static func find(in source: String, classes: Set<String>?) -> [String] {
    var found: [String] = []
    var depth = 0
    // The open classes: their name and the depth of their members.
    var open: [(name: String, memberDepth: Int)] = []
    let lines = source.split(separator: "\n", omittingEmptySubsequences: false).map(code)
    for (index, line) in lines.enumerated() {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if let current = open.last, depth == current.memberDepth,
        let name = storedVar(trimmed, next: lines, after: index)
      {
        found.append("\(current.name).\(name)")
      }
      if let name = publicClass(trimmed), classes?.contains(name) ?? true {
        open.append((name, depth + 1))
      }
      depth += line.count { $0 == "{" } - line.count { $0 == "}" }
      while let current = open.last, depth < current.memberDepth { open.removeLast() }
    }
    return found
  }

  /// A line without its comment and the contents of its string literals.
  private static func code(_ line: Substring) -> String {
    var result = ""
    var inString = false
    var previous: Character = " "
    for character in line {
      if !inString && character == "/" && previous == "/" {
        result.removeLast()
        break
      }
      if character == "\"" { inString.toggle() } else if !inString { result.append(character) }
      previous = character
    }
    return result
  }

  /// The name of the public or open class `line` declares.
  private static func publicClass(_ line: String) -> String? {
    let words = line.split(whereSeparator: { $0 == " " || $0 == ":" || $0 == "{" || $0 == "<" })
    guard let at = words.firstIndex(of: "class"), at + 1 < words.count,
      words[..<at].contains(where: { $0 == "public" || $0 == "open" })
    else { return nil }
    return String(words[at + 1])
  }

  /// What may come before `var` in an instance property's declaration (not `static`: the rule is
  /// about what every touch, view and recognizer carries).
  private static let modifiers: Set<String> = [
    "public", "open", "private(set)", "internal(set)", "fileprivate(set)", "weak", "unowned", "lazy", "final",
    "override",
  ]

  /// The name of the public stored `var` `line` declares: no body, or one of observers only.
  private static func storedVar(_ line: String, next lines: [String], after index: Int) -> String? {
    let words = line.split(separator: " ")
    guard let at = words.firstIndex(of: "var"), at + 1 < words.count,
      words[..<at].allSatisfy({ modifiers.contains(String($0)) }),
      words[..<at].contains(where: { $0 == "public" || $0 == "open" })
    else { return nil }
    let name = String(words[at + 1].prefix { $0.isLetter || $0.isNumber || $0 == "_" })
    guard let brace = line.firstIndex(of: "{") else { return name }
    var body = line[line.index(after: brace)...].trimmingCharacters(in: .whitespaces)
    if body.isEmpty, index + 1 < lines.count { body = lines[index + 1].trimmingCharacters(in: .whitespaces) }
    return body.hasPrefix("didSet") || body.hasPrefix("willSet") ? name : nil
  }
}
