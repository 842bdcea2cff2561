/// Introspection XML.
enum DBusIntrospection {
  static let interface = "org.freedesktop.DBus.Introspectable"
  static let propertiesInterface = "org.freedesktop.DBus.Properties"
  static let standardInterfaces: Set<String> = [
    interface, propertiesInterface, "org.freedesktop.DBus.Peer",
  ]

  /// The standard interfaces every object answers, described as exported ones are (the dispatch
  /// answers them itself: their handlers never run).
  private static func standardDescriptions() -> [DBusInterface] {
    let answeredByDispatch: (DBusMethodCall) throws -> [DBusValue] = { _ in [] }
    let names = ["interface_name", "property_name"]
    return [
      DBusInterface(
        "org.freedesktop.DBus.Peer",
        methods: [
          DBusMethod("Ping", handler: answeredByDispatch),
          DBusMethod("GetMachineId", out: "s", outNames: ["machine_uuid"], handler: answeredByDispatch),
        ]),
      DBusInterface(
        interface,
        methods: [DBusMethod("Introspect", out: "s", outNames: ["xml_data"], handler: answeredByDispatch)]),
      DBusInterface(
        propertiesInterface,
        methods: [
          DBusMethod(
            "Get", in: "ss", out: "v", inNames: names, outNames: ["value"], handler: answeredByDispatch),
          DBusMethod(
            "GetAll", in: "s", out: "a{sv}", inNames: ["interface_name"], outNames: ["properties"],
            handler: answeredByDispatch),
          DBusMethod("Set", in: "ssv", inNames: names + ["value"], handler: answeredByDispatch),
        ],
        signals: [
          DBusSignalInfo(
            "PropertiesChanged", signature: "sa{sv}as",
            argumentNames: ["interface_name", "changed_properties", "invalidated_properties"])
        ]),
    ]
  }

  static let standardXML = standardDescriptions().map(interfaceXML).joined()

  /// The arguments' signature of each method of the Properties interface (Get, GetAll, Set), as
  /// its description above says.
  static let propertiesSignatures: [String: String] = {
    let methods = standardDescriptions().filter { $0.name == propertiesInterface }.flatMap(\.methods)
    return Dictionary(uniqueKeysWithValues: methods.map { ($0.name, $0.inSignature) })
  }()

  static func xml(for object: DBusExportedObject?, children: [String]) -> String {
    var xml = """
      <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
       "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
      <node>

      """
    if let object {
      xml += standardXML
      for interface in object.interfaces { xml += interfaceXML(interface) }
    }
    for child in children { xml += "  <node name=\"\(child.xmlEscaped)\"/>\n" }
    xml += "</node>\n"
    return xml
  }

  /// One `<interface>` element (indented for a `<node>`), with the descriptors' documentation as
  /// `org.gtk.GDBus.DocString` annotations.
  static func interfaceXML(_ interface: DBusInterface) -> String {
    var xml =
      "  <interface name=\"\(interface.name.xmlEscaped)\">\n" + docAnnotation(interface.doc, indent: 4)
    for method in interface.methods {
      let body =
        docAnnotation(method.doc, indent: 6)
        + arguments(method.inSignature, names: method.inNames, direction: "in")
        + arguments(method.outSignature, names: method.outNames, direction: "out")
      xml += element("method", name: method.name, body: body)
    }
    for signal in interface.signals {
      let body =
        docAnnotation(signal.doc, indent: 6)
        + arguments(signal.signature, names: signal.argumentNames, direction: nil)
      xml += element("signal", name: signal.name, body: body)
    }
    for property in interface.properties {
      var body = docAnnotation(property.doc, indent: 6)
      if property.changeSignal != .emits {
        body +=
          "      <annotation name=\"org.freedesktop.DBus.Property.EmitsChangedSignal\" value=\"\(property.changeSignal.rawValue)\"/>\n"
      }
      xml += element(
        "property", name: property.name,
        attributes: " type=\"\(property.signature.xmlEscaped)\" access=\"\(property.access.rawValue)\"",
        body: body)
    }
    return xml + "  </interface>\n"
  }

  private static func element(_ tag: String, name: String, attributes: String = "", body: String) -> String {
    let head = "    <\(tag) name=\"\(name.xmlEscaped)\"\(attributes)"
    return body.isEmpty ? head + "/>\n" : head + ">\n" + body + "    </\(tag)>\n"
  }

  private static func docAnnotation(_ doc: String?, indent: Int) -> String {
    guard let doc, !doc.isEmpty else { return "" }
    return String(repeating: " ", count: indent)
      + "<annotation name=\"org.gtk.GDBus.DocString\" value=\"\(doc.xmlEscaped)\"/>\n"
  }

  private static func arguments(_ signature: String, names: [String], direction: String?) -> String {
    let types = DBusSignature.split(signature) ?? []
    var text = ""
    for (index, type) in types.enumerated() {
      let name = index < names.count ? " name=\"\(names[index].xmlEscaped)\"" : ""
      let dir = direction.map { " direction=\"\($0)\"" } ?? ""
      text += "      <arg\(name) type=\"\(type.xmlEscaped)\"\(dir)/>\n"
    }
    return text
  }

}

extension String {
  /// The text with XML's special characters replaced by entities (introspection data, SVG).
  public var xmlEscaped: String {
    var result = ""
    for character in self {
      switch character {
      case "&": result += "&amp;"
      case "<": result += "&lt;"
      case ">": result += "&gt;"
      case "\"": result += "&quot;"
      case "'": result += "&apos;"
      default: result.append(character)
      }
    }
    return result
  }
}
