import Foundation
import SystemCalls
import Testing
import TouchScenes

/// Big scene files: read in time linear in their size, and refused above the size cap with the
/// reason, as the config file is (`touch replay --scene`, `touch-demo --scene`).
@Suite struct SceneFileLimitTests {
  /// `count` views, each inside the one before (a new chain every `depth` views: as deep as a
  /// scene may nest), all on one line (a generator's output): the longest line a scene of that
  /// size can have. The ids have a two-byte character: columns count characters, not bytes.
  static func nestedScene(views count: Int, depth: Int = TouchScene.maximumDepth) -> String {
    var text = #"{"screen": {"width": 540, "height": 1170}, "views": ["#
    text.reserveCapacity(count * 48)
    for index in 0..<count {
      if index > 0 { text += ", " }
      let parent = index % depth == 0 ? "null" : "\"vé\(index - 1)\""
      text += #"{"id": "vé\#(index)", "parent": \#(parent), "frame": [0, 0, 10, 10]}"#
    }
    return text + "]}"
  }

  /// 30,000 nested views on one line (about 1.7 MB, under the cap; chains as deep as a scene may
  /// nest): each view's ancestors were walked by a linear search, and each column counted from
  /// the start of the line, so the parse took hours; now seconds at most (the one-minute limit is a bound, not a measurement:
  /// scripts/scene-parse-probe measures). An error at the end of the line says the right column.
  @Test(.timeLimit(.minutes(1))) func aDeeplyNestedSceneOnOneLineIsReadInLinearTime() throws {
    let count = 30_000
    let text = Self.nestedScene(views: count)
    #expect(text.utf8.count < TouchScene.maximumFileSize)
    let scene = try TouchScene.parse(text, file: "nested.json")
    #expect(scene.views.count == count)
    #expect(scene.views.last?.parent == "vé\(count - 2)")

    // The same line with an unknown key in its last view: the error names its column.
    let broken = String(text.dropLast(3)) + #", "colour": 1}]}"#
    let before = try #require(broken.range(of: #""colour""#)).lowerBound
    do {
      _ = try TouchScene.parse(broken, file: "nested.json")
      Issue.record("the unknown key was not found")
    } catch let error as ToolInputError {
      #expect(error.line == 1)
      #expect(error.column == broken.unicodeScalars[..<before].count + 1, "\(error)")
      #expect(error.message == "views[\(count - 1)]: unknown key 'colour'", "\(error)")
    }
  }

  /// Views nested deeper than `maximumDepth`: refused with the view, its depth and the limit,
  /// where its parent is named (30,000 deep overflowed the stack when the views were released).
  @Test func viewsNestedTooDeeplyAreRefused() throws {
    let limit = TouchScene.maximumDepth
    let deepest = Self.nestedScene(views: limit, depth: limit + 1)
    #expect(try TouchScene.parse(deepest, file: "deep.json").views.count == limit)
    let text = Self.nestedScene(views: 30_000, depth: 30_000)
    do {
      _ = try TouchScene.parse(text, file: "deep.json")
      Issue.record("a scene 30,000 deep was read")
    } catch let error as ToolInputError {
      #expect(
        error.message
          == "views[\(limit)].parent: 'vé\(limit)' is \(limit + 1) views deep, more than the \(limit) a scene may nest (hit-testing and the responder chain go through each level)",
        "\(error)")
      #expect(error.line == 1)
    }
  }

  /// Two views that are each other's parent, and a third inside them: the cycle is named.
  @Test func aCycleOfParentsIsStillFound() throws {
    let text = """
      {"screen": {"width": 100, "height": 100}, "views": [
        {"id": "a", "parent": "b", "frame": [0, 0, 1, 1]},
        {"id": "b", "parent": "a", "frame": [0, 0, 1, 1]},
        {"id": "c", "parent": "a", "frame": [0, 0, 1, 1]}]}
      """
    #expect(throws: ToolInputError.self) { try TouchScene.parse(text, file: "cycle.json") }
    do {
      _ = try TouchScene.parse(text, file: "cycle.json")
    } catch let error as ToolInputError {
      #expect(error.message == "views[0].parent: 'a' would be inside itself (through 'b')")
    }
  }

  /// An object with 20,000 keys, one of them twice: the duplicate is found (by a set, not by a
  /// search of the keys before each one).
  @Test func aDuplicateKeyInALargeObjectIsFound() throws {
    var text = #"{"screen": {"width": 100, "height": 100}, "views": [], "extra": {"#
    for index in 0..<20_000 { text += "\"k\(index)\": 0, " }
    text += #""k17": 1}}"#
    do {
      _ = try TouchSceneJSON.parse(text)
      Issue.record("the duplicate key was not found")
    } catch let error as TouchSceneJSON.SyntaxError {
      #expect(error.message == "duplicate key 'k17'")
    }
  }

  /// Text longer than the cap is refused before it is parsed, with the reason; a file longer than
  /// the cap is refused before it is read (as the config file is).
  @Test func aSceneLargerThanTheCapIsRefused() throws {
    let spaces = String(repeating: " ", count: TouchScene.maximumFileSize + 1)
    do {
      _ = try TouchScene.parse(spaces + "{}", file: "big.json")
      Issue.record("a scene over the cap was parsed")
    } catch let error as ToolInputError {
      #expect(
        error.description
          == "big.json: not read as a scene: it is \(TouchScene.maximumFileSize + 3) bytes long, more than the \(TouchScene.maximumFileSize) a scene may have"
      )
    }

    let file = FileManager.default.temporaryDirectory.appendingPathComponent("scene-cap-\(getpid()).json")
      .path
    try writeTextFile(file, spaces)
    defer { unlink(file) }
    #expect(throws: FileRefusal.self) { try readRegularFile(file, maximumSize: TouchScene.maximumFileSize) }
  }
}
