import Foundation
import MPRIS
import PlayerSelection
import ResponderConfig
import Testing

@Suite struct PlayersConfigTests {
  @Test func readsThePlayersSection() throws {
    let config = try ResponderdConfig.parse(
      """
      [players]
      policy = "most-recent"
      priority = ["spotify", "mpv*"]
      ignore = ["chromium.*"]
      seek-step = 10
      seek-interval = 0.5
      call-deadline = 0.2
      proxy = false
      """, file: "c.toml")
    #expect(config.players.policy == .mostRecent)
    #expect(config.players.priority == ["spotify", "mpv*"])
    #expect(config.players.ignore == ["chromium.*"])
    #expect(config.players.seekStep == 10)
    #expect(config.players.seekInterval == 0.5)
    #expect(config.players.callDeadline == 0.2)
    #expect(config.players.proxy == false)
  }

  @Test func aWrongPolicyNamesTheLineAndTheChoices() {
    #expect(
      throws: ConfigError(
        file: "c.toml", line: 3, key: "players.policy",
        message:
          "'players.policy' must be one of 'most-recent', 'playing-first', not 'most-recnt' (did you mean 'most-recent'?)"
      )
    ) {
      try ResponderdConfig.parse("chain = [\"mpris\"]\n[players]\npolicy = \"most-recnt\"\n", file: "c.toml")
    }
    #expect(
      throws: ConfigError(
        file: "c.toml", line: 2, key: "players.seek-stp",
        message: "unknown key 'seek-stp' in [players] (did you mean 'seek-step'?)")
    ) { try ResponderdConfig.parse("[players]\nseek-stp = 3\n", file: "c.toml") }
    #expect(
      throws: ConfigError(
        file: "c.toml", line: 2, key: "players.ignore",
        message: "'players.ignore[1]' is empty: write a player name or glob")
    ) { try ResponderdConfig.parse("[players]\nignore = [\"vlc\", \"\"]\n", file: "c.toml") }
  }

  @Test func theShippedConfigSpellsOutTheBuiltInPlayerDefaults() throws {
    let path = #filePath.replacingOccurrences(
      of: "Tests/MPRISTests/PlayersConfigTests.swift", with: "config/config.toml")
    #expect(try ResponderdConfig.load(path: path).players == PlayerSettings())
  }
}
