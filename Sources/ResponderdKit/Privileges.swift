#if canImport(Glibc)
  import Glibc
#endif

/// Why privileges could not be dropped.
public struct PrivilegeError: Error, CustomStringConvertible {
  public var description: String
}

/// Gives up root for good: supplementary groups, group and user become those of `user`.
public func dropPrivileges(to user: String) throws {
  guard let entry = getpwnam(user) else { throw PrivilegeError(description: "no user '\(user)'") }
  let uid = entry.pointee.pw_uid
  let gid = entry.pointee.pw_gid
  guard uid != 0 else { throw PrivilegeError(description: "'\(user)' is root") }
  guard setgroups(0, nil) == 0, setgid(gid) == 0, setuid(uid) == 0 else {
    throw PrivilegeError(description: String(cString: strerror(errno)))
  }
  guard setuid(0) != 0 else { throw PrivilegeError(description: "root could be regained") }
}
