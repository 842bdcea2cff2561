import EventTime

/// Re-reads of a player's invalidated properties, coalesced: one at a time per player, the next
/// no sooner than `interval` after the previous began, and one read for every burst of requests
/// made meanwhile, however often the player invalidates its properties (a selected player
/// invalidating a large Metadata 50 times a second made 23 GetAll calls a second, 42 % of a core).
final class CoalescedReads {
  /// The shortest time between the starts of two reads of one player.
  static let interval: Seconds = 0.25
  /// The same for a player whose properties exceed what responderd decodes: each read brings
  /// the whole message in (a 4 MB title, 4 times a second, is 16 MB/s to receive and validate).
  static let oversizedInterval: Seconds = 10
  /// Players read at `oversizedInterval`.
  private var slow: Set<String> = []

  private let scheduler: Scheduler
  /// When the last read of each player began.
  private var lastStarted: [String: Seconds] = [:]
  /// Players with a read under way, and the read of each.
  private var reading: Set<String> = []
  private var reads: [String: (@escaping () -> Void) -> Void] = [:]
  /// Players asked for again while a read was under way or waiting.
  private var wanted: Set<String> = []
  private var timers: [String: ScheduledTimer] = [:]

  init(scheduler: Scheduler) { self.scheduler = scheduler }

  /// Asks for a read of `id`: `read` runs now, or once the read under way is done and the interval
  /// has passed (once, however many requests came meanwhile); it calls its argument when done.
  func request(_ id: String, read: @escaping (_ done: @escaping () -> Void) -> Void) {
    reads[id] = read
    guard !reading.contains(id), timers[id] == nil else {
      wanted.insert(id)
      return
    }
    start(id)
  }

  /// Forgets `id` (it left the bus), a read under way or waiting included.
  func forget(_ id: String) {
    timers.removeValue(forKey: id)?.cancel()
    reading.remove(id)
    wanted.remove(id)
    reads[id] = nil
    lastStarted[id] = nil
    slow.remove(id)
  }

  /// Reads `id` no more often than `oversizedInterval` from now on.
  func slowDown(_ id: String) { slow.insert(id) }

  /// Forgets every player.
  func forgetAll() {
    for id in Array(reads.keys) + Array(timers.keys) { forget(id) }
  }

  private func start(_ id: String) {
    let now = scheduler.now
    let interval = slow.contains(id) ? Self.oversizedInterval : Self.interval
    if let last = lastStarted[id], now - last < interval {
      timers[id] = scheduler.schedule(at: last + interval) { [weak self] in
        self?.timers[id] = nil
        self?.begin(id)
      }
      return
    }
    begin(id)
  }

  private func begin(_ id: String) {
    guard let read = reads[id] else { return }
    lastStarted[id] = scheduler.now
    reading.insert(id)
    wanted.remove(id)
    read { [weak self] in
      guard let self, self.reading.remove(id) != nil else { return }
      if self.wanted.remove(id) != nil { self.start(id) }
    }
  }
}
