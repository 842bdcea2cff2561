import DBus
import ResponderConfig
import ResponderdKit
import SystemCalls

/// `responderctl interfaces`: the D-Bus interface files of responderd's API.
struct InterfacesCommand {
  static var command: Command {
    Command(
      name: "interfaces",
      abstract:
        "Write or check the D-Bus interface files (NAME.xml, with doc annotations) of responderd's API.",
      discussion: """
        The files hold the introspection data of org.responderd.Daemon1, org.responderd.Motion1 and \
        org.responderd.Responder1, \
        generated from the descriptors the daemon exports (the package installs them under \
        /usr/share/dbus-1/interfaces). Without options, lists the interface names.
        """,
      arguments: [
        .option(
          "--output", help: "Write NAME.xml for each interface into this directory.", completion: .directory),
        .option(
          "--check",
          help: "Check that this directory's NAME.xml files equal the generated ones (exit 1 when not).",
          completion: .directory),
      ]
    ) { try InterfacesCommand(output: $0.string("output"), check: $0.string("check")).run() }
  }

  var output: String?
  var check: String?

  func run() throws {
    let interfaces = try BusInterfaces.all()
    if output == nil && check == nil {
      for interface in interfaces { print(interface.name) }
    }
    if let output {
      for interface in interfaces {
        let file = "\(output)/\(interface.name).xml"
        try writeOutputFile(file, interface.interfaceFile)
        print(file)
      }
    }
    if let check {
      var stale: [String] = []
      for interface in interfaces {
        let file = "\(check)/\(interface.name).xml"
        if (try? readTextFile(file)) != interface.interfaceFile { stale.append(file) }
      }
      guard stale.isEmpty else {
        for file in stale {
          printError("responderctl: \(file) differs from the interface responderd exports")
        }
        printError("responderctl: regenerate with: responderctl interfaces --output \(check)")
        throw ExitCode(1)
      }
    }
  }

  private func printError(_ text: String) {
    writeText(text + "\n", to: .standardError)
  }
}
