import ResponderCore

/// State changes and measures the built-in recognizers share.
extension GestureRecognizer {
  /// A continuous recognizer's fingers moved: from possible it begins when `shouldBegin` holds
  /// (evaluated only then); once begun, it changes.
  func advanceContinuous(beginIf shouldBegin: @autoclosure () -> Bool) {
    switch state {
    case .possible:
      if shouldBegin() { state = .began }
    case .began, .changed:
      state = .changed
    default:
      break
    }
  }

  /// A continuous recognizer's gesture is over: when it has not begun it fails, else it ends (or
  /// is cancelled, when `cancelled`).
  func endContinuous(cancelled: Bool) {
    switch state {
    case .possible: state = .failed
    case .began, .changed: state = cancelled ? .cancelled : .ended
    default: break
    }
  }

  /// Fails the recognizer after `delay` unless it has left possible by then.
  func failIfStillPossible(after delay: Seconds) -> ScheduledTimer? {
    // The timer goes with the recognizer (see `schedule`).
    schedule(after: delay) { [unowned(unsafe) self] in
      guard self.state == .possible else { return }
      self.state = .failed
    }
  }

  /// The time of the latest of `touches` (-∞ for none).
  static func latest(_ touches: Set<Touch>) -> Seconds {
    touches.reduce(-Double.infinity) { max($0, $1.timestamp) }
  }
}
