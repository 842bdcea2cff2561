#if canImport(Glibc)
  import Glibc
#endif

extension MessageBus {
  /// Follows the owner of `name` as `watchNameOwner` does, believing only an owner that runs as
  /// `uid` (the bus is asked, `GetConnectionUnixUser`): on a bus shared by users, another user's
  /// program owning a desktop's name is not that desktop. `handler` gets nil for such an owner
  /// (and for one whose user the bus cannot tell), after `refused` got its name and uid.
  public func watchNameOwner(
    _ name: String, runningAs uid: UInt32 = getuid(),
    refused: @escaping (_ owner: String, _ uid: UInt32?) -> Void,
    handler: @escaping (String?) -> Void
  ) -> DBusSubscription {
    // Answers about an earlier owner are dropped.
    let latest = LatestOwner()
    return watchNameOwner(name) { [weak self] owner in
      latest.name = owner
      guard let owner, let self else { return handler(nil) }
      self.unixUser(of: owner) { result in
        guard latest.name == owner else { return }
        let ownerUID = try? result.get()
        guard ownerUID == uid else {
          refused(owner, ownerUID)
          return handler(nil)
        }
        handler(owner)
      }
    }
  }
}

/// The owner a `watchNameOwner(_:runningAs:…)` saw last.
private final class LatestOwner {
  var name: String?
}
