import DBus
import DBusTestSupport
import EventLoop
import ResponderClient
import Testing

/// Issue 38: connections that call WatchEvents and stop reading made the daemon queue every
/// dispatch signal for them (462 MB after 10,000 events for 63 of them) and stop answering. The
/// real daemon on a private dbus-daemon; a watcher whose loop does not run reads nothing. (The
/// drop of a watcher leaving its ping unanswered for 10 s is tested on virtual time, in
/// EventWatcherTimeoutTests.)
@Suite(.serialized) struct SilentWatcherTests {
  /// Sends `count` events at once (as a script would) and waits for every answer; `during` runs
  /// once the first tenth are answered, with the rest still in flight.
  func flood(_ fixture: DaemonFixture, _ count: Int, during: () throws -> Void = {}) throws {
    var answered = 0
    var failures: [String] = []
    for _ in 0..<count {
      fixture.sendEvent("remoteControl", "play") { result in
        answered += 1
        if case .failure(let error) = result { failures.append(error.name) }
      }
    }
    try fixture.waitFor("the answers to \(count / 10) SendEvent calls (\(answered) so far)", timeout: 30) {
      answered >= count / 10
    }
    try during()
    try fixture.waitFor("the answers to \(count) SendEvent calls (\(answered) so far)", timeout: 30) {
      answered == count
    }
    #expect(failures.isEmpty, "\(failures.count) calls failed: \(Set(failures))")
  }

  @Test func aWatcherThatStopsReadingGetsNoMoreSignalsUntilItReadsAndTheDaemonAnswersMeanwhile() throws {
    let fixture = try DaemonFixture(config: "chain = []\n")
    let silentLoop = try EventLoop()
    let silent = try fixture.bus.connect(loop: silentLoop)
    var received = 0
    let subscription = silent.onSignal(
      path: ResponderBusAPI.daemonPath, interface: ResponderBusAPI.daemonInterface, member: "EventDispatched"
    ) { _ in received += 1 }
    defer { subscription.cancel() }
    _ = try daemonCall(silent, "WatchEvents").get()
    // From here on its loop does not run: it reads nothing.

    try flood(fixture, 1000) {
      let status = try fixture.run([try fixture.executable("responderctl"), "status"])
      #expect(status.exitCode == 0, "\(status)")
    }
    #expect(try fixture.send("remoteControl", "play") == "")
    try fixture.waitFor("the line saying the watcher fell behind") {
      fixture.log.contains("event watcher \(silent.uniqueName!) has not read the last 256 events")
    }

    // It reads at last: what was queued for it is at most what it may be behind, not all (the
    // bus answers its call after the messages queued before).
    _ = try silent.callAndWait(
      destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
      method: "GetId", timeout: 5)
    #expect(received >= 256 && received <= 256 + 32, "it got \(received) of 1001 events")
    // Having answered the ping, it gets the events again.
    try fixture.waitFor("the line saying it reads again") {
      fixture.log.contains("event watcher \(silent.uniqueName!) reads again")
    }
    let before = received
    #expect(try fixture.send("remoteControl", "play") == "")
    try waitFor("the next event at the watcher", on: silentLoop) { received == before + 1 }

    #expect(fixture.log.components(separatedBy: "has not read the last 256 events").count - 1 == 1)
  }
}

/// Runs `loop` until `condition` holds; a clear error after `timeout` seconds.
private func waitFor(_ what: String, on loop: EventLoop, timeout: Double = 5, _ condition: () -> Bool) throws
{
  guard loop.run(until: condition, timeout: timeout) else {
    throw TestSupportError("timed out after \(timeout) s waiting for \(what)")
  }
}
