import EventLoop
import Foundation
import Logging
import ResponderConfig
import ResponderCore
import ResponderdKit
import ResponderdTestKit
import Testing

@Suite(.serialized) struct CommandHandlerTests {
  /// A started service with no component: the chain alone. Kept until the suite ends.
  func service(_ toml: String) throws -> (Service, RecordingLogHandler.Store, () -> [DispatchRecord]) {
    let (logger, store) = recordingLogger()
    let harness = try LoopService(config: try ResponderdConfig.parse(toml, file: "test.toml"), logger: logger)
    harness.start()
    return (harness.service, store, { harness.records })
  }

  @Test func runsTheCommandWithTheEventInItsEnvironmentAndReapsIt() throws {
    let out = FileManager.default.temporaryDirectory.appendingPathComponent("cmd-\(UUID().uuidString)")
    let (service, _, records) = try service(
      """
      chain = ["command", "log"]
      [command]
      nextTrack = ["sh", "-c", "echo $RESPONDERD_EVENT_TYPE $RESPONDERD_EVENT_SUBTYPE $RESPONDERD_EVENT_TIMESTAMP \\"$1\\" > \(out.path)", "x", "arg with spaces"]
      """)
    service.application.post(.remoteControl(.remoteControlNextTrack, timestamp: 12.5))
    #expect(records().map(\.handledBy) == ["command"])
    #expect(service.children.count == 1)
    #expect(service.loop.run(until: { service.children.count == 0 }, timeout: 10))
    let written = try String(contentsOf: out, encoding: .utf8)
    #expect(written == "remoteControl nextTrack 12.500000 arg with spaces\n")
  }

  @Test func eventsWithoutACommandFallThroughToLog() throws {
    let (service, log, records) = try service(
      "chain = [\"command\", \"log\"]\n[command]\nplay = [\"true\"]\n")
    service.application.post(.remoteControl(.remoteControlPause, timestamp: 1))
    #expect(records()[0].wasDropped)
    #expect(records()[0].receivedBy == ["command", "log", "application"])
    #expect(log.all.contains { $0.contains("event remoteControl/pause") })
  }

  @Test func aMissingProgramIsLoggedOnceAndTheEventMovesOn() throws {
    let (service, log, records) = try service(
      "chain = [\"command\", \"log\"]\n[log]\nhandles = true\n[command]\nstop = [\"no-such-program-xyz\"]\n")
    service.application.post(.remoteControl(.remoteControlStop, timestamp: 1))
    service.application.post(.remoteControl(.remoteControlStop, timestamp: 2))
    #expect(records().map(\.handledBy) == ["log", "log"])
    #expect(log.all.filter { $0.contains("cannot start 'no-such-program-xyz'") }.count == 1)
  }

  @Test func shakesRunTheirPhaseCommand() throws {
    let out = FileManager.default.temporaryDirectory.appendingPathComponent("cmd-\(UUID().uuidString)")
    let (service, _, records) = try service(
      "chain = [\"command\"]\n[command]\nmotionEnded = [\"sh\", \"-c\", \"echo $RESPONDERD_EVENT_PHASE > \(out.path)\"]\n"
    )
    service.application.post(.motion(timestamp: 1), phase: .began)
    service.application.post(.motion(timestamp: 2), phase: .ended)
    #expect(records().map(\.handledBy) == [nil, "command"])
    #expect(service.loop.run(until: { service.children.count == 0 }, timeout: 10))
    #expect(try String(contentsOf: out, encoding: .utf8) == "ended\n")
  }

  @Test func badCommandEntriesAreRefused() {
    #expect(throws: ConfigError.self) {
      try ResponderdConfig.parse("[command]\nnextTrak = [\"x\"]\n", file: "c")
    }
    #expect(throws: ConfigError.self) { try ResponderdConfig.parse("[command]\nplay = []\n", file: "c") }
    #expect(throws: ConfigError.self) {
      try ResponderdConfig.parse("[command]\nplay = \"mpc play\"\n", file: "c")
    }
    // Keys of owned devices: any non-typing key that is neither a media nor a volume key.
    let keys = try? ResponderdConfig.parse(
      "[command]\nKEY_VOICECOMMAND = [\"voice\"]\nKEY_MICMUTE = [\"mute-mic\"]\nKEY_590 = [\"x\"]\n",
      file: "c")
    #expect(keys?.command.commands["KEY_MICMUTE"] == ["mute-mic"])
    for refused in ["KEY_VOLUMEUP", "KEY_PLAYPAUSE", "KEY_30", "KEY_VOICECOMAND", "KEY_1000"] {
      #expect(throws: ConfigError.self, "\(refused)") {
        try ResponderdConfig.parse("[command]\n\(refused) = [\"x\"]\n", file: "c")
      }
    }
  }
}
