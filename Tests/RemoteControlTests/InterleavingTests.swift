import RemoteControl
import ResponderCore
import Testing

@Suite("Interleaved keys and the flush rule")
struct InterleavingTests {
  @Test("flushed event comes before the on-press event of the flushing key", arguments: [PLAYCD, PLAYPAUSE])
  func flushOrder(code: UInt16) {
    let h = Harness()
    h.click(MEDIA, at: 1.0)
    h.click(MEDIA, at: 1.3)
    h.press(code, at: 1.5)
    let name = code == PLAYCD ? "play" : "togglePlayPause"
    #expect(h.log == ["nextTrack@1.5", "\(name)@1.5"])
    h.finish()
    #expect(h.log == ["nextTrack@1.5", "\(name)@1.5"])
  }

  @Test(
    "scenarios",
    arguments: [
      Scenario(
        "another mapped key flushes a pending group first, at its press",
        [.click(MEDIA, at: 1.0), .press(NEXT, at: 1.2), .release(NEXT, at: 1.3)],
        makes: ["togglePlayPause@1.2", "nextTrack@1.3"]),
      Scenario(
        "releases of other keys do not flush (next was down before the click: its release skips)",
        [.press(NEXT, at: 0.9), .click(MEDIA, at: 1.0), .release(NEXT, at: 1.2)],
        makes: ["nextTrack@1.2", "togglePlayPause@1.5"]),
      Scenario(
        "fast-forward flushes a triple-click group",
        [
          .click(MEDIA, at: 1.0), .click(MEDIA, at: 1.2), .click(MEDIA, at: 1.4),
          .press(FASTFORWARD, at: 1.6), .release(FASTFORWARD, at: 2.0),
        ],
        makes: ["previousTrack@1.6", "beginSeekingForward@1.6", "endSeekingForward@2.0"]),
      Scenario(
        "a headset key still down is not flushed; its group goes on",
        [
          .click(MEDIA, at: 1.0), .press(MEDIA, at: 1.3), .click(PLAYCD, at: 1.4, duration: 0.05),
          .release(MEDIA, at: 1.5),
        ],
        makes: ["play@1.4", "nextTrack@1.9"]),
      Scenario(
        "a double-click-and-hold seek goes on while other keys are pressed",
        [.click(MEDIA, at: 1.0), .press(MEDIA, at: 1.3), .click(STOPCD, at: 2.0), .release(MEDIA, at: 2.5)],
        makes: ["beginSeekingForward@1.8", "stop@2.0", "endSeekingForward@2.5"]),
      Scenario(
        "fast-forward held while the headset key clicks: both run",
        [
          .press(FASTFORWARD, at: 1.0), .click(MEDIA, at: 1.2), .click(MEDIA, at: 1.4),
          .release(FASTFORWARD, at: 3.0),
        ],
        makes: ["beginSeekingForward@1.0", "nextTrack@1.9", "endSeekingForward@3.0"]),
      Scenario(
        "next held to seek while a headset group waits: the press flushed the group",
        [.click(MEDIA, at: 1.0), .press(NEXT, at: 1.1), .release(NEXT, at: 2.0)],
        makes: ["togglePlayPause@1.1", "beginSeekingForward@1.6", "endSeekingForward@2.0"]),
      Scenario(
        "an unmapped key (A) never flushes",
        [.click(MEDIA, at: 1.0), .click(KEY_A, at: 1.2), .click(MEDIA, at: 1.3)],
        makes: ["nextTrack@1.8"]),
      Scenario(
        "an unmapped key (volume up) never flushes",
        [.click(MEDIA, at: 1.0), .click(KEY_VOLUMEUP, at: 1.2), .click(MEDIA, at: 1.3)],
        makes: ["nextTrack@1.8"]),
    ])
  func scenario(_ scenario: Scenario) {
    #expect(scenario.run() == scenario.expected)
  }

  @Test("a headset key of another device flushes the group and starts its own")
  func flushByOtherHeadset() {
    let h = Harness(devices: ["usb": Harness.headset, "jack": Harness.jack])
    h.click(MEDIA, at: 1.0, device: "usb")
    h.click(PLAYPAUSE, at: 1.2, device: "jack")
    h.click(PLAYPAUSE, at: 1.4, device: "jack")
    h.finish()
    #expect(h.emitted.map(\.source) == ["usb", "jack"])
    #expect(h.log == ["togglePlayPause@1.2", "nextTrack@1.9"])
  }

  @Test("keys of an ignored device never flush and make nothing")
  func ignoredDevice() {
    var settings = KeySettings.standard
    settings.deviceRules.append(DeviceRule(match: DeviceMatch(name: "Logitech K120*"), ignore: true))
    let h = Harness(settings: settings, devices: ["usb": Harness.headset, "kbd": Harness.keyboard])
    h.click(MEDIA, at: 1.0)
    h.click(PLAYCD, at: 1.2, device: "kbd")
    h.finish()
    #expect(h.log == ["togglePlayPause@1.5"])
  }

}

@Suite("Unplugging")
struct UnplugTests {
  @Test(
    "scenarios",
    arguments: [
      Scenario(
        "fast-forward held: the seek ends at the moment of unplug",
        [.press(FASTFORWARD, at: 1.0), .unplug(at: 2.25), .release(FASTFORWARD, at: 3.0)],
        makes: ["beginSeekingForward@1.0", "endSeekingForward@2.25"]),
      Scenario(
        "next held past hold-threshold: the seek ends at unplug",
        [.press(PREVIOUS, at: 1.0), .unplug(at: 1.7)],
        makes: ["beginSeekingBackward@1.5", "endSeekingBackward@1.7"]),
      Scenario(
        "double-click-and-hold: endSeekingForward at unplug",
        [.click(MEDIA, at: 1.0), .press(MEDIA, at: 1.3), .unplug(at: 2.0)],
        makes: ["beginSeekingForward@1.8", "endSeekingForward@2.0"]),
      Scenario(
        "triple-click-and-hold: endSeekingBackward at unplug",
        [.click(MEDIA, at: 1.0), .click(MEDIA, at: 1.3), .press(MEDIA, at: 1.6), .unplug(at: 2.5)],
        makes: ["beginSeekingBackward@2.1", "endSeekingBackward@2.5"]),
      Scenario(
        "a released group is still decided on time after unplug",
        [.click(MEDIA, at: 1.0), .click(MEDIA, at: 1.3), .unplug(at: 1.5)],
        makes: ["nextTrack@1.8"]),
    ])
  func scenario(_ scenario: Scenario) {
    #expect(scenario.run() == scenario.expected)
  }

  @Test(
    "a press unplugged before its release: nothing, and no timer left",
    arguments: [
      Scenario(
        "next before hold-threshold: no skip, no seek later", [.press(NEXT, at: 1.0), .unplug(at: 1.2)],
        makes: []),
      Scenario("a single click-and-hold", [.press(MEDIA, at: 1.0), .unplug(at: 2.0)], makes: []),
      Scenario(
        "the second press of a group", [.click(MEDIA, at: 1.0), .press(MEDIA, at: 1.3), .unplug(at: 1.4)],
        makes: []),
    ])
  func unpluggedPress(_ scenario: Scenario) {
    let h = scenario.played()
    #expect(h.log == scenario.expected)
    #expect(h.scheduler.pendingCount == 0)
  }

  @Test("unplugging one device leaves the others alone")
  func unplugOtherDevice() {
    let h = Harness(devices: ["usb": Harness.headset, "kbd": Harness.keyboard])
    h.press(FASTFORWARD, at: 1.0, device: "kbd")
    h.press(REWIND, at: 1.1, device: "usb")
    h.unplug("usb", at: 1.5)
    h.release(FASTFORWARD, at: 2.0, device: "kbd")
    h.finish()
    #expect(
      h.log == [
        "beginSeekingForward@1.0", "beginSeekingBackward@1.1", "endSeekingBackward@1.5",
        "endSeekingForward@2.0",
      ])
  }

  @Test("a replugged device starts afresh")
  func replug() {
    let h = Harness()
    h.press(FASTFORWARD, at: 1.0)
    h.unplug(at: 1.5)
    h.interpreter.deviceAdded("usb", identity: Harness.headset)
    h.release(FASTFORWARD, at: 1.6)  // stale release from before: nothing
    h.click(FASTFORWARD, at: 2.0)
    h.finish()
    #expect(
      h.log == [
        "beginSeekingForward@1.0", "endSeekingForward@1.5", "beginSeekingForward@2.0",
        "endSeekingForward@2.1",
      ])
  }
}
