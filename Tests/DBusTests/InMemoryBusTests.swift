import DBus
import EventTime
import ResponderdTestKit
import Testing

/// The in-memory bus behaves as a bus daemon does for what the clients use: calls and replies,
/// deadlines on virtual time, names and their owners, signals, a peer leaving.
@Suite struct InMemoryBusTests {
  let time = VirtualScheduler(now: 10)
  let bus: InMemoryBus
  let server: InMemoryBusConnection
  let client: InMemoryBusConnection

  init() throws {
    bus = InMemoryBus(scheduler: time)
    server = bus.connect()
    client = bus.connect()
    try server.export(path: "/org/responderd/Test", interfaces: [echoInterface()])
  }

  func call(
    _ method: String, _ arguments: [DBusValue] = [], on destination: String? = nil, timeout: Seconds = 1
  ) -> () -> Result<[DBusValue], DBusError>? {
    var result: Result<[DBusValue], DBusError>?
    client.call(
      destination: destination ?? server.uniqueName!, path: "/org/responderd/Test",
      interface: "org.responderd.Test", method: method, arguments: arguments, timeout: timeout
    ) { result = $0 }
    return { result }
  }

  @Test func aCallIsAnsweredWhenTheBusDeliversNeverBeforeTheCallReturns() throws {
    let reply = call("Add", [.int32(2), .int32(40)])
    #expect(reply() == nil)
    time.advance(by: 0)
    #expect(try reply()?.get() == [.int32(42)])
    let failure = call("Fail", ["no"])
    let wrong = call("Add", ["two"])
    time.advance(by: 0)
    #expect(throws: DBusError("org.responderd.Test.Error.Refused", "no")) { try failure()?.get() }
    if case .failure(let error)? = wrong() { #expect(error.name == DBusError.Name.invalidArgs) }
  }

  /// Issue 27: an error message echoing a caller's 1 MB argument was sent whole; a reply whose
  /// descriptor could not be duplicated (no descriptor left) said "out of memory".
  @Test func errorRepliesAreCutAndAReplyWithoutItsDescriptorSaysWhatFailed() throws {
    let long = call("Fail", [.string("unknown name '" + String(repeating: "n", count: 1_000_000) + "'")])
    time.advance(by: 0)
    guard case .failure(let error)? = long() else {
      Issue.record("no error")
      return
    }
    #expect(error.message.count <= DBusMethodCall.longestErrorMessage)
    #expect(error.message.hasPrefix("unknown name 'nnn") && error.message.hasSuffix("… (1000015 characters)"))

    var failure: DBusError?
    try server.export(
      path: "/org/responderd/Descriptor",
      interfaces: [
        DBusInterface(
          "org.responderd.Test",
          methods: [
            DBusMethod.replyLater("Open", in: "", out: "h") { call in
              // A descriptor that cannot be duplicated, as when the process has none left.
              failure = call.replyOrError([.unixFD(-1)])
            }
          ])
      ])
    var result: Result<[DBusValue], DBusError>?
    client.call(
      destination: server.uniqueName!, path: "/org/responderd/Descriptor", interface: "org.responderd.Test",
      method: "Open", timeout: 1
    ) { result = $0 }
    time.advance(by: 0)
    #expect(failure?.message == "cannot put a file descriptor into the message: dup: Bad file descriptor")
    guard case .failure(let received)? = result else {
      Issue.record("the call was not answered with an error: \(String(describing: result))")
      return
    }
    #expect(received.name == DBusError.Name.failed && received.message == failure?.message)
  }

  @Test func aCallToANameNobodyOwnsFailsAndAStoppedPeerMissesTheDeadline() throws {
    let nobody = call("Add", [.int32(1), .int32(1)], on: "org.responderd.Nobody")
    time.advance(by: 0)
    if case .failure(let error)? = nobody() { #expect(error.name == DBusError.Name.serviceUnknown) }

    server.isStopped = true
    let late = call("Add", [.int32(1), .int32(1)], timeout: 0.5)
    time.advance(by: 0.499)
    #expect(late() == nil)
    time.advance(by: 0.001)
    if case .failure(let error)? = late() { #expect(error.name == DBusError.Name.noReply) }
    #expect(time.now == 10.5)
  }

  @Test func aPeerLeavingFailsTheCallsItHoldsAtOnceAndReleasesItsNames() throws {
    var owners: [String?] = []
    client.watchNameOwner("org.responderd.Test.Service") { owners.append($0) }
    server.requestName("org.responderd.Test.Service")
    time.advance(by: 0)
    #expect(owners == [nil, server.uniqueName])
    #expect(bus.owner(of: "org.responderd.Test.Service") == server.uniqueName)

    server.isStopped = true
    let pending = call("Add", [.int32(1), .int32(1)], on: "org.responderd.Test.Service", timeout: 5)
    time.advance(by: 0)
    server.leave()
    time.advance(by: 0)
    #expect(time.now == 10)
    if case .failure(let error)? = pending() { #expect(error.name == DBusError.Name.noReply) }
    #expect(owners == [nil, server.uniqueName, nil])
    #expect(bus.owner(of: "org.responderd.Test.Service") == nil)
  }

  @Test func signalsFromAWellKnownNameReachTheSubscribersOfThatName() throws {
    let other = bus.connect()
    try other.export(path: "/org/responderd/Test", interfaces: [echoInterface()])
    server.requestName("org.responderd.Test.Sender")
    var pings: [String] = []
    client.onSignal(sender: "org.responderd.Test.Sender", interface: "org.responderd.Test", member: "Pinged")
    {
      pings.append($0.arguments.first?.string ?? "")
    }
    time.advance(by: 0)
    try server.exportedObject(at: "/org/responderd/Test")?.emit(
      interface: "org.responderd.Test", signal: "Pinged", arguments: ["from the owner"])
    try other.exportedObject(at: "/org/responderd/Test")?.emit(
      interface: "org.responderd.Test", signal: "Pinged", arguments: ["from someone else"])
    time.advance(by: 0)
    #expect(pings == ["from the owner"])
  }

  @Test func aTakenNameIsRefusedUnlessItsOwnerAllowsReplacement() throws {
    var events: [MessageBusEvent] = []
    server.addObserver { events.append($0) }
    var first: DBusRequestNameResult?
    var second: DBusRequestNameResult?
    var third: DBusRequestNameResult?
    server.requestName("org.responderd.Test.Name", flags: [.allowReplacement]) { first = try? $0.get() }
    time.advance(by: 0)
    client.requestName("org.responderd.Test.Name", flags: [.doNotQueue]) { second = try? $0.get() }
    time.advance(by: 0)
    client.requestName("org.responderd.Test.Name", flags: [.replaceExisting]) { third = try? $0.get() }
    time.advance(by: 0)
    #expect(first == .primaryOwner && second == .exists && third == .primaryOwner)
    // As from a bus daemon, the unique name is announced first.
    #expect(
      events == [
        .nameAcquired(server.uniqueName!), .nameAcquired("org.responderd.Test.Name"),
        .nameLost("org.responderd.Test.Name"),
      ])
    #expect(bus.owner(of: "org.responderd.Test.Name") == client.uniqueName)
  }

  /// Subscriptions are kept by unique sender too (a signal is checked against its sender's, not
  /// every player's): delivery stays in subscription order, whatever the sender.
  @Test func signalsReachTheSubscriptionsOfTheirSenderAndOthersInSubscriptionOrder() throws {
    let other = bus.connect()
    let serverID = try #require(server.uniqueName)
    let otherID = try #require(other.uniqueName)
    var heard: [String] = []
    func subscribe(_ label: String, sender: String?) -> DBusSubscription {
      client.subscribe(DBusMatchRule(sender: sender, interface: "org.responderd.Test")) {
        heard.append("\(label) \($0.member ?? "")")
      }
    }
    _ = subscribe("any", sender: nil)
    let fromServer = subscribe("server", sender: serverID)
    _ = subscribe("other", sender: otherID)
    _ = subscribe("any2", sender: nil)
    _ = subscribe("server2", sender: serverID)
    time.advance(by: 0)

    try server.emitSignal(path: "/s", interface: "org.responderd.Test", name: "A")
    try other.emitSignal(path: "/s", interface: "org.responderd.Test", name: "B")
    time.advance(by: 0)
    #expect(heard == ["any A", "server A", "any2 A", "server2 A", "any B", "other B", "any2 B"])

    heard.removeAll()
    fromServer.cancel()
    try server.emitSignal(path: "/s", interface: "org.responderd.Test", name: "C")
    time.advance(by: 0)
    #expect(heard == ["any C", "any2 C", "server2 C"])
  }
}
