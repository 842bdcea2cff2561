/// Documented descriptors and interface files (`/usr/share/dbus-1/interfaces/NAME.xml`).
extension DBusInterface {
  /// The interface with `doc` as its documentation.
  public func documented(_ doc: String) -> DBusInterface {
    var copy = self
    copy.doc = doc
    return copy
  }

  /// The interface file: a `<node>` holding this interface's introspection data, the same
  /// `<interface>` element an exported object's `Introspect` returns.
  public var interfaceFile: String {
    """
    <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
     "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
    <node>

    """ + DBusIntrospection.interfaceXML(self) + "</node>\n"
  }

  /// The `<interface name="NAME">…</interface>` element of `name` in introspection data, nil
  /// when it has none.
  public static func element(named name: String, in xml: String) -> Substring? {
    let lines = xml.split(separator: "\n", omittingEmptySubsequences: false)
    guard let first = lines.firstIndex(of: "  <interface name=\"\(name.xmlEscaped)\">"[...]),
      let last = lines[first...].firstIndex(of: "  </interface>")
    else { return nil }
    return (lines[first...last].joined(separator: "\n") + "\n")[...]
  }
}

extension DBusMethod {
  /// The method with `doc` as its documentation.
  public func documented(_ doc: String) -> DBusMethod {
    var copy = self
    copy.doc = doc
    return copy
  }
}

extension DBusProperty {
  /// The property with `doc` as its documentation.
  public func documented(_ doc: String) -> DBusProperty {
    var copy = self
    copy.doc = doc
    return copy
  }
}

extension DBusSignalInfo {
  /// The signal with `doc` as its documentation.
  public func documented(_ doc: String) -> DBusSignalInfo {
    var copy = self
    copy.doc = doc
    return copy
  }
}
