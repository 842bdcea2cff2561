import EventTime
import ResponderCore

/// A next/previous key: skips at release when released before `holdThreshold`; held that long it
/// seeks instead (begin at press + holdThreshold, end at release). No click grammar.
final class SkipKey {
  enum State {
    case up
    /// Down since `at`, not yet held long enough to seek.
    case pressed(holdTimer: ScheduledTimer, at: Seconds)
    /// Held past the threshold (down since `at`): seeking.
    case seeking(at: Seconds)
  }

  private(set) var state: State = .up
  let direction: SeekDirection
  private let settings: KeySettings
  private let scheduler: any Scheduler
  /// Emits an event at a time, with when the key went down.
  private let emit: (EventSubtype, Seconds, Seconds) -> Void

  init(
    direction: SeekDirection, settings: KeySettings, scheduler: any Scheduler,
    emit: @escaping (_ subtype: EventSubtype, _ time: Seconds, _ pressedAt: Seconds) -> Void
  ) {
    self.direction = direction
    self.settings = settings
    self.scheduler = scheduler
    self.emit = emit
  }

  /// The hold timer, while it runs.
  var pendingTimer: ScheduledTimer? {
    if case .pressed(let timer, _) = state { return timer }
    return nil
  }

  func press(at time: Seconds) {
    guard case .up = state else { return }
    let deadline = time + settings.holdThreshold
    let timer = scheduler.schedule(at: deadline) { [weak self] in self?.holdReached(at: deadline) }
    state = .pressed(holdTimer: timer, at: time)
  }

  private func holdReached(at time: Seconds) {
    guard case .pressed(_, let pressedAt) = state else { return }
    state = .seeking(at: pressedAt)
    emit(direction.begin, time, pressedAt)
  }

  func release(at time: Seconds) { lift(at: time, skipping: true) }

  /// The device went away: a seek ends now; a press without release skips nothing.
  func deviceGone(at time: Seconds) { lift(at: time, skipping: false) }

  /// Back up: a seek under way ends; a press short of the hold skips when `skipping`.
  private func lift(at time: Seconds, skipping: Bool) {
    switch state {
    case .up:
      return
    case .pressed(let timer, let pressedAt):
      timer.cancel()
      state = .up
      if skipping { emit(direction.skip, time, pressedAt) }
    case .seeking(let pressedAt):
      state = .up
      emit(direction.end, time, pressedAt)
    }
  }
}
