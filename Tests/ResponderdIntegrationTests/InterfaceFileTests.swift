import DBus
import DBusTestSupport
import Foundation
import ResponderClient
import ResponderdKit
import Testing

/// The interface files (`packaging/dbus/interfaces`, installed under /usr/share/dbus-1/interfaces)
/// are what the running daemon and a `ResponderClient` answer to `Introspect`, and GLib's
/// `gdbus-codegen` generates code and documentation from them.
@Suite struct InterfaceFileTests {
  static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../packaging/dbus/interfaces").standardizedFileURL.path

  func committedFile(_ name: String) throws -> String {
    try String(contentsOfFile: "\(Self.directory)/\(name).xml", encoding: .utf8)
  }

  /// Introspects `path` of `destination` from a connection of its own, while the loop serves.
  func introspect(_ fixture: DaemonFixture, destination: String, path: String) throws -> String {
    let connection = try fixture.bus.connect(loop: fixture.loop)
    var result: Result<[DBusValue], DBusError>?
    connection.call(
      destination: destination, path: path, interface: "org.freedesktop.DBus.Introspectable",
      method: "Introspect", arguments: [], timeout: 5
    ) { result = $0 }
    try fixture.waitFor("Introspect of \(path)") { result != nil }
    return try result!.get().first?.string ?? ""
  }

  /// The element of `interface` in the introspection data `live`, expected to be the committed
  /// file's.
  func elementMatchingItsFile(
    _ interface: String, in live: String, sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> Substring {
    let element = try #require(
      DBusInterface.element(named: interface, in: live), sourceLocation: sourceLocation)
    let file = try committedFile(interface)
    #expect(DBusInterface.element(named: interface, in: file) == element, sourceLocation: sourceLocation)
    return element
  }

  /// What a daemon on a bus of its own says its object has.
  func daemonIntrospection() throws -> String {
    try introspect(
      try DaemonFixture(), destination: ResponderBusAPI.daemonName, path: ResponderBusAPI.daemonPath)
  }

  @Test func theDaemon1FileIsWhatTheDaemonIntrospects() throws {
    let element = try elementMatchingItsFile(ResponderBusAPI.daemonInterface, in: try daemonIntrospection())
    #expect(element.contains("<annotation name=\"org.gtk.GDBus.DocString\""))
    #expect(element.contains("<method name=\"BecomeFirstResponder\">"))
  }

  @Test func theMotion1FileIsWhatTheDaemonIntrospects() throws {
    let element = try elementMatchingItsFile(MotionBusAPI.interface, in: try daemonIntrospection())
    #expect(element.contains("<arg name=\"samples\" type=\"h\" direction=\"out\"/>"))
  }

  @Test func theResponder1FileIsWhatAResponderClientIntrospects() throws {
    let fixture = try DaemonFixture()
    let app = try fixture.bus.connect(loop: fixture.loop)
    let client = try ResponderClient(connection: app, path: "/org/example/App", eventTypes: [.remoteControl])
    let live = try introspect(fixture, destination: app.uniqueName ?? "", path: client.path)
    let element = try elementMatchingItsFile(ResponderBusAPI.responderInterface, in: live)
    #expect(element.contains("<method name=\"RemoteControlReceived\">"))
  }

  @Test func theCommittedFilesAreWhatResponderctlGenerates() throws {
    let fixture = try DaemonFixture()
    let result = try fixture.run([
      try BuiltProducts.path(of: "responderctl"), "interfaces", "--check", Self.directory,
    ])
    #expect(result.exitCode == 0, "\(result)")
    let names = try fixture.run([try BuiltProducts.path(of: "responderctl"), "interfaces"])
    #expect(names.output == "org.responderd.Daemon1\norg.responderd.Motion1\norg.responderd.Responder1\n")
  }

  @Test func gdbusCodegenGeneratesCodeAndDocumentationFromThem() throws {
    let fixture = try DaemonFixture()
    let output = fixture.bus.directory + "/codegen"
    try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
    let files = ["org.responderd.Daemon1", "org.responderd.Motion1", "org.responderd.Responder1"].map {
      "\(Self.directory)/\($0).xml"
    }
    let result = try fixture.run(
      [
        "/usr/bin/gdbus-codegen", "--interface-prefix", "org.responderd.", "--c-namespace", "Responderd",
        "--generate-c-code", "\(output)/responderd", "--generate-docbook", "\(output)/doc",
      ] + files)
    #expect(result.exitCode == 0, "\(result)")
    let header = try String(contentsOfFile: "\(output)/responderd.h", encoding: .utf8)
    #expect(header.contains("responderd_daemon1_call_become_first_responder"))
    #expect(header.contains("responderd_responder1_complete_remote_control_received"))
    #expect(header.contains("responderd_motion1_call_start_accelerometer_updates"))
    let doc = try String(contentsOfFile: "\(output)/doc-org.responderd.Daemon1.xml", encoding: .utf8)
    #expect(doc.contains("Makes the responder id the first responder"))
  }
}
