import EventTime
import ResponderCore

/// Where each touch of a recognizer went down (a handful of touches: kept in a list).
struct TouchStarts {
  private var entries: [(touch: ObjectIdentifier, location: Point)] = []

  subscript(_ touch: Touch) -> Point? {
    get { entries.first { $0.touch == ObjectIdentifier(touch) }?.location }
    set {
      let id = ObjectIdentifier(touch)
      if let index = entries.firstIndex(where: { $0.touch == id }) {
        if let newValue { entries[index].location = newValue } else { entries.remove(at: index) }
      } else if let newValue {
        entries.append((id, newValue))
      }
    }
  }

  mutating func removeAll() { entries.removeAll(keepingCapacity: true) }
}

/// Calls `body` with each of `touches` (delivered together) in the order of their identifiers,
/// the input slots.
func forEachInSlotOrder(_ touches: Set<Touch>, _ body: (Touch) -> Void) {
  if touches.count == 1, let touch = touches.first {
    body(touch)
  } else {
    for touch in touches.sorted(by: { $0.identifier < $1.identifier }) { body(touch) }
  }
}

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

  /// The time of the latest of `touches` (-∞ for none).
  static func latest(_ touches: Set<Touch>) -> Seconds {
    touches.reduce(-Double.infinity) { max($0, $1.timestamp) }
  }
}
