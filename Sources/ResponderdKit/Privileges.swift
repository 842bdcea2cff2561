import SystemCalls

#if canImport(Glibc)
  import Glibc
#endif

/// Why privileges could not be dropped (a failing call throws `SystemError`).
public struct PrivilegeError: Error, CustomStringConvertible {
  public var description: String
}

/// Gives up root for good: supplementary groups, group and user become those of `user`.
public func dropPrivileges(to user: String) throws {
  guard let entry = getpwnam(user) else { throw PrivilegeError(description: "no user '\(user)'") }
  let uid = entry.pointee.pw_uid
  let gid = entry.pointee.pw_gid
  guard uid != 0 else { throw PrivilegeError(description: "'\(user)' is root") }
  guard setgroups(0, nil) == 0 else { throw SystemError("setgroups", errno: .last) }
  guard setgid(gid) == 0 else { throw SystemError("setgid", errno: .last) }
  guard setuid(uid) == 0 else { throw SystemError("setuid", errno: .last) }
  guard setuid(0) != 0 else { throw PrivilegeError(description: "root could be regained") }
}
