import EventTime
import ResponderCore

/// A next/previous key: skips at release when released before `holdThreshold`; held that long it
/// seeks instead (begin at press + holdThreshold, end at release). No click grammar.
final class SkipKey {
  enum State {
    case up
    /// Down, not yet held long enough to seek.
    case pressed(holdTimer: ScheduledTimer)
    /// Held past the threshold: seeking.
    case seeking
  }

  private(set) var state: State = .up
  let direction: SeekDirection
  private let settings: KeySettings
  private let scheduler: any Scheduler
  private let emit: (EventSubtype, Seconds) -> Void

  init(
    direction: SeekDirection, settings: KeySettings, scheduler: any Scheduler,
    emit: @escaping (EventSubtype, Seconds) -> Void
  ) {
    self.direction = direction
    self.settings = settings
    self.scheduler = scheduler
    self.emit = emit
  }

  /// The hold timer, while it runs.
  var pendingTimer: ScheduledTimer? {
    if case .pressed(let timer) = state { return timer }
    return nil
  }

  func press(at time: Seconds) {
    guard case .up = state else { return }
    let deadline = time + settings.holdThreshold
    let timer = scheduler.schedule(at: deadline) { [weak self] in self?.holdReached(at: deadline) }
    state = .pressed(holdTimer: timer)
  }

  private func holdReached(at time: Seconds) {
    guard case .pressed = state else { return }
    state = .seeking
    emit(direction.begin, time)
  }

  func release(at time: Seconds) { lift(at: time, skipping: true) }

  /// The device went away: a seek ends now; a press without release skips nothing.
  func deviceGone(at time: Seconds) { lift(at: time, skipping: false) }

  /// Back up: a seek under way ends; a press short of the hold skips when `skipping`.
  private func lift(at time: Seconds, skipping: Bool) {
    switch state {
    case .up:
      return
    case .pressed(let timer):
      timer.cancel()
      state = .up
      if skipping { emit(direction.skip, time) }
    case .seeking:
      state = .up
      emit(direction.end, time)
    }
  }
}
