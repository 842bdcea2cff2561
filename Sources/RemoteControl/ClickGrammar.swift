import EventTime
import ResponderCore

/// The iOS click grammar of one one-button headset key (docs/design.md#keys-and-the-click-grammar):
///
/// | gesture                | event(s)                                                 |
/// |------------------------|----------------------------------------------------------|
/// | click                  | togglePlayPause (when the group is decided)              |
/// | double click           | nextTrack                                                |
/// | triple click (or more) | previousTrack                                            |
/// | click-and-hold         | togglePlayPause at the release                           |
/// | double-click-and-hold  | beginSeekingForward on hold, endSeekingForward at release |
/// | triple-click-and-hold  | beginSeekingBackward on hold, endSeekingBackward at release |
///
/// A press less than `clickInterval` after the previous release joins the group; a group is
/// decided `clickInterval` after its last release; four or more clicks count as three. A press
/// held `holdThreshold` (or longer) is a hold.
final class ClickGrammar {
  /// Where the key is in its click group.
  enum State {
    /// No group under way.
    case idle
    /// The key is down for the `count`th press of the group; the hold timer runs.
    case pressed(count: Int, holdTimer: ScheduledTimer)
    /// The `count`th press has been held `holdThreshold`: seeking has begun for a double or
    /// triple click-and-hold; a single click-and-hold waits for the release.
    case held(count: Int)
    /// The key is up after `count` clicks; the group is decided at the decision timer unless
    /// pressed again (or flushed by another key first).
    case released(count: Int, releasedAt: Seconds, decisionTimer: ScheduledTimer)
  }

  private(set) var state: State = .idle
  private let settings: KeySettings
  private let scheduler: any Scheduler
  private let emit: (EventSubtype, Seconds) -> Void

  init(settings: KeySettings, scheduler: any Scheduler, emit: @escaping (EventSubtype, Seconds) -> Void) {
    self.settings = settings
    self.scheduler = scheduler
    self.emit = emit
  }

  /// Whether the group is waiting for its decision (the key is up after one or more clicks).
  var releasedAt: Seconds? {
    if case .released(_, let time, _) = state { return time }
    return nil
  }

  /// The timer the group waits for, if any (hold or decision).
  var pendingTimer: ScheduledTimer? {
    switch state {
    case .pressed(_, let timer), .released(_, _, let timer): timer
    case .idle, .held: nil
    }
  }

  /// Four or more clicks count as three.
  private static func effectiveCount(_ count: Int) -> Int { min(count, 3) }

  /// The event a decided group of `count` clicks makes.
  static func decision(clicks count: Int) -> EventSubtype {
    switch effectiveCount(count) {
    case 1: .remoteControlTogglePlayPause
    case 2: .remoteControlNextTrack
    default: .remoteControlPreviousTrack
    }
  }

  /// The seek direction of a click-and-hold of `count` presses (nil for a single one).
  private static func seekDirection(clicks count: Int) -> SeekDirection? {
    switch effectiveCount(count) {
    case 1: nil
    case 2: .forward
    default: .backward
    }
  }

  func press(at time: Seconds) {
    let count: Int
    switch state {
    case .idle:
      count = 1
    case .released(let clicks, _, let decisionTimer):
      decisionTimer.cancel()
      count = clicks + 1
    case .pressed, .held:
      return  // a second press without a release (lost release): ignore it
    }
    let deadline = time + settings.holdThreshold
    let holdTimer = scheduler.schedule(at: deadline) { [weak self] in self?.holdReached(at: deadline) }
    state = .pressed(count: count, holdTimer: holdTimer)
  }

  func release(at time: Seconds) {
    switch state {
    case .pressed(let count, let holdTimer):
      holdTimer.cancel()
      let deadline = time + settings.clickInterval
      let timer = scheduler.schedule(at: deadline) { [weak self] in self?.decide(at: deadline) }
      state = .released(count: count, releasedAt: time, decisionTimer: timer)
    case .held(let count):
      state = .idle
      if let direction = Self.seekDirection(clicks: count) {
        emit(direction.end, time)
      } else {
        emit(.remoteControlTogglePlayPause, time)
      }
    case .idle, .released:
      return  // a release without a press: nothing to do
    }
  }

  private func holdReached(at time: Seconds) {
    guard case .pressed(let count, _) = state else { return }
    state = .held(count: count)
    if let direction = Self.seekDirection(clicks: count) { emit(direction.begin, time) }
  }

  private func decide(at time: Seconds) {
    guard case .released(let count, _, _) = state else { return }
    state = .idle
    emit(Self.decision(clicks: count), time)
  }

  /// Decides a released group now (another mapped key was pressed at `time`); otherwise nothing.
  func flush(at time: Seconds) {
    guard case .released(_, _, let timer) = state else { return }
    timer.cancel()
    decide(at: time)
  }

  /// The device went away at `time`: a begun seek ends now; a press in progress is dropped with
  /// its group (its release never came). A released group is still decided on time.
  func deviceGone(at time: Seconds) {
    switch state {
    case .pressed(_, let holdTimer):
      holdTimer.cancel()
      state = .idle
    case .held(let count):
      state = .idle
      if let direction = Self.seekDirection(clicks: count) { emit(direction.end, time) }
    case .idle, .released:
      return
    }
  }
}
