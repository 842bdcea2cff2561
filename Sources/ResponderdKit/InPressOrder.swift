/// Hands results on in the order their requests were made, whatever order they come in: a
/// volume key dropped at once while the change of an earlier press is still under way is shown
/// (`responderctl monitor`) after that press, not before it. Results that would wait behind a
/// request that may never be answered (a frozen sound server) are handed on at once with
/// `deliverEarlier(than:with:)`.
final class InPressOrder<Result> {
  private var first = 0
  private var slots: [Result?] = []
  private var deliveries: [(Result) -> Void] = []
  private var lates: [((Result) -> Void)?] = []
  /// What the result of a request delivered early does when it comes.
  private var overdue: [Int: (Result) -> Void] = [:]

  /// A place in the order for a request whose result goes to `deliver`; fill it with `fill`.
  /// When it is delivered early (`deliverEarlier`), its own result goes to `late` when it comes.
  func reserve(_ deliver: @escaping (Result) -> Void, late: ((Result) -> Void)? = nil) -> Int {
    slots.append(nil)
    deliveries.append(deliver)
    lates.append(late)
    return first + slots.count - 1
  }

  /// The result of request `ticket`: delivered now with the later ones already in, or once every
  /// earlier request has its result.
  func fill(_ ticket: Int, with result: Result) {
    if let late = overdue.removeValue(forKey: ticket) { return late(result) }
    let index = ticket - first
    guard index >= 0, index < slots.count, slots[index] == nil else { return }
    slots[index] = result
    deliverReady()
  }

  /// Delivers now, as `provisional`, every request before `ticket` that has no result yet, then
  /// the results that waited behind them; their own results go to their `late` when they come.
  func deliverEarlier(than ticket: Int, with provisional: Result) {
    let end = min(ticket - first, slots.count)
    guard end > 0 else { return }
    for index in 0..<end where slots[index] == nil {
      slots[index] = provisional
      if let late = lates[index] { overdue[first + index] = late }
    }
    deliverReady()
  }

  private func deliverReady() {
    while let ready = slots.first, let result = ready {
      let deliver = deliveries.removeFirst()
      slots.removeFirst()
      lates.removeFirst()
      first += 1
      deliver(result)
    }
  }
}
