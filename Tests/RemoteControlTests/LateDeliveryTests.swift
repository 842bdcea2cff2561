import RemoteControl
import ResponderCore
import Testing

@Suite("Events handed over after their time (live reading)")
struct LateDeliveryTests {
  /// A script touching every timer: clicks, holds, skip holds, flush, unplug.
  static func script(_ h: Harness) {
    h.click(MEDIA, at: 1.0)  // single, decided at 1.5
    h.click(MEDIA, at: 1.6)
    h.click(MEDIA, at: 1.9)  // double, decided at 2.4
    h.click(MEDIA, at: 3.0)
    h.press(MEDIA, at: 3.3)  // double-click-and-hold: begin at 3.8
    h.release(MEDIA, at: 4.0)
    h.click(NEXT, at: 5.0, duration: 0.7)  // seek: begin 5.5, end 5.7
    h.click(MEDIA, at: 6.0)
    h.press(PLAYCD, at: 6.2)  // flush at 6.2
    h.release(PLAYCD, at: 6.3)
    h.click(MEDIA, at: 7.0)
    h.press(MEDIA, at: 7.51)  // 0.41 s after release: the 7.5 decision comes first
    h.release(MEDIA, at: 7.6)
    h.press(PREVIOUS, at: 8.0)
    h.unplug(at: 9.0)  // seeking since 8.5
  }

  static let expected = [
    "togglePlayPause@1.5", "nextTrack@2.4", "beginSeekingForward@3.8", "endSeekingForward@4.0",
    "beginSeekingForward@5.5", "endSeekingForward@5.7", "togglePlayPause@6.2", "play@6.2",
    "togglePlayPause@7.5",
    "togglePlayPause@8.0", "beginSeekingBackward@8.5", "endSeekingBackward@9.0",
  ]

  @Test("on time and late, the same events at the same times")
  func sameResult() {
    let onTime = Harness()
    Self.script(onTime)
    onTime.finish()
    #expect(onTime.log == Self.expected)
    let late = Harness(lateDelivery: true)
    Self.script(late)
    #expect(late.scheduler.now == 0)
    late.finish()
    #expect(late.log == Self.expected)
  }
}
