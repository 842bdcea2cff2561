import EventTime
import ResponderCore

/// A fast-forward/rewind key: seeking from press to release.
final class SeekKey {
  enum State {
    case up
    case seeking
  }

  private(set) var state: State = .up
  let direction: SeekDirection
  private let emit: (EventSubtype, Seconds) -> Void

  init(direction: SeekDirection, emit: @escaping (EventSubtype, Seconds) -> Void) {
    self.direction = direction
    self.emit = emit
  }

  func press(at time: Seconds) {
    guard case .up = state else { return }
    state = .seeking
    emit(direction.begin, time)
  }

  func release(at time: Seconds) {
    guard case .seeking = state else { return }
    state = .up
    emit(direction.end, time)
  }

  /// The device went away: the seek ends now.
  func deviceGone(at time: Seconds) { release(at: time) }
}
