import ResponderdKit
import ResponderdTestKit
import SoundServer
import Testing

/// The volume keys around the sound server, on the test kit's `FakeVolumeControl` (no server
/// started): what each key does, and what `responderctl monitor` is shown, when the server
/// answers, refuses, stops answering or is not there.
@Suite struct VolumeComponentTests: InMemoryServiceSuite {
  let harness: InMemoryService
  let server = FakeVolumeControl(sinks: [("speakers", .init(percent: 50, isMuted: false))])
  let volume: VolumeComponent
  /// What each key did, as the monitor shows it ("KEY_VOLUMEUP: default sink …").
  let shown = Recorded<String>()

  init() throws {
    try self.init(config: "")
  }

  init(config: String) throws {
    harness = try InMemoryService(config: config)
    volume = harness.service.volumeComponent(keys: nil, control: server)
    harness.add(volume)
    harness.service.events.addKeyActionObserver { [shown] in shown.values.append("\($0.key): \($0.action)") }
    harness.start()
  }

  /// Presses `key` on a device, and returns what the component answered (nil: not yet).
  func press(_ key: VolumeKey, at timestamp: Double = 1) -> Recorded<VolumeOutcome> {
    let outcomes = Recorded<VolumeOutcome>()
    volume.press(key, devicePath: "/dev/input/event7", timestamp: timestamp) { outcomes.values.append($0) }
    return outcomes
  }

  @Test func theServerIsContactedAtTheFirstKeyAndEachKeyMovesTheDefaultSink() {
    // A service whose volume keys are never pressed never loads the sound server's library.
    #expect(!server.isStarted)
    _ = press(.up)
    #expect(server.isStarted)
    _ = press(.mute)
    _ = press(.down)
    #expect(server.levels["speakers"] == .init(percent: 50, isMuted: true))
    #expect(
      shown.values == [
        "KEY_VOLUMEUP: default sink 'speakers' 50% → 55%",
        "KEY_MUTE: default sink 'speakers' 55% → 55% muted",
        "KEY_VOLUMEDOWN: default sink 'speakers' 55% muted → 50% muted",
      ])
    #expect(server.starts == 1)
  }

  @Test func aServerThatRefusesLeavesTheVolumeAndSaysWhy() {
    server.answer = .refuses("Access denied")
    let outcome = press(.up)
    #expect(outcome.values == [.failed(sink: "speakers", reason: "Access denied")])
    #expect(server.levels["speakers"]?.percent == 50)
    #expect(shown.values == ["KEY_VOLUMEUP: sink 'speakers': Access denied"])
  }

  @Test func withoutASoundServerAKeyDoesNothingAndSaysSo() {
    server.answer = .isAbsent
    #expect(press(.down).values == [.noServer])
    #expect(shown.values == ["KEY_VOLUMEDOWN: no sound server"])
  }

  @Test func aServerThatStopsAnsweringIsShownInPressOrderAndLateAnswersFollow() {
    server.answer = .holds
    let first = press(.up, at: 1)
    #expect(first.values.isEmpty && shown.values.isEmpty)
    // The connection drops the presses made while a change waits too long: the press before is
    // shown at once as not answered, then the dropped one, in the order they were made.
    server.answer = .drops("the sound server has not answered the previous change")
    _ = press(.down, at: 2)
    #expect(
      shown.values == [
        "KEY_VOLUMEUP: not answered yet: the sound server does not answer; applied if it does",
        "KEY_VOLUMEDOWN: dropped: the sound server has not answered the previous change",
      ])
    #expect(first.values.isEmpty)
    server.answerHeld()
    #expect(
      first.values == [
        .changed(
          sink: "speakers", matchedBy: nil, before: .init(percent: 50, isMuted: false),
          after: .init(percent: 55, isMuted: false))
      ])
    #expect(
      shown.values.last
        == "KEY_VOLUMEUP: default sink 'speakers' 50% → 55% (answered late: the sound server had stopped answering)"
    )
  }

  @Test func aPressWaitingWhenTheServiceStopsEndsWithNoServer() {
    server.answer = .holds
    let waiting = press(.mute)
    service.stop()
    #expect(waiting.values == [.noServer])
    #expect(shown.values == ["KEY_MUTE: no sound server"])
    #expect(!server.isStarted)
  }

  @Test func volumeKeysTurnedOffNeverReachTheServer() throws {
    let off = try VolumeComponentTests(config: "[volume]\nenabled = false\n")
    #expect(off.press(.up).values == [.noServer])
    #expect(off.shown.values == ["KEY_VOLUMEUP: volume keys are off"])
    #expect(off.server.pressed.isEmpty && off.server.starts == 0)
  }
}

/// Values a closure appends to, for a test to read.
final class Recorded<Value> {
  var values: [Value] = []
}
