import RemoteControl
import ResponderCore
import Testing

@Suite("Click grammar of the one-button headset key")
struct ClickGrammarTests {
  @Test("click → togglePlayPause, click-interval after the release")
  func singleClick() {
    let h = Harness()
    h.click(MEDIA, at: 1.0, duration: 0.1)
    h.advance(to: 1.499)
    #expect(h.log == [])
    h.advance(to: 1.5)
    #expect(h.log == ["togglePlayPause@1.5"])
    h.finish()
    #expect(h.log == ["togglePlayPause@1.5"])
    #expect(h.scheduler.pendingCount == 0)
  }

  @Test(
    "scenarios",
    arguments: [
      Scenario(
        "double click → nextTrack",
        [.click(MEDIA, at: 1.0), .click(MEDIA, at: 1.3)],
        makes: ["nextTrack@1.8"]),
      Scenario(
        "triple click → previousTrack",
        [.click(MEDIA, at: 1.0), .click(MEDIA, at: 1.3), .click(MEDIA, at: 1.6)],
        makes: ["previousTrack@2.1"]),
      Scenario(
        "triple-click-and-hold → beginSeekingBackward at the hold, endSeekingBackward at release",
        [.click(MEDIA, at: 1.0), .click(MEDIA, at: 1.3), .press(MEDIA, at: 1.6), .release(MEDIA, at: 2.4)],
        makes: ["beginSeekingBackward@2.1", "endSeekingBackward@2.4"]),
      Scenario(
        "four-click-and-hold counts as triple-click-and-hold",
        [
          .click(MEDIA, at: 1.0), .click(MEDIA, at: 1.3), .click(MEDIA, at: 1.6), .press(MEDIA, at: 1.9),
          .release(MEDIA, at: 3.0),
        ],
        makes: ["beginSeekingBackward@2.4", "endSeekingBackward@3.0"]),
      Scenario(
        "a click after a click-and-hold starts a new group",
        [.press(MEDIA, at: 1.0), .release(MEDIA, at: 2.0), .click(MEDIA, at: 2.1)],
        makes: ["togglePlayPause@2.0", "togglePlayPause@2.6"]),
      Scenario(
        "consecutive groups are independent",
        [
          .click(MEDIA, at: 1.0), .click(MEDIA, at: 1.3), .click(MEDIA, at: 3.0), .click(MEDIA, at: 5.0),
          .press(MEDIA, at: 5.3), .release(MEDIA, at: 6.0),
        ],
        makes: ["nextTrack@1.8", "togglePlayPause@3.5", "beginSeekingForward@5.8", "endSeekingForward@6.0"]),
      // The second press's release was lost: it is not a second click.
      Scenario(
        "a release without a press and a second press without release do nothing",
        [.release(MEDIA, at: 0.5), .press(MEDIA, at: 1.0), .press(MEDIA, at: 1.1), .release(MEDIA, at: 1.2)],
        makes: ["togglePlayPause@1.6"]),
    ])
  func scenario(_ scenario: Scenario) {
    #expect(scenario.run() == scenario.expected)
  }

  @Test("four or more clicks count as three", arguments: [4, 5, 8])
  func manyClicks(count: Int) {
    let h = Harness()
    for index in 0..<count { h.click(MEDIA, at: 1.0 + Double(index) * 0.3) }
    h.finish()
    let lastRelease = 1.0 + Double(count - 1) * 0.3 + 0.1
    #expect(h.log == ["previousTrack@\(Harness.format(lastRelease + 0.4))"])
  }

  @Test("click-and-hold → togglePlayPause at the release, nothing at the hold")
  func singleClickAndHold() {
    let h = Harness()
    h.press(MEDIA, at: 1.0)
    h.advance(to: 1.8)
    #expect(h.log == [])
    h.release(MEDIA, at: 2.5)
    #expect(h.log == ["togglePlayPause@2.5"])
    h.finish()
    #expect(h.log == ["togglePlayPause@2.5"])
  }

  @Test("double-click-and-hold → beginSeekingForward at the hold, endSeekingForward at release")
  func doubleClickAndHold() {
    let h = Harness()
    h.click(MEDIA, at: 1.0)
    h.press(MEDIA, at: 1.3)
    h.advance(to: 1.799)
    #expect(h.log == [])
    h.advance(to: 1.8)
    #expect(h.log == ["beginSeekingForward@1.8"])
    h.release(MEDIA, at: 3.0)
    h.finish()
    #expect(h.log == ["beginSeekingForward@1.8", "endSeekingForward@3.0"])
  }

  @Test("a group is decided click-interval after its last release, however long it lasts")
  func longGroupDecidedAfterLastRelease() {
    let h = Harness()
    // Each press 0.39 s after the previous release: the whole group spans well over 0.4 s.
    h.click(MEDIA, at: 1.0, duration: 0.2)
    h.click(MEDIA, at: 1.59, duration: 0.2)
    h.click(MEDIA, at: 2.18, duration: 0.2)
    h.advance(to: 2.779)
    #expect(h.log == [])
    h.finish()
    #expect(h.log == ["previousTrack@2.78"])
  }

}

@Suite("Boundaries of click-interval and hold-threshold")
struct BoundaryTests {
  @Test(
    "scenarios",
    arguments: [
      Scenario(
        "a press 0.399 s after the release joins the group",
        [.click(MEDIA, at: 1.0, duration: 0.1), .click(MEDIA, at: 1.499, duration: 0.1)],
        makes: ["nextTrack@1.999"]),
      Scenario(
        "a press 0.401 s after the release starts a new group",
        [.click(MEDIA, at: 1.0, duration: 0.1), .click(MEDIA, at: 1.501, duration: 0.1)],
        makes: ["togglePlayPause@1.5", "togglePlayPause@2.001"]),
      Scenario(
        "a press exactly click-interval after the release comes after the decision",
        [.click(MEDIA, at: 1.0, duration: 0.1), .click(MEDIA, at: 1.5, duration: 0.1)],
        makes: ["togglePlayPause@1.5", "togglePlayPause@2.0"]),
      Scenario(
        "a press released 0.499 s after it went down is a click",
        [.click(MEDIA, at: 1.0), .click(MEDIA, at: 1.3, duration: 0.499)],
        makes: ["nextTrack@2.199"]),
      Scenario(
        "a press released 0.501 s after it went down is a hold",
        [.click(MEDIA, at: 1.0), .click(MEDIA, at: 1.3, duration: 0.501)],
        makes: ["beginSeekingForward@1.8", "endSeekingForward@1.801"]),
      Scenario(
        "a press held exactly hold-threshold is a hold",
        [.click(MEDIA, at: 1.0), .click(MEDIA, at: 1.3, duration: 0.5)],
        makes: ["beginSeekingForward@1.8", "endSeekingForward@1.8"]),
      Scenario(
        "next released 0.499 s after press skips; 0.501 s seeks",
        [
          .click(NEXT, at: 1.0, duration: 0.499), .click(NEXT, at: 2.0, duration: 0.501),
          .click(PREVIOUS, at: 3.0, duration: 0.499), .click(PREVIOUS, at: 4.0, duration: 0.501),
        ],
        makes: [
          "nextTrack@1.499", "beginSeekingForward@2.5", "endSeekingForward@2.501", "previousTrack@3.499",
          "beginSeekingBackward@4.5", "endSeekingBackward@4.501",
        ]),
    ])
  func scenario(_ scenario: Scenario) {
    #expect(scenario.run() == scenario.expected)
  }

  @Test("a single press of 0.499 s waits for the decision; of 0.501 s emits at the release")
  func singleHoldBoundary() {
    let short = Harness()
    short.click(MEDIA, at: 1.0, duration: 0.499)
    short.finish()
    #expect(short.log == ["togglePlayPause@1.899"])
    let long = Harness()
    long.click(MEDIA, at: 1.0, duration: 0.501)
    long.finish()
    #expect(long.log == ["togglePlayPause@1.501"])
  }

  @Test("custom click-interval and hold-threshold are honoured")
  func customSettings() {
    let h = Harness(settings: KeySettings(clickInterval: 0.25, holdThreshold: 0.8))
    h.click(MEDIA, at: 1.0, duration: 0.7)  // not a hold at 0.8
    h.click(MEDIA, at: 1.9)  // 0.2 after release: joins
    h.click(MEDIA, at: 2.3)  // 0.3 after release: new group
    h.click(NEXT, at: 3.0, duration: 0.79)
    h.finish()
    #expect(h.log == ["nextTrack@2.25", "togglePlayPause@2.65", "nextTrack@3.79"])
  }
}
