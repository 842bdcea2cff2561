// EventMemory: responderd's resident memory while it dispatches many events, so that a leak per
// event shows (issue 16: about 500 bytes stayed behind every event before the delivery trace let go
// of its closures). A release responderd with `chain = []` on a private bus gets N SendEvent calls
// (32 in flight); its anonymous resident memory (RssAnon) is read after a warm-up of 1,000 events
// (the baseline, in the same run) and at every quarter.
//
//   swift build -c release --product responderd --product EventMemory && .build/release/EventMemory [N]
//
// N is 100,000 by default. It prints each reading, the growth over the baseline in bytes per event
// and the ratio of the last reading to the baseline; it exits 1 when memory grew by more than
// 64 bytes per event.
import BenchmarkSupport
import DBus
import DBusTestSupport
import EventLoop

#if canImport(Glibc)
  import Glibc
#endif

func run() throws {
  let total = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 100_000 : 100_000
  let warmUp = 1_000
  let inFlight = 32

  let fixture = try DaemonFixture(config: "chain = []\n", timeout: 15)

  var sent = 0
  var answered = 0
  var failure: DBusError?
  func sendUpTo(_ target: Int) throws {
    func next() {
      guard sent < target else { return }
      sent += 1
      fixture.sendEvent("remoteControl", "togglePlayPause") { result in
        answered += 1
        if case .failure(let error) = result { failure = error }
        next()
      }
    }
    for _ in 0..<inFlight { next() }
    guard fixture.loop.run(until: { answered >= target || failure != nil }, timeout: 600) else {
      throw BenchmarkError("timed out after 600 s with \(answered) of \(target) events answered")
    }
    if let failure { throw BenchmarkError("SendEvent failed: \(failure)") }
  }

  try sendUpTo(warmUp)
  let baseline = try processStatusKiB(fixture.daemon.pid, "RssAnon")
  print("events      RssAnon (KiB)")
  print("\(String(warmUp).padding(toLength: 12))\(baseline)   (baseline, after the warm-up)")
  var last = baseline
  for quarter in 1...4 {
    let target = warmUp + (total - warmUp) * quarter / 4
    try sendUpTo(target)
    last = try processStatusKiB(fixture.daemon.pid, "RssAnon")
    print("\(String(target).padding(toLength: 12))\(last)")
  }
  let perEvent = Double(last - baseline) * 1024 / Double(total - warmUp)
  let ratio = Double(last) / Double(baseline)
  print("growth: \(Int(perEvent.rounded())) bytes per event; last / baseline = \(ratio)")
  if perEvent > 64 {
    print("FAIL: resident memory grows with the events (more than 64 bytes each)")
    exit(1)
  }
}

extension String {
  func padding(toLength width: Int) -> String {
    count >= width ? self : self + String(repeating: " ", count: width - count)
  }
}

do {
  try run()
} catch {
  print("EventMemory: \(error)")
  exit(1)
}
