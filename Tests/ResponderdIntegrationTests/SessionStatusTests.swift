import DBus
import DBusTestSupport
import EventLoop
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The real responderd following python3-dbusmock's logind on a private system bus
/// (`DBUS_SYSTEM_BUS_ADDRESS`), as `responderctl status` shows it.
@Suite struct SessionStatusTests {
  func responderctl() throws -> String { try BuiltProducts.path(of: "responderctl") }

  func statusLine(_ fixture: DaemonFixture) throws -> String? {
    let status = try fixture.run([try responderctl(), "status"])
    return status.output.split(separator: "\n").map(String.init).first { $0.hasPrefix("session: ") }
  }

  @Test("responderd follows the logind session of XDG_SESSION_ID; status shows it active, inactive, locked")
  func statusShowsTheSession() throws {
    let logind = try MockLogind(loop: try EventLoop())
    try logind.addSession("c7", uid: getuid(), active: true)
    let fixture = try DaemonFixture(systemBus: logind.address, environment: ["XDG_SESSION_ID": "c7"])
    try fixture.waitFor("the daemon to follow the session") {
      fixture.log.contains("session: following logind session c7 (XDG_SESSION_ID): active")
    }
    #expect(try statusLine(fixture) == "session: active (logind session c7, XDG_SESSION_ID)")

    try logind.updateSessionAndWait("c7", ["Active": .bool(false)])
    try fixture.waitFor("the daemon to see the session go") {
      fixture.log.contains(
        "session: inactive (logind session c7): input devices released and closed, no shakes")
    }
    #expect(try statusLine(fixture) == "session: inactive (logind session c7, XDG_SESSION_ID)")
    let status = try fixture.run([try responderctl(), "status"]).output
    #expect(status.contains("(session inactive: all released)"), "\(status)")
    let json = try fixture.run([try responderctl(), "status", "--json"])
    let fields = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
    let session = fields?["session"] as? [String: Any]
    #expect(session?["state"] as? String == "inactive")
    #expect(session?["logind"] as? Bool == true)
    #expect(session?["id"] as? String == "c7")

    try logind.updateSessionAndWait("c7", ["Active": .bool(true), "LockedHint": .bool(true)])
    try fixture.waitFor("the daemon to see the session locked") {
      fixture.log.contains("session: active, locked (logind) (logind session c7): input devices taken again")
    }
    #expect(try statusLine(fixture) == "session: active, locked (logind) (logind session c7, XDG_SESSION_ID)")
  }
}
