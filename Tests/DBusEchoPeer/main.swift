// A small D-Bus peer in its own process, for tests and benchmarks that need a remote object
// (one that can be stopped with SIGSTOP or killed).
//
//   DBusEchoPeer [BUS-NAME]
//
// Connects to $DBUS_SESSION_BUS_ADDRESS, owns BUS-NAME (default org.responderd.Test.Echo),
// exports /org/responderd/Test with interface org.responderd.Test (Echo(v) → v, Ping(), Add(ii) → i,
// property Calls u), prints "ready UNIQUE-NAME" and serves until SIGTERM/SIGINT or bus loss.
import DBus
import EventLoop

#if canImport(Glibc)
  import Glibc
#endif

let name = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "org.responderd.Test.Echo"

/// Writes a line to stdout at once (stdout is a pipe in tests: no buffering).
func say(_ line: String) {
  let text = line + "\n"
  _ = text.withCString { write(1, $0, strlen($0)) }
}

do {
  let loop = try EventLoop()
  let bus = try DBusConnection.session(loop: loop)
  var calls: UInt32 = 0
  let interface = DBusInterface(
    "org.responderd.Test",
    methods: [
      DBusMethod("Echo", in: "v", out: "v") { call in
        calls += 1
        return call.arguments
      },
      DBusMethod("Ping") { _ in
        calls += 1
        return []
      },
      DBusMethod("Add", in: "ii", out: "i") { call in
        calls += 1
        return [.int32((call.arguments[0].int32 ?? 0) &+ (call.arguments[1].int32 ?? 0))]
      },
    ],
    properties: [DBusProperty("Calls", get: { calls })])
  try bus.export(path: "/org/responderd/Test", interfaces: [interface])
  bus.requestName(name) { result in
    switch result {
    case .success(let answer) where answer.isOwner:
      say("ready \(bus.uniqueName ?? "")")
    case .success(let answer):
      say("error name \(name) not owned: \(answer)")
      loop.stop()
    case .failure(let error):
      say("error \(error)")
      loop.stop()
    }
  }
  bus.addObserver { event in
    if case .disconnected = event { loop.stop() }
  }
  try loop.onSignals([SIGTERM, SIGINT]) { _ in loop.stop() }
  loop.run()
  bus.close()
} catch {
  say("error \(error)")
  exit(1)
}
