import BenchmarkSupport
import DBus
import DBusTestSupport
import EventLoop
import EventTime

#if canImport(Glibc)
  import Glibc
#endif

/// A focus that flaps: an application registered for motion says its window is inactive and
/// active again (`SetActive`) `toggles` times at `rate` a second, as a focus bouncing between two
/// windows does. responderd's CPU and the lines it logs over that time, beside the reference
/// measured in the same run: the same seconds with the application active and still (the
/// accelerometer sampled at 50 Hz, polled, nothing else).
func measureFlap(bench: Bench, toggles: Int, rate: Double) throws -> [MotionFigures] {
  let config = try bench.writeConfig(
    "flap.toml",
    bench.motionConfig(
      """
      # EndToEnd: an application registered for motion whose window's focus flaps.
      chain = ["log"]

      """, rate: 50, capture: "polled"))
  let responderd = try bench.startResponderd(config: config)
  try responderd.waitForOutput("bus: owns org.responderd.Daemon1", timeout: 10 * bench.slowdown)
  defer { responderd.stop() }
  let daemon = "org.responderd.Daemon1"
  let path = "/org/responderd/Daemon1"
  let registered = try bench.connection.callAndWait(
    destination: daemon, path: path, interface: daemon, method: "RegisterResponder",
    arguments: [.objectPath("/bench/Flapping"), .array(elementSignature: "s", [.string("motion")])],
    timeout: 5)
  guard case .uint32(let id)? = registered.first else {
    throw BenchmarkError("RegisterResponder answered \(registered)")
  }
  _ = try bench.connection.callAndWait(
    destination: daemon, path: path, interface: daemon, method: "SetActive",
    arguments: [.uint32(id), .bool(true)], timeout: 5)
  try responderd.waitForOutput("iio: sampling", timeout: 10 * bench.slowdown)
  bench.pass(1)
  let seconds = Double(toggles) / rate

  // The reference: the application active, the accelerometer sampled, no call.
  progress("flap: reference, \(formatSeconds(seconds, decimals: 0)) s")
  var figures: [MotionFigures] = []
  let lines0 = responderd.output.split(separator: "\n").count
  let start0 = try ProcessSample(pid: responderd.pid)
  let began0 = monotonicNow()
  bench.pass(seconds)
  let end0 = try ProcessSample(pid: responderd.pid)
  let elapsed0 = monotonicNow() - began0
  let reference = (end0.cpuSeconds - start0.cpuSeconds) / elapsed0
  figures.append(
    MotionFigures(
      name: "reference: an active application, sampling at 50 Hz", cpuPerSecond: reference,
      wakeupsPerSecond: Double(end0.voluntarySwitches - start0.voluntarySwitches) / elapsed0,
      detail: "\(responderd.output.split(separator: "\n").count - lines0) log lines"))

  // The flapping: inactive and active again, `rate` calls a second, each answered before the next.
  progress("flap: \(toggles) SetActive calls at \(formatSeconds(rate, decimals: 0)) a second")
  let lines1 = responderd.output.split(separator: "\n").count
  let start1 = try ProcessSample(pid: responderd.pid)
  let began1 = monotonicNow()
  var sent = 0
  var answered = 0
  var failures = 0
  var due = bench.loop.scheduler.now
  func send() {
    guard sent < toggles else { return }
    sent += 1
    bench.connection.call(
      destination: daemon, path: path, interface: daemon, method: "SetActive",
      arguments: [.uint32(id), .bool(sent % 2 == 0)], timeout: 5
    ) { result in
      answered += 1
      if case .failure = result { failures += 1 }
    }
    due += 1 / rate
    bench.loop.scheduler.schedule(at: due) { send() }
  }
  send()
  try bench.wait("the \(toggles) SetActive answers", timeout: seconds * 3 + 10) { answered == toggles }
  let end1 = try ProcessSample(pid: responderd.pid)
  let elapsed1 = monotonicNow() - began1
  bench.pass(0.2)
  let flapLines = responderd.output.split(separator: "\n").count - lines1
  let reopened = responderd.output.split(separator: "\n").count { $0.contains("iio: sampling iio:") }
  try responderd.checkRunning()
  figures.append(
    MotionFigures(
      name: "\(toggles) SetActive calls at \(formatSeconds(rate, decimals: 0))/s (focus flapping)",
      cpuPerSecond: (end1.cpuSeconds - start1.cpuSeconds) / elapsed1,
      wakeupsPerSecond: Double(end1.voluntarySwitches - start1.voluntarySwitches) / elapsed1,
      detail:
        "\(flapLines) log lines, accelerometer opened \(reopened) time\(reopened == 1 ? "" : "s") in all, \(failures) failed calls"
    ))
  return figures
}
