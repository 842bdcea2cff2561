import EventTime
import RemoteControl
import ResponderConfig
import ResponderCore
import ResponderTools
import Testing
import TouchScenes

/// A path in the repository ("config/config.toml").
func repositoryPath(_ relative: String) -> String {
  var path = #filePath
  while let slash = path.lastIndex(of: "/"), !path.hasSuffix("/Tests") { path = String(path[..<slash]) }
  return String(path.dropLast("/Tests".count)) + "/" + relative
}

/// The fixtures under Tests/Fixtures/keys.
func keysFixture(_ name: String) -> String { repositoryPath("Tests/Fixtures/keys/" + name) }

@Suite("responderctl keys replay")
struct KeysReplayTests {
  func replay(_ name: String, settings: KeySettings = .standard) throws -> [String] {
    try KeysReplay.run(path: keysFixture(name), settings: settings).jsonLines
  }

  /// Expects the replay of fixture `name` to print one line per (time, subtype), in order.
  func expectReplay(
    _ name: String, makes events: [(Seconds, String)], sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let lines = try replay(name)
    let expected = events.map { #"{"t": \#($0.0), "type": "remoteControl", "subtype": "\#($0.1)"}"# }
    #expect(lines.count == expected.count, sourceLocation: sourceLocation)
    for (index, pair) in zip(lines, expected).enumerated() {
      #expect(pair.0 == pair.1, "line \(index + 1)", sourceLocation: sourceLocation)
    }
  }

  @Test("a recording made by evemu-record from a USB headset")
  func recordedUSBHeadset() throws {
    let result = try KeysReplay.run(path: keysFixture("usb-headset-recorded.evemu"), settings: .standard)
    #expect(result.identity.name == "Logitech USB Headset H340 Consumer Control")
    #expect(result.identity.vendor == 0x046d && result.identity.product == 0x0a38)
    #expect(
      result.jsonLines == [
        #"{"t": 0.000001, "type": "remoteControl", "subtype": "togglePlayPause"}"#,
        #"{"t": 1.050001, "type": "remoteControl", "subtype": "togglePlayPause"}"#,
      ])
  }

  @Test("a jack headset: the whole click grammar, and time runs on after the last event")
  func jackHeadset() throws {
    try expectReplay(
      "jack-headset.evemu",
      makes: [
        (1.5, "togglePlayPause"), (3.8, "nextTrack"), (6.1, "previousTrack"), (7.8, "beginSeekingForward"),
        (8.5, "endSeekingForward"), (11.1, "beginSeekingBackward"), (12.0, "endSeekingBackward"),
        (14.0, "togglePlayPause"), (15.5, "togglePlayPause"),
      ])
  }

  @Test("a keyboard: typing makes nothing; media keys, flush and seeking")
  func keyboard() throws {
    try expectReplay(
      "keyboard-media.evemu",
      makes: [
        (2.2, "nextTrack"), (3.5, "beginSeekingBackward"), (4.25, "endSeekingBackward"),
        (5.0, "togglePlayPause"),
        (6.2, "togglePlayPause"), (6.3, "nextTrack"), (7.75, "nextTrack"), (8.0, "beginSeekingForward"),
        (9.5, "endSeekingForward"), (10.0, "play"), (10.5, "stop"),
      ])
  }

  @Test("--config: device rules from the file apply to the recording's N: and I: lines")
  func configRules() throws {
    let config = try ResponderdConfig.parse(
      """
      [keys]
      click-interval = 0.3
      [[keys.device]]
      id = "0003:046d:c31c"
      headset-keys = ["KEY_PLAYPAUSE"]
      """, file: "test.toml")
    let lines = try replay("keyboard-media.evemu", settings: config.keys.settings)
    // KEY_PLAYPAUSE is now a headset key on this keyboard: its press at 5.0 (released 5.4) is a
    // click decided 0.3 s after the release.
    #expect(lines.contains(#"{"t": 5.7, "type": "remoteControl", "subtype": "togglePlayPause"}"#))
    #expect(!lines.contains(#"{"t": 5.0, "type": "remoteControl", "subtype": "togglePlayPause"}"#))
    // The rules replaced the built-in jack rules: KEY_PLAYPAUSE on the jack acts at once.
    let jack = try replay("jack-headset.evemu", settings: config.keys.settings)
    #expect(jack.first == #"{"t": 1.0, "type": "remoteControl", "subtype": "togglePlayPause"}"#)
  }

  @Test("--config: an ignore rule silences the device")
  func ignoredDevice() throws {
    let config = try ResponderdConfig.parse(
      """
      [[keys.device]]
      name = "Logitech K120*"
      ignore = true
      """, file: "test.toml")
    let result = try KeysReplay.run(path: keysFixture("keyboard-media.evemu"), settings: config.keys.settings)
    #expect(result.profile.isIgnored)
    #expect(result.jsonLines.isEmpty)
  }

  @Test(
    "bad files get the line number",
    arguments: [
      ("N: x\nI: 0003 046d c31c 0110\nE: 1.000000 0001 00a4\n", 3, "E: needs"),
      ("# c\nE: 1.0 0001 00a4 1\nE: 0.5 0001 00a4 0\n", 3, "time goes backwards"),
      ("N: x\n\nQ: what\n", 3, "unknown line type 'Q:'"),
      ("N: x\nI: 0003 046d c31c\n", 2, "I: needs four hex numbers"),
      ("E: 1.0 0001 00a4 1\nE: 1.x 0001 00a4 0\n", 2, "bad microseconds"),
      ("E: 1.0 0001 00zz 1\n", 1, "bad type, code or value"),
      ("hello\n", 1, "expected '<letter>: …'"),
    ])
  func badFiles(text: String, line: Int, message: String) {
    #expect {
      try KeysReplay.run(text: text, file: "bad.evemu", settings: .standard)
    } throws: { error in
      guard let error = error as? KeysReplay.Error else { return false }
      return error.line == line && error.message.contains(message)
        && error.description.hasPrefix("bad.evemu:\(line): ")
    }
  }

  @Test("a missing file is a clear error")
  func missingFile() {
    #expect {
      try KeysReplay.run(path: "/nonexistent/x.evemu", settings: .standard)
    } throws: { error in
      "\(error)" == "/nonexistent/x.evemu: cannot read the file: No such file or directory"
    }
  }

  @Test("an empty recording produces nothing")
  func emptyRecording() throws {
    #expect(try KeysReplay.run(text: "N: nothing\n", file: "e", settings: .standard).jsonLines == [])
  }

  @Test(
    "seconds are JSON numbers rounded to the microsecond",
    arguments: [
      (1.75, "1.75"), (2.0, "2.0"), (0.000001, "0.000001"), (1.0500009, "1.050001"), (123456.5, "123456.5"),
      (0.1 + 0.2, "0.3"),
    ])
  func secondsFormat(value: Double, text: String) {
    #expect(KeysReplay.formatSeconds(value) == text)
  }
}
