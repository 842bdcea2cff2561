import Foundation
import ResponderdKit
import Testing

/// The documentation as a reader follows it: README.md, NEWS.md and docs/*.md, read from the
/// repository.
@Suite struct DocumentationTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  /// README.md, NEWS.md and every page of docs/, relative to the repository.
  static func pages() throws -> [String] {
    let docs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
      .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    return ["README.md", "NEWS.md"] + docs
  }

  static func read(_ page: String) throws -> String {
    try String(contentsOf: root.appendingPathComponent(page), encoding: .utf8)
  }

  @Test func everyRelativeLinkAndAnchorResolves() throws {
    let pages = try Self.pages()
    #expect(pages.count > 2, "docs/ has no page")
    var broken: [String] = []
    var checked = 0
    for page in pages {
      let markdown = try MarkdownPage(Self.read(page))
      for link in markdown.links where !link.target.contains("://") && !link.target.hasPrefix("mailto:") {
        checked += 1
        let (path, anchor) = link.split
        var targetPage = page
        if !path.isEmpty {
          // Resolved against the page's folder; it must stay inside the repository.
          let resolved = URL(fileURLWithPath: path, relativeTo: Self.root.appendingPathComponent(page))
            .absoluteURL.standardized.path
          let rootPath = Self.root.standardized.path + "/"
          guard resolved.hasPrefix(rootPath), FileManager.default.fileExists(atPath: resolved) else {
            broken.append(
              "\(page):\(link.line): \(link.target): no such file in the repository (or outside it)")
            continue
          }
          targetPage = String(resolved.dropFirst(rootPath.count))
        }
        guard let anchor else { continue }
        guard targetPage.hasSuffix(".md") else {
          broken.append("\(page):\(link.line): \(link.target): an anchor into a file that is not Markdown")
          continue
        }
        let anchors = try MarkdownPage(Self.read(targetPage)).anchors
        if !anchors.contains(anchor) {
          broken.append(
            "\(page):\(link.line): \(link.target): no heading '#\(anchor)' in \(targetPage) "
              + "(its anchors: \(anchors.sorted().joined(separator: ", ")))")
        }
      }
    }
    #expect(checked > 20, "only \(checked) relative links found")
    #expect(broken.isEmpty, "\(broken.count) broken links:\n\(broken.joined(separator: "\n"))")
  }

  @Test func theReadmeIsAFrontDoor() throws {
    let readme = try Self.read("README.md")
    #expect(readme.count < 15_000, "README.md has \(readme.count) characters: move details to docs/")
    // Its first lines give the command that starts the service and the one that runs the tests.
    let top = readme.split(separator: "\n", omittingEmptySubsequences: false).prefix(15).joined(
      separator: "\n")
    #expect(top.contains("scripts/run "))
    #expect(top.contains("scripts/test "))
    // Every page of docs/ is linked from the README.
    let linked = Set(try MarkdownPage(readme).links.map(\.split.path))
    for page in try Self.pages() where page.hasPrefix("docs/") {
      #expect(linked.contains(page), "README.md does not link \(page)")
    }
  }

  /// The pages are for users and contributors, not a record of the project's issues; the motion
  /// page is for users (the research has a page of its own).
  @Test func noPageNamesAnIssueAndTheMotionPageIsShort() throws {
    for page in try Self.pages() {
      let text = try Self.read(page)
      for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        let mentions =
          line.firstMatch(of: /(?i)\bissues? [0-9]/) != nil
          || line.firstMatch(of: /(^|[\s(])#[0-9]/) != nil
        #expect(!mentions, "\(page):\(number + 1): \(line)")
      }
    }
    let motion = try Self.read("docs/motion.md").split(separator: "\n", omittingEmptySubsequences: false)
    #expect(motion.count < 200, "docs/motion.md has \(motion.count) lines")
  }

  @Test func theAnchorsOfHeadingsFollowGitHub() throws {
    let page = try MarkdownPage(
      """
      # responderd
      ## End to end: `scripts/bench`
      ## Load: chatty MPRIS players
      ```sh
      # a comment, not a heading
      ```
      ## Motion data for applications (Core Motion style)
      ### Why `Handler` lives in `ResponderCore`
      ## Load: chatty MPRIS players
      """)
    #expect(
      page.anchors == [
        "responderd", "end-to-end-scriptsbench", "load-chatty-mpris-players",
        "motion-data-for-applications-core-motion-style", "why-handler-lives-in-respondercore",
        "load-chatty-mpris-players-1",
      ])
    let links = try MarkdownPage(
      "See [a](docs/a.md#x) and `[not](a link)`, [b](#y \"title\").\n```\n[c](d)\n```"
    )
    .links.map(\.target)
    #expect(links == ["docs/a.md#x", "#y"])
  }

  @Test func newsNamesTheVersionBothProgramsReport() throws {
    let versions = try News(Self.read("NEWS.md")).versions
    #expect(versions.first?.version == responderdVersion, "NEWS.md's newest version is not Version.swift's")
    // Newest first, each once; only the newest may be unreleased.
    let numbers = versions.map { $0.version.split(separator: ".").map { Int($0) ?? -1 } }
    #expect(
      zip(numbers, numbers.dropFirst()).allSatisfy { $0.lexicographicallyPrecedes($1) == false && $0 != $1 })
    #expect(versions.dropFirst().allSatisfy { $0.date != nil }, "only the newest version may be unreleased")
    #expect(versions.count >= 2)
    // (That both programs report Version.swift's: VersionReportTests, which runs them.)
  }

  @Test func newsHeadingsAreParsedStrictly() throws {
    #expect(throws: DocumentationError.self) { try News("# NEWS\n\n## 0.2 — yesterday\n") }
    let news = try News("# NEWS\n\n## 1.0.0 (unreleased)\n\n- a\n\n## 0.9.1 — 2026-11-24\n\n- b\n")
    #expect(news.versions.map(\.version) == ["1.0.0", "0.9.1"])
    #expect(news.versions.map(\.date) == [nil, "2026-11-24"])
  }
}

struct DocumentationError: Error, CustomStringConvertible {
  var description: String
}

/// The headings and links of a Markdown page, outside fenced code blocks and code spans.
struct MarkdownPage {
  struct Link {
    var target: String
    var line: Int
    /// The path and the anchor (without `#`) of the target.
    var split: (path: String, anchor: String?) {
      guard let hash = target.firstIndex(of: "#") else { return (target, nil) }
      return (String(target[..<hash]), String(target[target.index(after: hash)...]))
    }
  }

  var anchors: [String] = []
  var links: [Link] = []

  init(_ text: String) throws {
    let link = try Regex(#"\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)"#)
    let headingPrefix = try Regex("#{1,6} ")
    var inFence = false
    var seen: [String: Int] = [:]
    for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let line = String(rawLine)
      if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
        inFence.toggle()
        continue
      }
      if inFence { continue }
      if let heading = try headingPrefix.prefixMatch(in: line) {
        let text = line[heading.range.upperBound...].trimmingCharacters(in: .whitespaces)
        let slug = Self.slug(text)
        let count = seen[slug, default: 0]
        seen[slug] = count + 1
        anchors.append(count == 0 ? slug : "\(slug)-\(count)")
      }
      // Code spans hold no links: blank them out.
      var outsideCode = ""
      var inSpan = false
      for character in line {
        if character == "`" { inSpan.toggle() }
        outsideCode.append(inSpan || character == "`" ? " " : character)
      }
      for match in outsideCode.matches(of: link) {
        if let target = match.output[1].substring {
          links.append(Link(target: String(target), line: index + 1))
        }
      }
    }
  }

  /// GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens.
  static func slug(_ heading: String) -> String {
    // Links in a heading count by their text.
    let text = heading.replacingOccurrences(
      of: #"\[([^\]]*)\]\([^)]*\)"#, with: "$1", options: .regularExpression)
    var slug = ""
    for character in text.lowercased() {
      if character == " " {
        slug.append("-")
      } else if character == "-" || character == "_" || character.isLetter || character.isNumber {
        slug.append(character)
      }
    }
    return slug
  }
}

/// The versions of NEWS.md, newest first: `## X.Y.Z — YYYY-MM-DD`, or `## X.Y.Z (unreleased)`.
struct News {
  var versions: [(version: String, date: String?)] = []

  init(_ text: String) throws {
    let released = try Regex(#"^## ([0-9]+\.[0-9]+\.[0-9]+) — ([0-9]{4}-[0-9]{2}-[0-9]{2})$"#)
    let unreleased = try Regex(#"^## ([0-9]+\.[0-9]+\.[0-9]+) \(unreleased\)$"#)
    for line in text.split(separator: "\n") where line.hasPrefix("## ") {
      if let match = try released.wholeMatch(in: line) {
        versions.append((String(match.output[1].substring!), String(match.output[2].substring!)))
      } else if let match = try unreleased.wholeMatch(in: line) {
        versions.append((String(match.output[1].substring!), nil))
      } else {
        throw DocumentationError(description: "NEWS.md: a heading that is not a version: \(line)")
      }
    }
  }
}
