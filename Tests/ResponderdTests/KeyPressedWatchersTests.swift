import DBus
import EventLoop
import EventTime
import ResponderClient
import ResponderConfig
import ResponderdKit
import ResponderdTestKit
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The keys of owned devices that act outside the chain (KeyPressed: a volume key, a microphone
/// key's command) tell what the user pressed: like the dispatch signals, they go only to the
/// connections of the daemon's user that asked (WatchEvents), never to a listener of another user
/// on a shared bus (issue 27, item 6).
@Suite final class KeyPressedWatchersTests: InMemoryServiceSuite {
  let harness: InMemoryService

  init() throws {
    harness = try InMemoryService(
      config: "[keys]\nenabled = false\n")
    harness.add(harness.service.responderAPI(bus: harness.busComponent, session: nil, motionInterest: nil))
    harness.add(harness.service.keysComponent(bus: harness.busComponent))
    harness.start()
  }

  @Test func keyPressedGoesOnlyToWatchersOfTheDaemonsUser() throws {
    let own = bus.connect()
    let stranger = bus.connect(uid: getuid() &+ 1)
    var received: [String: [String]] = [:]
    let subscriptions = [("own", own), ("stranger", stranger)].map { name, connection in
      connection.onSignal(
        sender: nil, path: KeysComponent.devicesPath, interface: KeysComponent.devicesInterface,
        member: "KeyPressed"
      ) { message in received[name, default: []].append(message.arguments[0].string ?? "?") }
    }
    defer { for subscription in subscriptions { subscription.cancel() } }
    func watch(_ connection: InMemoryBusConnection, _ method: String) {
      connection.call(
        destination: ResponderBusAPI.daemonName, path: ResponderBusAPI.daemonPath,
        interface: ResponderBusAPI.daemonInterface, method: method, timeout: 5
      ) { _ in }
      time.advance(by: 0)
    }
    func press(_ key: String) {
      service.events.publish(
        KeyActionRecord(
          key: key, timestamp: time.now, path: "/dev/input/event7", device: "Headset", action: "x"))
      time.advance(by: 0)
    }
    // Nobody asked: nobody hears it.
    press("KEY_MICMUTE")
    #expect(received.isEmpty)
    watch(stranger, "WatchEvents")  // refused: another user
    watch(own, "WatchEvents")
    press("KEY_VOLUMEUP")
    #expect(received["own"] == ["KEY_VOLUMEUP"])
    #expect(received["stranger"] == nil)
    watch(own, "UnwatchEvents")
    press("KEY_VOLUMEDOWN")
    #expect(received["own"] == ["KEY_VOLUMEUP"] && received["stranger"] == nil)
  }
}
