/// A report as a method's reply arguments (`a{sv}aa{sv}`): a summary, and one `a{sv}` dict per
/// item (a device, a player), so that a reply gains keys without breaking older readers.
public struct DBusReport: Equatable, Sendable {
  /// What holds for the whole report (the policy, whether keys are read).
  public var summary: [String: DBusValue]
  /// One dict per item, in the report's order.
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

  /// The items as `read` takes each apart; nil when it refuses one.
  public func items<Item>(_ read: ([String: DBusValue]) -> Item?) -> [Item]? {
    let taken = items.compactMap(read)
    return taken.count == items.count ? taken : nil
  }
}

/// A value that travels as a report (`responderctl players`, `devices`): it says what its
/// summary and items are and how to read them back; the reply's arguments follow.
public protocol DBusReportable {
  /// The value as a report.
  var dbusReport: DBusReport { get }
  /// The value a report gives; nil when it lacks what the value needs.
  init?(dbusReport report: DBusReport)
}

extension DBusReportable {
  /// The value as the reply's arguments (`a{sv}aa{sv}`).
  public var dbusArguments: [DBusValue] { dbusReport.dbusArguments }

  /// Reads the arguments of the reply; nil when they are not a report of this value.
  public init?(dbusArguments values: [DBusValue]) {
    guard let report = DBusReport(dbusArguments: values) else { return nil }
    self.init(dbusReport: report)
  }
}
