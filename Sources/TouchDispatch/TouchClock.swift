import EventTime

/// Puts a toolkit's touch times (milliseconds, 32 bits, on an origin left unspecified: wl_touch's,
/// GDK's, SDL's) on the event loop's clock: an event is read after it happened, so the smallest difference
/// `now − time` seen so far is the best estimate of the offset between the two clocks; a time is
/// the event's milliseconds plus that offset, never later than `now` and never earlier than the
/// last time given (the times of a touch sequence only go forward). The 32-bit milliseconds wrap
/// after 49.7 days: times are unwrapped against the last one.
public struct TouchClock {
  private var offset: Seconds?
  private var lastMilliseconds: UInt32?
  private var unwrapped: Double = 0
  private var last: Seconds = -.infinity

  public init() {}

  /// The time on the loop's clock of an event stamped `milliseconds`, read at `now`.
  public mutating func time(ofMilliseconds milliseconds: UInt32, now: Seconds) -> Seconds {
    if let previous = lastMilliseconds {
      // The difference as a signed 32-bit step: a wrap-around is a small step forward.
      unwrapped += Double(Int32(bitPattern: milliseconds &- previous))
    } else {
      unwrapped = Double(milliseconds)
    }
    lastMilliseconds = milliseconds
    let eventTime = unwrapped / 1000
    let offset = min(self.offset ?? .infinity, now - eventTime)
    self.offset = offset
    let time = min(now, max(eventTime + offset, last))
    last = time
    return time
  }

  /// The last time given (for an event without a time of its own), or `now` before any.
  public func lastTime(now: Seconds) -> Seconds {
    last.isFinite ? last : now
  }
}
