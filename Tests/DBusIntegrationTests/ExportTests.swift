import DBus
import DBusTestSupport
import EventLoop
import ResponderdTestKit
import Testing

/// A player-like object: read-only, read-write, typed and untyped properties.
final class PlayerModel {
  var status = "Paused"
  var volume = 0.5
  var loopStatus = "None"
  var identity = "Test Player"

  func interface() -> DBusInterface {
    DBusInterface(
      "org.responderd.Test.Player",
      methods: [
        DBusMethod("PlayPause") { [unowned self] _ in
          status = status == "Playing" ? "Paused" : "Playing"
          return []
        }
      ],
      properties: [
        DBusProperty("PlaybackStatus", get: { [unowned self] in status }),
        DBusProperty("Volume", get: { [unowned self] in volume }, set: { [unowned self] in volume = $0 }),
        DBusProperty(
          "LoopStatus", signature: "s", get: { [unowned self] in .string(loopStatus) },
          set: { [unowned self] value in
            guard let text = value.string, ["None", "Track", "Playlist"].contains(text) else {
              throw DBusError.invalidArgs("LoopStatus must be None, Track or Playlist")
            }
            loopStatus = text
          }),
        DBusProperty("Identity", changeSignal: .constant, get: { [unowned self] in identity }),
        DBusProperty("Tracks", changeSignal: .invalidates, get: { ["/t/1", "/t/2"] as [String] }),
      ],
      signals: [DBusSignalInfo("Seeked", signature: "x", argumentNames: ["Position"])])
  }
}

@Suite struct ExportTests {
  let path = "/org/responderd/Test/Player"
  let interfaceName = "org.responderd.Test.Player"

  @Test func introspectionDescribesTheObjectAndItsChildren() throws {
    let fixture = try BusFixture()
    let model = PlayerModel()
    try fixture.server.export(path: path, interfaces: [model.interface(), echoInterface()])
    let name = fixture.server.uniqueName!
    let xml =
      try fixture.client.callAndWait(
        destination: name, path: path, interface: "org.freedesktop.DBus.Introspectable", method: "Introspect",
        timeout: 5
      ).first?.string ?? ""
    #expect(xml.hasPrefix("<!DOCTYPE node PUBLIC"))
    #expect(xml.contains("<interface name=\"org.freedesktop.DBus.Properties\">"))
    #expect(xml.contains("<interface name=\"org.responderd.Test.Player\">"))
    #expect(xml.contains("<method name=\"PlayPause\"/>"))
    #expect(
      xml.contains(
        "<method name=\"Add\">\n      <arg name=\"a\" type=\"i\" direction=\"in\"/>\n      <arg name=\"b\" type=\"i\" direction=\"in\"/>\n      <arg name=\"sum\" type=\"i\" direction=\"out\"/>\n    </method>"
      ))
    #expect(xml.contains("<property name=\"Volume\" type=\"d\" access=\"readwrite\"/>"))
    #expect(xml.contains("<property name=\"PlaybackStatus\" type=\"s\" access=\"read\"/>"))
    #expect(
      xml.contains(
        "<property name=\"Identity\" type=\"s\" access=\"read\">\n      <annotation name=\"org.freedesktop.DBus.Property.EmitsChangedSignal\" value=\"const\"/>"
      ))
    #expect(xml.contains("<signal name=\"Seeked\">\n      <arg name=\"Position\" type=\"x\"/>"))

    // Parents list their children, so tools can walk the tree.
    for (parent, child) in [("/", "org"), ("/org/responderd", "Test"), ("/org/responderd/Test", "Player")] {
      let parentXML =
        try fixture.client.callAndWait(
          destination: name, path: parent, interface: "org.freedesktop.DBus.Introspectable",
          method: "Introspect",
          timeout: 5
        ).first?.string ?? ""
      #expect(parentXML.contains("<node name=\"\(child)\"/>"), "\(parent): \(parentXML)")
    }

    // An independent parser (busctl, from systemd) reads it.
    let busctl = try fixture.run(["busctl", "--user", "introspect", "--no-pager", name, path])
    #expect(busctl.exitCode == 0, "\(busctl)")
    #expect(busctl.output.contains(".Volume") && busctl.output.contains("property  d"), "\(busctl.output)")
    #expect(busctl.output.contains(".Add") && busctl.output.contains("method    ii"), "\(busctl.output)")
  }

  @Test func propertiesGetGetAllSet() throws {
    let fixture = try BusFixture()
    let model = PlayerModel()
    try fixture.server.export(path: path, interfaces: [model.interface()])
    let name = fixture.server.uniqueName!
    func properties(_ method: String, _ arguments: [DBusValue]) throws -> Result<[DBusValue], DBusError> {
      try callResult(
        fixture.client, destination: name, path: path, interface: "org.freedesktop.DBus.Properties",
        method: method, arguments)
    }

    #expect(try properties("Get", [.string(interfaceName), "PlaybackStatus"]).get() == [.variant("Paused")])
    let all = try properties("GetAll", [.string(interfaceName)]).get().first?.dictionary
    #expect(
      all == [
        "PlaybackStatus": "Paused", "Volume": .double(0.5), "LoopStatus": "None", "Identity": "Test Player",
        "Tracks": ["/t/1", "/t/2"].dbusValue,
      ])

    #expect(try properties("Set", [.string(interfaceName), "Volume", .variant(.double(0.25))]).get() == [])
    #expect(model.volume == 0.25)
    #expect(try properties("Set", [.string(interfaceName), "LoopStatus", .variant("Track")]).get() == [])
    #expect(model.loopStatus == "Track")

    // Errors a client can act on.
    func error(_ method: String, _ arguments: [DBusValue]) throws -> DBusError {
      guard case .failure(let error) = try properties(method, arguments) else {
        throw TestSupportError("\(method) \(arguments) succeeded")
      }
      return error
    }
    let readOnly = try error("Set", [.string(interfaceName), "PlaybackStatus", .variant("Playing")])
    #expect(readOnly.name == DBusError.Name.propertyReadOnly)
    let wrongType = try error("Set", [.string(interfaceName), "Volume", .variant("loud")])
    #expect(wrongType.name == DBusError.Name.invalidArgs)
    #expect(wrongType.message.contains("'d'") && wrongType.message.contains("'s'"), "\(wrongType)")
    let refused = try error("Set", [.string(interfaceName), "LoopStatus", .variant("Forever")])
    #expect(refused.name == DBusError.Name.invalidArgs)
    #expect(model.loopStatus == "Track")
    let unknownProperty = try error("Get", [.string(interfaceName), "Nope"])
    #expect(unknownProperty.name == DBusError.Name.unknownProperty)
    let unknownInterface = try error("GetAll", ["org.example.Nope"])
    #expect(unknownInterface.name == DBusError.Name.unknownInterface)
    let badArguments = try error("Get", [.string(interfaceName)])
    #expect(badArguments.name == DBusError.Name.invalidArgs)
    #expect(badArguments.message.contains("'ss'"), "\(badArguments)")
    // Standard interfaces have no properties.
    #expect(try properties("GetAll", ["org.freedesktop.DBus.Introspectable"]).get() == [.vardict([:])])
  }

  /// A flood of odd calls grew the daemon to 134 MB: what one call may bring in is bounded
  /// (elements per array, values, string bytes, nesting), checked before any handler runs.
  @Test func aCallBringingMoreThanTheLimitsIsRefusedBeforeItsHandlerRuns() throws {
    let fixture = try BusFixture()
    let model = PlayerModel()
    var taken: [Int] = []
    try fixture.server.export(
      path: path,
      interfaces: [
        model.interface(),
        DBusInterface(
          "org.responderd.Test.Sink",
          methods: [
            DBusMethod("Take", in: "aas") { call in
              taken.append(call.arguments.first?.elements?.count ?? -1)
              return []
            }
          ]),
      ])
    let name = fixture.server.uniqueName!
    func take(_ value: DBusValue, interface: String = "org.responderd.Test.Sink", method: String = "Take")
      throws -> Result<[DBusValue], DBusError>
    {
      try callResult(
        fixture.client, destination: name, path: path, interface: interface, method: method, [value])
    }
    let limits = DBusDecodingLimits.methodCall
    let small = DBusValue.array(elementSignature: "as", [["a", "b"].dbusValue])
    #expect(try take(small).get() == [])
    let tooMany = DBusValue.array(
      elementSignature: "as",
      [.array(elementSignature: "s", Array(repeating: "x", count: limits.maximumEntries + 1))])
    let tooLong = DBusValue.array(
      elementSignature: "as", [[String(repeating: "y", count: limits.maximumStringBytes + 1)].dbusValue])
    let tooMuch = DBusValue.array(
      elementSignature: "as", Array(repeating: Array(repeating: "z", count: 10_000).dbusValue, count: 7))
    for value in [tooMany, tooLong, tooMuch] {
      guard case .failure(let error) = try take(value) else {
        Issue.record("a call beyond the limits was taken")
        continue
      }
      #expect(error.name == DBusError.Name.invalidArgs)
      #expect(error.message.contains("exceed what one call may bring"), "\(error.message)")
    }
    #expect(taken == [1])
    // Properties.Set too, with a value too deep.
    var deep = DBusValue.array(elementSignature: "s", ["d"])
    for _ in 0..<limits.maximumDepth { deep = .array(elementSignature: deep.signature, [deep]) }
    let set = try callResult(
      fixture.client, destination: name, path: path, interface: "org.freedesktop.DBus.Properties",
      method: "Set",
      [.string(interfaceName), "Volume", .variant(deep)])
    guard case .failure(let error) = set else {
      Issue.record("a Set beyond the limits succeeded")
      return
    }
    #expect(error.message.contains("exceed what one call may bring"), "\(error.message)")
    #expect(model.volume == 0.5)
  }

  @Test func propertiesChangedReachesAnotherConnection() throws {
    let fixture = try BusFixture()
    let model = PlayerModel()
    let object = try fixture.server.export(path: path, interfaces: [model.interface()])
    var changes: [(sender: String?, interface: String, changed: [String: DBusValue], invalidated: [String])] =
      []
    fixture.client.subscribe(
      DBusMatchRule(
        interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged", path: path)
    ) { message in
      let arguments = message.arguments
      changes.append(
        (
          message.sender, arguments[0].string ?? "", arguments[1].dictionary ?? [:],
          arguments[2].stringArray ?? []
        ))
    }
    // The match rule is in place once the bus answered a later call.
    _ = try fixture.client.callAndWait(
      destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
      method: "GetId", timeout: 5)

    model.status = "Playing"
    model.volume = 0.75
    try object.propertiesChanged(
      interface: interfaceName, ["PlaybackStatus", "Volume", "Identity", "Tracks"])
    try waitFor("PropertiesChanged", on: fixture.loop) { !changes.isEmpty }
    #expect(changes.count == 1)
    #expect(changes[0].sender == fixture.server.uniqueName)
    #expect(changes[0].interface == interfaceName)
    #expect(changes[0].changed == ["PlaybackStatus": "Playing", "Volume": .double(0.75)])
    #expect(changes[0].invalidated == ["Tracks"])  // Identity is constant: not signalled

    try object.emitPropertiesChanged(interface: interfaceName, changed: ["Volume": .double(1)])
    try waitFor("the second PropertiesChanged", on: fixture.loop) { changes.count == 2 }
    #expect(changes[1].changed == ["Volume": .double(1)])
  }

  @Test func remotePropertiesThroughTheClientHelpers() throws {
    let fixture = try BusFixture()
    let model = PlayerModel()
    let object = try fixture.server.export(path: path, interfaces: [model.interface()])
    let name = fixture.server.uniqueName!
    var seen: [[String: DBusValue]] = []
    fixture.client.onPropertiesChanged(sender: name, path: path, interface: interfaceName) {
      message, changed, _ in
      #expect(message.sender == name)
      seen.append(changed)
    }
    // Another interface on the same object is filtered out by the arg0 match.
    fixture.client.onPropertiesChanged(interface: "org.example.Other") { _, _, _ in
      Issue.record("PropertiesChanged of another interface delivered")
    }
    try sync(fixture.client)

    var status: DBusValue?
    fixture.client.getProperty("PlaybackStatus", interface: interfaceName, path: path, destination: name) {
      status = try? $0.get()
    }
    var all: [String: DBusValue]?
    fixture.client.getAllProperties(interface: interfaceName, path: path, destination: name) {
      all = try? $0.get()
    }
    var set: Result<Void, DBusError>?
    fixture.client.setProperty(
      "Volume", to: .double(0.125), interface: interfaceName, path: path, destination: name
    ) { set = $0 }
    try waitFor("the three replies", on: fixture.loop) { status != nil && all != nil && set != nil }
    #expect(status == "Paused")
    #expect(all?["Volume"] == .double(0.5))
    #expect(model.volume == 0.125)
    try object.propertiesChanged(interface: interfaceName, ["Volume"])
    try waitFor("PropertiesChanged", on: fixture.loop) { !seen.isEmpty }
    #expect(seen == [["Volume": .double(0.125)]])
  }

  @Test func unknownMethodsInterfacesObjectsAndWrongArgumentsGetClearErrors() throws {
    let fixture = try BusFixture()
    try fixture.server.export(path: "/org/responderd/Test", interfaces: [echoInterface()])
    let name = fixture.server.uniqueName!
    let unknownMethod = try callError(
      fixture.client, destination: name, path: "/org/responderd/Test", interface: "org.responderd.Test",
      method: "Nope")
    #expect(unknownMethod.name == DBusError.Name.unknownMethod)
    #expect(unknownMethod.message.contains("Nope"))
    let unknownInterface = try callError(
      fixture.client, destination: name, path: "/org/responderd/Test", interface: "org.example.Other",
      method: "Echo", [.variant(.int32(1))])
    #expect(unknownInterface.name == DBusError.Name.unknownInterface)
    let unknownObject = try callError(
      fixture.client, destination: name, path: "/elsewhere", interface: "org.responderd.Test", method: "Echo",
      [.variant(.int32(1))])
    #expect(unknownObject.name == DBusError.Name.unknownObject)
    let wrongArguments = try callError(
      fixture.client, destination: name, path: "/org/responderd/Test", interface: "org.responderd.Test",
      method: "Add", [.int32(1), .string("2")])
    #expect(wrongArguments.name == DBusError.Name.invalidArgs)
    #expect(
      wrongArguments.message == "org.responderd.Test.Add expects arguments of signature 'ii', got 'is'")
    // Without an interface the member is looked up in every interface.
    let sum = try fixture.client.callAndWait(
      destination: name, path: "/org/responderd/Test", interface: nil, method: "Add",
      arguments: [.int32(1), .int32(2)], timeout: 5)
    #expect(sum == [.int32(3)])
    // Peer is answered by libdbus.
    _ = try fixture.client.callAndWait(
      destination: name, path: "/org/responderd/Test", interface: "org.freedesktop.DBus.Peer", method: "Ping",
      timeout: 5)
  }

  @Test func externalClientsGetErrorsAndTheServiceStaysUp() throws {
    let fixture = try BusFixture()
    try fixture.server.export(path: "/org/responderd/Test", interfaces: [echoInterface()])
    let name = fixture.server.uniqueName!
    let send = ["dbus-send", "--session", "--print-reply", "--dest=\(name)", "/org/responderd/Test"]

    let wrongType = try fixture.run(send + ["org.responderd.Test.Add", "string:1", "int32:2"])
    #expect(wrongType.exitCode != 0)
    #expect(wrongType.output.contains("Error org.freedesktop.DBus.Error.InvalidArgs"), "\(wrongType)")
    #expect(wrongType.output.contains("'ii'"), "\(wrongType)")

    let unknown = try fixture.run(send + ["org.responderd.Test.Launch"])
    #expect(unknown.output.contains("Error org.freedesktop.DBus.Error.UnknownMethod"), "\(unknown)")

    let busctl = try fixture.run([
      "busctl", "--user", "call", name, "/org/responderd/Test", "org.responderd.Test", "Echo", "s", "x",
    ])
    #expect(busctl.exitCode != 0)
    #expect(busctl.output.contains("expects arguments of signature 'v', got 's'"), "\(busctl)")

    let good = try fixture.run(send + ["org.responderd.Test.Add", "int32:20", "int32:22"])
    #expect(good.exitCode == 0, "\(good)")
    #expect(good.output.contains("int32 42"), "\(good)")
    let viaBusctl = try fixture.run([
      "busctl", "--user", "call", name, "/org/responderd/Test", "org.responderd.Test", "Echo", "v", "as", "2",
      "a",
      "b",
    ])
    #expect(viaBusctl.output.trimmingSpaces == "v as 2 \"a\" \"b\"", "\(viaBusctl)")
  }

  @Test func exportingTwiceOrInvalidDescriptionsThrow() throws {
    let fixture = try BusFixture()
    let object = try fixture.server.export(path: "/a", interfaces: [echoInterface()])
    #expect(throws: DBusError.self) { try fixture.server.export(path: "/a", interfaces: []) }
    #expect(throws: DBusError.self) { try fixture.server.export(path: "a", interfaces: []) }
    #expect(throws: DBusError.self) {
      try fixture.server.export(path: "/b", interfaces: [DBusInterface("bad name")])
    }
    #expect(throws: DBusError.self) {
      try fixture.server.export(
        path: "/b",
        interfaces: [DBusInterface("org.example.A", methods: [DBusMethod("M", in: "a") { _ in [] }])])
    }
    object.unexport()
    let error = try callError(
      fixture.client, destination: fixture.server.uniqueName!, path: "/a", interface: "org.responderd.Test",
      method: "Echo", [.variant(.int32(1))])
    #expect(error.name == DBusError.Name.unknownObject)
    try fixture.server.export(path: "/a", interfaces: [])
  }
}

extension String {
  var trimmingSpaces: String {
    var text = Substring(self)
    while let first = text.first, first.isWhitespace { text.removeFirst() }
    while let last = text.last, last.isWhitespace { text.removeLast() }
    return String(text)
  }
}
