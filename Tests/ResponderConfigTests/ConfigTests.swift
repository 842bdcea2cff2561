import Foundation
import ResponderConfig
import Testing

@Suite struct TOMLTests {
  @Test func readsTheTOMLThatConfigsUse() throws {
    let table = try TOML.parse(
      """
      # comment
      name = "a \\"quoted\\" \\u00e9"
      literal = 'C:\\path'
      count = 1_000
      hex = 0x1f
      ratio = -0.5
      exp = 1e3
      on = true
      list = [
        "a", # first
        "b",
      ]
      inline = { x = 1, y.z = "deep" }

      [section.sub]
      key = 'v'

      [[rule]]
      name = "one"
      [[rule]]
      name = "two"
      text = \"\"\"
      line one
      line two\"\"\"
      """)
    guard case .string(let name)? = table["name"] else { Issue.record("name"); return }
    #expect(name == "a \"quoted\" é")
    guard case .string(let literal)? = table["literal"] else { Issue.record("literal"); return }
    #expect(literal == "C:\\path")
    guard case .integer(1000)? = table["count"], case .integer(31)? = table["hex"] else {
      Issue.record("integers")
      return
    }
    guard case .float(-0.5)? = table["ratio"], case .float(1000)? = table["exp"] else {
      Issue.record("floats")
      return
    }
    guard case .array(let list, _)? = table["list"] else { Issue.record("list"); return }
    #expect(list.count == 2)
    guard case .table(let section)? = table["section"], case .table(let sub)? = section["sub"] else {
      Issue.record("tables")
      return
    }
    #expect(sub.line(of: "key") == 16)
    guard case .array(let rules, _)? = table["rule"], case .table(let second)? = rules.last,
      case .string(let text)? = second["text"]
    else {
      Issue.record("array of tables")
      return
    }
    #expect(rules.count == 2)
    #expect(text == "line one\nline two")
    #expect(table.line(of: "on") == 8)
  }

  @Test func syntaxErrorsGiveLineAndColumn() {
    #expect(
      throws: TOML.SyntaxError(
        line: 2, column: 8, message: "expected a value, found 'fast' (did you forget quotes around a string?)"
      )
    ) {
      try TOML.parse("a = 1\nmode = fast\n")
    }
    #expect(throws: TOML.SyntaxError.self) { try TOML.parse("a = 1\na = 2\n") }
    #expect(throws: TOML.SyntaxError.self) { try TOML.parse("[t]\n[t]\n") }
    #expect(throws: TOML.SyntaxError.self) { try TOML.parse("d = 1979-05-27\n") }
    #expect(throws: TOML.SyntaxError.self) { try TOML.parse("s = \"open\n") }
  }
}

/// Expects `text`, read as `file`, to be refused with the error of this line, key and message.
func expectRefused(
  _ text: String, file: String = "c.toml", line: Int, key: String, _ message: String,
  sourceLocation: SourceLocation = #_sourceLocation
) {
  #expect(
    throws: ConfigError(file: file, line: line, key: key, message: message), sourceLocation: sourceLocation
  ) { try ResponderdConfig.parse(text, file: file) }
}

@Suite struct ConfigTests {
  @Test func respondersEventDeadlineIsReadAndChecked() throws {
    let config = try ResponderdConfig.parse(
      "[responders]\ndeadline = 0.2\nevent-deadline = 0.75\n", file: "r.toml")
    #expect(config.responders.deadline == 0.2 && config.responders.eventDeadline == 0.75)
    #expect(ResponderdConfig().responders.eventDeadline == 0.5)
    expectRefused(
      "[responders]\nevent-deadline = 0\n", file: "r.toml", line: 2, key: "responders.event-deadline",
      "'responders.event-deadline' must be between 0.001 and 60.0, not 0.0")
  }

  /// `[command]` keys are spelled as everywhere else (`togglePlayPause`, `motionBegan`); the other
  /// spellings (`toggle-play-pause`, the older `shakeBegan`) are taken as the same event.
  @Test func commandKeysTakeTheOneSpellingAndTheOthers() throws {
    let config = try ResponderdConfig.parse(
      "[command]\nmotionBegan = [\"a\"]\nshakeEnded = [\"b\"]\ntoggle-play-pause = [\"c\"]\n"
        + "remoteControlNextTrack = [\"d\"]\n",
      file: "c.toml")
    #expect(
      config.command.commands == [
        "motionBegan": ["a"], "motionEnded": ["b"], "togglePlayPause": ["c"], "nextTrack": ["d"],
      ])
    expectRefused(
      "[command]\nmotionBegan = [\"a\"]\nshakeBegan = [\"b\"]\n", line: 3, key: "command.shakeBegan",
      "'shakeBegan' in [command] is 'motionBegan' again: give each event once")
    expectRefused(
      "[command]\nmotionBegun = [\"a\"]\n", line: 2, key: "command.motionBegun",
      "unknown event 'motionBegun' in [command] (did you mean 'motionBegan'?); one of: play, pause, stop, togglePlayPause, nextTrack, previousTrack, beginSeekingBackward, endSeekingBackward, beginSeekingForward, endSeekingForward, motionBegan, motionEnded, motionCancelled, or a KEY_ name of an owned device's key"
    )
  }

  @Test func unknownKeyNamesFileLineAndANearMiss() {
    expectRefused(
      "chain = [\"log\"]\n\n[responders]\ndeadlin = 0.2\n", file: "my.toml", line: 4,
      key: "responders.deadlin",
      "unknown key 'deadlin' in [responders] (did you mean 'deadline'?)")
  }

  @Test func wrongTypeNamesWhatWasExpected() {
    expectRefused(
      "[responders]\ndeadline = \"fast\"\n", line: 2, key: "responders.deadline",
      "'responders.deadline' must be a number, not a string")
  }

  @Test func unknownHandlerInTheChainIsRefused() {
    #expect(throws: ConfigError.self) { try ResponderdConfig.parse("chain = [\"mrpis\"]\n", file: "c.toml") }
    do {
      _ = try ResponderdConfig.parse("chain = [\"mrpis\"]\n", file: "c.toml")
    } catch {
      #expect("\(error)".contains("did you mean 'mpris'"))
    }
  }

  @Test func theShippedConfigIsTheBuiltInDefaults() throws {
    let shipped = try ResponderdConfig.load(path: repositoryPath("config/config.toml"))
    let builtIn = ResponderdConfig()
    #expect(shipped.chain == builtIn.chain)
    #expect(shipped.responders == builtIn.responders)
    #expect(shipped.log == builtIn.log)
    #expect(shipped.logging == builtIn.logging)
  }
}

@Suite struct VolumeConfigTests {
  @Test func theDefaultsAreAFivePercentStepOn() throws {
    let config = try ResponderdConfig.parse("", file: "c.toml")
    #expect(config.volume.enabled)
    #expect(config.volume.step == 5)
  }

  @Test func theShippedConfigSpellsOutTheBuiltInVolumeDefaults() throws {
    let shipped = try ResponderdConfig.load(path: repositoryPath("config/config.toml"))
    #expect(shipped.volume == VolumeSettings())
  }

  @Test func aStepAndTheSwitchAreRead() throws {
    let config = try ResponderdConfig.parse("[volume]\nenabled = false\nstep = 2.5\n", file: "c.toml")
    #expect(!config.volume.enabled)
    #expect(config.volume.step == 2.5)
  }

  @Test func aStepOutOfRangeNamesFileLineAndKey() throws {
    do {
      _ = try ResponderdConfig.parse("[volume]\n\nstep = 0\n", file: "my.toml")
      Issue.record("a step of 0 was accepted")
    } catch let error as ConfigError {
      #expect(error.file == "my.toml")
      #expect(error.line == 3)
      #expect(error.key == "volume.step")
      #expect("\(error)".hasPrefix("my.toml:3"))
    }
  }

  @Test func aStepThatIsNotANumberIsRefused() {
    expectRefused(
      "[volume]\nstep = \"loud\"\n", line: 2, key: "volume.step",
      "'volume.step' must be a number, not a string")
  }

  @Test func anUnknownVolumeKeyIsRefused() {
    #expect(throws: ConfigError.self) { try ResponderdConfig.parse("[volume]\nstpe = 5\n", file: "c.toml") }
  }
}
