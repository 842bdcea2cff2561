import ResponderConfig
import Testing

/// `[undo]`: shake to undo in the focused text field.
@Suite struct UndoConfigTests {
  @Test func onByDefaultAtTheEndOfTheChain() {
    let config = ResponderdConfig()
    #expect(config.undo.enabled)
    #expect(config.undo.questionTimeout == 8)
    #expect(config.chain.last == "undo")
  }

  @Test func theShippedConfigSpellsOutTheDefaults() throws {
    let shipped = try ResponderdConfig.load(path: repositoryPath("config/config.toml"))
    #expect(shipped.undo == UndoSettings())
    #expect(shipped.chain == ResponderdConfig().chain)
  }

  @Test func turnedOffWithATimeout() throws {
    let config = try ResponderdConfig.parse(
      "[undo]\nenabled = false\nquestion-timeout = 20\n", file: "c.toml")
    #expect(!config.undo.enabled)
    #expect(config.undo.questionTimeout == 20)
  }

  @Test func aTimeoutOutOfRangeNamesFileLineAndKey() {
    expectRefused(
      "[undo]\n\nquestion-timeout = 0.5\n", file: "my.toml", line: 3, key: "undo.question-timeout",
      "'undo.question-timeout' must be between 1.0 and 600.0, not 0.5")
  }

  @Test func aSwitchThatIsNotABooleanIsRefused() {
    expectRefused(
      "[undo]\nenabled = \"no\"\n", line: 2, key: "undo.enabled",
      "'undo.enabled' must be true or false, not a string")
  }

  @Test func anUnknownKeyIsRefusedWithANearMiss() {
    do {
      _ = try ResponderdConfig.parse("[undo]\nquestion-timout = 5\n", file: "c.toml")
      Issue.record("an unknown key was accepted")
    } catch let error as ConfigError {
      #expect(error.line == 2)
      #expect("\(error)".contains("question-timeout"))
    } catch {
      Issue.record("\(error)")
    }
  }
}
