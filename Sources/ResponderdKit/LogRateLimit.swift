import EventTime

/// At most `burst` log lines of one kind per `window` seconds, counted without a timer: a client
/// that flaps writes a bounded number of lines however many calls it makes. The first line after
/// a quiet window says how many were left out.
struct LogRateLimit {
  /// Lines allowed in a window.
  let burst: Int
  /// The window's length.
  let window: Seconds
  private var windowStart: Seconds = -.infinity
  private var logged = 0
  private var leftOut = 0

  init(burst: Int = 5, window: Seconds = 60) {
    self.burst = burst
    self.window = window
  }

  /// Whether a line due at `now` is logged, and what it says besides; nil: it is left out.
  mutating func check(at now: Seconds) -> Verdict? {
    if now - windowStart >= window {
      windowStart = now
      logged = 0
    }
    guard logged < burst else {
      leftOut += 1
      return nil
    }
    logged += 1
    defer { leftOut = 0 }
    return Verdict(leftOut: leftOut, isLast: logged == burst, window: window)
  }

  /// A line that is logged: how many like it were left out before it, whether the next ones of
  /// the window are.
  struct Verdict: Equatable {
    var leftOut: Int
    var isLast: Bool
    var window: Seconds

    /// `line` with what the verdict says besides.
    func text(_ line: String) -> String {
      var text = line
      if leftOut > 0 { text += " (\(leftOut) more like it were not logged)" }
      if isLast { text += " (more like it within \(Int(window.rounded())) s are not logged)" }
      return text
    }
  }
}
