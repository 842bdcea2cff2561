import MPRIS
import ResponderCore
import Testing

/// The echo filter alone (docs/desktop.md): a device event and a proxy call are one press when they
/// ask for the same action and the call came within the window of the key's press.
@Suite struct ProxyEchoFilterTests {
  @Test func aSkipAtTheReleaseMatchesTheCallAtThePressOnly() {
    var filter = ProxyEchoFilter()
    // The desktop's call 5 ms after the press; the skip at the release, 0.3 s after the press.
    #expect(filter.proxyCalled(.remoteControlNextTrack, at: 10.005) == nil)
    let matched = filter.devicePosted(.remoteControlNextTrack, source: "kbd", at: 10.3, sincePress: 0.3)
    #expect(matched?.source == "mpris-proxy" && matched?.dispatchedAt == 10.005)

    // A call while the key is down but 0.2 s after its press (a widget) is another press.
    #expect(filter.proxyCalled(.remoteControlNextTrack, at: 20.2) == nil)
    #expect(filter.devicePosted(.remoteControlNextTrack, source: "kbd", at: 20.3, sincePress: 0.3) == nil)
    // Each is matched once: the widget's call does not swallow a later press either.
    #expect(filter.devicePosted(.remoteControlNextTrack, source: "kbd", at: 21, sincePress: 0.1) == nil)
  }

  @Test func onPressKeysMatchWithinTheWindowOfTheEventAsBefore() {
    var filter = ProxyEchoFilter()
    #expect(filter.proxyCalled(.remoteControlTogglePlayPause, at: 5) == nil)
    #expect(filter.devicePosted(.remoteControlPlay, source: "kbd", at: 5.05) != nil)
    #expect(filter.proxyCalled(.remoteControlTogglePlayPause, at: 6) == nil)
    #expect(filter.devicePosted(.remoteControlTogglePlayPause, source: "kbd", at: 6.15) == nil)
  }
}
