import CWaylandKeys
import EventTime
import Logging

/// The undo and redo chords through a wlroots compositor's virtual keyboard
/// (`zwp_virtual_keyboard_v1`: phoc under phosh, sway, Hyprland), as an on-screen keyboard types
/// them. The keyboard exists only while a chord is sent, on a connection of its own; every wait for
/// the compositor is bounded by `timeout`. GNOME Shell and KWin do not offer the protocol.
public final class VirtualKeyboardSender: EditKeySender {
  /// The chords' keymap: three keys and nothing else, whatever the user's layout (XKB keycodes are
  /// evdev codes plus 8: KEY_LEFTCTRL 37, KEY_LEFTSHIFT 50, KEY_Z 52).
  static let keymap = """
    xkb_keymap {
    xkb_keycodes "responderd" { minimum = 8; maximum = 255; <LCTL> = 37; <LFSH> = 50; <AB01> = 52; };
    xkb_types "responderd" {
      type "ONE_LEVEL" { modifiers = none; level_name[Level1] = "Any"; };
      type "ALPHABETIC" {
        modifiers = Shift+Lock; map[Shift] = Level2; map[Lock] = Level2;
        level_name[Level1] = "Base"; level_name[Level2] = "Caps";
      };
    };
    xkb_compat "responderd" {
      interpret Any+AnyOf(all) { action = SetMods(modifiers=modMapMods,clearLocks); };
    };
    xkb_symbols "responderd" {
      key <LCTL> { [ Control_L ] };
      key <LFSH> { [ Shift_L ] };
      key <AB01> { type = "ALPHABETIC", [ z, Z ] };
      modifier_map Control { <LCTL> };
      modifier_map Shift { <LFSH> };
    };
    };
    """
  /// The modifier state of a chord in that keymap: Shift is bit 0, Control bit 2 (XKB's order).
  static func modifierMask(_ chord: EditChord) -> UInt32 { chord == .undo ? 0b100 : 0b101 }

  /// Whether the compositor offers the protocol, as last asked. Read while it did not, and asked
  /// more than `recheckInterval` ago, it is asked again (a compositor that started after the
  /// daemon): on demand, never on a timer.
  public var state: KeySenderState {
    if !status.state.isReady, let checked, scheduler.now - checked >= Self.recheckInterval { refresh() }
    return status.state
  }
  /// How long an answer of "not offered" is believed.
  public static let recheckInterval: Seconds = 5
  private let status = KeySenderStatus(.unavailable(reason: "not checked yet"))
  private let display: String?
  private let timeout: Seconds
  private let scheduler: any Scheduler
  private let logger: Logger
  private var checked: Seconds?

  /// The compositor at `display` (a name in XDG_RUNTIME_DIR or a path; nil: WAYLAND_DISPLAY, else
  /// wayland-0, as every Wayland client finds it). Asked whether it offers the protocol now.
  public init(
    display: String? = nil, timeout: Seconds = 0.5, scheduler: any Scheduler,
    logger: Logger = Logger(label: "responderd")
  ) {
    self.display = display
    self.timeout = timeout
    self.scheduler = scheduler
    self.logger = logger
    refresh()
  }

  public func addObserver(_ observer: @escaping (KeySenderState) -> Void) {
    status.addObserver(observer)
  }

  /// Asks the compositor again whether it offers a virtual keyboard (one short connection).
  public func refresh() {
    checked = scheduler.now
    status.set(Self.state(of: withDisplayName { rsp_virtual_keyboard_probe($0, milliseconds) }))
  }

  public func send(_ chord: EditChord, _ done: @escaping (Result<Void, KeySendError>) -> Void) {
    let modifiers = chord.modifiers
    let result = withDisplayName { name in
      Self.keymap.withCString { keymap in
        modifiers.withUnsafeBufferPointer { keys in
          rsp_virtual_keyboard_send(
            name, keymap, Self.modifierMask(chord), keys.baseAddress, keys.count, chord.key, milliseconds)
        }
      }
    }
    let outcome: Result<Void, KeySendError>
    if result == 0 {
      outcome = .success(())
    } else {
      let reason = Self.state(of: result).description
      logger.notice("undo: \(chord) not sent through the virtual keyboard: \(reason)")
      status.set(Self.state(of: result))
      outcome = .failure(KeySendError("the virtual keyboard: \(reason)"))
    }
    scheduler.schedule(after: 0) { done(outcome) }
  }

  private var milliseconds: Int32 { Int32((timeout * 1000).rounded()) }

  private func withDisplayName<T>(_ body: (UnsafePointer<CChar>?) -> T) -> T {
    guard let display else { return body(nil) }
    return display.withCString { body($0) }
  }

  /// What a probe or a send said, as a state.
  static func state(of result: Int32) -> KeySenderState {
    switch result {
    case 0: .ready(api: "zwp_virtual_keyboard_v1 (wlroots: phosh, sway, Hyprland)")
    case RSP_VK_NO_LIBRARY.rawValue:
      .unavailable(
        reason:
          "libwayland-client cannot be loaded (\(rsp_wayland_load_error().map { String(cString: $0) } ?? "?"))"
      )
    case RSP_VK_NO_DISPLAY.rawValue: .unavailable(reason: "no Wayland compositor to connect to")
    case RSP_VK_NOT_OFFERED.rawValue:
      .unavailable(reason: "the compositor offers no zwp_virtual_keyboard_v1 (wlroots' virtual keyboard)")
    case RSP_VK_TIMEOUT.rawValue: .unavailable(reason: "the compositor did not answer in time")
    default: .unavailable(reason: "the compositor closed the connection")
    }
  }

}
