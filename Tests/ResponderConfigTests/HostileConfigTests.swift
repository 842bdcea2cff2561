import SystemCalls
import Testing

@testable import ResponderConfig

#if canImport(Glibc)
  import Glibc
#endif

/// Configs written to break the reader (issue 16): they are refused with the file and line, and
/// none crashes or takes more than linear time.
@Suite struct HostileConfigTests {
  /// The error `ResponderdConfig.parse` gives for `text`, or nil when it accepts it.
  func refusal(_ text: String) -> ConfigError? {
    do {
      _ = try ResponderdConfig.parse(text, file: "hostile.toml")
      return nil
    } catch let error as ConfigError {
      return error
    } catch {
      Issue.record("unexpected error \(error)")
      return nil
    }
  }

  /// The ways a config can nest.
  enum Nesting: String, CaseIterable, Sendable {
    case arrays, inlineTables, dottedKeys, tableHeaders

    /// A config nesting `levels` deep.
    func text(levels n: Int) -> String {
      switch self {
      case .arrays: "x = " + String(repeating: "[", count: n) + String(repeating: "]", count: n)
      case .inlineTables: "x = " + String(repeating: "{a=", count: n) + "1" + String(repeating: "}", count: n)
      case .dottedKeys: Array(repeating: "a", count: n).joined(separator: ".") + " = 1"
      case .tableHeaders: "[" + Array(repeating: "a", count: n).joined(separator: ".") + "]"
      }
    }
  }

  @Test(arguments: Nesting.allCases)
  func deepNestingIsRefusedWithItsLine(nesting: Nesting) throws {
    // 50,000 levels crashed the reader (stack overflow); the limit is reported at its line.
    let error = try #require(refusal("# \(nesting)\n\n" + nesting.text(levels: 50_000) + "\n"))
    #expect(error.file == "hostile.toml" && error.line == 3, "\(error)")
    #expect(error.message.contains("\(TOML.maximumDepth)"), "\(error)")
    // What a person writes still reads.
    #expect(throws: Never.self) { try TOML.parse(nesting.text(levels: TOML.maximumDepth - 1) + "\n") }
  }

  @Test func manyArraysOfTablesReadInLinearTime() throws {
    // Each [[x]] copied the whole array before (40,000 headers took 10 s). Counted, not timed:
    // the array's storage must be appended to in place, so every element is still there in order.
    let count = 40_000
    var text = ""
    for i in 0..<count { text += "[[x]]\nn = \(i)\n" }
    let table = try TOML.parse(text)
    guard case .array(let elements, let line)? = table["x"] else {
      Issue.record("no array of tables")
      return
    }
    #expect(elements.count == count && line == 1)
    guard case .table(let last) = elements[count - 1], case .integer(let n)? = last["n"] else {
      Issue.record("last element")
      return
    }
    #expect(n == Int64(count - 1) && last.line == 2 * count - 1)
  }

  @Test func controlCharactersAreNamed() throws {
    let nulInKey = try #require(refusal("chain = []\n\u{0}x = 1\n"))
    #expect(nulInKey.line == 2 && nulInKey.message.contains("U+0000"), "\(nulInKey)")
    let nulInString = try #require(refusal("[log]\nprefix = \"a\u{0}b\"\n"))
    #expect(nulInString.line == 2 && nulInString.message.contains("U+0000"), "\(nulInString)")
    let escapeInValue = try #require(refusal("chain = \u{1b}\n"))
    #expect(escapeInValue.line == 1 && escapeInValue.message.contains("U+001B"), "\(escapeInValue)")
  }

  @Test func invalidUTF8IsRefusedWithItsPlace() throws {
    let path = "/tmp/responderd-hostile-\(UInt32.random(in: 0...UInt32.max)).toml"
    let bytes: [UInt8] = Array("chain = [\"log\"]\n# caf".utf8) + [0xE9] + Array(" latin-1\n".utf8)
    let file = try #require(fopen(path, "w"))
    fwrite(bytes, 1, bytes.count, file)
    fclose(file)
    defer { unlink(path) }
    #expect {
      try ResponderdConfig.load(path: path)
    } throws: { error in
      "\(error)" == "\(path):2: column 6: the file is not UTF-8 text (byte 0xE9 here); save it as UTF-8"
    }
  }

  @Test func aHugeUnknownKeyIsQuotedShortAndCostsNoDistanceWork() throws {
    // A 50 MB key took 13 s ("did you mean" measured its distance to every known key) and was
    // echoed whole. The near miss of a huge key is never a typo; its quote is its start and size.
    let key = "level" + String(repeating: "x", count: 1_000_000)
    let error = try #require(refusal("chain = [\"log\"]\n[logging]\n\(key) = 1\n"))
    #expect(error.line == 3)
    #expect(
      error.message
        == "unknown key '\(key.prefix(60))… (1000005 characters)' in [logging]")
    #expect(error.description.utf8.count < 200 && error.key.utf8.count < 200)
    // Not measured at all: no candidate is within 3 characters of its length.
    #expect(suggestionCandidates(for: key, among: ["level", "handles"]).isEmpty)
    // A typo still gets its suggestion.
    #expect(
      refusal("[logging]\nlevle = 1\n")?.message == "unknown key 'levle' in [logging] (did you mean 'level'?)"
    )
    // Long values are quoted the same way.
    let value = String(repeating: "y", count: 100_000)
    let badLevel = try #require(refusal("[logging]\nlevel = \"\(value)\"\n"))
    #expect(
      badLevel.message.hasSuffix("not '\(value.prefix(60))… (100000 characters)'"),
      "\(badLevel.message.prefix(300))")
  }

  @Test func aConfigThatIsNotARegularFileIsRefusedWithoutBlocking() throws {
    let dir = "/tmp/responderd-hostile-\(UInt32.random(in: 0...UInt32.max))"
    mkdir(dir, 0o700)
    defer {
      unlink("\(dir)/fifo.toml")
      unlink("\(dir)/link.toml")
      unlink("\(dir)/config.toml")
      rmdir(dir)
    }
    // Nobody writes to this FIFO: opening it for reading used to wait for a writer for ever.
    #expect(mkfifo("\(dir)/fifo.toml", 0o600) == 0)
    #expect {
      try ResponderdConfig.load(path: "\(dir)/fifo.toml")
    } throws: { error in
      "\(error)" == "\(dir)/fifo.toml: not read: it is a FIFO (named pipe), not a regular file"
    }
    // A symlink to a regular file is read.
    try writeTextFile("\(dir)/config.toml", "chain = [\"log\"]\n")
    #expect(symlink("\(dir)/config.toml", "\(dir)/link.toml") == 0)
    #expect(try ResponderdConfig.load(path: "\(dir)/link.toml").chain == ["log"])
    // One byte more than the limit is refused before it is read.
    #expect(truncate("\(dir)/config.toml", off_t(ResponderdConfig.maximumFileSize + 1)) == 0)
    #expect {
      try ResponderdConfig.load(path: "\(dir)/link.toml")
    } throws: { error in
      "\(error)"
        == "\(dir)/link.toml: not read: it is 1048577 bytes long, more than the 1048576 such a file may have"
    }
  }

  @Test func aByteOrderMarkIsSkipped() throws {
    let config = try ResponderdConfig.parse("\u{FEFF}chain = [\"log\"]\n", file: "bom.toml")
    #expect(config.chain == ["log"])
  }
}
