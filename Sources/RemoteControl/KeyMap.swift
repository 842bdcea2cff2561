import ResponderCore

/// Key codes of the media and remote-control keys (linux/input-event-codes.h).
public enum MediaKey {
  public static let playPause: UInt16 = 164  // KEY_PLAYPAUSE
  public static let playCD: UInt16 = 200  // KEY_PLAYCD
  public static let pauseCD: UInt16 = 201  // KEY_PAUSECD
  public static let stopCD: UInt16 = 166  // KEY_STOPCD
  public static let nextSong: UInt16 = 163  // KEY_NEXTSONG
  public static let previousSong: UInt16 = 165  // KEY_PREVIOUSSONG
  public static let fastForward: UInt16 = 208  // KEY_FASTFORWARD
  public static let rewind: UInt16 = 168  // KEY_REWIND
  public static let media: UInt16 = 226  // KEY_MEDIA (also KEY_HEADSETHOOK)
}

/// Which key code does what. The standard map is DESIGN.md section 3's table; headset keys are
/// added on top of it per device (see `KeySettings.profile(for:)`).
public struct KeyMap: Hashable, Sendable {
  public var roles: [UInt16: KeyRole]

  public init(roles: [UInt16: KeyRole]) { self.roles = roles }

  /// KEY_PLAYPAUSE → togglePlayPause, KEY_PLAYCD → play, KEY_PAUSECD → pause, KEY_STOPCD → stop,
  /// KEY_NEXTSONG / KEY_PREVIOUSSONG → skip or seek, KEY_FASTFORWARD / KEY_REWIND → seek.
  public static let standard = KeyMap(roles: [
    MediaKey.playPause: .onPress(.remoteControlTogglePlayPause),
    MediaKey.playCD: .onPress(.remoteControlPlay),
    MediaKey.pauseCD: .onPress(.remoteControlPause),
    MediaKey.stopCD: .onPress(.remoteControlStop),
    MediaKey.nextSong: .skip(.forward),
    MediaKey.previousSong: .skip(.backward),
    MediaKey.fastForward: .seek(.forward),
    MediaKey.rewind: .seek(.backward),
  ])
}
