/// An object exported on a bus connection (kept across reconnections until `unexport()`).
public final class DBusExportedObject {
  public let path: String
  public private(set) var interfaces: [DBusInterface]
  /// The bus its signals go out on.
  weak var bus: (any MessageBus)?
  /// The table answering calls on its path.
  weak var table: DBusObjectTable?

  init(path: String, interfaces: [DBusInterface], bus: any MessageBus, table: DBusObjectTable) {
    self.path = path
    self.interfaces = interfaces
    self.bus = bus
    self.table = table
  }

  public func interface(_ name: String) -> DBusInterface? { interfaces.first { $0.name == name } }

  /// Adds or replaces an interface.
  public func add(_ interface: DBusInterface) throws(DBusError) {
    try interface.validate()
    interfaces.removeAll { $0.name == interface.name }
    interfaces.append(interface)
  }

  /// Removes an interface.
  public func remove(interface name: String) { interfaces.removeAll { $0.name == name } }

  /// Stops answering calls on this path.
  public func unexport() {
    table?.remove(self)
  }

  /// Emits `interface.name` from this object (to `destination` alone when given).
  public func emit(
    interface: String, signal name: String, arguments: [DBusValue] = [], destination: String? = nil
  ) throws(DBusError) {
    guard let bus else { throw DBusError.disconnected() }
    try bus.emitSignal(
      path: path, interface: interface, name: name, arguments: arguments, destination: destination)
  }

  /// Emits `org.freedesktop.DBus.Properties.PropertiesChanged` with the given values (to
  /// `destination` alone when given).
  public func emitPropertiesChanged(
    interface: String, changed: [String: DBusValue], invalidated: [String] = [], destination: String? = nil
  )
    throws(DBusError)
  {
    try emit(
      interface: "org.freedesktop.DBus.Properties", signal: "PropertiesChanged",
      arguments: [.string(interface), .vardict(changed), invalidated.dbusValue], destination: destination)
  }

  /// Emits PropertiesChanged for `names`, reading the getters: values for `.emits` properties,
  /// names only for `.invalidates`, nothing for the others. Does nothing when nothing is left.
  /// With `destinations`, the signal goes to each of them alone (none: nobody), not broadcast.
  public func propertiesChanged(
    interface name: String, _ names: [String], destinations: [String]? = nil
  ) throws(DBusError) {
    guard let interface = interface(name) else {
      throw DBusError(DBusError.Name.unknownInterface, "no interface \(name) on \(path)")
    }
    var changed: [String: DBusValue] = [:]
    var invalidated: [String] = []
    for propertyName in names {
      guard let property = interface.property(propertyName) else {
        throw DBusError(DBusError.Name.unknownProperty, "no property \(propertyName) in \(name)")
      }
      switch property.changeSignal {
      case .emits:
        if let get = property.get { changed[propertyName] = get() } else { invalidated.append(propertyName) }
      case .invalidates: invalidated.append(propertyName)
      case .constant, .none: break
      }
    }
    guard !changed.isEmpty || !invalidated.isEmpty else { return }
    guard let destinations else {
      return try emitPropertiesChanged(interface: name, changed: changed, invalidated: invalidated)
    }
    for destination in destinations {
      try emitPropertiesChanged(
        interface: name, changed: changed, invalidated: invalidated, destination: destination)
    }
  }
}
