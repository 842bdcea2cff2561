import DBus
import Glibc
import ResponderdTestKit
import Testing

@Suite struct ValueTests {
  @Test func signaturesAreComputed() {
    #expect(DBusValue.string("x").signature == "s")
    #expect(DBusValue.array(elementSignature: "s", []).signature == "as")
    #expect(DBusValue.vardict([:]).signature == "a{sv}")
    #expect(DBusValue.structure([.int32(1), .array(elementSignature: "y", [])]).signature == "(iay)")
    #expect(DBusValue.variant(.uint64(1)).signature == "v")
    #expect([DBusValue.string("a"), .int32(1)].signature == "si")
    #expect(sampleValues.signature == "ybnqiuxtdsogav(is)a{sv}")
    #expect(DBusValue([String: [Int32]]()).signature == "a{sai}")
  }

  @Test func signaturesSplitIntoCompleteTypes() {
    #expect(DBusSignature.split("sa{sv}(ii)aai") == ["s", "a{sv}", "(ii)", "aai"])
    #expect(DBusSignature.split("") == [])
    #expect(DBusSignature.split("a") == nil)
    #expect(DBusSignature.split("a{vs}") == nil)  // a variant cannot be a key
    #expect(DBusSignature.split("()") == nil)
    #expect(DBusSignature.split("(i") == nil)
    #expect(DBusSignature.split("z") == nil)
    #expect(DBusSignature.isSingleCompleteType("a{sa{sv}}"))
    #expect(!DBusSignature.isSingleCompleteType("ii"))
  }

  @Test func invalidValuesAreRefusedBeforeLibdbusSeesThem() throws {
    let bad: [DBusValue] = [
      .objectPath("not/a/path"), .objectPath("/trailing/"), .signature("a{vs}"),
      .array(elementSignature: "s", [.int32(1)]), .structure([]),
      .dict(keySignature: "v", valueSignature: "s", []),
      .dict(keySignature: "s", valueSignature: "v", [(key: .string("k"), value: .string("not a variant"))]),
      .string("nul\0inside"),
    ]
    for value in bad {
      #expect(throws: DBusError.self, "\(value) should be refused") { try value.validate() }
      let message = try DBusMessage.methodCall(
        destination: "org.example.A", path: "/a", interface: "org.example.A", method: "M")
      #expect(throws: DBusError.self) { try message.append([value]) }
      #expect(message.signature == "")
    }
  }

  @Test func invalidNamesAreRefused() {
    #expect(throws: DBusError.self) {
      try DBusMessage.methodCall(destination: "org.example.A", path: "bad", interface: nil, method: "M")
    }
    #expect(throws: DBusError.self) {
      try DBusMessage.methodCall(destination: "org..A", path: "/a", interface: nil, method: "M")
    }
    #expect(throws: DBusError.self) {
      try DBusMessage.methodCall(destination: "org.example.A", path: "/a", interface: "noDots", method: "M")
    }
    #expect(throws: DBusError.self) {
      try DBusMessage.signal(path: "/a", interface: "org.example.A", name: "Bad-Member")
    }
    let error = #expect(throws: DBusError.self) {
      try DBusMessage.methodCall(destination: "org.example.A", path: "/a/", interface: nil, method: "M")
    }
    #expect(error?.name == DBusError.Name.invalidArgs)
    #expect(error?.message.contains("/a/") == true)
  }

  @Test func messagesRoundTripEveryType() throws {
    let message = try DBusMessage.methodCall(
      destination: "org.example.A", path: "/a", interface: "org.example.A", method: "M",
      arguments: sampleValues)
    #expect(message.signature == sampleValues.signature)
    #expect(message.arguments == sampleValues)
    #expect(message.member == "M")
    #expect(message.interface == "org.example.A")
    #expect(message.path == "/a")
    #expect(message.destination == "org.example.A")
    #expect(message.kind == .methodCall)
  }

  @Test func messagesReadBackFromTheirWireForm() throws {
    let message = try DBusMessage.methodCall(
      destination: "org.example.A", path: "/a", interface: "org.example.A", method: "M",
      arguments: sampleValues)
    message.stamp(sender: ":1.5", serial: 7)  // a message on the wire has a serial
    let copy = try DBusMessage.demarshal(message.marshalled)
    #expect(copy.arguments == sampleValues)
    #expect(copy.member == "M")
    #expect(copy.destination == "org.example.A")
    #expect(copy.sender == ":1.5")
  }

  /// A message written by another encoder (Fuzz/Seeds/make-dbus-seeds.py, the D-Bus value fuzzer's
  /// seed) reads as the values it was written with.
  @Test func aMessageEncodedElsewhereIsRead() throws {
    let seed = try readFixture("Fuzz/Seeds/dbus/every-basic-type.bin")
    let message = try DBusMessage.demarshal(seed)
    #expect(message.kind == .methodCall)
    #expect(message.path == "/org/responderd/Test")
    #expect(
      message.arguments == [
        .byte(0xFE), .bool(true), .int16(-12345), .uint16(54321), .int32(-2_000_000_000),
        .uint32(4_000_000_000), .int64(Int64.min), .uint64(UInt64.max), .double(-1.5e300),
        .string("héllo wörld ✓"), .objectPath("/org/responderd/Test"), .signature("a{sv}(ii)"),
      ])
  }

  @Test func bytesThatAreNotOneMessageAreRefused() throws {
    let message = try DBusMessage.signal(
      path: "/a", interface: "org.example.A", name: "S", arguments: [.string("text")])
    message.stamp(sender: ":1.5", serial: 7)
    let bytes = message.marshalled
    #expect(try DBusMessage.demarshal(bytes).arguments == [.string("text")])
    #expect(throws: DBusError.self) { try DBusMessage.demarshal([]) }
    #expect(throws: DBusError.self) { try DBusMessage.demarshal(Array(bytes.dropLast())) }
    #expect(throws: DBusError.self) { try DBusMessage.demarshal([UInt8](repeating: 0x6C, count: 64)) }
    var badString = bytes
    badString[badString.count - 1] = 0x41  // the string's terminating NUL
    #expect(throws: DBusError.self) { try DBusMessage.demarshal(badString) }
  }

  @Test func swiftConversions() {
    let dict: [String: DBusValue] = ["a": .int32(1), "b": .string("x")]
    let value = DBusValue(dict)
    #expect(value.signature == "a{sv}")
    #expect(value.dictionary == dict)
    #expect(value.dictionary?["a"]?.int64 == 1)
    #expect(DBusValue(["x", "y"]).stringArray == ["x", "y"])
    #expect(DBusValue.variant(.variant(.string("deep"))).string == "deep")
    #expect(DBusValue.int32(5).double == 5)  // players sometimes send integers for doubles
    #expect(DBusValue.int64(1 << 40).int32 == nil)  // does not fit
    #expect(DBusValue.uint32(7).int64 == 7)
    #expect(DBusValue.string("x").bool == nil)
    #expect(DBusValue.bool(true).as(Bool.self) == true)
    #expect(DBusValue.objectPath("/a").as(DBusObjectPath.self) == "/a")
    #expect([String: DBusValue](dbusValue: .array(elementSignature: "s", [])) == nil)
    let nested: [String: [String: Int32]] = ["outer": ["inner": 3]]
    #expect([String: [String: Int32]](dbusValue: DBusValue(nested)) == nested)
    #expect(DBusValue("text") == .string("text"))
    #expect(DBusValue.vardict(["k": true]).description == "{'k': <true>}")
  }

  @Test func typedArgumentAccess() throws {
    let arguments: [DBusValue] = [.objectPath("/app"), DBusValue(["motion", "remoteControl"]), .uint32(7)]
    let path: DBusObjectPath = try arguments.value(at: 0)
    #expect(path == "/app")
    #expect(try arguments.value(at: 1, as: [String].self) == ["motion", "remoteControl"])
    #expect(try arguments.value(at: 2, as: UInt32.self) == 7)
    let wrong = #expect(throws: DBusError.self) { try arguments.value(at: 0, as: String.self) }
    #expect(wrong?.message == "argument 0 is 'o', expected 's'")
    #expect(throws: DBusError.self) { try arguments.value(at: 3, as: String.self) }
  }

  @Test func valuesAreHashable() {
    let set: Set<DBusValue> = [
      .vardict(["a": .int32(1)]), .vardict(["a": .int32(1)]), .vardict(["a": .int32(2)]),
    ]
    #expect(set.count == 2)
    #expect(DBusValue.int32(1) != DBusValue.uint32(1))
    #expect(DBusValue.array(elementSignature: "s", []) != DBusValue.array(elementSignature: "i", []))
  }

  @Test func aPropertiesChangedSignalIsReadWithOnlyTheWantedValuesDecoded() throws {
    let metadata = DBusValue.vardict(["xesam:title": .string("Song"), "xesam:artist": ["A"].dbusValue])
    let message = try DBusMessage.signal(
      path: "/org/mpris/MediaPlayer2", interface: "org.freedesktop.DBus.Properties",
      name: "PropertiesChanged",
      arguments: [
        .string("org.mpris.MediaPlayer2.Player"),
        .vardict(["Metadata": metadata, "PlaybackStatus": .string("Playing"), "Position": .int64(5)]),
        ["Volume"].dbusValue,
      ])
    var asked: [String] = []
    let change = try #require(
      message.readPropertiesChanged { interface, name in
        asked.append("\(interface) \(name)")
        return name == "PlaybackStatus"
      })
    #expect(change.interface == "org.mpris.MediaPlayer2.Player")
    #expect(change.changed == ["PlaybackStatus": .string("Playing")])
    #expect(change.unread == ["Metadata", "Position"])
    #expect(change.invalidated == ["Volume"])
    #expect(asked.count == 3)

    let everything = try #require(message.readPropertiesChanged { _, _ in true })
    #expect(everything.changed == ["Metadata": metadata, "PlaybackStatus": "Playing", "Position": .int64(5)])
    #expect(everything.unread.isEmpty)

    let other = try DBusMessage.signal(
      path: "/a", interface: "org.freedesktop.DBus.Properties", name: "PropertiesChanged",
      arguments: [.string("x.Y")])
    #expect(other.readPropertiesChanged { _, _ in true } == nil)
  }

  @Test func thePropertyNamesOfAPropertiesChangedSignalAreReadWithoutItsValues() throws {
    func signal(_ interface: String, _ changed: [String: DBusValue], invalidated: [String] = []) throws
      -> DBusMessage
    {
      try DBusMessage.signal(
        path: "/org/mpris/MediaPlayer2", interface: "org.freedesktop.DBus.Properties",
        name: "PropertiesChanged", arguments: [.string(interface), .vardict(changed), invalidated.dbusValue])
    }
    let player = "org.mpris.MediaPlayer2.Player"
    let metadata = DBusValue.vardict(["xesam:title": .string("Song"), "xesam:artist": ["A"].dbusValue])
    let chatty = try signal(player, ["Metadata": metadata, "Position": .int64(5)])
    let names = try #require(chatty.changedPropertyNames(ofInterface: player, most: 64, longest: 100))
    #expect(Set(names) == ["Metadata", "Position"])
    // In message order, as `readPropertiesChanged` names them.
    #expect(names == chatty.readPropertiesChanged { _, _ in false }?.unread)

    // Anything else is for the full reading: another interface, names invalidated, too many
    // names or too long a name, another signature.
    #expect(chatty.changedPropertyNames(ofInterface: "org.mpris.MediaPlayer2", most: 64, longest: 100) == nil)
    let invalidating = try signal(player, ["Position": .int64(5)], invalidated: ["Metadata"])
    #expect(invalidating.changedPropertyNames(ofInterface: player, most: 64, longest: 100) == nil)
    #expect(chatty.changedPropertyNames(ofInterface: player, most: 1, longest: 100) == nil)
    #expect(chatty.changedPropertyNames(ofInterface: player, most: 64, longest: 7) == nil)
    let other = try DBusMessage.signal(
      path: "/a", interface: "org.freedesktop.DBus.Properties", name: "PropertiesChanged",
      arguments: [.string(player)])
    #expect(other.changedPropertyNames(ofInterface: player, most: 64, longest: 100) == nil)

    // The same question asked with the names expected: the same names in the same order only.
    #expect(chatty.changesExactly(names, ofInterface: player))
    #expect(!chatty.changesExactly(names.reversed(), ofInterface: player))
    #expect(!chatty.changesExactly(Array(names.prefix(1)), ofInterface: player))
    #expect(!chatty.changesExactly(names + ["Rate"], ofInterface: player))
    #expect(!chatty.changesExactly(names, ofInterface: "org.mpris.MediaPlayer2"))
    #expect(!invalidating.changesExactly(["Position"], ofInterface: player))
    #expect(!other.changesExactly([], ofInterface: player))
    #expect(try signal(player, [:]).changesExactly([], ofInterface: player))
  }

  @Test func valuesAreReadWithinLimitsAndWhatIsCutIsSaid() throws {
    let limits = DBusDecodingLimits(maximumEntries: 3, maximumStringBytes: 10, maximumDepth: 2)
    // "é" is 2 bytes: the cut never splits it.
    let long = String(repeating: "é", count: 100)
    let message = try DBusMessage.signal(
      path: "/a", interface: "a.B", name: "C",
      arguments: [
        .string(long), .string("short"), (0..<1000).map { "\($0)" }.dbusValue,
        .vardict(["a": .int32(1), "b": .int32(2), "c": .int32(3), "d": .int32(4)]),
        .array(elementSignature: "aas", [.array(elementSignature: "as", [["deep"].dbusValue])]),
        .objectPath("/" + String(repeating: "p", count: 50)),
      ])
    let (values, exceeded) = message.arguments(within: limits)
    #expect(exceeded)
    #expect(values.count == 6)
    #expect(values[0] == .string("ééé…"))
    #expect(values[1] == .string("short"))
    #expect(values[2] == ["0", "1", "2"].dbusValue)
    #expect(values[3].dictionary?.count == 3)
    // Two levels of containers kept; the third is there, empty.
    #expect(
      values[4]
        == .array(
          elementSignature: "aas", [.array(elementSignature: "as", [.array(elementSignature: "s", [])])]))
    #expect(values[5] == .objectPath("/"))
    for value in values { try value.validate() }

    let small = try DBusMessage.signal(
      path: "/a", interface: "a.B", name: "C", arguments: [.string("fits"), ["a", "b"].dbusValue])
    let read = small.arguments(within: limits)
    #expect(!read.exceededLimits)
    #expect(read.values == small.arguments)

    // A signal's dictionary of 1000 properties: the first 3 are looked at, no more.
    let change = try DBusMessage.signal(
      path: "/a", interface: "org.freedesktop.DBus.Properties", name: "PropertiesChanged",
      arguments: [
        .string("x.Y"),
        .vardict(Dictionary(uniqueKeysWithValues: (0..<1000).map { ("p\($0)", .string(long)) })),
        (0..<1000).map { "i\($0)" }.dbusValue,
      ])
    var asked = 0
    let cut = try #require(
      change.readPropertiesChanged(limits: limits) { _, _ in
        asked += 1
        return true
      })
    #expect(asked == 3 && cut.changed.count == 3 && cut.invalidated.count == 3 && cut.exceededLimits)
    #expect(cut.changed.values.allSatisfy { $0 == .string("ééé…") })
  }
}

/// The bytes of a file of the repository (`path` relative to its root).
func readFixture(_ path: String) throws -> [UInt8] {
  var root = #filePath
  for _ in 0..<3 { root = String(root[..<(root.lastIndex(of: "/") ?? root.startIndex)]) }
  guard let file = fopen(root + "/" + path, "rb") else { throw DBusError.failed("cannot open \(path)") }
  defer { fclose(file) }
  var bytes: [UInt8] = []
  var buffer = [UInt8](repeating: 0, count: 4096)
  while true {
    let count = fread(&buffer, 1, buffer.count, file)
    if count == 0 { break }
    bytes += buffer[0..<count]
  }
  return bytes
}
