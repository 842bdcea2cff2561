import CGtk4
import EventTime

/// The GLib main loop's clock and timers as TouchDispatch's `Scheduler`: `now` is
/// `g_get_monotonic_time` (CLOCK_MONOTONIC, the clock of the project's event loop), each timer a
/// GLib timeout on the default main context, removed when the timer is cancelled. A recognizer's
/// timer (a long press, a multi-tap's window) fires on GTK's thread, between its events.
final class GLibScheduler: Scheduler {
  private var sequence: UInt64 = 0

  var now: Seconds { Double(g_get_monotonic_time()) / 1_000_000 }

  @discardableResult
  func schedule(at deadline: Seconds, _ action: @escaping () -> Void) -> ScheduledTimer {
    sequence += 1
    let timer = ScheduledTimer(deadline: deadline, sequence: sequence, action: action)
    // Whole milliseconds, rounded up: the timeout never fires before the deadline.
    let milliseconds = max(0, ((deadline - now) * 1000).rounded(.up))
    let source = g_timeout_add_full(
      G_PRIORITY_DEFAULT, guint(min(milliseconds, Double(UInt32.max))),
      { data in
        Unmanaged<ScheduledTimer>.fromOpaque(data!).takeUnretainedValue().fire()
        return 0  // G_SOURCE_REMOVE: once
      }, Unmanaged.passRetained(timer).toOpaque(),
      { data in Unmanaged<ScheduledTimer>.fromOpaque(data!).release() })
    timer.setCancelHandler { _ in g_source_remove(source) }
    return timer
  }
}
