import DBus
import Logging

/// A desktop program that takes the media keys from the compositor and calls MPRIS itself
/// (docs/design.md#one-press-one-action): while one runs, a key of a shared device reaches a
/// player through it.
public enum DesktopMediaKeysHandler: Hashable, Sendable, CustomStringConvertible {
  /// GNOME's gsd-media-keys (`org.gnome.SettingsDaemon.MediaKeys`), in a GNOME session.
  case gnome
  /// gsd-media-keys in a Phosh session (Phosh owns `sm.puri.Phosh` and runs the same daemon).
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

/// The names and paths the detection looks at.
public enum DesktopNames {
  /// Owned by gsd-media-keys (GNOME, Phosh).
  public static let gnomeMediaKeys = "org.gnome.SettingsDaemon.MediaKeys"
  /// Owned by Phosh, the shell of Linux phones and tablets.
  public static let phosh = "sm.puri.Phosh"
  /// KDE's global shortcut daemon.
  public static let kglobalaccel = "org.kde.kglobalaccel"
  /// Its main object and interface.
  public static let kglobalaccelPath = "/kglobalaccel"
  public static let kglobalaccelInterface = "org.kde.KGlobalAccel"
  /// The object of Plasma's media-control component, once registered.
  public static let mediacontrolComponent = "/component/mediacontrol"
}

/// Watches the session bus for a desktop that handles media keys: GNOME and Phosh
/// (gsd-media-keys owns its name), KDE Plasma (kglobalaccel lists the `mediacontrol` component).
///
/// Nothing is polled: names are followed through `NameOwnerChanged`; kglobalaccel's component
/// list is read when its owner appears and again after each of its signals (a component that
/// registers shortcuts makes it emit `yourShortcutGotChanged` / `yourShortcutsChanged`).
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
  private let logger: Logger

  public init(logger: Logger = Logger(label: "responderd")) {
    self.logger = logger
  }

  /// Calls `observer` with the new value of `found` after each change.
  public func addObserver(_ observer: @escaping (DesktopMediaKeysHandler?) -> Void) {
    observers.append(observer)
  }

  /// Follows `connection` (the subscriptions survive reconnections; the owners are asked again).
  public func attach(to connection: any MessageBus) {
    self.connection = connection
    subscriptions.append(
      connection.watchNameOwner(DesktopNames.gnomeMediaKeys) { [weak self] owner in
        self?.gsdOwner = owner
        self?.update()
      })
    subscriptions.append(
      connection.watchNameOwner(DesktopNames.phosh) { [weak self] owner in
        self?.phoshOwner = owner
        self?.update()
      })
    subscriptions.append(
      connection.watchNameOwner(DesktopNames.kglobalaccel) { [weak self] owner in
        guard let self else { return }
        self.kglobalaccelOwner = owner
        self.hasMediacontrol = false
        self.componentQuery += 1
        if owner != nil { self.readComponents() }
        self.update()
      })
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
    kglobalaccelOwner = nil
    hasMediacontrol = false
    update()
  }

  /// Asks kglobalaccel for its components (`allComponents`, an array of object paths).
  private func readComponents() {
    guard let connection else { return }
    componentQuery += 1
    let query = componentQuery
    connection.call(
      destination: DesktopNames.kglobalaccel, path: DesktopNames.kglobalaccelPath,
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
    let now: DesktopMediaKeysHandler?
    if gsdOwner != nil {
      now = phoshOwner != nil ? .phosh : .gnome
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
