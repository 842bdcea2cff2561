import DBus

/// `org.responderd.Test`, an interface for bus tests: `Echo` and `EchoAll` answer their arguments,
/// `Add` adds two integers, `Fail` fails with `org.responderd.Test.Error.Refused`; the signal
/// `Pinged` carries a text.
public func echoInterface() -> DBusInterface {
  DBusInterface(
    "org.responderd.Test",
    methods: [
      DBusMethod("Echo", in: "v", out: "v", inNames: ["value"], outNames: ["value"]) { call in call.arguments
      },
      DBusMethod("EchoAll", in: "ybnqiuxtdsogav(is)a{sv}", out: "ybnqiuxtdsogav(is)a{sv}") { call in
        call.arguments
      },
      DBusMethod("Add", in: "ii", out: "i", inNames: ["a", "b"], outNames: ["sum"]) { call in
        [.int32((call.arguments[0].int32 ?? 0) &+ (call.arguments[1].int32 ?? 0))]
      },
      DBusMethod("Fail", in: "s") { call in
        throw DBusError("org.responderd.Test.Error.Refused", call.arguments[0].string ?? "")
      },
    ],
    signals: [DBusSignalInfo("Pinged", signature: "s", argumentNames: ["text"])])
}

/// Every kind of value, nested, for round trips (the signature `EchoAll` of `echoInterface()`
/// takes).
public let sampleValues: [DBusValue] = [
  .byte(0xFE), .bool(true), .int16(-12345), .uint16(54321), .int32(-2_000_000_000), .uint32(4_000_000_000),
  .int64(Int64.min), .uint64(UInt64.max), .double(-1.5e300), .string("héllo wörld ✓"),
  .objectPath("/org/responderd/Test"), .signature("a{sv}(ii)"),
  .array(elementSignature: "v", [.variant(.int32(1)), .variant(.string("two"))]),
  .structure([.int32(7), .string("seven")]),
  .vardict([
    "PlaybackStatus": .string("Playing"), "Position": .int64(123_456),
    "Metadata": .vardict(["xesam:title": .string("Song"), "xesam:artist": ["A", "B"].dbusValue]),
    "Empty": .array(elementSignature: "s", []),
  ]),
]
