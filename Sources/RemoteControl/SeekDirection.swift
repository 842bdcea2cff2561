import ResponderCore

/// A direction of seeking: forward (fast-forward, next held) or backward (rewind, previous held).
public enum SeekDirection: Hashable, Sendable {
  case forward
  case backward

  /// The event that starts seeking in this direction.
  public var begin: EventSubtype {
    self == .forward ? .remoteControlBeginSeekingForward : .remoteControlBeginSeekingBackward
  }

  /// The event that ends seeking in this direction.
  public var end: EventSubtype {
    self == .forward ? .remoteControlEndSeekingForward : .remoteControlEndSeekingBackward
  }

  /// The track-change event of a skip key in this direction (next or previous track).
  public var skip: EventSubtype {
    self == .forward ? .remoteControlNextTrack : .remoteControlPreviousTrack
  }
}
