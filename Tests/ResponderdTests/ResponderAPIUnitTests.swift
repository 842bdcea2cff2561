import DBus
import EventLoop
import EventTime
import ResponderClient
import ResponderConfig
import ResponderCore
import ResponderdKit
import ResponderdTestKit
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// An application on the in-memory bus implementing `org.responderd.Responder1`: it answers
/// events as told, or never (a hung application).
final class BusApp {
  let connection: InMemoryBusConnection
  let path: String
  var answer: (String) -> Bool?
  private(set) var received: [String] = []
  /// Calls it never answered (kept, as a hung process keeps them).
  private(set) var held: [DBusMethodCall] = []

  init(
    on bus: InMemoryBus, uid: UInt32 = getuid(), path: String = "/app", canBecome: Bool = true,
    canResign: Bool? = nil, answer: @escaping (String) -> Bool? = { _ in true }
  ) throws {
    connection = bus.connect(uid: uid)
    self.path = path
    self.answer = answer
    let methods = ["RemoteControlReceived", "MotionBegan", "MotionEnded", "MotionCancelled"].map { name in
      DBusMethod.replyLater(name, in: "sd", out: "b") { [weak self] call in self?.receive(call) }
    }
    try connection.export(
      path: path,
      interfaces: [
        DBusInterface(
          ResponderBusAPI.responderInterface, methods: methods,
          properties: [DBusProperty("CanBecomeFirstResponder", get: { canBecome })]
            + (canResign.map { value in [DBusProperty("CanResignFirstResponder", get: { value })] } ?? []))
      ])
  }

  private func receive(_ call: DBusMethodCall) {
    let subtype = call.arguments[0].string ?? "?"
    received.append(subtype)
    guard let handled = answer(subtype) else { return held.append(call) }
    call.reply([.bool(handled)])
  }

  /// Calls the daemon; the result once the bus delivered it (nil while none came).
  func daemonCall(_ method: String, _ arguments: [DBusValue] = []) -> () -> Result<[DBusValue], DBusError>? {
    var result: Result<[DBusValue], DBusError>?
    connection.call(
      destination: ResponderBusAPI.daemonName, path: ResponderBusAPI.daemonPath,
      interface: ResponderBusAPI.daemonInterface, method: method, arguments: arguments, timeout: 5
    ) { result = $0 }
    return { result }
  }
}

/// The responder API on the in-memory bus and virtual time: registration, the first responder,
/// the per-call deadline of a hung application, caller checks, an application leaving the bus.
@Suite final class ResponderAPIUnitTests: InMemoryServiceSuite {
  let harness: InMemoryService
  let api: ResponderAPI

  init() throws {
    harness = try InMemoryService(
      config: "chain = [\"log\"]\n[log]\nhandles = true\n[responders]\ndeadline = 0.2\n")
    api = harness.service.responderAPI(bus: harness.busComponent, session: nil, motionInterest: nil)
    harness.add(api)
    harness.start()
  }

  @discardableResult
  func register(_ app: BusApp, _ types: [String] = ["remoteControl"]) throws -> UInt32 {
    let reply = app.daemonCall("RegisterResponder", [.objectPath(app.path), types.dbusValue])
    settle()
    return try #require(try reply()?.get().first?.uint32)
  }

  func post(_ subtype: EventSubtype) {
    service.application.post(.remoteControl(subtype, timestamp: time.now, source: "test"))
  }

  @Test func aRegisteredApplicationBecomesFirstResponderAndHandlesEventsBeforeTheHandlers() throws {
    let a = try BusApp(on: bus) { $0 == "play" }
    let b = try BusApp(on: bus, path: "/b") { _ in false }
    let aID = try register(a)
    let bID = try register(b)
    let names = api.registeredResponders.map(\.name)
    #expect(api.registeredResponders.map(\.id) == [bID, aID])  // most recent first

    post(.remoteControlPlay)
    settle()
    #expect(b.received == ["play"] && a.received == ["play"])
    #expect(records().last?.handledBy == names[1])
    #expect(records().last?.receivedBy == names)

    let accepted = a.daemonCall("BecomeFirstResponder", [.uint32(aID)])
    settle()
    #expect(try accepted()?.get() == [.bool(true)])
    #expect(api.registeredResponders.map(\.id) == [aID, bID])
    post(.remoteControlPlay)
    settle()
    #expect(a.received == ["play", "play"] && b.received == ["play"])
    #expect(records().last?.receivedBy == [names[1]])
  }

  @Test func aHungApplicationHoldsTheEventForTheDeadlineExactlyThenItMovesOn() throws {
    let hung = try BusApp(on: bus) { _ in nil }
    try register(hung)
    post(.remoteControlNextTrack)
    post(.remoteControlPause)
    settle()
    #expect(hung.received == ["nextTrack"])
    #expect(records().isEmpty)
    time.advance(to: 50.199)
    #expect(records().isEmpty, "the chain waits for the application up to the deadline")
    time.advance(to: 50.2)
    #expect(records().first?.subtype == .remoteControlNextTrack)
    #expect(records().first?.handledBy == "log")
    // Its connection missed a deadline: the next event, queued behind, passes it over at once.
    #expect(hung.received == ["nextTrack"])
    #expect(records().map(\.handledBy) == ["log", "log"])
    // Its connection still answers (only its handler hangs): asked again from the next event on.
    settle()
    post(.remoteControlPlay)
    settle()
    #expect(hung.received == ["nextTrack", "play"])
  }

  /// An application whose event handler hangs while its D-Bus library still answers `Peer.Ping`
  /// cost every press the deadline for as long as it hung: after a few misses in a row its
  /// pings no longer bring it back; an answer to an event does, and `Chain` says which it is.
  @Test func anApplicationThatAnswersPingButNotEventsIsPassedOverUntilItAnswersAnEvent() throws {
    let app = try BusApp(on: bus) { _ in nil }
    try register(app)
    func chainEntry() throws -> [String: DBusValue] {
      var chain: DBusValue?
      app.connection.getProperty(
        "Chain", interface: ResponderBusAPI.daemonInterface, path: ResponderBusAPI.daemonPath,
        destination: ResponderBusAPI.daemonName
      ) { chain = try? $0.get() }
      settle()
      return try #require(chain?.elements?.first?.dictionary)
    }
    for _ in 0..<10 {
      post(.remoteControlNextTrack)
      time.advance(by: 0.5)
    }
    // Three events waited for it (the deadline each); the seven after passed it over at once.
    #expect(app.received.count == 3, "\(app.received)")
    #expect(records().count == 10 && records().allSatisfy { $0.handledBy == "log" })
    #expect(log.text.contains("answers Ping but missed 3 events in a row"))
    let passedOver = try chainEntry()["passedOver"]?.string
    #expect(passedOver?.contains("answers Ping, not events") == true, "\(String(describing: passedOver))")

    // It answers an event at last (late): it takes events again.
    app.answer = { _ in true }
    app.held.last?.reply([.bool(false)])
    settle()
    #expect(try chainEntry()["passedOver"] == nil)
    post(.remoteControlPlay)
    settle()
    #expect(app.received.last == "play")
    #expect(records().last?.handledBy != "log")

    // Hung again, and silent for good: one event in 25 s tries it, not every event.
    app.answer = { _ in nil }
    for _ in 0..<10 {
      post(.remoteControlNextTrack)
      time.advance(by: 0.5)
    }
    #expect(app.received.count == 7, "\(app.received)")
    time.advance(by: 25)
    for _ in 0..<10 {
      post(.remoteControlNextTrack)
      time.advance(by: 0.5)
    }
    #expect(app.received.count == 8, "\(app.received)")
  }

  /// 50 registrations on one stopped connection made every event wait 50 deadlines (issue 16):
  /// a connection that missed one deadline is passed over for all its registrations until it
  /// answers again, and one connection may register 16 responders at most.
  @Test func aStoppedConnectionCostsOneDeadlineForAllItsRegistrations() throws {
    let app = try BusApp(on: bus) { _ in true }
    try register(app)
    for index in 1..<ResponderBusAPI.maximumRespondersPerConnection {
      let reply = app.daemonCall(
        "RegisterResponder", [.objectPath("/app\(index)"), ["remoteControl"].dbusValue])
      settle()
      _ = try #require(try reply()?.get())
    }
    let refused = app.daemonCall(
      "RegisterResponder", [.objectPath("/oneTooMany"), ["remoteControl"].dbusValue])
    settle()
    guard case .failure(let error)? = refused() else {
      Issue.record("a 17th registration was accepted")
      return
    }
    #expect(error.name == ResponderBusAPI.ErrorName.tooManyResponders)
    #expect(error.message.contains("already registered 16 responders"))
    #expect(api.registeredResponders.count == 16)

    app.connection.isStopped = true
    post(.remoteControlNextTrack)
    post(.remoteControlPause)
    post(.remoteControlPlay)
    settle()
    time.advance(to: 50.199)
    #expect(records().isEmpty)
    time.advance(to: 50.2)
    // One deadline for the first registration; every other one, and the next events, pass it by.
    #expect(records().map(\.handledBy) == ["log", "log", "log"])
    #expect(records().allSatisfy { $0.receivedBy.count == 17 && $0.receivedBy.last == "log" })
    // Resumed, it answers the ping that the passing events sent; then it takes events again.
    app.connection.isStopped = false
    settle()
    let before = app.received.count
    post(.remoteControlStop)
    settle()
    #expect(app.received.count == before + 1 && app.received.last == "stop")
    #expect(records().last?.handledBy != "log")
  }

  /// Issue 27: 10,000 duplicate event types and a 200,000-character object path were accepted,
  /// and an unknown event type of 1 MB came back whole in the error.
  @Test func registrationRefusesDuplicateTypesHugePathsAndQuotesUnknownTypesShort() throws {
    let app = try BusApp(on: bus)
    func refusal(_ path: String, _ types: [String]) -> DBusError? {
      let reply = app.daemonCall("RegisterResponder", [.objectPath(path), types.dbusValue])
      settle()
      if case .failure(let error)? = reply() { return error }
      return nil
    }
    let duplicates = refusal("/app", Array(repeating: "motion", count: 10_000))
    #expect(duplicates?.name == DBusError.Name.invalidArgs)
    #expect(duplicates?.message == "the event type 'motion' is given twice: name each once")
    let huge = refusal("/" + String(repeating: "p", count: 199_999), ["remoteControl"])
    #expect(huge?.message == "the object path is 200000 bytes long: at most 1024")
    let unknown = refusal("/app", ["x" + String(repeating: "y", count: 1_000_000)])
    #expect(unknown?.name == DBusError.Name.invalidArgs)
    #expect((unknown?.message.count ?? .max) < 300, "\(unknown?.message.prefix(300) ?? "")")
    #expect(unknown?.message.contains("… (1000001 characters)") == true)
    #expect(api.registeredResponders.isEmpty)
    // What an application sends is still accepted.
    #expect(refusal("/app", ["remoteControl", "motion"]) == nil)
  }

  /// Issue 27: EventDispatched and EventDispatchedDetails were broadcast, so that another user of
  /// a shared bus saw every event. They go to the connections that asked (WatchEvents) now, which
  /// must be of the daemon's user.
  @Test func dispatchSignalsGoOnlyToWatchersOfTheDaemonsUser() throws {
    let own = bus.connect()
    let stranger = bus.connect(uid: getuid() &+ 1)
    var received: [String: [String]] = [:]
    var subscriptions: [DBusSubscription] = []
    for (name, connection) in [("own", own), ("stranger", stranger)] {
      for member in ["EventDispatched", "EventDispatchedDetails"] {
        subscriptions.append(
          connection.onSignal(
            sender: nil, path: ResponderBusAPI.daemonPath, interface: ResponderBusAPI.daemonInterface,
            member: member
          ) { message in received[name, default: []].append("\(member) \(message.arguments[1].string ?? "?")")
          })
      }
    }
    defer { for subscription in subscriptions { subscription.cancel() } }
    func call(_ connection: InMemoryBusConnection, _ method: String) -> Result<[DBusValue], DBusError>? {
      var result: Result<[DBusValue], DBusError>?
      connection.call(
        destination: ResponderBusAPI.daemonName, path: ResponderBusAPI.daemonPath,
        interface: ResponderBusAPI.daemonInterface, method: method, timeout: 5
      ) { result = $0 }
      settle()
      return result
    }
    // Nobody asked yet: nothing is sent.
    post(.remoteControlPlay)
    settle()
    #expect(records().count == 1 && received.isEmpty)
    guard case .failure(let refused)? = call(stranger, "WatchEvents") else {
      Issue.record("WatchEvents answered another user")
      return
    }
    #expect(refused.name == DBusError.Name.accessDenied)
    #expect(try call(own, "WatchEvents")?.get() == [])
    post(.remoteControlNextTrack)
    settle()
    #expect(received["own"] == ["EventDispatched nextTrack", "EventDispatchedDetails nextTrack"])
    #expect(received["stranger"] == nil)
    // Until it unwatches (or leaves the bus).
    #expect(try call(own, "UnwatchEvents")?.get() == [])
    post(.remoteControlPause)
    settle()
    #expect(received["own"]?.count == 2 && received["stranger"] == nil)
  }

  @Test func anApplicationOfAnotherUserIsRefused() throws {
    let stranger = try BusApp(on: bus, uid: getuid() &+ 1)
    let reply = stranger.daemonCall("RegisterResponder", [.objectPath("/app"), ["remoteControl"].dbusValue])
    settle()
    #expect(throws: DBusError.self) { try reply()?.get() }
    if case .failure(let error)? = reply() { #expect(error.name == DBusError.Name.accessDenied) }
    #expect(api.registeredResponders.isEmpty)
  }

  @Test func whenTheFirstResponderLeavesTheBusThePreviousOneIsFirstAgain() throws {
    let a = try BusApp(on: bus)
    let b = try BusApp(on: bus, path: "/b")
    let aID = try register(a)
    let bID = try register(b)
    _ = a.daemonCall("BecomeFirstResponder", [.uint32(aID)])
    settle()
    _ = b.daemonCall("BecomeFirstResponder", [.uint32(bID)])
    settle()
    #expect(api.registeredResponders.first?.id == bID)

    // Leaving in the middle of an event: the event moves on at once, not at the deadline.
    b.answer = { _ in nil }
    post(.remoteControlStop)
    settle()
    #expect(b.received == ["stop"] && records().isEmpty)
    b.connection.leave()
    settle()
    #expect(time.now == 50)
    #expect(api.registeredResponders.map(\.id) == [aID])
    #expect(records().first?.subtype == .remoteControlStop)
    post(.remoteControlPlay)
    settle()
    #expect(a.received == ["stop", "play"])
  }

  /// UIKit's rules through the bus (docs/apps.md): `BecomeFirstResponder` is refused when the
  /// application's CanBecomeFirstResponder is false, or when the current first responder's
  /// CanResignFirstResponder is false; `ResignFirstResponder` gives the previous one its place back.
  @Test func becomingAndResigningFirstResponderFollowTheApplicationsFlags() throws {
    let a = try BusApp(on: bus)
    let shy = try BusApp(on: bus, path: "/shy", canBecome: false)
    let clingy = try BusApp(on: bus, path: "/clingy", canResign: false)
    let aID = try register(a)
    let shyID = try register(shy)
    let clingyID = try register(clingy)
    func ask(_ app: BusApp, _ method: String, _ id: UInt32) -> [DBusValue]? {
      let reply = app.daemonCall(method, [.uint32(id)])
      settle()
      return try? reply()?.get()
    }
    func firstToReceive() -> String? {
      post(.remoteControlPlay)
      settle()
      return records().last?.receivedBy.first
    }
    let names = Dictionary(uniqueKeysWithValues: api.registeredResponders.map { ($0.id, $0.name) })

    #expect(ask(shy, "BecomeFirstResponder", shyID) == [.bool(false)])
    #expect(ask(a, "BecomeFirstResponder", aID) == [.bool(true)])
    #expect(firstToReceive() == names[aID])
    #expect(ask(clingy, "BecomeFirstResponder", clingyID) == [.bool(true)])
    #expect(firstToReceive() == names[clingyID])
    // The first responder cannot resign: nobody takes its place, and it cannot give it up.
    #expect(ask(a, "BecomeFirstResponder", aID) == [.bool(false)])
    #expect(ask(clingy, "ResignFirstResponder", clingyID) == [.bool(false)])
    #expect(firstToReceive() == names[clingyID])

    clingy.connection.leave()
    settle()
    #expect(firstToReceive() == names[aID], "the previous first responder is first again")
    #expect(ask(a, "ResignFirstResponder", aID) == [.bool(true)])
    #expect(firstToReceive() != names[aID])
  }

  /// D-Bus callers are checked (docs/apps.md): every method of the daemon's interface, and
  /// its properties, answer another user AccessDenied and do nothing for it; a connection of the
  /// same user may not act on a responder another connection registered.
  @Test func anotherUserIsRefusedEveryMethodAndPropertyAndOnlyTheOwnerActsOnAResponder() throws {
    let app = try BusApp(on: bus)
    let id = try register(app)
    let stranger = try BusApp(on: bus, uid: getuid() &+ 1, path: "/stranger")
    let properties = "org.freedesktop.DBus.Properties"
    let calls: [(String, [DBusValue], String)] = [
      (
        "RegisterResponder", [.objectPath("/stranger"), ["remoteControl"].dbusValue],
        ResponderBusAPI.daemonInterface
      ),
      ("UnregisterResponder", [.uint32(id)], ResponderBusAPI.daemonInterface),
      ("BecomeFirstResponder", [.uint32(id)], ResponderBusAPI.daemonInterface),
      ("ResignFirstResponder", [.uint32(id)], ResponderBusAPI.daemonInterface),
      ("SetActive", [.uint32(id), .bool(true)], ResponderBusAPI.daemonInterface),
      ("WatchEvents", [], ResponderBusAPI.daemonInterface),
      ("UnwatchEvents", [], ResponderBusAPI.daemonInterface),
      ("SendEvent", ["remoteControl", "play", ""], ResponderBusAPI.daemonInterface),
      ("Get", [.string(ResponderBusAPI.daemonInterface), .string("FirstResponder")], properties),
      ("GetAll", [.string(ResponderBusAPI.daemonInterface)], properties),
    ]
    for (method, arguments, interface) in calls {
      var result: Result<[DBusValue], DBusError>?
      stranger.connection.call(
        destination: ResponderBusAPI.daemonName, path: ResponderBusAPI.daemonPath, interface: interface,
        method: method, arguments: arguments, timeout: 5
      ) { result = $0 }
      settle()
      guard case .failure(let error)? = result else {
        Issue.record("\(method): \(String(describing: result))")
        continue
      }
      #expect(error.name == DBusError.Name.accessDenied, "\(method): \(error)")
    }
    #expect(api.registeredResponders.map(\.id) == [id])
    #expect(stranger.received.isEmpty && records().isEmpty, "nothing was sent or dispatched for it")

    // The same user, another connection: it may not act on the app's responder.
    let other = try BusApp(on: bus, path: "/other")
    for method in ["BecomeFirstResponder", "ResignFirstResponder", "UnregisterResponder"] {
      let reply = other.daemonCall(method, [.uint32(id)])
      settle()
      guard case .failure(let error)? = reply() else {
        Issue.record("\(method): \(String(describing: reply()))")
        continue
      }
      #expect(error.name == ResponderBusAPI.ErrorName.notOwner, "\(method): \(error)")
    }
    #expect(api.registeredResponders.map(\.id) == [id])
  }
}
