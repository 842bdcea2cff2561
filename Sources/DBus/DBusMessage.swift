internal import CDBus
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// A D-Bus message (method call, reply, error or signal), owning a libdbus message.
///
/// Build one with `methodCall`, `signal`, `makeReply` or `makeError`; read its header fields
/// and typed `arguments`.
public final class DBusMessage: CustomStringConvertible {
  /// The four kinds of message.
  public enum Kind: Int32, Sendable, CustomStringConvertible {
    case methodCall = 1
    case methodReturn = 2
    case error = 3
    case signal = 4

    /// The kind as libdbus and match rules spell it ("method_call", "signal").
    public var description: String { String(cString: dbus_message_type_to_string(rawValue)) }
  }

  let raw: OpaquePointer
  private var cachedArguments: [DBusValue]?
  /// `sender`, once read (asked of every signal by each subscription and handler).
  private var cachedSender: String??
  /// How many more values the bounded read under way may decode (`maximumValues`).
  private var valuesLeft = Int.max
  /// The descriptors reading the arguments made (libdbus hands out a duplicate each time).
  private var readDescriptors: [Int32] = []
  /// Set by the handler of a signal that made nothing of it (a chatty player's signal dropped
  /// unread): when every message a connection reads in a turn is so marked, it leaves the bus
  /// unread for `DBusConnection.batchingDelay`, so that such signals cost a wake-up per batch
  /// rather than one each.
  public var couldWait: Bool {
    get { couldWaitStorage }
    set { couldWaitStorage = newValue }
  }
  /// Private (and `cachedSender` changed with a swap): every signal's accesses to them are proven
  /// exclusive when compiled, with no run-time check.
  private var couldWaitStorage = false

  /// Takes over one reference to `raw`.
  init(owning raw: OpaquePointer) { self.raw = raw }

  /// Adds a reference to `raw`.
  init(retaining raw: OpaquePointer) { self.raw = dbus_message_ref(raw) }

  /// A method call's or signal's descriptors are the message's: closed with it, whoever handled
  /// or refused it (a handler keeping one duplicates it). A reply's are the caller's to close.
  deinit {
    if kind == .methodCall || kind == .signal {
      for fd in readDescriptors { close(fd) }
    }
    dbus_message_unref(raw)
  }

  // MARK: Building

  /// A method call; `interface` may be nil (the peer then looks the member up in all interfaces).
  public static func methodCall(
    destination: String?, path: String, interface: String?, method: String, arguments: [DBusValue] = []
  ) throws(DBusError) -> DBusMessage {
    if let destination { try DBusNames.validateBusName(destination) }
    try DBusNames.validatePath(path)
    if let interface { try DBusNames.validateInterface(interface) }
    try DBusNames.validateMember(method)
    guard
      let raw = withOptionalCString(
        destination,
        {
          destination in
          withOptionalCString(interface) { interface in
            dbus_message_new_method_call(destination, path, interface, method)
          }
        })
    else { throw DBusError.noMemory }
    let message = DBusMessage(owning: raw)
    try message.append(arguments)
    return message
  }

  /// A signal emitted from `path`.
  public static func signal(
    path: String, interface: String, name: String, arguments: [DBusValue] = [], destination: String? = nil
  )
    throws(DBusError) -> DBusMessage
  {
    try DBusNames.validatePath(path)
    try DBusNames.validateInterface(interface)
    try DBusNames.validateMember(name)
    if let destination { try DBusNames.validateBusName(destination) }
    guard let raw = dbus_message_new_signal(path, interface, name) else { throw DBusError.noMemory }
    let message = DBusMessage(owning: raw)
    if let destination, dbus_message_set_destination(raw, destination) == 0 { throw DBusError.noMemory }
    try message.append(arguments)
    return message
  }

  /// A method return answering this method call.
  public func makeReply(_ arguments: [DBusValue] = []) throws(DBusError) -> DBusMessage {
    guard let reply = dbus_message_new_method_return(raw) else { throw DBusError.noMemory }
    let message = DBusMessage(owning: reply)
    try message.append(arguments)
    return message
  }

  /// An error reply answering this method call. An invalid error name becomes `…Error.Failed`.
  public func makeError(_ error: DBusError) -> DBusMessage {
    let name = (try? DBusNames.validateErrorName(error.name)) != nil ? error.name : DBusError.Name.failed
    let text = error.message.utf8.contains(0) ? error.message.replacingAll("\0", with: " ") : error.message
    // Only fails when out of memory.
    return DBusMessage(owning: dbus_message_new_error(raw, name, text)!)
  }

  /// Stamps the header fields a bus daemon fills in: the sender's name, a serial, and for
  /// signals addressed to one connection, the destination (for in-memory buses).
  package func stamp(sender: String, serial: UInt32, destination: String? = nil) {
    _ = dbus_message_set_sender(raw, sender)
    var none: String?? = nil
    swap(&none, &cachedSender)
    dbus_message_set_serial(raw, serial)
    if let destination { _ = dbus_message_set_destination(raw, destination) }
  }

  /// Appends arguments after validating them (libdbus itself aborts the process on bad input).
  public func append(_ values: [DBusValue]) throws(DBusError) {
    guard !values.isEmpty else { return }
    for value in values { try value.validate() }
    guard DBusSignature.isValid(signature + values.signature) else {
      throw .invalidArgs("message signature would be invalid or too long")
    }
    var iter = DBusMessageIter()
    dbus_message_iter_init_append(raw, &iter)
    for value in values {
      guard Self.write(value, into: &iter) else {
        // A descriptor is duplicated into the message: that fails when the process has no
        // descriptor left (EMFILE), which is not "out of memory".
        let code = Errno(rawValue: errno)
        if value.signature.contains("h") {
          throw DBusError.failed("cannot put a file descriptor into the message: dup: \(code)")
        }
        throw DBusError.noMemory
      }
    }
    cachedArguments = nil
  }

  /// A message read back from its wire form (what `marshalled` returns, or bytes off a socket);
  /// throws when the bytes are not one valid message.
  package static func demarshal(_ bytes: [UInt8]) throws(DBusError) -> DBusMessage {
    guard !bytes.isEmpty else { throw .invalidArgs("not a D-Bus message: no bytes") }
    guard bytes.count <= Int(Int32.max) else { throw .invalidArgs("message too long") }
    let raw = try withDBusError { error in
      bytes.withUnsafeBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) { chars in
          chars.baseAddress.flatMap { dbus_message_demarshal($0, Int32(chars.count), error) }
        }
      }
    }
    guard let raw else { throw .invalidArgs("not a D-Bus message") }
    return DBusMessage(owning: raw)
  }

  /// The message in its wire form.
  package var marshalled: [UInt8] {
    var pointer: UnsafeMutablePointer<CChar>?
    var length: Int32 = 0
    guard dbus_message_marshal(raw, &pointer, &length) != 0, let pointer else { return [] }
    defer { dbus_free(pointer) }
    return pointer.withMemoryRebound(to: UInt8.self, capacity: Int(length)) {
      Array(UnsafeBufferPointer(start: $0, count: Int(length)))
    }
  }

  // MARK: Header

  public var kind: Kind { Kind(rawValue: dbus_message_get_type(raw)) ?? .signal }
  public var path: String? { dbus_message_get_path(raw).map { String(cString: $0) } }
  public var interface: String? { dbus_message_get_interface(raw).map { String(cString: $0) } }
  /// Whether the header fields are these (compared in place, without making strings: every
  /// subscription asks this of every signal).
  package func hasInterface(_ name: String) -> Bool { dbus_message_has_interface(raw, name) != 0 }
  package func hasMember(_ name: String) -> Bool { dbus_message_has_member(raw, name) != 0 }
  package func hasPath(_ name: String) -> Bool { dbus_message_has_path(raw, name) != 0 }
  package func hasSender(_ name: String) -> Bool { dbus_message_has_sender(raw, name) != 0 }
  /// The method or signal name.
  public var member: String? { dbus_message_get_member(raw).map { String(cString: $0) } }
  public var errorName: String? { dbus_message_get_error_name(raw).map { String(cString: $0) } }
  public var destination: String? { dbus_message_get_destination(raw).map { String(cString: $0) } }
  /// The unique name of the sender (set by the bus).
  public var sender: String? {
    if let cachedSender { return cachedSender }
    let sender = dbus_message_get_sender(raw).map { String(cString: $0) }
    var read: String?? = .some(sender)
    swap(&read, &cachedSender)
    return sender
  }
  /// The signature of the arguments.
  public var signature: String { dbus_message_get_signature(raw).map { String(cString: $0) } ?? "" }
  public var serial: UInt32 { dbus_message_get_serial(raw) }
  public var replySerial: UInt32 { dbus_message_get_reply_serial(raw) }
  /// Whether the caller asked for no reply (method calls).
  public var noReplyExpected: Bool {
    get { dbus_message_get_no_reply(raw) != 0 }
    set { dbus_message_set_no_reply(raw, newValue ? 1 : 0) }
  }
  /// Whether the bus may start a service to deliver this call (default true).
  public var autoStart: Bool {
    get { dbus_message_get_auto_start(raw) != 0 }
    set { dbus_message_set_auto_start(raw, newValue ? 1 : 0) }
  }

  /// For an error message, the error it carries (first argument as message text).
  public var error: DBusError? {
    guard kind == .error else { return nil }
    return DBusError(errorName ?? DBusError.Name.failed, arguments.first?.string ?? "")
  }

  /// Whether this is the signal `interface.member`.
  public func isSignal(interface: String, member: String) -> Bool {
    dbus_message_is_signal(raw, interface, member) != 0
  }

  /// `isSignal`, `hasSender` and `hasInterface` for names written in the source: their bytes go to
  /// libdbus as they are (a short `String` is copied into an array for each C call).
  package func isSignal(literalInterface interface: StaticString, member: StaticString) -> Bool {
    dbus_message_is_signal(raw, interface.cString, member.cString) != 0
  }
  package func hasSender(literal name: StaticString) -> Bool {
    dbus_message_has_sender(raw, name.cString) != 0
  }
  package func hasInterface(literal name: StaticString) -> Bool {
    dbus_message_has_interface(raw, name.cString) != 0
  }

  /// The arguments, read with their types (cached). A unix fd in a method call or signal is open
  /// while the message lives (duplicate it to keep it); one in a reply is the reader's to close.
  public var arguments: [DBusValue] {
    if let cachedArguments { return cachedArguments }
    var values: [DBusValue] = []
    var iter = DBusMessageIter()
    if dbus_message_iter_init(raw, &iter) != 0 {
      repeat {
        if let value = read(&iter) { values.append(value) }
      } while dbus_message_iter_next(&iter) != 0
    }
    cachedArguments = values
    return values
  }

  /// The argument at `index` when it is a string, read without the others (for match rules'
  /// `argN`).
  package func stringArgument(at index: Int) -> String? {
    if let cachedArguments {
      guard index < cachedArguments.count, case .string(let text) = cachedArguments[index] else { return nil }
      return text
    }
    var iter = DBusMessageIter()
    guard dbus_message_iter_init(raw, &iter) != 0 else { return nil }
    for _ in 0..<index {
      guard dbus_message_iter_next(&iter) != 0 else { return nil }
    }
    guard dbus_message_iter_get_arg_type(&iter) == CDBUS_TYPE_STRING else { return nil }
    return Self.readString(&iter)
  }

  /// Whether the first argument is a string that is `namespace` or a name below it (for match
  /// rules' `arg0namespace`): compared in the message, without making a string of it (every
  /// PropertiesChanged of every player is asked this).
  package func firstArgumentIsName(inNamespace namespace: String) -> Bool {
    if cachedArguments != nil {
      guard let name = stringArgument(at: 0) else { return false }
      return name == namespace || name.hasPrefix(namespace + ".")
    }
    var iter = DBusMessageIter()
    guard dbus_message_iter_init(raw, &iter) != 0, dbus_message_iter_get_arg_type(&iter) == CDBUS_TYPE_STRING,
      let name = cdbus_get_basic(&iter).str
    else { return false }
    return namespace.withCString { prefix in
      let length = strlen(prefix)
      guard strncmp(name, prefix, length) == 0 else { return false }
      return name[length] == 0 || name[length] == CChar(UInt8(ascii: "."))
    }
  }

  /// The arguments of a `PropertiesChanged` signal (`sa{sv}as`), read straight from the message:
  /// only the values of the changed properties `wanted` accepts (by interface and name) are
  /// decoded; the others are named in `unread`. Nil when the signature is not `sa{sv}as`.
  ///
  /// A chatty player (a browser tab) sends its Metadata several times a second: a reader
  /// interested in one property does not pay for decoding the others.
  ///
  /// With `limits`, the values read are cut to them, and so are the lists of names (unread,
  /// invalidated); `exceededLimits` then says whether anything was left out.
  public func readPropertiesChanged(
    limits: DBusDecodingLimits? = nil, wanted: (_ interface: String, _ name: String) -> Bool
  ) -> DBusPropertiesChange? {
    guard dbus_message_has_signature(raw, "sa{sv}as") != 0 else { return nil }
    var iter = DBusMessageIter()
    guard dbus_message_iter_init(raw, &iter) != 0 else { return nil }
    var change = DBusPropertiesChange(interface: Self.readString(&iter))
    dbus_message_iter_next(&iter)
    readPropertyDictionary(&iter, limits: limits, wanted: { wanted(change.interface, $0) }) { name, value in
      if let value { change.changed[name] = value } else { change.unread.append(name) }
    } exceeded: {
      change.exceededLimits = true
    }
    dbus_message_iter_next(&iter)
    var names = DBusMessageIter()
    dbus_message_iter_recurse(&iter, &names)
    let most = limits?.maximumEntries ?? Int.max
    while dbus_message_iter_get_arg_type(&names) == CDBUS_TYPE_STRING {
      guard change.invalidated.count < most else {
        change.exceededLimits = true
        break
      }
      change.invalidated.append(Self.readString(&names, limits: limits, cut: &change.exceededLimits))
      dbus_message_iter_next(&names)
    }
    return change
  }

  /// The names of the properties a `PropertiesChanged` signal (`sa{sv}as`) of `interface`
  /// changes, in message order, read from the header's signature and the dictionary's keys alone:
  /// no value is decoded (a browser tab's Metadata is skipped over). Nil when the signal is of
  /// another interface or signature, invalidates properties, or names more than `most` of them or
  /// one longer than `longest` bytes (read those with `readPropertiesChanged`).
  public func changedPropertyNames(ofInterface interface: String, most: Int, longest: Int) -> [String]? {
    var names: [String] = []
    let complete = forEachChangedPropertyName(ofInterface: interface) { key in
      guard names.count < most, strnlen(key, longest + 1) <= longest else { return false }
      names.append(String(cString: key))
      return true
    }
    return complete ? names : nil
  }

  /// Whether this `PropertiesChanged` signal (`sa{sv}as`) of `interface` changes exactly `names`,
  /// in that order, and invalidates nothing: what `changedPropertyNames` would return, compared
  /// in the message without making a string or an array (a chatty player sends the same names
  /// each time, so its last names are asked first).
  public func changesExactly(_ names: [String], ofInterface interface: String) -> Bool {
    var next = names.startIndex
    let complete = forEachChangedPropertyName(ofInterface: interface) { key in
      guard next < names.endIndex, names[next].withCString({ strcmp($0, key) }) == 0 else { return false }
      next += 1
      return true
    }
    return complete && next == names.endIndex
  }

  /// Hands each changed property's name of a `PropertiesChanged` signal (`sa{sv}as`) of
  /// `interface` to `body` (a C string inside the message; false stops), skipping the values.
  /// Returns whether every name was taken and nothing is invalidated: false for another interface
  /// or signature too.
  private func forEachChangedPropertyName(
    ofInterface interface: String, _ body: (UnsafePointer<CChar>) -> Bool
  ) -> Bool {
    guard dbus_message_has_signature(raw, "sa{sv}as") != 0 else { return false }
    var iter = DBusMessageIter()
    guard dbus_message_iter_init(raw, &iter) != 0,
      let name = cdbus_get_basic(&iter).str,
      interface.withCString({ strcmp($0, name) }) == 0
    else { return false }
    dbus_message_iter_next(&iter)
    var entries = DBusMessageIter()
    dbus_message_iter_recurse(&iter, &entries)
    while dbus_message_iter_get_arg_type(&entries) == CDBUS_TYPE_DICT_ENTRY {
      var entry = DBusMessageIter()
      dbus_message_iter_recurse(&entries, &entry)
      guard let key = cdbus_get_basic(&entry).str, body(key) else { return false }
      dbus_message_iter_next(&entries)
    }
    dbus_message_iter_next(&iter)
    var invalidated = DBusMessageIter()
    dbus_message_iter_recurse(&iter, &invalidated)
    return dbus_message_iter_get_arg_type(&invalidated) == CDBUS_TYPE_INVALID
  }

  /// The properties of a `GetAll` reply (`a{sv}`), read as `readPropertiesChanged` reads a
  /// signal's: only the values `wanted` accepts, within `limits`. Nil when the signature is not
  /// `a{sv}`.
  public func readProperties(
    limits: DBusDecodingLimits? = nil, wanted: (_ name: String) -> Bool
  ) -> DBusPropertyValues? {
    guard dbus_message_has_signature(raw, "a{sv}") != 0 else { return nil }
    var iter = DBusMessageIter()
    guard dbus_message_iter_init(raw, &iter) != 0 else { return nil }
    var result = DBusPropertyValues()
    readPropertyDictionary(&iter, limits: limits, wanted: wanted) { name, value in
      if let value { result.values[name] = value } else { result.unread.append(name) }
    } exceeded: {
      result.exceededLimits = true
    }
    return result
  }

  /// Reads the `a{sv}` at `iter`: each name, and the value (variant removed) of those `wanted`
  /// accepts (nil for the others); at most `limits.maximumEntries` of them.
  private func readPropertyDictionary(
    _ iter: inout DBusMessageIter, limits: DBusDecodingLimits?, wanted: (String) -> Bool,
    each: (String, DBusValue?) -> Void, exceeded: () -> Void
  ) {
    var entries = DBusMessageIter()
    dbus_message_iter_recurse(&iter, &entries)
    var count = 0
    var cut = false
    valuesLeft = limits?.maximumValues ?? .max
    while dbus_message_iter_get_arg_type(&entries) == CDBUS_TYPE_DICT_ENTRY {
      if let limits, count == limits.maximumEntries {
        cut = true
        break
      }
      count += 1
      var entry = DBusMessageIter()
      dbus_message_iter_recurse(&entries, &entry)
      let name = Self.readString(&entry, limits: limits, cut: &cut)
      if wanted(name) {
        dbus_message_iter_next(&entry)
        if let limits {
          var variant = DBusMessageIter()
          dbus_message_iter_recurse(&entry, &variant)
          if let value = readValue(&variant, within: limits, depth: 0, cut: &cut) { each(name, value) }
        } else if let value = read(&entry) {
          each(name, value.unwrapped)
        }
      } else {
        each(name, nil)
      }
      dbus_message_iter_next(&entries)
    }
    if cut { exceeded() }
  }

  /// The arguments, each read within `limits`; `exceededLimits` says whether anything was left
  /// out (when nothing was, they are what `arguments` returns from then on). For a message whose size nobody vouches for: a 400,000-element
  /// array costs the 64 elements kept, not 400,000 strings.
  public func arguments(within limits: DBusDecodingLimits) -> (values: [DBusValue], exceededLimits: Bool) {
    var values: [DBusValue] = []
    var cut = false
    valuesLeft = limits.maximumValues
    var iter = DBusMessageIter()
    if dbus_message_iter_init(raw, &iter) != 0 {
      repeat {
        if let value = readValue(&iter, within: limits, depth: 0, cut: &cut) { values.append(value) }
      } while dbus_message_iter_next(&iter) != 0
    }
    if !cut { cachedArguments = values }
    return (values, cut)
  }

  public var description: String {
    var parts = ["\(kind)"]
    if let sender { parts.append("sender=\(sender)") }
    if let destination { parts.append("destination=\(destination)") }
    if let path { parts.append("path=\(path)") }
    if let interface { parts.append("interface=\(interface)") }
    if let member { parts.append("member=\(member)") }
    if let errorName { parts.append("error=\(errorName)") }
    parts.append("signature='\(signature)'")
    return parts.joined(separator: " ")
  }

  // MARK: Marshalling

  private static func write(_ value: DBusValue, into iter: inout DBusMessageIter) -> Bool {
    func fixed(_ type: Int32, _ basic: DBusBasicValue) -> Bool { cdbus_append_fixed(&iter, type, basic) != 0 }
    switch value {
    case .byte(let v): return fixed(CDBUS_TYPE_BYTE, DBusBasicValue(byt: v))
    case .bool(let v): return fixed(CDBUS_TYPE_BOOLEAN, DBusBasicValue(bool_val: v ? 1 : 0))
    case .int16(let v): return fixed(CDBUS_TYPE_INT16, DBusBasicValue(i16: v))
    case .uint16(let v): return fixed(CDBUS_TYPE_UINT16, DBusBasicValue(u16: v))
    case .int32(let v): return fixed(CDBUS_TYPE_INT32, DBusBasicValue(i32: v))
    case .uint32(let v): return fixed(CDBUS_TYPE_UINT32, DBusBasicValue(u32: v))
    case .int64(let v): return fixed(CDBUS_TYPE_INT64, DBusBasicValue(i64: dbus_int64_t(v)))
    case .uint64(let v): return fixed(CDBUS_TYPE_UINT64, DBusBasicValue(u64: dbus_uint64_t(v)))
    case .double(let v): return fixed(CDBUS_TYPE_DOUBLE, DBusBasicValue(dbl: v))
    case .unixFD(let v): return fixed(CDBUS_TYPE_UNIX_FD, DBusBasicValue(fd: v))
    case .string(let v):
      return v.withCString { cdbus_append_string(&iter, CDBUS_TYPE_STRING, $0) } != 0
    case .objectPath(let v):
      return v.withCString { cdbus_append_string(&iter, CDBUS_TYPE_OBJECT_PATH, $0) } != 0
    case .signature(let v):
      return v.withCString { cdbus_append_string(&iter, CDBUS_TYPE_SIGNATURE, $0) } != 0
    case .array(let element, let values):
      return writeContainer(CDBUS_TYPE_ARRAY, element, into: &iter) { sub in
        values.allSatisfy { write($0, into: &sub) }
      }
    case .dict(let key, let valueSignature, let entries):
      return writeContainer(CDBUS_TYPE_ARRAY, "{" + key + valueSignature + "}", into: &iter) { sub in
        entries.allSatisfy { entry in
          writeContainer(CDBUS_TYPE_DICT_ENTRY, nil, into: &sub) { pair in
            write(entry.key, into: &pair) && write(entry.value, into: &pair)
          }
        }
      }
    case .variant(let inner):
      return writeContainer(CDBUS_TYPE_VARIANT, inner.signature, into: &iter) { sub in
        write(inner, into: &sub)
      }
    case .structure(let fields):
      return writeContainer(CDBUS_TYPE_STRUCT, nil, into: &iter) { sub in
        fields.allSatisfy { write($0, into: &sub) }
      }
    }
  }

  private static func writeContainer(
    _ type: Int32, _ contained: String?, into iter: inout DBusMessageIter,
    _ body: (inout DBusMessageIter) -> Bool
  ) -> Bool {
    var sub = DBusMessageIter()
    let opened = withOptionalCString(contained) { dbus_message_iter_open_container(&iter, type, $0, &sub) }
    guard opened != 0 else { return false }
    guard body(&sub) else {
      dbus_message_iter_abandon_container(&iter, &sub)
      return false
    }
    return dbus_message_iter_close_container(&iter, &sub) != 0
  }

  private func read(_ iter: inout DBusMessageIter) -> DBusValue? {
    let type = dbus_message_iter_get_arg_type(&iter)
    switch type {
    case CDBUS_TYPE_BYTE: return .byte(cdbus_get_basic(&iter).byt)
    case CDBUS_TYPE_BOOLEAN: return .bool(cdbus_get_basic(&iter).bool_val != 0)
    case CDBUS_TYPE_INT16: return .int16(cdbus_get_basic(&iter).i16)
    case CDBUS_TYPE_UINT16: return .uint16(cdbus_get_basic(&iter).u16)
    case CDBUS_TYPE_INT32: return .int32(cdbus_get_basic(&iter).i32)
    case CDBUS_TYPE_UINT32: return .uint32(cdbus_get_basic(&iter).u32)
    case CDBUS_TYPE_INT64: return .int64(Int64(cdbus_get_basic(&iter).i64))
    case CDBUS_TYPE_UINT64: return .uint64(UInt64(cdbus_get_basic(&iter).u64))
    case CDBUS_TYPE_DOUBLE: return .double(cdbus_get_basic(&iter).dbl)
    case CDBUS_TYPE_UNIX_FD:
      let fd = cdbus_get_basic(&iter).fd
      if fd >= 0 { readDescriptors.append(fd) }
      return .unixFD(fd)
    case CDBUS_TYPE_STRING: return .string(Self.readString(&iter))
    case CDBUS_TYPE_OBJECT_PATH: return .objectPath(Self.readString(&iter))
    case CDBUS_TYPE_SIGNATURE: return .signature(Self.readString(&iter))
    case CDBUS_TYPE_VARIANT:
      var sub = DBusMessageIter()
      dbus_message_iter_recurse(&iter, &sub)
      guard let inner = read(&sub) else { return nil }
      return .variant(inner)
    case CDBUS_TYPE_STRUCT:
      return .structure(readAll(&iter))
    case CDBUS_TYPE_ARRAY:
      let signature = Self.currentSignature(&iter)
      let element = String(signature.dropFirst())
      if dbus_message_iter_get_element_type(&iter) == CDBUS_TYPE_DICT_ENTRY {
        // "{kv}": the key is one basic type code, the value the rest.
        let inner = element.dropFirst().dropLast()
        let key = String(inner.prefix(1))
        let valueSignature = String(inner.dropFirst())
        var sub = DBusMessageIter()
        dbus_message_iter_recurse(&iter, &sub)
        var entries: [(key: DBusValue, value: DBusValue)] = []
        while dbus_message_iter_get_arg_type(&sub) == CDBUS_TYPE_DICT_ENTRY {
          let pair = readAll(&sub)
          if pair.count == 2 { entries.append((key: pair[0], value: pair[1])) }
          dbus_message_iter_next(&sub)
        }
        return .dict(keySignature: key, valueSignature: valueSignature, entries)
      }
      return .array(elementSignature: element, readAll(&iter))
    default:
      return nil
    }
  }

  /// Reads the value at `iter` within `limits` (`depth` levels of containers above it): strings
  /// cut at a character with "…", arrays and dicts to their first `maximumEntries` elements, and
  /// emptied below `maximumDepth`; sets `cut` when anything was left out.
  private func readValue(
    _ iter: inout DBusMessageIter, within limits: DBusDecodingLimits, depth: Int, cut: inout Bool
  ) -> DBusValue? {
    guard valuesLeft > 0 else {
      cut = true
      return nil
    }
    valuesLeft -= 1
    switch dbus_message_iter_get_arg_type(&iter) {
    case CDBUS_TYPE_STRING:
      return .string(Self.readString(&iter, limits: limits, cut: &cut))
    case CDBUS_TYPE_OBJECT_PATH:
      var tooLong = false
      let path = Self.readString(&iter, limits: limits, cut: &tooLong)
      cut = cut || tooLong
      return .objectPath(tooLong ? "/" : path)
    case CDBUS_TYPE_VARIANT:
      var sub = DBusMessageIter()
      dbus_message_iter_recurse(&iter, &sub)
      return readValue(&sub, within: limits, depth: depth + 1, cut: &cut).map { .variant($0) }
    case CDBUS_TYPE_STRUCT:
      var sub = DBusMessageIter()
      dbus_message_iter_recurse(&iter, &sub)
      var fields: [DBusValue] = []
      while dbus_message_iter_get_arg_type(&sub) != CDBUS_TYPE_INVALID {
        if let value = readValue(&sub, within: limits, depth: depth + 1, cut: &cut) { fields.append(value) }
        dbus_message_iter_next(&sub)
      }
      return .structure(fields)
    case CDBUS_TYPE_ARRAY:
      let element = String(Self.currentSignature(&iter).dropFirst())
      let isDict = dbus_message_iter_get_element_type(&iter) == CDBUS_TYPE_DICT_ENTRY
      var sub = DBusMessageIter()
      dbus_message_iter_recurse(&iter, &sub)
      let hasElements = dbus_message_iter_get_arg_type(&sub) != CDBUS_TYPE_INVALID
      let deepEnough = depth >= limits.maximumDepth
      if deepEnough && hasElements { cut = true }
      if isDict {
        let inner = element.dropFirst().dropLast()
        var entries: [(key: DBusValue, value: DBusValue)] = []
        while !deepEnough, dbus_message_iter_get_arg_type(&sub) == CDBUS_TYPE_DICT_ENTRY {
          guard entries.count < limits.maximumEntries else {
            cut = true
            break
          }
          var pair = DBusMessageIter()
          dbus_message_iter_recurse(&sub, &pair)
          let key = readValue(&pair, within: limits, depth: depth + 1, cut: &cut)
          dbus_message_iter_next(&pair)
          let value = readValue(&pair, within: limits, depth: depth + 1, cut: &cut)
          if let key, let value { entries.append((key: key, value: value)) }
          dbus_message_iter_next(&sub)
        }
        return .dict(
          keySignature: String(inner.prefix(1)), valueSignature: String(inner.dropFirst()), entries)
      }
      var elements: [DBusValue] = []
      // Numbers (bytes, integers, doubles) are bounded by their size, as strings are, and not
      // counted as values: 1 MiB of bytes is one buffer, not a million strings.
      let size = Self.fixedSize(dbus_message_iter_get_element_type(&iter))
      let most =
        size.map { max(limits.maximumEntries, limits.maximumStringBytes / $0) } ?? limits.maximumEntries
      while !deepEnough, dbus_message_iter_get_arg_type(&sub) != CDBUS_TYPE_INVALID {
        guard elements.count < most else {
          cut = true
          break
        }
        if size != nil, let value = read(&sub) {
          elements.append(value)
        } else if let value = readValue(&sub, within: limits, depth: depth + 1, cut: &cut) {
          elements.append(value)
        }
        dbus_message_iter_next(&sub)
      }
      return .array(elementSignature: element, elements)
    default:
      return read(&iter)
    }
  }

  /// The size in bytes of a fixed-size basic type (nil for strings, containers, descriptors).
  private static func fixedSize(_ type: Int32) -> Int? {
    switch type {
    case CDBUS_TYPE_BYTE: 1
    case CDBUS_TYPE_INT16, CDBUS_TYPE_UINT16: 2
    case CDBUS_TYPE_BOOLEAN, CDBUS_TYPE_INT32, CDBUS_TYPE_UINT32: 4
    case CDBUS_TYPE_INT64, CDBUS_TYPE_UINT64, CDBUS_TYPE_DOUBLE: 8
    default: nil
    }
  }

  /// The string at `iter`, cut to `limits.maximumStringBytes` (at a character, "…" added; `cut`
  /// set) without reading further than that.
  private static func readString(
    _ iter: inout DBusMessageIter, limits: DBusDecodingLimits?, cut: inout Bool
  ) -> String {
    guard let limits else { return readString(&iter) }
    guard let pointer = cdbus_get_basic(&iter).str else { return "" }
    let most = limits.maximumStringBytes
    let length = strnlen(pointer, most + 1)
    guard length > most else { return String(cString: pointer) }
    cut = true
    return pointer.withMemoryRebound(to: UInt8.self, capacity: length) {
      DBusDecodingLimits.shortened(UnsafeBufferPointer(start: $0, count: length), to: most)
    }
  }

  /// Reads every value inside the container at `iter`.
  private func readAll(_ iter: inout DBusMessageIter) -> [DBusValue] {
    var sub = DBusMessageIter()
    dbus_message_iter_recurse(&iter, &sub)
    var values: [DBusValue] = []
    while dbus_message_iter_get_arg_type(&sub) != CDBUS_TYPE_INVALID {
      if let value = read(&sub) { values.append(value) }
      dbus_message_iter_next(&sub)
    }
    return values
  }

  private static func readString(_ iter: inout DBusMessageIter) -> String {
    cdbus_get_basic(&iter).str.map { String(cString: $0) } ?? ""
  }

  private static func currentSignature(_ iter: inout DBusMessageIter) -> String {
    guard let pointer = dbus_message_iter_get_signature(&iter) else { return "" }
    defer { dbus_free(pointer) }
    return String(cString: pointer)
  }
}

/// What a `PropertiesChanged` signal says (`DBusMessage.readPropertiesChanged`).
public struct DBusPropertiesChange: Sendable, Equatable {
  /// The interface whose properties changed.
  public var interface: String
  /// The changed properties whose values were read (variants removed).
  public var changed: [String: DBusValue] = [:]
  /// The changed properties whose values were not read (not wanted), in message order.
  public var unread: [String] = []
  /// The properties that changed without their value.
  public var invalidated: [String] = []
  /// Whether something was left out to stay within the reader's limits.
  public var exceededLimits = false

  public init(
    interface: String, changed: [String: DBusValue] = [:], unread: [String] = [], invalidated: [String] = []
  ) {
    self.interface = interface
    self.changed = changed
    self.unread = unread
    self.invalidated = invalidated
  }
}

/// The properties of a `GetAll` reply (`DBusMessage.readProperties`).
public struct DBusPropertyValues: Sendable, Equatable {
  /// The properties whose values were read (variants removed).
  public var values: [String: DBusValue] = [:]
  /// The properties whose values were not read (not wanted), in message order.
  public var unread: [String] = []
  /// Whether something was left out to stay within the reader's limits.
  public var exceededLimits = false

  public init(values: [String: DBusValue] = [:], unread: [String] = [], exceededLimits: Bool = false) {
    self.values = values
    self.unread = unread
    self.exceededLimits = exceededLimits
  }
}

/// How much of a message a reader decodes, whatever its sender put in: the most elements of an
/// array or entries of a dict, the longest string (in UTF-8 bytes), the deepest nesting of
/// containers. What lies beyond is never decoded (never copied out of the message).
public struct DBusDecodingLimits: Sendable, Equatable {
  public var maximumEntries: Int
  public var maximumStringBytes: Int
  public var maximumDepth: Int
  /// The most values decoded in all (containers and what they hold).
  public var maximumValues: Int

  public init(maximumEntries: Int, maximumStringBytes: Int, maximumDepth: Int, maximumValues: Int = .max) {
    self.maximumEntries = maximumEntries
    self.maximumStringBytes = max(maximumStringBytes, 8)
    self.maximumDepth = maximumDepth
    self.maximumValues = maximumValues
  }

  /// What one incoming method call may bring in: its arguments are refused beyond (a caller
  /// flooding a daemon with 20,000 random calls of random signatures made it decode them all).
  public static let methodCall = DBusDecodingLimits(
    maximumEntries: 16384, maximumStringBytes: 1 << 20, maximumDepth: 8, maximumValues: 65536)

  /// The first `most` bytes of `bytes` at most, as text: cut at a character boundary, with "…"
  /// in the room left.
  static func shortened(_ bytes: UnsafeBufferPointer<UInt8>, to most: Int) -> String {
    // Room for "…" (3 bytes); not in the middle of a character (a UTF-8 continuation byte).
    var end = min(bytes.count, most - 3)
    while end > 0, bytes[end] & 0xC0 == 0x80 { end -= 1 }
    return String(decoding: UnsafeBufferPointer(rebasing: bytes[..<end]), as: UTF8.self) + "…"
  }
}

extension StaticString {
  /// The text as a C string (a string literal is stored with its terminating zero).
  var cString: UnsafePointer<CChar> { UnsafeRawPointer(utf8Start).assumingMemoryBound(to: CChar.self) }
}

/// Calls `body` with a C string for `text`, or NULL when it is nil.
func withOptionalCString<R>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
  guard let text else { return body(nil) }
  return text.withCString { body($0) }
}
