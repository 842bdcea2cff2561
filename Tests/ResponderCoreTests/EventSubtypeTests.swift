import ResponderCore
import Testing

@Suite struct EventSubtypeTests {
  @Test func rawValuesAreUIKits() {
    #expect(EventSubtype.none.rawValue == 0)
    #expect(EventSubtype.motionShake.rawValue == 1)
    #expect(EventSubtype.remoteControlPlay.rawValue == 100)
    #expect(EventSubtype.remoteControlTogglePlayPause.rawValue == 103)
    #expect(EventSubtype.remoteControlEndSeekingForward.rawValue == 109)
    #expect(EventType.touches.rawValue == 0 && EventType.presses.rawValue == 3)
  }

  @Test func namesParseInEveryForm() {
    #expect(EventSubtype(name: "nextTrack") == .remoteControlNextTrack)
    #expect(EventSubtype(name: "remoteControlNextTrack") == .remoteControlNextTrack)
    #expect(EventSubtype(name: "next-track") == .remoteControlNextTrack)
    #expect(EventSubtype(name: "toggle-play-pause") == .remoteControlTogglePlayPause)
    #expect(EventSubtype(name: "motionShake") == .motionShake)
    #expect(EventSubtype(name: "shake") == nil)
    #expect(EventType(name: "remote-control") == .remoteControl)
    for subtype in EventSubtype.allCases { #expect(EventSubtype(name: subtype.name) == subtype) }
  }
}
