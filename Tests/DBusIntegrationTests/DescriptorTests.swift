import DBus
import DBusTestSupport
import EventLoop
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Descriptors sent to a service's objects are closed once the call or signal is handled,
/// whatever answered it: a caller sending one with every call never exhausts the service's
/// descriptors.
@Suite struct DescriptorTests {
  let path = "/org/responderd/Test/Player"
  let interfaceName = "org.responderd.Test.Player"

  /// Whether every copy of a pipe's write end is closed: its read end then reports hang-up. Waits
  /// 2 s at most: a child another test is starting at that moment may hold a copy until its exec.
  static func writeEndClosedEverywhere(_ readEnd: Int32) -> Bool {
    var entry = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
    return poll(&entry, 1, 2000) == 1 && entry.revents & Int16(POLLHUP) != 0
  }

  @Test func descriptorsInPropertiesCallsMethodCallsAndSignalsAreClosedOnceHandled() throws {
    let fixture = try BusFixture()
    let model = PlayerModel()
    var signalled = 0
    let taker = DBusInterface(
      "org.responderd.Test.Descriptors",
      methods: [
        DBusMethod("Take", in: "h") { call in
          _ = call.arguments; return []
        }
      ])
    try fixture.server.export(path: path, interfaces: [model.interface(), taker])
    fixture.server.subscribe(DBusMatchRule(interface: "org.responderd.Test.Descriptors", member: "Hand")) {
      message in
      _ = message.arguments
      signalled += 1
    }
    _ = try fixture.server.callAndWait(
      destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
      method: "GetId", timeout: 5)
    let name = fixture.server.uniqueName!

    var ends: [Int32] = [-1, -1]
    #expect(pipe(&ends) == 0)
    // Close-on-exec: the tests running beside this one start programs, which must not keep a copy.
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    defer { close(ends[0]) }
    let fd = DBusValue.unixFD(ends[1])
    let properties = "org.freedesktop.DBus.Properties"
    // Refused (wrong signature, read-only, wrong type) and answered calls alike.
    let calls: [(interface: String, method: String, arguments: [DBusValue])] = [
      (properties, "Get", [.string(interfaceName), "PlaybackStatus", fd]),
      (properties, "Set", [.string(interfaceName), "PlaybackStatus", .variant(fd)]),
      (properties, "Set", [.string(interfaceName), "Volume", .variant(fd)]),
      (properties, "Set", [.string(interfaceName), "Nope", .variant(fd)]),
      (properties, "GetAll", [fd]),
      ("org.responderd.Test.Descriptors", "Take", [fd]),
    ]
    for call in calls {
      for _ in 0..<3 {
        _ = try callResult(
          fixture.client, destination: name, path: path, interface: call.interface, method: call.method,
          call.arguments)
      }
    }
    try fixture.client.send(
      DBusMessage.signal(
        path: "/", interface: "org.responderd.Test.Descriptors", name: "Hand", arguments: [fd]))
    try waitFor("the signal", on: fixture.loop) { signalled == 1 }

    close(ends[1])
    #expect(
      Self.writeEndClosedEverywhere(ends[0]),
      "a descriptor sent with a call or signal is still open in the service")
  }
}
