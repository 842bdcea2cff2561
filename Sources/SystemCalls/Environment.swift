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

/// The names in a directory (without "." and ".."), sorted; empty when it cannot be read.
public func directoryEntries(_ path: String) -> [String] {
  guard let dir = opendir(path) else { return [] }
  defer { closedir(dir) }
  var names: [String] = []
  while let entry = readdir(dir) {
    let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
      String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
    }
    if name != "." && name != ".." { names.append(name) }
  }
  return names.sorted()
}
