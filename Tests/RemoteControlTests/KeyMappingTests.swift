import InputCodes
import RemoteControl
import ResponderCore
import Testing

@Suite("Key mapping")
struct KeyMappingTests {
  @Test(
    "play/pause, play, pause and stop act on press, once",
    arguments: [
      (PLAYPAUSE, "togglePlayPause"), (PLAYCD, "play"), (PAUSECD, "pause"), (STOPCD, "stop"),
    ])
  func onPressKeys(code: UInt16, name: String) {
    let h = Harness()
    h.press(code, at: 1.0)
    #expect(h.log == ["\(name)@1.0"])
    h.release(code, at: 3.0)
    h.click(code, at: 3.1, duration: 0.05)
    h.finish()
    #expect(h.log == ["\(name)@1.0", "\(name)@3.1"])
  }

  @Test(
    "scenarios",
    arguments: [
      Scenario(
        "next and previous skip at release",
        [.press(NEXT, at: 1.0), .release(NEXT, at: 1.2), .click(PREVIOUS, at: 2.0, duration: 0.3)],
        makes: ["nextTrack@1.2", "previousTrack@2.3"]),
      Scenario(
        "next and previous held seek from press + hold-threshold to release",
        [
          .press(NEXT, at: 1.0), .release(NEXT, at: 4.0), .press(PREVIOUS, at: 5.0),
          .release(PREVIOUS, at: 6.0),
        ],
        makes: [
          "beginSeekingForward@1.5", "endSeekingForward@4.0", "beginSeekingBackward@5.5",
          "endSeekingBackward@6.0",
        ]),
      Scenario(
        "next and previous have no click grammar",
        [.click(NEXT, at: 1.0), .click(NEXT, at: 1.2), .click(NEXT, at: 1.4)],
        makes: ["nextTrack@1.1", "nextTrack@1.3", "nextTrack@1.5"]),
      Scenario(
        "fast-forward and rewind seek from press to release",
        [
          .press(FASTFORWARD, at: 1.0), .release(FASTFORWARD, at: 1.05), .press(REWIND, at: 2.0),
          .release(REWIND, at: 3.5),
        ],
        makes: [
          "beginSeekingForward@1.0", "endSeekingForward@1.05", "beginSeekingBackward@2.0",
          "endSeekingBackward@3.5",
        ]),
    ])
  func scenario(_ scenario: Scenario) {
    #expect(scenario.run() == scenario.expected)
  }

  @Test("unmapped keys make nothing")
  func unmappedKeys() {
    let h = Harness()
    for (index, code) in [KEY_A, KEY_VOLUMEUP, 119, 207, 128].enumerated() {
      h.click(code, at: Double(index) + 1, duration: 1.0)
    }
    h.finish()
    #expect(h.log == [])
    #expect(h.scheduler.pendingCount == 0)
  }

  @Test("raw events: only EV_KEY with values 0, 1, 2 count")
  func rawEvents() {
    let h = Harness()
    h.interpreter.handle(RawInputEvent(time: 1.0, type: 4, code: 4, value: 0xc00cd), from: "usb")
    h.interpreter.handle(RawInputEvent(time: 1.0, type: 1, code: PLAYPAUSE, value: 1), from: "usb")
    h.interpreter.handle(RawInputEvent(time: 1.0, type: 0, code: 0, value: 0), from: "usb")
    h.interpreter.handle(RawInputEvent(time: 1.1, type: 1, code: PLAYPAUSE, value: 0), from: "usb")
    h.interpreter.handle(RawInputEvent(time: 1.2, type: 1, code: PLAYPAUSE, value: 7), from: "usb")
    h.interpreter.handle(RawInputEvent(time: 1.3, type: 2, code: PLAYPAUSE, value: 1), from: "usb")
    h.finish()
    #expect(h.log == ["togglePlayPause@1.0"])
  }

  @Test("emissions carry the device they came from")
  func emissionSource() {
    let h = Harness(devices: ["a": Harness.headset, "b": Harness.keyboard])
    h.press(PLAYCD, at: 1.0, device: "a")
    h.press(STOPCD, at: 2.0, device: "b")
    #expect(h.emitted.map(\.source) == ["a", "b"])
  }

  /// A desktop reading the same key acts at its press: an event says when its key went down.
  @Test("emissions say when their key went down: a skip at the release, the press's time")
  func emissionPressTime() {
    let h = Harness()
    h.click(NEXT, at: 1.0, duration: 0.3)
    h.click(PLAYCD, at: 2.0)
    h.click(PREVIOUS, at: 3.0, duration: 1.0)
    h.click(MEDIA, at: 5.0)
    h.finish()
    #expect(
      h.log == [
        "nextTrack@1.3", "play@2.0", "beginSeekingBackward@3.5", "endSeekingBackward@4.0",
        "togglePlayPause@5.5",
      ])
    #expect(h.emitted.map(\.pressedAt) == [1.0, 2.0, 3.0, 3.0, 5.5])
  }

  @Test("role names round-trip and parse loosely")
  func roleNames() {
    for role in KeyRole.all { #expect(KeyRole(name: role.name) == role) }
    #expect(KeyRole(name: "next-track") == .skip(.forward))
    #expect(KeyRole(name: "HEADSET") == .headsetButton)
    #expect(KeyRole(name: "toggle_play_pause") == .onPress(.remoteControlTogglePlayPause))
    #expect(KeyRole(name: "nonsense") == nil)
  }
}

@Suite("Auto-repeat")
struct AutoRepeatTests {
  @Test(
    "scenarios",
    arguments: [
      Scenario(
        "a held headset key with repeats is a hold, nothing more",
        [
          .click(MEDIA, at: 1.0), .press(MEDIA, at: 1.3), .autoRepeat(MEDIA, from: 1.55, until: 3.0),
          .release(MEDIA, at: 3.0),
        ],
        makes: ["beginSeekingForward@1.8", "endSeekingForward@3.0"]),
      Scenario(
        "repeats during a short press leave it a click",
        [.press(MEDIA, at: 1.0), .autoRepeat(MEDIA, from: 1.25, until: 1.45), .release(MEDIA, at: 1.45)],
        makes: ["togglePlayPause@1.85"]),
      Scenario(
        "a repeat alone (no press seen) makes nothing and flushes nothing",
        [
          .click(MEDIA, at: 1.0), .autoRepeat(NEXT, from: 1.2, until: 1.3),
          .autoRepeat(PLAYCD, from: 1.2, until: 1.3),
        ],
        makes: ["togglePlayPause@1.5"]),
      Scenario(
        "repeats of on-press, skip and seek keys make no events",
        [
          .press(PLAYPAUSE, at: 1.0), .autoRepeat(PLAYPAUSE, from: 1.25, until: 2.0),
          .release(PLAYPAUSE, at: 2.0),
          .press(NEXT, at: 3.0), .autoRepeat(NEXT, from: 3.25, until: 3.45), .release(NEXT, at: 3.45),
          .press(NEXT, at: 4.0), .autoRepeat(NEXT, from: 4.25, until: 5.0), .release(NEXT, at: 5.0),
          .press(FASTFORWARD, at: 6.0), .autoRepeat(FASTFORWARD, from: 6.25, until: 7.0),
          .release(FASTFORWARD, at: 7.0),
        ],
        makes: [
          "togglePlayPause@1.0", "nextTrack@3.45", "beginSeekingForward@4.5", "endSeekingForward@5.0",
          "beginSeekingForward@6.0", "endSeekingForward@7.0",
        ]),
    ])
  func scenario(_ scenario: Scenario) {
    #expect(scenario.run() == scenario.expected)
  }

  @Test("a repeat of the headset key after its release does not join the group")
  func repeatAfterRelease() {
    let h = Harness()
    h.click(MEDIA, at: 1.0)
    h.key(MEDIA, .autoRepeat, at: 1.2)
    h.finish()
    #expect(h.log == ["togglePlayPause@1.5"])
  }
}
