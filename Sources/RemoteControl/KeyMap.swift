import InputCodes
import ResponderCore

/// Which key code does what. The standard map is docs/design.md#keys-and-the-click-grammar's;
/// headset keys are added on top of it per device (see `KeySettings.profile(for:)`).
public struct KeyMap: Hashable, Sendable {
  public var roles: [UInt16: KeyRole]

  public init(roles: [UInt16: KeyRole]) { self.roles = roles }

  /// KEY_PLAYPAUSE → togglePlayPause, KEY_PLAYCD → play, KEY_PAUSECD → pause, KEY_STOPCD → stop,
  /// KEY_NEXTSONG / KEY_PREVIOUSSONG → skip or seek, KEY_FASTFORWARD / KEY_REWIND → seek.
  public static let standard = KeyMap(roles: [
    InputCode.KEY_PLAYPAUSE: .onPress(.remoteControlTogglePlayPause),
    InputCode.KEY_PLAYCD: .onPress(.remoteControlPlay),
    InputCode.KEY_PAUSECD: .onPress(.remoteControlPause),
    InputCode.KEY_STOPCD: .onPress(.remoteControlStop),
    InputCode.KEY_NEXTSONG: .skip(.forward),
    InputCode.KEY_PREVIOUSSONG: .skip(.backward),
    InputCode.KEY_FASTFORWARD: .seek(.forward),
    InputCode.KEY_REWIND: .seek(.backward),
  ])
}
