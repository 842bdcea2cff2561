// WatcherSoak: responderd under connections that call WatchEvents and never read (issue 38: 63 of
// them and 10,000 SendEvent calls took it from 14 MB to 462 MB, `responderctl status` timed out for
// minutes and 5,883 calls got NoReply). A release responderd with `chain = []` on a private bus;
// W silent watchers (63 by default: 64 is the most WatchEvents serves, one is left for a tool)
// whose loop never runs; N SendEvent calls (10,000 by default, 64 in flight). It prints the
// daemon's resident memory (VmRSS) before and after, how long `responderctl status` took before,
// in the middle of the calls and after, and how many calls failed; it exits 1 when a call failed,
// `status` took more than 5 s or the memory grew by more than 64 MB. Bounded: every wait gives up
// after 300 s.
//
//   swift build -c release --product responderd --product responderctl --product WatcherSoak
//   .build/release/WatcherSoak [N] [W]
import BenchmarkSupport
import DBus
import DBusTestSupport
import EventLoop
import SystemCalls

#if canImport(Glibc)
  import Glibc
#endif

func run() throws {
  let arguments = CommandLine.arguments
  let total = arguments.count > 1 ? Int(arguments[1]) ?? 10_000 : 10_000
  let watcherCount = arguments.count > 2 ? Int(arguments[2]) ?? 63 : 63
  let inFlight = 64
  let limit = 300.0

  let fixture = try DaemonFixture(config: "chain = []\n", timeout: 15)

  // The silent watchers: their loop runs only until WatchEvents has answered.
  let silentLoop = try EventLoop()
  var watchers: [DBusConnection] = []
  var accepted = 0
  for _ in 0..<watcherCount {
    let connection = try fixture.bus.connect(loop: silentLoop)
    watchers.append(connection)
    connection.call(
      destination: "org.responderd.Daemon1", path: "/org/responderd/Daemon1",
      interface: "org.responderd.Daemon1", method: "WatchEvents", timeout: 10
    ) { result in if case .success = result { accepted += 1 } }
  }
  guard silentLoop.run(until: { accepted == watcherCount }, timeout: 30) else {
    throw BenchmarkError("only \(accepted) of \(watcherCount) WatchEvents calls were accepted")
  }

  /// `responderctl status`, run while the loop goes on sending; its duration in seconds.
  var statusProcess: ChildProcess?
  var statusStarted = 0.0
  var statusTimes: [Double] = []
  func startStatus() throws {
    statusStarted = monotonicNow()
    statusProcess = try ChildProcess(
      [binDirectory() + "/responderctl", "status"], environment: fixture.bus.environment, stdout: .null,
      stderr: .null)
  }
  func statusDone() -> Bool {
    guard let process = statusProcess, !process.isRunning else { return statusProcess == nil }
    statusTimes.append(monotonicNow() - statusStarted)
    if let status = try? process.waitForExit(timeout: 1), !ChildProcess.exitedSuccessfully(status) {
      statusTimes[statusTimes.count - 1] = .infinity
    }
    statusProcess = nil
    return true
  }
  func timeStatus() throws {
    try startStatus()
    guard fixture.loop.run(until: { statusDone() }, timeout: limit) else {
      throw BenchmarkError("responderctl status did not end within \(Int(limit)) s")
    }
  }

  try timeStatus()
  let before = try processStatusKiB(fixture.daemon.pid, "VmRSS")

  var sent = 0
  var answered = 0
  var failures: [String: Int] = [:]
  func next() {
    guard sent < total else { return }
    sent += 1
    if sent == total / 2 { try? startStatus() }
    fixture.sendEvent("remoteControl", "togglePlayPause", timeout: 25) { result in
      answered += 1
      if case .failure(let error) = result { failures[error.name, default: 0] += 1 }
      next()
    }
  }
  let started = monotonicNow()
  for _ in 0..<inFlight { next() }
  guard fixture.loop.run(until: { answered == total && statusDone() }, timeout: limit) else {
    throw BenchmarkError("timed out after \(Int(limit)) s with \(answered) of \(total) calls answered")
  }
  let elapsed = monotonicNow() - started
  let after = try processStatusKiB(fixture.daemon.pid, "VmRSS")
  try timeStatus()
  let fellBehind = fixture.log.split(separator: "\n").filter { $0.contains("has not read the last") }.count

  func milliseconds(_ seconds: Double) -> String {
    seconds.isFinite ? "\(Int((seconds * 1000).rounded())) ms" : "failed"
  }
  print("\(watcherCount) silent watchers, \(total) SendEvent calls in \(milliseconds(elapsed))")
  print("failed calls: \(failures.isEmpty ? "none" : "\(failures)")")
  print("responderd VmRSS: \(before / 1024) MB before, \(after / 1024) MB after")
  let times = statusTimes.map(milliseconds) + ["-", "-", "-"]
  print("responderctl status: \(times[0]) before, \(times[1]) in the middle of the calls, \(times[2]) after")
  print("log lines about watchers that fell behind: \(fellBehind)")
  if !failures.isEmpty || statusTimes.contains(where: { !($0 < 5) }) || after - before > 64 * 1024 {
    print("FAIL")
    exit(1)
  }
}

do {
  try run()
} catch {
  print("WatcherSoak: \(error)")
  exit(1)
}
