#if canImport(Glibc)
  import Glibc
#endif

/// The value of an environment variable.
public func environment(_ name: String) -> String? {
  getenv(name).map { String(cString: $0) }
}

/// Whether a path exists.
public func fileExists(_ path: String) -> Bool {
  access(path, F_OK) == 0
}
