import DBus
import Logging

#if canImport(Glibc)
  import Glibc
#endif

/// A desktop program that takes the media keys from the compositor and calls MPRIS itself
/// (docs/design.md#one-press-one-action): while one runs, a key of a shared device reaches a
/// player through it.
public enum DesktopMediaKeysHandler: Hashable, Sendable, CustomStringConvertible {
  /// GNOME's gsd-media-keys (`org.gnome.SettingsDaemon.MediaKeys`), in a GNOME session.
  case gnome
  /// gsd-media-keys in a Phosh session: phosh takes no media key itself; it grabs the keys for
  /// gsd-media-keys (`org.gnome.Shell`'s `GrabAccelerators`, as GNOME Shell does) and gsd calls
  /// MPRIS (read in phosh 0.24's source and seen with the real phosh 0.24).
  case phosh
  /// KDE Plasma: the `mediacontrol` component registered with kglobalaccel.
  case kdePlasma

  /// The desktop's name and the program that takes the keys.
  public var description: String {
    switch self {
    case .gnome: "GNOME (gsd-media-keys)"
    case .phosh: "Phosh (gsd-media-keys)"
    case .kdePlasma: "KDE Plasma (kglobalaccel's mediacontrol component)"
    }
  }
}

/// A desktop shell with touch gestures of its own, found by the name it owns on the session bus.
public enum DesktopShell: Hashable, Sendable, CustomStringConvertible {
  /// GNOME Shell (`org.gnome.Shell`, its `ShellVersion` without "phosh").
  case gnome
  /// Phosh: it owns `org.gnome.Shell` too (since 0.21), its `ShellVersion` saying so
  /// ("43 (phosh 0.24.0)"); or `sm.puri.Phosh`.
  case phosh
  /// KWin (`org.kde.KWin`), KDE Plasma's compositor.
  case kwin

  public var description: String {
    switch self {
    case .gnome: "GNOME Shell (org.gnome.Shell)"
    case .phosh: "Phosh (org.gnome.Shell, ShellVersion \"… (phosh …)\")"
    case .kwin: "KWin (org.kde.KWin)"
    }
  }
}

/// The names and paths the detection looks at.
public enum DesktopNames {
  /// Owned by gsd-media-keys (GNOME, Phosh).
  public static let gnomeMediaKeys = "org.gnome.SettingsDaemon.MediaKeys"
  /// A name of Phosh, the shell of Linux phones and tablets (phosh itself owns `org.gnome.Shell`).
  public static let phosh = "sm.puri.Phosh"
  /// Owned by GNOME Shell, and by Phosh.
  public static let gnomeShell = "org.gnome.Shell"
  /// The object, interface and property of its version ("43.9"; phosh: "43 (phosh 0.24.0)").
  public static let gnomeShellPath = "/org/gnome/Shell"
  public static let shellVersion = "ShellVersion"
  /// Owned by KWin.
  public static let kwin = "org.kde.KWin"
  /// KDE's global shortcut daemon.
  public static let kglobalaccel = "org.kde.kglobalaccel"
  /// Its main object and interface.
  public static let kglobalaccelPath = "/kglobalaccel"
  public static let kglobalaccelInterface = "org.kde.KGlobalAccel"
  /// The object of Plasma's media-control component, once registered.
  public static let mediacontrolComponent = "/component/mediacontrol"
}

/// Watches the session bus for a desktop that handles media keys: GNOME and Phosh
/// (gsd-media-keys owns its name), KDE Plasma (kglobalaccel lists the `mediacontrol` component);
/// and for the desktop shell (`shell`: GNOME Shell, Phosh, KWin, by the names they own; GNOME
/// Shell and Phosh both own `org.gnome.Shell`, told apart by its `ShellVersion`, read once per
/// owner).
///
/// Nothing is polled: names are followed through `NameOwnerChanged`; kglobalaccel's component
/// list is read when its owner appears, after each of its signals (a shortcut changed), and at
/// `recheck()`: a component registering is not announced (seen with KWin 5.27's kglobalaccel and
/// Plasma 5.27's media controller).
public final class DesktopMediaKeysWatcher {
  /// What was found, nil when no desktop handling media keys runs (or no bus).
  public private(set) var found: DesktopMediaKeysHandler?
  private var gsdOwner: String?
  private var phoshOwner: String?
  private var kglobalaccelOwner: String?
  private var hasMediacontrol = false
  private var componentQuery = 0
  private var connection: (any MessageBus)?
  private var subscriptions: [DBusSubscription] = []
  private var observers: [(DesktopMediaKeysHandler?) -> Void] = []
  /// The desktop shell on the bus, nil when none of those known runs.
  public private(set) var shell: DesktopShell?
  private var gnomeShellOwner: String?
  /// `org.gnome.Shell`'s `ShellVersion` ("43.9", "43 (phosh 0.24.0)"); nil while unknown.
  public private(set) var shellVersion: String?
  /// Whether the owner's version was asked and answered (or failed); the shell is not reported
  /// before.
  private var shellVersionRead = false
  private var versionQuery = 0
  /// The phosh version the shell observers were last told of (a phosh of another release
  /// replacing the one running is a change).
  private var reportedPhoshVersion: String?
  private var kwinOwner: String?
  private var shellObservers: [(DesktopShell?) -> Void] = []
  private let logger: Logger
  private let uid: UInt32
  /// Owners of another user, logged once each.
  private var refusedOwners = Set<String>()

  /// A watcher believing the names owned by programs of `uid` (the service's user) only.
  public init(logger: Logger = Logger(label: "responderd"), uid: UInt32 = getuid()) {
    self.logger = logger
    self.uid = uid
  }

  /// Calls `observer` with the new value of `found` after each change.
  public func addObserver(_ observer: @escaping (DesktopMediaKeysHandler?) -> Void) {
    observers.append(observer)
  }

  /// Calls `observer` with the new value of `shell` after each change.
  public func addShellObserver(_ observer: @escaping (DesktopShell?) -> Void) {
    shellObservers.append(observer)
  }

  /// Follows `connection` (the subscriptions survive reconnections; the owners are asked again).
  public func attach(to connection: any MessageBus) {
    self.connection = connection
    // Another user's program owning a desktop's name (a bus shared by users) is not the desktop.
    let refused: (String, UInt32?) -> Void = { [weak self] owner, ownerUID in
      guard let self, self.refusedOwners.insert(owner).inserted else { return }
      self.logger.notice(
        "desktop: \(owner) \(ownerUID.map { "runs as uid \($0)" } ?? "runs as a user the bus cannot tell"), not as uid \(self.uid): the desktop names it owns are not believed"
      )
    }
    // Each name's owner, kept as `changed` says, then what is found told again.
    func follow(_ name: String, _ changed: @escaping (DesktopMediaKeysWatcher, String?) -> Void) {
      subscriptions.append(
        connection.watchNameOwner(name, runningAs: uid, refused: refused) { [weak self] owner in
          guard let self else { return }
          changed(self, owner)
          self.update()
        })
    }
    follow(DesktopNames.gnomeMediaKeys) { $0.gsdOwner = $1 }
    follow(DesktopNames.phosh) { $0.phoshOwner = $1 }
    follow(DesktopNames.gnomeShell) { keys, owner in
      keys.gnomeShellOwner = owner
      keys.shellVersion = nil
      keys.shellVersionRead = false
      keys.versionQuery += 1
      if owner != nil { keys.readShellVersion() }
    }
    follow(DesktopNames.kwin) { $0.kwinOwner = $1 }
    follow(DesktopNames.kglobalaccel) { keys, owner in
      keys.kglobalaccelOwner = owner
      keys.hasMediacontrol = false
      keys.componentQuery += 1
      if owner != nil { keys.readComponents() }
    }
    subscriptions.append(
      connection.onSignal(interface: DesktopNames.kglobalaccelInterface) { [weak self] message in
        guard let self, let owner = self.kglobalaccelOwner, message.sender == owner else { return }
        self.readComponents()
      })
  }

  /// Stops following the bus.
  public func detach() {
    for subscription in subscriptions { subscription.cancel() }
    subscriptions.removeAll()
    connection = nil
    gsdOwner = nil
    phoshOwner = nil
    gnomeShellOwner = nil
    shellVersion = nil
    shellVersionRead = false
    versionQuery += 1
    kwinOwner = nil
    kglobalaccelOwner = nil
    hasMediacontrol = false
    update()
  }

  /// Asks kglobalaccel again for its components, when it is on the bus and the media controller is
  /// not among them yet. kglobalaccel (5.27) announces no new component: Plasma's media controller
  /// registers its shortcuts without a signal anyone sees, then reads every MPRIS player,
  /// responderd's proxy player among them. The service calls this when a program calls it for the
  /// first time, so a Plasma started after responderd is found before its first key.
  public func recheck() {
    guard kglobalaccelOwner != nil, !hasMediacontrol else { return }
    readComponents()
  }

  /// The phosh release on the bus ("0.24.0"), from `ShellVersion`; nil when the shell is not phosh
  /// or does not say.
  public var phoshVersion: String? {
    guard gnomeShellOwner != nil, let version = shellVersion else { return nil }
    let marker = "(phosh "
    var rest = Substring(version)
    while !rest.isEmpty {
      if rest.hasPrefix(marker) {
        return String(rest.dropFirst(marker.count).prefix { $0 != ")" && $0 != " " })
      }
      rest = rest.dropFirst()
    }
    return nil
  }

  /// Asks the owner of `org.gnome.Shell` for its `ShellVersion`.
  private func readShellVersion() {
    guard let connection, let owner = gnomeShellOwner else { return }
    let query = versionQuery
    connection.getProperty(
      DesktopNames.shellVersion, interface: DesktopNames.gnomeShell, path: DesktopNames.gnomeShellPath,
      destination: owner, timeout: 5
    ) { [weak self] result in
      guard let self, self.versionQuery == query else { return }
      switch result {
      case .success(let value): self.shellVersion = value.string
      case .failure(let error):
        self.logger.notice("desktop: cannot read org.gnome.Shell's ShellVersion: \(error.message)")
      }
      self.shellVersionRead = true
      self.update()
    }
  }

  /// Asks kglobalaccel for its components (`allComponents`, an array of object paths).
  private func readComponents() {
    guard let connection, let owner = kglobalaccelOwner else { return }
    componentQuery += 1
    let query = componentQuery
    connection.call(
      destination: owner, path: DesktopNames.kglobalaccelPath,
      interface: DesktopNames.kglobalaccelInterface, method: "allComponents", timeout: 5
    ) { [weak self] result in
      guard let self, self.componentQuery == query else { return }
      switch result {
      case .success(let values):
        let paths = values.first?.elements?.compactMap(\.string) ?? []
        self.hasMediacontrol = paths.contains(DesktopNames.mediacontrolComponent)
      case .failure(let error):
        self.logger.notice("desktop: cannot list kglobalaccel's components: \(error.message)")
        self.hasMediacontrol = false
      }
      self.update()
    }
  }

  private func update() {
    // Until the owner of org.gnome.Shell said which shell it is, nothing changes.
    if gnomeShellOwner != nil && !shellVersionRead && phoshOwner == nil { return }
    let isPhosh = phoshOwner != nil || phoshVersion != nil
    let shellNow: DesktopShell? =
      isPhosh ? .phosh : gnomeShellOwner != nil ? .gnome : kwinOwner != nil ? .kwin : nil
    let versionNow = shellNow == .phosh ? phoshVersion : nil
    if shellNow != shell || versionNow != reportedPhoshVersion {
      shell = shellNow
      reportedPhoshVersion = versionNow
      for observer in shellObservers { observer(shellNow) }
    }
    let now: DesktopMediaKeysHandler?
    if gsdOwner != nil {
      now = isPhosh ? .phosh : .gnome
    } else if kglobalaccelOwner != nil && hasMediacontrol {
      now = .kdePlasma
    } else {
      now = nil
    }
    guard now != found else { return }
    found = now
    for observer in observers { observer(now) }
  }
}
