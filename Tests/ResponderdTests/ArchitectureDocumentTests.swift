import Foundation
import Testing

/// docs/architecture.md's module table against Package.swift: every module under `Sources/` has a
/// row, and each row's "depends on" is what the manifest declares for that module.
@Suite struct ArchitectureDocumentTests {
  @Test func theModuleTableIsTrueToPackageSwift() throws {
    let problems = try ArchitectureCheck.problems(
      manifest: DocumentationTests.read("Package.swift"),
      architecture: DocumentationTests.read("docs/architecture.md"),
      sourceModules: ArchitectureCheck.sourceModules(root: DocumentationTests.root))
    #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
  }

  @Test func aModuleLeftOutOfTheTableIsFound() throws {
    let architecture = try DocumentationTests.read("docs/architecture.md")
    let withoutSessionWatcher = architecture.split(separator: "\n", omittingEmptySubsequences: false)
      .filter { !$0.hasPrefix("| `SessionWatcher` |") }.joined(separator: "\n")
    #expect(withoutSessionWatcher != architecture)
    let problems = try ArchitectureCheck.problems(
      manifest: DocumentationTests.read("Package.swift"), architecture: withoutSessionWatcher,
      sourceModules: ArchitectureCheck.sourceModules(root: DocumentationTests.root))
    #expect(
      problems == ["Sources/SessionWatcher is a module that docs/architecture.md does not list"])
  }

  @Test func aDependencyTheManifestDoesNotDeclareIsFound() throws {
    let architecture = try DocumentationTests.read("docs/architecture.md")
    let wrong = architecture.replacingOccurrences(
      of: "| `DesktopWatch` | `DBus`, `Logging` |", with: "| `DesktopWatch` | `DBus`, `Logging`, `MPRIS` |")
    #expect(wrong != architecture)
    let problems = try ArchitectureCheck.problems(
      manifest: DocumentationTests.read("Package.swift"), architecture: wrong,
      sourceModules: ArchitectureCheck.sourceModules(root: DocumentationTests.root))
    #expect(
      problems == [
        "docs/architecture.md: DesktopWatch depends on MPRIS, Package.swift says not (it says: DBus, Logging)"
      ])
  }

  @Test func everyTestTargetSaysItsKindAndUnitTargetsStartNoProcess() throws {
    let problems = try TestTargetKind.problems(manifest: DocumentationTests.read("Package.swift"))
    #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    let unit = try ArchitectureCheck.targets(DocumentationTests.read("Package.swift")).filter {
      $0.declaration == "testTarget" && TestTargetKind.of($0.name) == .unit
    }
    #expect(unit.contains { $0.name == "ResponderdTests" })
  }

  /// Every test builds into one bundle, so a unit target's file can import a process-starting
  /// module its manifest entry does not name: the imports are checked too.
  @Test func noUnitTestFileImportsAProcessStartingModule() throws {
    let problems = try TestTargetKind.importProblems(
      manifest: DocumentationTests.read("Package.swift"), root: DocumentationTests.root)
    #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    #expect(
      TestTargetKind.importProblems(
        target: "ResponderdTests", file: "Example.swift", text: "import Foundation\nimport DBusTestSupport\n")
        == [
          "Tests/ResponderdTests/Example.swift imports DBusTestSupport, which starts processes: move it to ResponderdIntegrationTests"
        ])
  }

  @Test func aUnitTargetThatWouldStartProcessesIsFound() throws {
    let manifest = try DocumentationTests.read("Package.swift")
    let wrong = manifest.replacingOccurrences(
      of: "\"SessionWatcher\", \"DBus\", \"EventTime\", \"ResponderdTestKit\",",
      with: "\"SessionWatcher\", \"DBus\", \"EventTime\", \"ResponderdTestKit\", \"ShellTestSupport\",")
    #expect(wrong != manifest)
    // ShellTestSupport starts compositors, and brings DBusTestSupport (a bus daemon) with it.
    #expect(
      try TestTargetKind.problems(manifest: wrong) == [
        "Package.swift: SessionWatcherTests is a unit test target but depends on DBusTestSupport, which starts processes: move the tests that need it to SessionWatcherIntegrationTests",
        "Package.swift: SessionWatcherTests is a unit test target but depends on ShellTestSupport, which starts processes: move the tests that need it to SessionWatcherIntegrationTests",
      ])
    let unnamed = manifest.replacingOccurrences(
      of: "name: \"SessionWatcherTests\"", with: "name: \"SessionWatcherChecks\"")
    #expect(
      try TestTargetKind.problems(manifest: unnamed) == [
        "Package.swift: test target SessionWatcherChecks says no kind (its name ends in none of IntegrationTests, DeviceTests, ShellTests, Tests)"
      ])
  }

  @Test func aModuleThatDoesNotExistIsFound() throws {
    let architecture = try DocumentationTests.read("docs/architecture.md")
    let problems = try ArchitectureCheck.problems(
      manifest: DocumentationTests.read("Package.swift"),
      architecture: architecture + "\n| `Telepathy` | `DBus` | reads minds |\n",
      sourceModules: ArchitectureCheck.sourceModules(root: DocumentationTests.root))
    #expect(problems == ["docs/architecture.md lists Telepathy, which Package.swift does not declare"])
  }

  @Test func nothingPointsOutsideTheRepository() throws {
    // Spelled in two parts, so that this file does not match itself.
    let outside = ["../" + "shared", "DESIGN" + ".md"]
    var found: [String] = []
    let root = DocumentationTests.root
    let enumerator = FileManager.default.enumerator(atPath: root.path)
    while let path = enumerator?.nextObject() as? String {
      // Not .build, .git and the like.
      if path.hasPrefix(".") || path.contains("/.") {
        enumerator?.skipDescendants()
        continue
      }
      guard path.hasSuffix(".swift") || path.hasSuffix(".md") || path.hasSuffix(".c") || path.hasSuffix(".h")
      else { continue }
      let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
      for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
      where outside.contains(where: { line.contains($0) }) {
        found.append("\(path):\(number + 1): \(line)")
      }
    }
    #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
  }

  /// The project's memory-safety rule: no unchecked exclusivity, no `unowned(unsafe)` and no
  /// underscored attribute but `@_exported` (a compile-time re-export) in the sources or the
  /// benchmarks, whatever a benchmark goal says.
  @Test func noUncheckedExclusivityNorUnsafeUnownedReferences() throws {
    var found: [String] = []
    let root = DocumentationTests.root
    for folder in ["Sources", "Benchmarks"] {
      let enumerator = FileManager.default.enumerator(atPath: root.appendingPathComponent(folder).path)
      while let path = enumerator?.nextObject() as? String {
        guard path.hasSuffix(".swift") else { continue }
        let text = try String(contentsOf: root.appendingPathComponent(folder + "/" + path), encoding: .utf8)
        found += MemorySafetyRule.violations(in: text, file: folder + "/" + path)
      }
    }
    #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
  }

  @Test func theMemorySafetyRuleFindsWhatItForbids() {
    // Spelled in parts, so that this file does not match itself.
    let text = [
      "  @" + "exclusivity(unchecked) private var core: Core", "  unowned" + "(unsafe) let view: View",
      "@" + "_silgen_name(\"f\") func f()", "@" + "_exported import EventTime",
      "  // @" + "_fixed_layout is gone",
    ].joined(separator: "\n")
    #expect(
      MemorySafetyRule.violations(in: text, file: "F.swift") == [
        "F.swift:1: @" + "exclusivity(unchecked) private var core: Core",
        "F.swift:2: unowned" + "(unsafe) let view: View", "F.swift:3: @" + "_silgen_name(\"f\") func f()",
      ])
  }
}

/// What the memory-safety rule forbids in a Swift file.
enum MemorySafetyRule {
  /// The lines of `text` that break the rule, as "file:line: line" (comments are not code).
  static func violations(in text: String, file: String) -> [String] {
    var result: [String] = []
    for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let code = line.trimmingCharacters(in: .whitespaces)
      if code.hasPrefix("//") { continue }
      let forbidden =
        code.contains("@" + "exclusivity(unchecked)") || code.contains("unowned" + "(unsafe)")
        || code.replacingOccurrences(of: "@" + "_exported", with: "").contains("@" + "_")
      if forbidden { result.append("\(file):\(number + 1): \(code)") }
    }
    return result
  }
}

/// Reads the targets of Package.swift and the module table of docs/architecture.md.
enum ArchitectureCheck {
  /// A target of the manifest: its name and the names it depends on (targets and products).
  struct Target: Equatable {
    var name: String
    var dependencies: Set<String>
    /// How it is declared: "target", "systemLibrary", "executableTarget" or "testTarget".
    var declaration = "target"
  }

  /// The folders of `Sources/`: one module each.
  static func sourceModules(root: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Sources").path)
      .filter { !$0.hasPrefix(".") }.sorted()
  }

  /// What is wrong with the table, one sentence each; empty when it is true to the manifest.
  static func problems(manifest: String, architecture: String, sourceModules: [String]) throws -> [String] {
    let targets = Dictionary(try self.targets(manifest).map { ($0.name, $0) }) { first, _ in first }
    let rows = table(architecture)
    var problems: [String] = []
    for module in sourceModules where rows[module] == nil {
      problems.append("Sources/\(module) is a module that docs/architecture.md does not list")
    }
    for (name, listed) in rows.sorted(by: { $0.key < $1.key }) {
      guard let target = targets[name] else {
        problems.append("docs/architecture.md lists \(name), which Package.swift does not declare")
        continue
      }
      let declared = target.dependencies.sorted().joined(separator: ", ")
      for dependency in listed.subtracting(target.dependencies).sorted() {
        problems.append(
          "docs/architecture.md: \(name) depends on \(dependency), Package.swift says not (it says: \(declared))"
        )
      }
      for dependency in target.dependencies.subtracting(listed).sorted() {
        problems.append("docs/architecture.md: \(name) does not list its dependency \(dependency)")
      }
    }
    return problems
  }

  /// The rows of the module table: `| `Name` | `A`, `B` | what it is |` ("—" for none).
  static func table(_ markdown: String) -> [String: Set<String>] {
    var rows: [String: Set<String>] = [:]
    for line in markdown.split(separator: "\n") where line.hasPrefix("| `") {
      let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
        $0.trimmingCharacters(in: .whitespaces)
      }
      guard cells.count >= 4, let name = codeSpans(cells[1]).first else { continue }
      rows[name] = Set(codeSpans(cells[2]))
    }
    return rows
  }

  /// The text between each pair of backticks.
  static func codeSpans(_ text: String) -> [String] {
    text.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }
      .map { String($0.element) }
  }

  /// The targets declared in the manifest's `targets: [...]` list (not those added by its
  /// environment switches at the end).
  static func targets(_ manifest: String) throws -> [Target] {
    let code = withoutComments(manifest)
    guard let listStart = code.range(of: "\n  targets: [") else {
      throw ArchitectureCheckError("Package.swift has no 'targets: [' list")
    }
    let list = try balanced(code[listStart.upperBound...], open: "[", close: "]")
    var targets: [Target] = []
    var rest = list[...]
    let kinds = [".target(", ".systemLibrary(", ".executableTarget(", ".testTarget("]
    while let found = kinds.compactMap({ rest.range(of: $0) }).min(by: { $0.lowerBound < $1.lowerBound }) {
      let body = try balanced(rest[found.upperBound...], open: "(", close: ")")
      let declaration = String(rest[found].dropFirst().dropLast())
      rest = rest[found.upperBound...].dropFirst(body.count)
      guard let name = firstString(after: "name: ", in: body) else {
        throw ArchitectureCheckError("a target without a literal name: \(body.prefix(80))")
      }
      var dependencies: Set<String> = []
      if let start = body.range(of: "dependencies: [") {
        let list = try balanced(body[start.upperBound...], open: "[", close: "]")
        var items = list[...]
        while let quote = items.firstIndex(of: "\"") {
          // `.product(name: "Logging", package: "swift-log")` is its product's name.
          let before = items[..<quote]
          let literal = items[items.index(after: quote)...].prefix { $0 != "\"" }
          let afterLiteral = items.index(quote, offsetBy: literal.count + 2)
          if before.hasSuffix(".product(name: ") {
            dependencies.insert(String(literal))
            items = items[afterLiteral...]
            if let close = items.firstIndex(of: ")") { items = items[items.index(after: close)...] }
          } else {
            dependencies.insert(String(literal))
            items = items[afterLiteral...]
          }
        }
      }
      targets.append(Target(name: name, dependencies: dependencies, declaration: declaration))
    }
    return targets
  }

  /// The text up to the bracket that closes the one opened just before `text`.
  static func balanced(_ text: Substring, open: Character, close: Character) throws -> Substring {
    var depth = 1
    var inString = false
    for index in text.indices {
      let character = text[index]
      if character == "\"" { inString.toggle() }
      if inString { continue }
      if character == "(" || character == "[" { depth += 1 }
      if character == ")" || character == "]" {
        depth -= 1
        if depth == 0 {
          guard character == close else { throw ArchitectureCheckError("'\(open)' closed by '\(character)'") }
          return text[..<index]
        }
      }
    }
    throw ArchitectureCheckError("'\(open)' never closed")
  }

  /// `swift` without its `//` comments (their brackets and quotes are not code).
  static func withoutComments(_ swift: String) -> String {
    swift.split(separator: "\n", omittingEmptySubsequences: false).map { line -> Substring in
      var inString = false
      var previous: Character = " "
      for index in line.indices {
        let character = line[index]
        if character == "\"" { inString.toggle() }
        if !inString && character == "/" && previous == "/" { return line[..<line.index(before: index)] }
        previous = character
      }
      return line
    }.joined(separator: "\n")
  }

  static func firstString(after label: String, in text: Substring) -> String? {
    guard let start = text.range(of: label + "\"") else { return nil }
    return String(text[start.upperBound...].prefix { $0 != "\"" })
  }
}

/// The kinds of test target, by the end of their names: unit tests start no process (the
/// no-process pass of `scripts/test` runs every unit target, found from Package.swift as this
/// check finds them); the others start processes of their own.
enum TestTargetKind: String, CaseIterable {
  /// `…IntegrationTests`: buses (a private dbus-daemon), players, sound servers, the daemon and
  /// its tools as programs.
  case integration = "IntegrationTests"
  /// `…DeviceTests`: devices emulated by umockdev (run under umockdev-wrapper).
  case device = "DeviceTests"
  /// `…ShellTests`: real headless compositors (GNOME Shell, KWin, phosh).
  case shell = "ShellTests"
  /// `…Tests`, none of the above: the test kit only, no process started.
  case unit = "Tests"

  /// The kind a test target's name says; nil for a name that ends in none of them.
  static func of(_ name: String) -> TestTargetKind? {
    allCases.first { name.hasSuffix($0.rawValue) }
  }

  /// The support modules that start processes (a bus daemon, umockdev's testbed, a compositor, a
  /// peer program): a unit target depends on none of them, not even through another module.
  static let processStarting: Set<String> = [
    "DBusTestSupport", "DeviceTestSupport", "ShellTestSupport", "TouchDemoTestSupport", "CUmockdev",
    "DBusEchoPeer",
  ]

  /// What is wrong with the manifest's test targets, one sentence each: a name that says no
  /// kind, a unit target that depends on a process-starting module.
  static func problems(manifest: String) throws -> [String] {
    let targets = try ArchitectureCheck.targets(manifest)
    let byName = Dictionary(targets.map { ($0.name, $0) }) { first, _ in first }
    var problems: [String] = []
    for target in targets where target.declaration == "testTarget" {
      guard let kind = of(target.name) else {
        problems.append(
          "Package.swift: test target \(target.name) says no kind (its name ends in none of \(allCases.map(\.rawValue).joined(separator: ", ")))"
        )
        continue
      }
      guard kind == .unit else { continue }
      // Everything it depends on, directly or through the package's other targets.
      var reached: Set<String> = []
      var next = Array(target.dependencies)
      while let name = next.popLast() {
        guard reached.insert(name).inserted else { continue }
        next += byName[name]?.dependencies ?? []
      }
      for module in reached.intersection(processStarting).sorted() {
        problems.append(
          "Package.swift: \(target.name) is a unit test target but depends on \(module), which starts processes: move the tests that need it to \(target.name.dropLast(5))IntegrationTests"
        )
      }
    }
    return problems
  }
}

extension TestTargetKind {
  /// The files of unit test targets that import a process-starting module, one sentence each.
  static func importProblems(manifest: String, root: URL) throws -> [String] {
    let unit = try ArchitectureCheck.targets(manifest).filter {
      $0.declaration == "testTarget" && of($0.name) == .unit
    }
    var problems: [String] = []
    for target in unit {
      let folder = root.appendingPathComponent("Tests/\(target.name)")
      let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
      for file in files.sorted() where file.hasSuffix(".swift") {
        let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
        problems += importProblems(target: target.name, file: file, text: text)
      }
    }
    return problems
  }

  /// The process-starting imports of one unit test file.
  static func importProblems(target: String, file: String, text: String) -> [String] {
    text.split(separator: "\n").compactMap { line in
      let words = line.split(separator: " ")
      guard let last = words.last, words.contains("import"), processStarting.contains(String(last)) else {
        return nil
      }
      return
        "Tests/\(target)/\(file) imports \(last), which starts processes: move it to \(target.dropLast(5))IntegrationTests"
    }
  }
}

struct ArchitectureCheckError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
