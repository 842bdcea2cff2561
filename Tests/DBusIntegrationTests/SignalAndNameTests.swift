import DBus
import DBusTestSupport
import EventLoop
import EventTime
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Waits until the bus has handled everything `connection` sent so far (AddMatch included).
func sync(_ connection: DBusConnection) throws {
  _ = try connection.callAndWait(
    destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
    method: "GetId", timeout: 5)
}

/// A listener on a private bus that records the members of the `org.responderd.Test` signals it
/// gets, on virtual time (a batch's delay passes only when the test advances it), and a sender.
private final class BatchingPair {
  let bus: PrivateBus
  let loop: EventLoop
  let time = VirtualScheduler(now: 0)
  let listener: DBusConnection
  let sender: DBusConnection
  private(set) var received: [String] = []

  /// `couldWait` says, by its member, whether a signal may wait for the next batch.
  init(couldWait: @escaping (String) -> Bool) throws {
    bus = try PrivateBus()
    loop = try EventLoop()
    listener = try DBusConnection(address: bus.address, loop: loop, scheduler: time)
    try listener.waitUntilConnected(timeout: 10)
    sender = try bus.connect(loop: loop)
    listener.onSignal(interface: "org.responderd.Test") { [weak self] message in
      self?.received.append(message.member ?? "")
      message.couldWait = couldWait(message.member ?? "")
    }
    try sync(listener)
  }
}

@Suite struct SignalAndNameTests {
  /// A name asked for while the connection registers goes out behind Hello: it is owned once
  /// registered, with one reply, and another connection sees this one as its owner.
  @Test func aNameAskedForWhileRegisteringIsOwnedWithOneReply() throws {
    let bus = try PrivateBus()
    let loop = try EventLoop()
    let connection = try DBusConnection(address: bus.address, loop: loop)
    #expect(connection.state == .connecting)
    var replies: [DBusRequestNameResult] = []
    connection.requestName("org.responderd.Test.Early") { result in
      if let outcome = try? result.get() { replies.append(outcome) }
    }
    try connection.waitUntilConnected(timeout: 10)
    try waitFor("the reply", on: loop) { !replies.isEmpty }
    let other = try bus.connect(loop: loop)
    var owner: String?
    other.getNameOwner("org.responderd.Test.Early") { owner = try? $0.get() }
    try waitFor("the owner", on: loop) { owner != nil }
    try sync(connection)
    #expect(replies == [.primaryOwner])
    #expect(owner == connection.uniqueName)
  }

  /// With its loop not running (the daemon starting its other components), the handshake moves
  /// on only when asked: Hello and the name go out and the name is owned, while nothing the bus
  /// answered is dispatched before the loop runs.
  @Test func theHandshakeMovesOnBeforeTheLoopRuns() throws {
    let bus = try PrivateBus()
    let loop = try EventLoop()  // not run until the end
    let connection = try DBusConnection(address: bus.address, loop: loop)
    var replies: [DBusRequestNameResult] = []
    connection.requestName("org.responderd.Test.Early") { result in
      if let outcome = try? result.get() { replies.append(outcome) }
    }
    let watcherLoop = try EventLoop()
    let watcher = try bus.connect(loop: watcherLoop)
    func owner() throws -> String? {
      var answer: Result<String, DBusError>?
      watcher.getNameOwner("org.responderd.Test.Early") { answer = $0 }
      try waitFor("GetNameOwner's answer", on: watcherLoop) { answer != nil }
      return try? answer?.get()
    }
    #expect(try owner() == nil)
    let deadline = monotonicNow() + 10
    var owned: String?
    while owned == nil {
      guard monotonicNow() < deadline else {
        throw TestSupportError("org.responderd.Test.Early not owned within 10 s of moving the handshake on")
      }
      connection.advanceHandshake()
      owned = try owner()
    }
    #expect(connection.state == .connecting)
    #expect(replies.isEmpty)
    try connection.waitUntilConnected(timeout: 10)
    try waitFor("the reply", on: loop) { !replies.isEmpty }
    #expect(replies == [.primaryOwner])
    #expect(owned == connection.uniqueName)
  }

  @Test func subscriptionsFilterByPathInterfaceMemberAndArguments() throws {
    let fixture = try BusFixture()
    var byMember: [String] = []
    var byPathNamespace: [String] = []
    var byArgument: [String] = []
    fixture.client.onSignal(interface: "org.responderd.Test", member: "Pinged") {
      byMember.append("\($0.path ?? ""):\($0.arguments.first?.string ?? "")")
    }
    fixture.client.subscribe(DBusMatchRule(interface: "org.responderd.Test", pathNamespace: "/a")) {
      byPathNamespace.append("\($0.path ?? ""):\($0.member ?? "")")
    }
    let withArgument = fixture.client.subscribe(
      DBusMatchRule(interface: "org.responderd.Test", arguments: [0: "yes"])
    ) {
      byArgument.append($0.member ?? "")
    }
    try sync(fixture.client)

    let server = fixture.server
    try server.emitSignal(path: "/a", interface: "org.responderd.Test", name: "Pinged", arguments: ["yes"])
    try server.emitSignal(path: "/a/b", interface: "org.responderd.Test", name: "Other", arguments: ["no"])
    try server.emitSignal(path: "/ab", interface: "org.responderd.Test", name: "Pinged", arguments: ["no"])
    try server.emitSignal(path: "/c", interface: "org.responderd.Other", name: "Pinged", arguments: ["yes"])
    try server.emitSignal(path: "/c", interface: "org.responderd.Test", name: "Last", arguments: ["yes"])
    try waitFor("the last signal", on: fixture.loop) { byArgument.count == 2 }
    #expect(byMember == ["/a:yes", "/ab:no"])
    #expect(byPathNamespace == ["/a:Pinged", "/a/b:Other"])
    #expect(byArgument == ["Pinged", "Last"])

    withArgument.cancel()
    try sync(fixture.client)
    try server.emitSignal(path: "/a", interface: "org.responderd.Test", name: "Pinged", arguments: ["yes"])
    try waitFor("the signal after cancel", on: fixture.loop) { byMember.count == 3 }
    #expect(byArgument == ["Pinged", "Last"])
  }

  /// Signals their handlers made nothing of (`couldWait`, a chatty player's dropped unread) leave
  /// the bus unread for `batchingDelay`: a stream of them wakes the process once per delay, not
  /// once per signal. A signal that could not wait is followed at once, and so is a call's reply.
  @Test func signalsThatCouldWaitAreReadInBatches() throws {
    let pair = try BatchingPair { $0 != "Urgent" }
    let (loop, time, listener, sender) = (pair.loop, pair.time, pair.listener, pair.sender)
    var received: [String] { pair.received }
    func emit(_ names: String...) throws {
      for name in names { try sender.emitSignal(path: "/s", interface: "org.responderd.Test", name: name) }
      // The bus has routed them once it answers the sender.
      try sync(sender)
    }

    try emit("First")
    try waitFor("the first signal", on: loop) { received == ["First"] }
    // Left unread until the delay ends (the loop ran while the sender synced).
    try emit("Second", "Third")
    #expect(received == ["First"])
    time.advance(by: try #require(listener.batchingDelay))
    try waitFor("the batch", on: loop) { received.count == 3 }
    #expect(received == ["First", "Second", "Third"])

    // A call reads at once: what came before its reply too.
    try emit("Fourth")
    #expect(received.count == 3)
    try sync(listener)
    #expect(received == ["First", "Second", "Third", "Fourth"])

    // A signal that could not wait: the next one is read as it comes.
    time.advance(by: 1)
    try emit("Urgent")
    try waitFor("the urgent signal", on: loop) { received.last == "Urgent" }
    try emit("Fifth")
    try waitFor("the signal after it", on: loop) { received.last == "Fifth" }

    // Never batched when asked not to.
    listener.batchingDelay = nil
    time.advance(by: 1)
    try emit("Sixth")
    try waitFor("the sixth signal", on: loop) { received.last == "Sixth" }
    try emit("Seventh")
    try waitFor("the seventh signal", on: loop) { received.last == "Seventh" }
  }

  /// A batch is read whole when the delay ends, however many reads it takes (libdbus reads about
  /// 4 KB at a time): a stream of large signals must not leave the bus holding what came, with
  /// anything sent after it (a method call) waiting behind.
  @Test func aBatchLargerThanOneReadIsReadWhole() throws {
    let pair = try BatchingPair { _ in true }
    let (loop, time, listener, sender) = (pair.loop, pair.time, pair.listener, pair.sender)
    var received: [String] { pair.received }
    try sender.emitSignal(path: "/s", interface: "org.responderd.Test", name: "First")
    try waitFor("the first signal", on: loop) { received == ["First"] }

    // 40 signals of about 1 KB each (a browser tab's Metadata is about half that), while paused.
    let page = String(repeating: "m", count: 1000)
    for index in 1...40 {
      try sender.emitSignal(
        path: "/s", interface: "org.responderd.Test", name: "Chatty\(index)", arguments: [.string(page)])
    }
    try sync(sender)
    #expect(received == ["First"])
    time.advance(by: try #require(listener.batchingDelay))
    try waitFor("the whole batch", on: loop) { received.count == 41 }
    #expect(received.last == "Chatty40")
  }

  /// From one batch to the next the socket stays out of the loop: the end of a pause reads it at
  /// once, and a batch that could wait pauses again, so a stream of such signals costs the loop
  /// no wake-up for the socket and no `epoll_ctl`. Something that cannot wait puts it back.
  @Test func batchesFollowOneAnotherWithTheSocketOutOfTheLoop() throws {
    let pair = try BatchingPair { $0 != "Urgent" }
    let (loop, time, listener, sender) = (pair.loop, pair.time, pair.listener, pair.sender)
    var received: [String] { pair.received }
    try sender.emitSignal(path: "/s", interface: "org.responderd.Test", name: "First")
    try waitFor("the first signal", on: loop) { received == ["First"] }
    #expect(listener.isReadingPaused)
    let delay = try #require(listener.batchingDelay)
    for batch in 1...3 {
      try sender.emitSignal(path: "/s", interface: "org.responderd.Test", name: "Batch\(batch)")
      try sync(sender)
      #expect(received.count == batch)
      time.advance(by: delay)
      // Read when the delay ended, handled on the loop's next turn: no descriptor was ready.
      #expect(loop.runOnce(timeout: 0) == 0)
      #expect(received.last == "Batch\(batch)")
      #expect(listener.isReadingPaused)
    }
    // A delay with nothing come: the socket goes back to the loop, and idle stays idle.
    time.advance(by: delay)
    loop.runOnce(timeout: 0)
    #expect(!listener.isReadingPaused)
    #expect(time.pendingCount == 0)
    // A signal that cannot wait is read as it comes, at the end of a pause too.
    try sender.emitSignal(path: "/s", interface: "org.responderd.Test", name: "Next")
    try waitFor("the next signal", on: loop) { received.last == "Next" }
    #expect(listener.isReadingPaused)
    try sender.emitSignal(path: "/s", interface: "org.responderd.Test", name: "Urgent")
    try sync(sender)
    time.advance(by: delay)
    loop.runOnce(timeout: 0)
    #expect(received.last == "Urgent")
    #expect(!listener.isReadingPaused)
    try sender.emitSignal(path: "/s", interface: "org.responderd.Test", name: "Last")
    try waitFor("the last signal", on: loop) { received.last == "Last" }
  }

  @Test func aWellKnownSenderIsResolvedToItsOwner() throws {
    let fixture = try BusFixture()
    let impostor = try fixture.bus.connect(loop: fixture.loop)
    var owned: DBusRequestNameResult?
    fixture.server.requestName("org.responderd.Test.Sender") { owned = try? $0.get() }
    try waitFor("the name", on: fixture.loop) { owned != nil }
    var received: [String] = []
    fixture.client.onSignal(sender: "org.responderd.Test.Sender", interface: "org.responderd.Test") {
      received.append($0.member ?? "")
    }
    var all: [String] = []
    fixture.client.onSignal(interface: "org.responderd.Test") { all.append($0.member ?? "") }
    try sync(fixture.client)
    // Wait for the owner lookup too: a signal from the owner comes through.
    try fixture.server.emitSignal(path: "/s", interface: "org.responderd.Test", name: "First")
    try waitFor("the first signal", on: fixture.loop) { all.count == 1 }
    try impostor.emitSignal(path: "/s", interface: "org.responderd.Test", name: "FromImpostor")
    try fixture.server.emitSignal(path: "/s", interface: "org.responderd.Test", name: "FromOwner")
    try waitFor("both signals", on: fixture.loop) { all.count == 3 }
    #expect(received == ["First", "FromOwner"])
  }

  @Test func nameOwnershipAndReplacement() throws {
    let fixture = try BusFixture()
    let name = "org.responderd.Test.Owned"
    var changes: [DBusNameOwnerChange] = []
    let third = try fixture.bus.connect(loop: fixture.loop)
    third.onNameOwnerChanged(namespace: "org.responderd.Test") { changes.append($0) }
    try sync(third)

    var lost: [String] = []
    fixture.server.addObserver { event in
      if case .nameLost(let name) = event { lost.append(name) }
    }
    var first: DBusRequestNameResult?
    fixture.server.requestName(name, flags: [.allowReplacement, .doNotQueue]) { first = try? $0.get() }
    try waitFor("the first request", on: fixture.loop) { first != nil }
    #expect(first == .primaryOwner)

    var second: DBusRequestNameResult?
    fixture.client.requestName(name, flags: [.doNotQueue], keep: false) { second = try? $0.get() }
    try waitFor("the second request", on: fixture.loop) { second != nil }
    #expect(second == .exists)

    var again: DBusRequestNameResult?
    fixture.server.requestName(name, flags: [.allowReplacement, .doNotQueue]) { again = try? $0.get() }
    try waitFor("the repeated request", on: fixture.loop) { again != nil }
    #expect(again == .alreadyOwner)

    var replacing: DBusRequestNameResult?
    fixture.client.requestName(name, flags: [.replaceExisting, .doNotQueue]) { replacing = try? $0.get() }
    try waitFor("the replacement and NameLost", on: fixture.loop) { replacing != nil && !lost.isEmpty }
    #expect(replacing == .primaryOwner)
    #expect(lost == [name])

    var owner: String?
    third.getNameOwner(name) { owner = try? $0.get() }
    try waitFor("the owner", on: fixture.loop) { owner != nil }
    #expect(owner == fixture.client.uniqueName)

    var released: UInt32?
    fixture.client.releaseName(name) { released = try? $0.get() }
    try waitFor("the release and its NameOwnerChanged", on: fixture.loop) {
      released != nil && changes.count == 3
    }
    #expect(released == 1)
    #expect(
      changes == [
        DBusNameOwnerChange(name: name, oldOwner: nil, newOwner: fixture.server.uniqueName),
        DBusNameOwnerChange(
          name: name, oldOwner: fixture.server.uniqueName, newOwner: fixture.client.uniqueName),
        DBusNameOwnerChange(name: name, oldOwner: fixture.client.uniqueName, newOwner: nil),
      ])
  }

  @Test func watchNameOwnerGivesTheCurrentOwnerThenChanges() throws {
    let fixture = try BusFixture()
    let name = "org.responderd.Test.Watched"
    var owners: [String?] = []
    fixture.client.watchNameOwner(name) { owners.append($0) }
    try waitFor("the initial owner", on: fixture.loop) { owners.count == 1 }
    #expect(owners == [nil])
    fixture.server.requestName(name)
    try waitFor("the new owner", on: fixture.loop) { owners.count == 2 }
    #expect(owners.last == fixture.server.uniqueName)
    fixture.server.close()
    try waitFor("the owner leaving", on: fixture.loop) { owners.count == 3 }
    #expect(owners.last == .some(nil))
  }

  @Test func callerCredentials() throws {
    let fixture = try BusFixture()
    var uid: UInt32?
    var pid: UInt32?
    fixture.server.unixUser(of: fixture.client.uniqueName!) { uid = try? $0.get() }
    fixture.server.unixProcessID(of: fixture.client.uniqueName!) { pid = try? $0.get() }
    try waitFor("the credentials", on: fixture.loop) { uid != nil && pid != nil }
    #expect(uid == getuid())
    #expect(pid == UInt32(getpid()))
    var missing: Result<UInt32, DBusError>?
    fixture.server.unixUser(of: ":1.9999") { missing = $0 }
    try waitFor("the error", on: fixture.loop) { missing != nil }
    #expect(throws: DBusError.self) { try missing!.get() }
  }

  @Test func callsCarryTheCallersUniqueName() throws {
    let fixture = try BusFixture()
    var senders: [String] = []
    try fixture.serveTest([
      DBusMethod("Who", out: "s") { call in
        senders.append(call.sender)
        return [.string(call.sender)]
      }
    ])
    let answer = try fixture.client.callAndWait(
      destination: fixture.server.uniqueName!, path: "/t", interface: "org.responderd.Test", method: "Who",
      timeout: 5)
    #expect(answer == [.string(fixture.client.uniqueName!)])
  }
}
