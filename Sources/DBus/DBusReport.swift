/// A report as a method's reply arguments (`a{sv}aa{sv}`): a summary, and one `a{sv}` dict per
/// item (a device, a player), so that a reply gains keys without breaking older readers.
public struct DBusReport: Equatable {
  public var summary: [String: DBusValue]
  public var items: [[String: DBusValue]]

  public init(summary: [String: DBusValue], items: [[String: DBusValue]]) {
    self.summary = summary
    self.items = items
  }

  /// Reads reply arguments; nil unless they are a dict and a list of dicts.
  public init?(dbusArguments values: [DBusValue]) {
    guard values.count == 2, let summary = values[0].dictionary, let list = values[1].elements else {
      return nil
    }
    var items: [[String: DBusValue]] = []
    for item in list {
      guard let entry = item.dictionary else { return nil }
      items.append(entry)
    }
    self.init(summary: summary, items: items)
  }

  /// The reply arguments.
  public var dbusArguments: [DBusValue] { [.vardict(summary), items.dbusValue] }
}
