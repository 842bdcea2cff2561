import DBus
import EventLoop
import EventTime
import ResponderClient
import ResponderConfig
import ResponderCore
import ResponderdKit
import ResponderdTestKit
import Testing

/// Issue 38: an event watcher that leaves the daemon's ping unanswered for 10 s does not read at
/// all and is dropped, with one log line; one that answers, however late within the 10 s, is kept.
/// On the in-memory bus and virtual time (a stopped connection reads nothing: its messages wait).
@Suite final class EventWatcherTimeoutTests {
  let harness: InMemoryService
  var time: VirtualScheduler { harness.time }
  var bus: InMemoryBus { harness.bus }
  var service: Service { harness.service }
  var log: RecordingLogHandler.Store { harness.log }

  init() throws {
    harness = try InMemoryService(
      config: "chain = [\"log\"]\n[log]\nhandles = true\n", now: 50)
    harness.add(harness.service.responderAPI(bus: harness.busComponent, session: nil, motionInterest: nil))
    harness.start()
  }

  /// A connection that called WatchEvents, and the number of EventDispatched signals it read.
  func watcher() throws -> (InMemoryBusConnection, () -> Int) {
    let connection = bus.connect()
    var received = 0
    connection.onSignal(
      path: ResponderBusAPI.daemonPath, interface: ResponderBusAPI.daemonInterface, member: "EventDispatched"
    ) { _ in received += 1 }
    var answer: Result<[DBusValue], DBusError>?
    connection.call(
      destination: ResponderBusAPI.daemonName, path: ResponderBusAPI.daemonPath,
      interface: ResponderBusAPI.daemonInterface, method: "WatchEvents", timeout: 5
    ) { answer = $0 }
    time.advance(by: 0)
    _ = try #require(try answer?.get())
    return (connection, { received })
  }

  func press() {
    service.application.post(.remoteControl(.remoteControlPlay, timestamp: time.now, source: "test"))
    time.advance(by: 0)
  }

  @Test func aWatcherLeavingThePingUnansweredFor10SecondsIsDroppedOneAnsweringIsKept() throws {
    let (silent, silentReceived) = try watcher()
    let (late, lateReceived) = try watcher()
    let silentName = try #require(silent.uniqueName)
    let lateName = try #require(late.uniqueName)
    #expect(service.events.eventWatchers == [silentName, lateName])
    // Both stop reading; the 32nd event pings them (at 50 s).
    silent.isStopped = true
    late.isStopped = true
    for _ in 0..<32 { press() }
    #expect(silentReceived() == 0 && lateReceived() == 0)

    time.advance(to: 59.9)
    #expect(service.events.eventWatchers == [silentName, lateName])
    #expect(!log.all.contains { $0.contains("has not read its messages") })
    // One reads again just in time: the 32 events, then the ping, which it answers.
    late.isStopped = false
    time.advance(by: 0)
    #expect(lateReceived() == 32)

    time.advance(to: 60)
    #expect(service.events.eventWatchers == [lateName])
    #expect(
      log.all.filter { $0.contains("has not read its messages") } == [
        "notice: responders: event watcher \(silentName) has not read its messages for 10 s: dropped (32 events sent, 0 not)"
      ])
    // The one kept gets the next events; the one dropped reads what was sent before, no more.
    press()
    #expect(lateReceived() == 33)
    silent.isStopped = false
    time.advance(by: 0)
    #expect(silentReceived() == 32)
    time.advance(to: 100)
    #expect(service.events.eventWatchers == [lateName])
    #expect(log.all.count { $0.contains("has not read its messages") } == 1)
  }
}
