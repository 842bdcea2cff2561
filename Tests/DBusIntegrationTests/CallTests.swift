import DBus
import DBusTestSupport
import EventLoop
import ResponderdTestKit
import Testing

#if canImport(Glibc)
  import Glibc
#endif

@Suite struct CallTests {
  @Test func connectsAndGetsAUniqueName() throws {
    let fixture = try BusFixture()
    #expect(fixture.server.state == .connected)
    #expect(fixture.server.uniqueName?.hasPrefix(":") == true)
    #expect(fixture.server.uniqueName != fixture.client.uniqueName)
    let names = try fixture.client.callAndWait(
      destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
      method: "ListNames", timeout: 5)
    #expect(names.first?.stringArray?.contains(fixture.server.uniqueName!) == true)
  }

  @Test func valuesRoundTripThroughTheBus() throws {
    let fixture = try BusFixture()
    try fixture.server.export(path: "/org/responderd/Test", interfaces: [echoInterface()])
    let name = fixture.server.uniqueName!
    let all = try fixture.client.callAndWait(
      destination: name, path: "/org/responderd/Test", interface: "org.responderd.Test", method: "EchoAll",
      arguments: sampleValues, timeout: 5)
    #expect(all == sampleValues)
    for value in sampleValues {
      let echoed = try fixture.client.callAndWait(
        destination: name, path: "/org/responderd/Test", interface: "org.responderd.Test", method: "Echo",
        arguments: [.variant(value)], timeout: 5)
      #expect(echoed == [.variant(value)])
    }
  }

  @Test func unixFileDescriptorsPass() throws {
    let fixture = try BusFixture()
    try fixture.server.export(path: "/org/responderd/Test", interfaces: [echoInterface()])
    var fds: [Int32] = [-1, -1]
    #expect(pipe(&fds) == 0)
    defer {
      close(fds[0])
      close(fds[1])
    }
    let echoed = try fixture.client.callAndWait(
      destination: fixture.server.uniqueName!, path: "/org/responderd/Test", interface: "org.responderd.Test",
      method: "Echo", arguments: [.variant(.unixFD(fds[1]))], timeout: 5)
    guard case .variant(.unixFD(let received))? = echoed.first else {
      Issue.record("no fd in \(echoed)")
      return
    }
    defer { close(received) }
    #expect(received != fds[1])
    #expect(write(received, "x", 1) == 1)  // the same pipe, through another descriptor
    var byte: UInt8 = 0
    #expect(read(fds[0], &byte, 1) == 1)
    #expect(byte == UInt8(ascii: "x"))
  }

  @Test func callsToAPeerProcessAndItsDeadlineWhenStopped() throws {
    let bus = try PrivateBus()
    let loop = try EventLoop()
    let client = try bus.connect(loop: loop)
    let peer = try echoPeer(named: "org.responderd.Test.Peer", on: bus)

    let echoed = try client.callAndWait(
      destination: "org.responderd.Test.Peer", path: "/org/responderd/Test", interface: "org.responderd.Test",
      method: "Echo", arguments: [.variant(.vardict(["k": .double(0.5)]))], timeout: 5)
    #expect(echoed == [.variant(.vardict(["k": .double(0.5)]))])

    // A stopped peer never answers: the deadline fires, the loop keeps serving meanwhile.
    try peer.freeze()
    var result: Result<[DBusValue], DBusError>?
    let started = loop.scheduler.now
    client.call(
      destination: "org.responderd.Test.Peer", path: "/org/responderd/Test", interface: "org.responderd.Test",
      method: "Ping", timeout: 0.2
    ) { result = $0 }
    var busAnswered = false
    client.getNameOwner("org.responderd.Test.Peer") { busAnswered = (try? $0.get()) != nil }
    try waitFor("the deadline", on: loop, timeout: 5) { result != nil }
    let elapsed = loop.scheduler.now - started
    #expect(busAnswered, "other calls were answered while waiting")
    guard case .failure(let error)? = result else {
      Issue.record("a stopped peer answered: \(String(describing: result))")
      return
    }
    #expect(error.name == DBusError.Name.noReply)
    #expect(error.message.contains("Ping") && error.message.contains("200 ms"), "\(error)")
    #expect(elapsed >= 0.19 && elapsed < 2, "deadline after \(elapsed) s")

    // Resumed, it answers again (the late reply to the expired call is dropped).
    peer.signal(SIGCONT)
    let sum = try client.callAndWait(
      destination: "org.responderd.Test.Peer", path: "/org/responderd/Test", interface: "org.responderd.Test",
      method: "Add", arguments: [.int32(2), .int32(40)], timeout: 5)
    #expect(sum == [.int32(42)])
    peer.terminate()
  }

  @Test func aCallerOfAPeerThatDiesGetsAnError() throws {
    let bus = try PrivateBus()
    let loop = try EventLoop()
    let client = try bus.connect(loop: loop)
    let peer = try echoPeer(named: "org.responderd.Test.Dying", on: bus)
    try peer.freeze()
    var result: Result<[DBusValue], DBusError>?
    client.call(
      destination: "org.responderd.Test.Dying", path: "/org/responderd/Test",
      interface: "org.responderd.Test",
      method: "Ping", timeout: 20
    ) { result = $0 }
    // The bus handles our messages in order: once it answered this, it has routed the Ping.
    var routed = false
    client.getNameOwner("org.responderd.Test.Dying") { _ in routed = true }
    try waitFor("the bus to route the call", on: loop) { routed }
    peer.signal(SIGKILL)
    try peer.waitForExit(timeout: 5)
    // The bus answers for the dead peer long before the 20 s deadline.
    try waitFor("an error for the dead peer", on: loop, timeout: 5) { result != nil }
    guard case .failure(let error)? = result else {
      Issue.record("expected an error, got \(String(describing: result))")
      return
    }
    #expect(error.name == DBusError.Name.noReply)
  }

  @Test func cancelledCallsNeverAnswer() throws {
    let fixture = try BusFixture()
    try fixture.server.export(path: "/org/responderd/Test", interfaces: [echoInterface()])
    var answered = false
    let pending = fixture.client.call(
      destination: fixture.server.uniqueName!, path: "/org/responderd/Test", interface: "org.responderd.Test",
      method: "Echo", arguments: [.variant(.int32(1))]
    ) { _ in answered = true }
    pending.cancel()
    #expect(pending.isFinished)
    // A later call's reply comes back, so the first one would have too.
    let later = try fixture.client.callAndWait(
      destination: fixture.server.uniqueName!, path: "/org/responderd/Test", interface: "org.responderd.Test",
      method: "Echo", arguments: [.variant(.int32(2))], timeout: 5)
    #expect(later == [.variant(.int32(2))])
    #expect(!answered)
  }

  @Test func invalidCallsFailThroughTheCallbackNotAtOnce() throws {
    let fixture = try BusFixture()
    var result: Result<[DBusValue], DBusError>?
    fixture.client.call(destination: "org.example", path: "no-slash", interface: nil, method: "M") {
      result = $0
    }
    #expect(result == nil, "the reply handler never runs before call returns")
    try waitFor("the failure", on: fixture.loop) { result != nil }
    guard case .failure(let error)? = result else { return #expect(Bool(false)) }
    #expect(error.name == DBusError.Name.invalidArgs)
  }

  @Test func fireAndForgetCallsArrive() throws {
    let fixture = try BusFixture()
    var received: [DBusValue] = []
    try fixture.serveTest([
      DBusMethod("Note", in: "s") { call in
        received.append(contentsOf: call.arguments)
        return []
      }
    ])
    try fixture.client.callWithoutReply(
      destination: fixture.server.uniqueName!, path: "/t", interface: "org.responderd.Test", method: "Note",
      arguments: ["one"])
    try fixture.client.callWithoutReply(
      destination: fixture.server.uniqueName!, path: "/t", interface: "org.responderd.Test", method: "Note",
      arguments: ["two"])
    try waitFor("both notes", on: fixture.loop) { received.count == 2 }
    #expect(received == ["one", "two"])
  }

  @Test func repliesCanComeLater() throws {
    let fixture = try BusFixture()
    var waiting: [DBusMethodCall] = []
    try fixture.serveTest([.replyLater("Ask", in: "s", out: "b") { call in waiting.append(call) }])
    var answers: [String: Bool] = [:]
    for question in ["first", "second"] {
      fixture.client.call(
        destination: fixture.server.uniqueName!, path: "/t", interface: "org.responderd.Test", method: "Ask",
        arguments: [.string(question)]
      ) { result in answers[question] = (try? result.get())?.first?.bool }
    }
    try waitFor("both calls to arrive", on: fixture.loop) { waiting.count == 2 }
    #expect(answers.isEmpty)
    // Answer out of order.
    waiting[1].reply([.bool(false)])
    waiting[0].reply([.bool(true)])
    try waitFor("both answers", on: fixture.loop) { answers.count == 2 }
    #expect(answers == ["first": true, "second": false])
  }

  @Test func aCallDroppedWithoutReplyIsAnsweredWithAnError() throws {
    let fixture = try BusFixture()
    try fixture.serveTest([.replyLater("Forget", out: "b") { _ in }])
    let error = try callError(
      fixture.client, destination: fixture.server.uniqueName!, path: "/t", interface: "org.responderd.Test",
      method: "Forget")
    #expect(error.name == DBusError.Name.failed)
    #expect(error.message.contains("Forget"))
  }

  @Test func aReplyOfTheWrongTypeBecomesAnError() throws {
    let fixture = try BusFixture()
    try fixture.serveTest([DBusMethod("Bad", out: "b") { _ in ["text"] }])
    let error = try callError(
      fixture.client, destination: fixture.server.uniqueName!, path: "/t", interface: "org.responderd.Test",
      method: "Bad")
    #expect(error.name == DBusError.Name.failed)
    #expect(error.message.contains("'s'") && error.message.contains("'b'"), "\(error)")
  }

  @Test func thrownErrorsReachTheCaller() throws {
    let fixture = try BusFixture()
    try fixture.server.export(path: "/org/responderd/Test", interfaces: [echoInterface()])
    let error = try callError(
      fixture.client, destination: fixture.server.uniqueName!, path: "/org/responderd/Test",
      interface: "org.responderd.Test", method: "Fail", ["not today"])
    #expect(error == DBusError("org.responderd.Test.Error.Refused", "not today"))
  }

  @Test func largeMessagesAndManyCallsInFlight() throws {
    let fixture = try BusFixture()
    try fixture.server.export(path: "/org/responderd/Test", interfaces: [echoInterface()])
    // 1 MiB: more than a socket buffer, so writes are partial and go through the write watch.
    let big = DBusValue.array(
      elementSignature: "y", (0..<(1 << 20)).map { .byte(UInt8(truncatingIfNeeded: $0)) })
    let echoed = try fixture.client.callAndWait(
      destination: fixture.server.uniqueName!, path: "/org/responderd/Test", interface: "org.responderd.Test",
      method: "Echo", arguments: [.variant(big)], timeout: 30)
    #expect(echoed == [.variant(big)])

    var answers: [Result<[DBusValue], DBusError>?] = Array(repeating: nil, count: 500)
    for index in 0..<500 {
      fixture.client.call(
        destination: fixture.server.uniqueName!, path: "/org/responderd/Test",
        interface: "org.responderd.Test",
        method: "Add", arguments: [.int32(Int32(index)), .int32(1)]
      ) { answers[index] = $0 }
    }
    try waitFor("500 answers", on: fixture.loop, timeout: 30) { !answers.contains { $0 == nil } }
    #expect(answers.map { try? $0?.get() } == (0..<500).map { [.int32(Int32($0 + 1))] })
  }

  @Test func noTimerIsLeftWhenCallsAreDone() throws {
    let fixture = try BusFixture()
    try fixture.server.export(path: "/org/responderd/Test", interfaces: [echoInterface()])
    for index in 0..<20 {
      _ = try fixture.client.callAndWait(
        destination: fixture.server.uniqueName!, path: "/org/responderd/Test",
        interface: "org.responderd.Test",
        method: "Echo", arguments: [.variant(.int32(Int32(index)))], timeout: 5)
    }
    try waitFor("timers to be released", on: fixture.loop, timeout: 1) {
      fixture.loop.scheduler.pendingCount == 0
    }
  }
}
