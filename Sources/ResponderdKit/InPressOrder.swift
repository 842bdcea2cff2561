/// Hands results on in the order their requests were made, whatever order they come in: a
/// volume key dropped at once while the change of an earlier press is still under way is shown
/// (`responderctl monitor`) after that press, not before it.
final class InPressOrder<Result> {
  private var first = 0
  private var slots: [Result?] = []
  private var deliveries: [(Result) -> Void] = []

  /// A place in the order for a request whose result goes to `deliver`; fill it with `fill`.
  func reserve(_ deliver: @escaping (Result) -> Void) -> Int {
    slots.append(nil)
    deliveries.append(deliver)
    return first + slots.count - 1
  }

  /// The result of request `ticket`: delivered now with the later ones already in, or once every
  /// earlier request has its result.
  func fill(_ ticket: Int, with result: Result) {
    let index = ticket - first
    guard index >= 0, index < slots.count, slots[index] == nil else { return }
    slots[index] = result
    while let ready = slots.first, let result = ready {
      let deliver = deliveries.removeFirst()
      slots.removeFirst()
      first += 1
      deliver(result)
    }
  }
}
