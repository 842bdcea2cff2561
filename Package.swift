// swift-tools-version:6.2
import PackageDescription

#if canImport(Glibc)
  import Glibc
#endif

/// `pkg-config ARGUMENTS`' output, split into flags; nil when it fails (the library is not installed).
func pkgConfig(_ arguments: String) -> [String]? {
  guard let pipe = popen("pkg-config \(arguments) 2>/dev/null", "r") else { return nil }
  var output = ""
  var buffer = [CChar](repeating: 0, count: 4096)
  while fgets(&buffer, Int32(buffer.count), pipe) != nil {
    output += buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
  }
  guard pclose(pipe) == 0 else { return nil }
  return output.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
}
let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]

/// The release daemon's link of libdbus from its static library (libdbus-1-dev's libdbus-1.a, when
/// installed): the linker takes the archive wherever it would take libdbus-1.so, so the daemon
/// does not load libdbus-1.so.3 with libsystemd and six more libraries at start (CDBusStatic
/// answers the archive's two libsystemd calls). Empty without the archive: linked as usual.
let staticDBus: [String] = {
  guard let libdir = pkgConfig("--variable=libdir dbus-1")?.first, access("\(libdir)/libdbus-1.a", R_OK) == 0
  else { return [] }
  return ["-Xlinker", "--remap-inputs=*/libdbus-1.so=\(libdir)/libdbus-1.a"]
}()

/// The release link of both executables: lld, no dynamic export of every symbol (the static Swift
/// runtime's link flags ask for it: 1.1 MB of symbol tables in responderctl, searched by the dynamic
/// linker at every start) and packed relative relocations (glibc 2.36) instead of RELA entries
/// (1.2 MB in responderctl).
let compactReleaseLink = [
  "-use-ld=lld", "-Xlinker", "--no-export-dynamic", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
]

let package = Package(
  name: "responderd",
  platforms: [.macOS(.v14)],
  products: [
    .executable(name: "responderd", targets: ["responderd"]),
    .executable(name: "responderctl", targets: ["responderctl"]),
    .executable(name: "touch-demo", targets: ["touch-demo"]),
    .library(name: "ResponderCore", targets: ["ResponderCore"]),
    .library(name: "TouchDispatch", targets: ["TouchDispatch"]),
    // For a Wayland app: its wl_touch into TouchDispatch (docs/touch-apps.md).
    .library(name: "WaylandTouch", targets: ["WaylandTouch"]),
    // For applications: `import ResponderClient` and nothing else.
    .library(name: "ResponderClient", targets: ["ResponderClient"]),
    // A daemon of one's own: the service, its components, the handler chain, the config reader.
    .library(name: "ResponderdKit", targets: ["ResponderdKit", "ResponderConfig"]),
    // Test doubles and testbeds for tests of downstream packages: the in-memory bus, the private
    // dbus-daemon harness, the umockdev testbed.
    .library(
      name: "ResponderdTestKit", targets: ["ResponderdTestKit", "DBusTestSupport", "DeviceTestSupport"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
    .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
  ],
  targets: [
    // System libraries (module.modulemap + shim.h).
    .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
    // The two libsystemd calls of libdbus-1.a, for the release daemon that links libdbus in.
    .target(name: "CDBusStatic"),
    .systemLibrary(name: "CEvdev", pkgConfig: "libevdev", providers: [.apt(["libevdev-dev"])]),
    // dlopen of a C library at the first call of one of its functions (for CIIO and CPulse).
    .target(name: "CLibraryLoader"),
    // libiio (libiio-dev's header), loaded with dlopen when a sensor is first wanted.
    .target(name: "CIIO", dependencies: ["CLibraryLoader"]),
    // libpulse (libpulse-dev's headers; the sound server's client library: PulseAudio, PipeWire's
    // pipewire-pulse), loaded with dlopen at the first volume key.
    .target(name: "CPulse", dependencies: ["CLibraryLoader"]),
    // The undo chords through Wayland: wlroots' virtual keyboard and KWin's fake input
    // (libwayland-client loaded on first use).
    .target(name: "CWaylandKeys", dependencies: ["CLibraryLoader"]),
    .systemLibrary(name: "CUdev", pkgConfig: "libudev", providers: [.apt(["libudev-dev"])]),
    // System calls as swift-system makes them: one error type naming the call and the file, and
    // whole-file reads and writes (for the adapters, the config and the tools).
    .target(
      name: "SystemCalls", dependencies: [.product(name: "SystemPackage", package: "swift-system")],
      swiftSettings: strict),
    // libwayland-client (libwayland-dev) and the xdg-shell, viewporter and fractional-scale client
    // code wayland-scanner generated from wayland-protocols (committed, see its README.md), for
    // the touch adapter and the demos (the daemon does not link it).
    .target(name: "CWaylandClient", linkerSettings: [.linkedLibrary("wayland-client")]),
    // Linux calls the Glibc module does not import (epoll, timerfd, signalfd, eventfd, pidfd, spawn);
    // EventLoop wraps them in swift-system's style (FileDescriptor, Errno).
    .target(name: "CSystemShims"),

    // Pure Swift, below everything: seconds, the Scheduler protocol and virtual time.
    .target(name: "EventTime", swiftSettings: strict),
    // Pure Swift: Linux input event codes (the one key-code table), device identity, evemu recordings.
    .target(name: "InputCodes", dependencies: ["EventTime"], swiftSettings: strict),

    // Pure Swift core: no C modules. ResponderCore also holds the chain's `Handler` protocol (MPRIS
    // implements it for the mpris handler; ResponderdKit chains handlers).
    .target(
      name: "ResponderCore", dependencies: ["EventTime"],
      swiftSettings: strict),
    .target(
      name: "TouchDispatch", dependencies: ["ResponderCore", "EventTime", "InputCodes"],
      swiftSettings: strict),
    // What the desktop shell takes of the touchscreen's touches, per shell (pure Swift): the
    // daemon's whole-screen gestures never act on a gesture the shell has taken.
    .target(
      name: "ShellGestures", dependencies: ["ResponderCore", "EventTime", "TouchDispatch"],
      swiftSettings: strict),
    // Pure Swift: scenes of views and recognizers (the JSON format of `touch replay`), built into a
    // window that reports every delivery and state change as JSON lines (replay and touch-demo).
    .target(
      name: "TouchScenes", dependencies: ["EventTime", "ResponderCore", "TouchDispatch"],
      swiftSettings: strict),
    .target(
      name: "RemoteControl", dependencies: ["ResponderCore", "EventTime", "InputCodes"],
      swiftSettings: strict),
    .target(
      name: "Motion", dependencies: ["ResponderCore", "EventTime"],
      swiftSettings: strict),

    // Adapters. EventLoop and DBus know time (EventTime), not the event model.
    .target(
      name: "EventLoop",
      dependencies: [
        "EventTime", "CSystemShims",
        .product(name: "HeapModule", package: "swift-collections"), "SystemCalls",
        .product(name: "SystemPackage", package: "swift-system"),
      ],
      swiftSettings: strict),
    .target(
      name: "DBus",
      dependencies: [
        "CDBus", "EventLoop", "EventTime", .product(name: "SystemPackage", package: "swift-system"),
      ],
      swiftSettings: strict),
    // Pure Swift: how the player to control is chosen (`[players]`), for MPRIS and the config.
    .target(name: "PlayerSelection", dependencies: ["EventTime"], swiftSettings: strict),
    .target(
      name: "MPRIS",
      dependencies: [
        "DBus", "EventTime", "PlayerSelection", "ResponderCore",
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strict),
    // The sound server (volume keys): libpulse on the service's event loop.
    .target(
      name: "SoundServer",
      dependencies: [
        "CPulse", "EventLoop", "EventTime", "InputCodes", .product(name: "Logging", package: "swift-log"),
        .product(name: "SystemPackage", package: "swift-system"),
      ],
      swiftSettings: strict),
    // Which desktop handles media keys itself (gsd-media-keys, KDE's mediacontrol), from the bus.
    .target(
      name: "DesktopWatch",
      dependencies: ["DBus", .product(name: "Logging", package: "swift-log")],
      swiftSettings: strict),
    // The user's logind session (system bus) and the desktop's screen savers (session bus).
    .target(
      name: "SessionWatcher",
      dependencies: ["DBus", "EventTime", .product(name: "Logging", package: "swift-log")],
      swiftSettings: strict),
    // The focus on the accessibility bus (AT-SPI): which widget has it, its role and states.
    .target(
      name: "AccessibilityWatch",
      dependencies: ["DBus", "EventTime", .product(name: "Logging", package: "swift-log")],
      swiftSettings: strict),
    // The undo and redo chords, and only they, through the compositor (GNOME's RemoteDesktop,
    // wlroots' virtual keyboard).
    .target(
      name: "KeySender",
      dependencies: [
        "CWaylandKeys", "DBus", "EventTime", .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strict),
    // The same chords through a Wayland compositor's own keyboard API (KWin's fake input).
    .target(
      name: "WaylandKeys",
      dependencies: [
        "CWaylandKeys", "EventLoop", "EventTime", "KeySender",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "SystemPackage", package: "swift-system"),
      ],
      swiftSettings: strict),
    .target(
      name: "EvdevInput",
      dependencies: [
        "CEvdev", "CUdev", "EventLoop", "EventTime", "InputCodes", "ResponderCore",
        .product(name: "Logging", package: "swift-log"), "SystemCalls",
        .product(name: "SystemPackage", package: "swift-system"),
      ],
      swiftSettings: strict),
    .target(
      name: "IIOInput",
      dependencies: [
        "CIIO", "CUdev", "EventLoop", "EventTime", "Motion", .product(name: "Logging", package: "swift-log"),
        "SystemCalls", .product(name: "SystemPackage", package: "swift-system"),
      ],
      swiftSettings: strict),

    // Touches from the Wayland compositor (wl_touch) into TouchDispatch, on the event loop; a
    // shared-memory xdg_toplevel window.
    .target(
      name: "WaylandTouch",
      dependencies: [
        "CWaylandClient", "EventLoop", "EventTime", "ResponderCore", "TouchDispatch",
        .product(name: "SystemPackage", package: "swift-system"),
      ],
      swiftSettings: strict),

    // The config file: the TOML reader and the sections of responderd.toml (pure Swift).
    .target(
      name: "ResponderConfig",
      dependencies: [
        "ResponderCore", "InputCodes", "TouchDispatch", "RemoteControl", "Motion", "PlayerSelection",
        "SystemCalls", "ShellGestures",
      ],
      swiftSettings: strict),
    // The service: components, handler chain, built-in handlers, the responder D-Bus API. The
    // responderd executable is this kit's standard components and a command line.
    .target(
      name: "ResponderdKit",
      dependencies: [
        "ResponderConfig", "ResponderCore", "EventTime", "TouchDispatch", "RemoteControl", "Motion",
        "EventLoop", "DBus", "MPRIS", "EvdevInput", "IIOInput", "ResponderInterfaces", "SoundServer",
        "DesktopWatch", "SessionWatcher", "ShellGestures", "AccessibilityWatch", "KeySender",
        "WaylandKeys", "PlayerSelection", .product(name: "Logging", package: "swift-log"), "SystemCalls",
        .product(name: "SystemPackage", package: "swift-system"),
      ],
      swiftSettings: strict),
    // responderctl's tools (key and touch replay, motion analyze/record/plot, scenes, JSON); not
    // the daemon's kit (motion record opens the accelerometer with IIOInput itself); the daemon
    // does not link them.
    .target(
      name: "ResponderTools",
      dependencies: [
        "ResponderConfig", "ResponderCore", "EventTime", "InputCodes", "TouchDispatch",
        "TouchScenes", "RemoteControl", "Motion", "EventLoop", "DBus", "IIOInput",
        .product(name: "Logging", package: "swift-log"), "SystemCalls",
      ],
      swiftSettings: strict),
    // The names and records of the daemon's D-Bus API, shared by the daemon and its clients.
    .target(
      name: "ResponderInterfaces", dependencies: ["DBus", "EventTime", "ResponderCore"],
      swiftSettings: strict),
    .target(
      name: "ResponderClient",
      dependencies: [
        "DBus", "EventLoop", "EventTime", "ResponderCore", "ResponderInterfaces",
        .product(name: "SystemPackage", package: "swift-system"),
      ],
      swiftSettings: strict),
    .executableTarget(
      name: "responderd",
      // No swift-argument-parser here: it brings Foundation (DaemonCommandLine parses by hand).
      dependencies: [
        "ResponderdKit", "ResponderConfig", "EventLoop", .product(name: "Logging", package: "swift-log"),
        "SystemCalls", "CDBusStatic",
      ],
      exclude: ["link"],
      swiftSettings: strict,
      // Resident memory (release; see docs/benchmarks.md): `compactReleaseLink` (the dynamic linker
      // searched the daemon's 7,700 exported symbols; 26,000 RELA entries were read at start); the
      // functions the daemon runs placed together (link/responderd.order, from
      // scripts/order-file); libstdc++ linked in, not loaded (link/libstdc++.so); libdbus linked in,
      // not loaded with libsystemd and six more libraries (`staticDBus`, CDBusStatic).
      linkerSettings: [
        .unsafeFlags(
          compactReleaseLink + [
            "-L", "\(Context.packageDirectory)/Sources/responderd/link", "-Xlinker",
            "--symbol-ordering-file=\(Context.packageDirectory)/Sources/responderd/link/responderd.order",
            "-Xlinker", "--no-warn-symbol-ordering",
          ] + staticDBus, .when(configuration: .release))
      ]),
    .executableTarget(
      name: "responderctl",
      dependencies: [
        "ResponderTools", "TouchScenes", "ResponderdKit", "ResponderConfig", "ResponderClient", "DBus",
        "EventLoop",
        "EventTime", "ResponderCore", "MPRIS", "Motion", .product(name: "Logging", package: "swift-log"),
        "SystemCalls",
      ],
      swiftSettings: strict,
      // No swift-argument-parser (it brings Foundation): the command line is parsed by hand
      // (CommandLineParser.swift). 20.3 → 17.9 → 10.8 MB stripped (docs/benchmarks.md, what the package
      // weighs).
      linkerSettings: [.unsafeFlags(compactReleaseLink, .when(configuration: .release))]),
    // TouchDispatch in a Wayland window: a scene of views and recognizers live (see docs/touch-apps.md).
    .executableTarget(
      name: "touch-demo",
      dependencies: [
        "EventLoop", "ResponderCore", "SystemCalls", "TouchDispatch", "TouchScenes", "WaylandTouch",
      ],
      swiftSettings: strict),
    // Examples.
    .executableTarget(
      name: "shake-to-undo", dependencies: ["ResponderClient"],
      path: "examples/shake-to-undo", swiftSettings: strict),

    // Benchmarks (release mode).
    .executableTarget(
      name: "KeyLatency",
      dependencies: [
        "BenchmarkSupport", "DBusTestSupport", "DeviceTestSupport", "EventLoop", "EvdevInput",
        "ResponderCore",
        "ResponderdKit", "ResponderConfig",
        .product(name: "Logging", package: "swift-log"), "SystemCalls",
        .product(name: "SystemPackage", package: "swift-system"),
      ],
      path: "Benchmarks/KeyLatency",
      swiftSettings: strict),
    .executableTarget(
      name: "MotionCost",
      dependencies: [
        "BenchmarkSupport", "EventTime",
        "Motion", "IIOInput", "EventLoop", "CUmockdev", "ResponderCore",
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Benchmarks/MotionCost", swiftSettings: strict),
    // What the motion API costs the daemon: 1 and 10 clients at 100 Hz beside sampling alone.
    .executableTarget(
      name: "MotionStreams",
      dependencies: [
        "BenchmarkSupport", "CUmockdev", "DBus", "DBusTestSupport", "EventLoop", "ResponderClient",
        "ResponderConfig", "ResponderdKit",
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Benchmarks/MotionStreams", swiftSettings: strict),
    // Shake accuracy over the real-motion corpus, responderd against seismic's algorithm.
    .executableTarget(
      name: "ShakeAccuracy",
      dependencies: [
        "SystemCalls", "Motion", "ResponderConfig", "ResponderTools", "TouchScenes", "ResponderCore",
        "EventTime",
      ],
      path: "Benchmarks/ShakeAccuracy", swiftSettings: strict),
    // End to end against the peer setup, in one run (scripts/bench): responderd, thd + playerctl,
    // playerctld, mpv on a private bus, devices emulated by umockdev.
    .executableTarget(
      name: "EndToEnd",
      dependencies: [
        "EventTime",
        "BenchmarkSupport", "CBenchmarkShims", "DBus", "DBusTestSupport", "DeviceTestSupport", "EventLoop",
        "SoundServer", .product(name: "Logging", package: "swift-log"),
        "SystemCalls", .product(name: "SystemPackage", package: "swift-system"),
      ],
      path: "Benchmarks/EndToEnd", swiftSettings: strict),
    // What the benchmarks share: umockdev testbed and fixtures, statistics.
    .target(
      name: "BenchmarkSupport",
      dependencies: ["InputCodes", "CUmockdev", "DeviceTestSupport", "ResponderCore", "SystemCalls"],
      path: "Benchmarks/BenchmarkSupport",
      swiftSettings: strict),
    // C for the benchmarks: the subreaper, the floors that read the same device as responderd
    // (libevdev → PlayPause on an open libdbus connection; → the volume on an open libpulse one),
    // and the signal floor (chatty players' signals read in batches and dropped, libdbus alone).
    .target(
      name: "CBenchmarkShims", dependencies: ["CDBus", "CEvdev"], path: "Benchmarks/CBenchmarkShims",
      linkerSettings: [.linkedLibrary("pulse")]),
    // touch-demo under a real GNOME Shell: a wl_touch frame to the recognizer's action, against the
    // same frames through TouchInput in process; idle wake-ups with the window open.
    .executableTarget(
      name: "TouchDemoLatency",
      dependencies: [
        "BenchmarkSupport", "DBusTestSupport", "EventTime", "ResponderCore", "ShellTestSupport",
        "SystemCalls",
        "TouchDemoTestSupport", "TouchDispatch", "TouchScenes",
      ],
      path: "Benchmarks/TouchDemoLatency", swiftSettings: strict),
    .executableTarget(
      name: "TouchFrame", dependencies: ["EventTime", "TouchDispatch", "ResponderCore"],
      path: "Benchmarks/TouchFrame",
      swiftSettings: strict),

    // Tests: per module, a unit target (`…Tests`: the test kit only, no process started) and, where
    // processes are needed, `…IntegrationTests` (buses, programs), `…DeviceTests` (umockdev) or
    // `…ShellTests` (real compositors). scripts/test finds the kinds by these names.
    .testTarget(name: "EventTimeTests", dependencies: ["EventTime"], swiftSettings: strict),
    .testTarget(name: "InputCodesTests", dependencies: ["InputCodes"], swiftSettings: strict),
    // The device-ownership state machine, on its own (no device).
    .testTarget(name: "EvdevInputTests", dependencies: ["EvdevInput"], swiftSettings: strict),
    .testTarget(
      name: "ResponderCoreTests", dependencies: ["ResponderCore", "EventTime"], swiftSettings: strict),
    .testTarget(
      name: "EventLoopTests",
      dependencies: ["EventLoop", "SystemCalls", .product(name: "SystemPackage", package: "swift-system")],
      swiftSettings: strict),
    .testTarget(name: "EventLoopIntegrationTests", dependencies: ["EventLoop"], swiftSettings: strict),
    .testTarget(
      name: "MotionTests", dependencies: ["EventTime", "ResponderCore", "Motion"], swiftSettings: strict),
    .testTarget(name: "IIOInputTests", dependencies: ["IIOInput"], swiftSettings: strict),
    .testTarget(
      name: "ShellGesturesTests",
      dependencies: ["ShellGestures", "TouchDispatch", "ResponderCore", "EventTime"], swiftSettings: strict),
    .testTarget(
      name: "TouchDispatchTests",
      dependencies: ["EventTime", "InputCodes", "ResponderCore", "TouchDispatch"], swiftSettings: strict),
    .testTarget(
      name: "TouchDispatchDeviceTests",
      dependencies: [
        "TestConditions",
        "EventTime", "InputCodes",
        "DeviceTestSupport", "TouchDispatch", "EvdevInput", "EventLoop", "ResponderCore", "CUmockdev",
        "ResponderdKit", "ResponderConfig", "DBusTestSupport", "SessionWatcher", "ShellGestures",
        "ShellTestSupport", .product(name: "Logging", package: "swift-log"), "SystemCalls",
        "ResponderdTestKit",
      ],
      swiftSettings: strict),
    .testTarget(
      name: "IIOInputDeviceTests",
      dependencies: [
        "TestConditions",
        "EventTime",
        "IIOInput", "CUmockdev", "EventLoop", "Motion", "ResponderdKit", "ResponderConfig", "ResponderTools",
        "TouchScenes",
        "DBus", "DBusTestSupport", "ResponderClient", "ResponderCore", "DeviceTestSupport", "InputCodes",
        "SessionWatcher", .product(name: "Logging", package: "swift-log"), "SystemCalls",
        .product(name: "SystemPackage", package: "swift-system"), "ShellTestSupport", "ResponderdTestKit",
      ],
      swiftSettings: strict),
    .testTarget(
      name: "WaylandTouchTests",
      dependencies: [
        "EventLoop", "EventTime", "ResponderCore", "ResponderdTestKit", "TouchDispatch", "WaylandTouch",
      ],
      swiftSettings: strict),
    .testTarget(
      name: "RemoteControlTests",
      dependencies: ["EventTime", "InputCodes", "RemoteControl", "ResponderCore"], swiftSettings: strict),
    .testTarget(
      name: "EvdevInputDeviceTests",
      dependencies: [
        "TestConditions",
        "EventTime", "InputCodes",
        "DeviceTestSupport", "EvdevInput", "RemoteControl", "ResponderCore", "EventLoop", "CUmockdev",
        "ResponderdKit", "ResponderConfig", "SoundServer", "DBusTestSupport", "SessionWatcher",
        "ShellTestSupport", "ResponderdTestKit",
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strict),
    // The service and its components on the test kit (no process); the architecture and
    // documentation checks.
    .testTarget(
      name: "ResponderdTests",
      dependencies: [
        "EventTime", "TouchDispatch",
        "ResponderdKit", "ResponderConfig", "DBus", "ResponderClient", "ResponderCore",
        "EventLoop", "RemoteControl", "ResponderdTestKit", "SystemCalls", "Motion", "InputCodes",
        "ShellGestures", "AccessibilityWatch", "KeySender", "SessionWatcher", "SoundServer", "EvdevInput",
      ],
      swiftSettings: strict),
    // The daemon and its tools as programs, on private buses; the examples, the interface files.
    .testTarget(
      name: "ResponderdIntegrationTests",
      dependencies: [
        "TestConditions",
        "EventTime", "ResponderdKit", "ResponderConfig", "DBus", "DBusTestSupport", "ResponderClient",
        "ResponderCore", "EventLoop", "ResponderdTestKit", .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strict),
    .testTarget(
      name: "ResponderConfigTests",
      dependencies: [
        "ResponderConfig", "ResponderCore", "InputCodes", "RemoteControl", "SystemCalls", "ShellGestures",
      ],
      swiftSettings: strict),
    .testTarget(
      name: "ResponderToolsTests",
      dependencies: [
        "ResponderTools", "TouchScenes", "ResponderConfig", "ResponderCore", "EventTime", "RemoteControl",
        "Motion", "SystemCalls",
      ],
      swiftSettings: strict),
    .testTarget(name: "ResponderClientTests", dependencies: ["ResponderClient"], swiftSettings: strict),
    .testTarget(
      name: "ResponderClientIntegrationTests",
      dependencies: ["ResponderClient", "DBus", "DBusTestSupport", "ResponderCore", "EventLoop"],
      swiftSettings: strict),

    // D-Bus test harness (private dbus-daemon, child processes), reusable by any test target,
    // and a peer process exporting an echo object.
    .target(
      name: "DBusTestSupport",
      dependencies: [
        "EventTime", "DBus", "EventLoop", "CDBus", "CSystemShims", "SystemCalls",
        .product(name: "SystemPackage", package: "swift-system"),
      ],
      path: "Tests/DBusTestSupport",
      swiftSettings: strict),
    // Real headless desktops for tests (GNOME Shell, mutter, KWin on private buses) with input
    // injected as the compositor gets it; the Wayland helpers of Tests/Fixtures/wayland.
    .target(
      name: "ShellTestSupport",
      dependencies: [
        "DBus", "DBusTestSupport", "EventLoop", "SystemCalls",
        .product(name: "SystemPackage", package: "swift-system"),
      ],
      path: "Tests/ShellTestSupport",
      swiftSettings: strict),
    // The kit against the real desktops: a Wayland client's touches, the shells' gestures.
    .testTarget(
      name: "DesktopShellTests",
      dependencies: [
        "DBusTestSupport", "EventLoop", "KeySender", "ShellTestSupport", "SystemCalls", "TestConditions",
      ],
      swiftSettings: strict),
    // touch-demo as a client of a headless desktop, its JSON lines read (tests and the benchmark).
    .target(
      name: "TouchDemoTestSupport",
      dependencies: ["DBusTestSupport", "EventLoop", "ShellTestSupport", "TouchScenes"],
      path: "Tests/TouchDemoTestSupport",
      swiftSettings: strict),
    // touch-demo under the real GNOME Shell and KWin.
    .testTarget(
      name: "WaylandTouchShellTests",
      dependencies: [
        "DBusTestSupport", "ShellTestSupport", "SystemCalls", "TestConditions", "TouchDemoTestSupport",
      ],
      swiftSettings: strict),
    // libumockdev, for the device tests and benchmarks only: pkg-config is asked only where it is
    // installed, so that building the daemon without it (`scripts/run` on a fresh machine) prints no
    // warning about a library that only the tests need (`scripts/test` installs it first).
    .systemLibrary(
      name: "CUmockdev", path: "Tests/CUmockdev",
      pkgConfig: pkgConfig("--exists umockdev-1.0") == nil ? nil : "umockdev-1.0",
      providers: [.apt(["libumockdev-dev"])]),
    // The in-memory bus (MessageBus on virtual time, no dbus-daemon), a service on it, and the
    // in-process doubles of the I/O the daemon uses (logind, the sound server, the motion sensors,
    // the input devices, the compositor's touches, …).
    .target(
      name: "ResponderdTestKit",
      dependencies: [
        "AccessibilityWatch", "DBus", "DesktopWatch", "EvdevInput", "EventLoop", "EventTime", "IIOInput",
        "InputCodes", "KeySender", "Motion", "ResponderConfig", "ResponderCore", "ResponderdKit",
        "SessionWatcher",
        "SoundServer", "SystemCalls", "TouchDispatch", "WaylandTouch",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "SystemPackage", package: "swift-system"),
      ],
      path: "Tests/ResponderdTestKit",
      swiftSettings: strict),
    // umockdev testbed for the device tests (emulated evdev devices).
    .target(name: "TestConditions", path: "Tests/TestConditions", swiftSettings: strict),
    .target(
      name: "DeviceTestSupport",
      dependencies: [
        "CUmockdev", "InputCodes", "SystemCalls", .product(name: "SystemPackage", package: "swift-system"),
      ],
      path: "Tests/DeviceTestSupport",
      swiftSettings: strict),
    .executableTarget(
      name: "DBusEchoPeer", dependencies: ["DBus", "EventLoop"], path: "Tests/DBusEchoPeer",
      swiftSettings: strict),
    .executableTarget(
      name: "DBusRoundTrip", dependencies: ["DBus", "DBusTestSupport", "EventLoop"],
      path: "Benchmarks/DBusRoundTrip", swiftSettings: strict),
    // Resident memory of responderd over 100,000 dispatched events (a leak per event shows).
    .executableTarget(
      name: "EventMemory", dependencies: ["BenchmarkSupport", "DBus", "DBusTestSupport", "EventLoop"],
      path: "Benchmarks/EventMemory", swiftSettings: strict),
    // responderd under connections that call WatchEvents and never read (issue 38): memory and
    // `responderctl status` before, during and after 10,000 events.
    .executableTarget(
      name: "WatcherSoak",
      dependencies: ["BenchmarkSupport", "DBus", "DBusTestSupport", "EventLoop", "SystemCalls"],
      path: "Benchmarks/WatcherSoak", swiftSettings: strict),
    .executableTarget(
      name: "MPRISRoundTrip",
      dependencies: [
        "MPRIS", "ResponderdKit", "ResponderConfig", "DBus", "DBusTestSupport", "EventLoop", "ResponderCore",
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Benchmarks/MPRISRoundTrip", swiftSettings: strict),
    .testTarget(
      name: "DesktopWatchTests",
      dependencies: ["DesktopWatch", "DBus", "EventTime", "ResponderdTestKit"],
      swiftSettings: strict),
    .testTarget(
      name: "MPRISTests",
      dependencies: [
        "EventTime", "ResponderdTestKit", "PlayerSelection", "MPRIS", "ResponderConfig", "DBus",
        "ResponderCore",
      ],
      swiftSettings: strict),
    // Real players (mpv, playerctld) on private buses, and the daemon with them.
    .testTarget(
      name: "MPRISIntegrationTests",
      dependencies: [
        "EventTime", "ResponderdTestKit", "PlayerSelection",
        "MPRIS", "ResponderdKit", "ResponderConfig", "DBus", "DBusTestSupport", "EventLoop", "ResponderCore",
        "SystemCalls", .product(name: "SystemPackage", package: "swift-system"),
      ],
      swiftSettings: strict),
    .testTarget(
      name: "SessionWatcherTests",
      dependencies: [
        "SessionWatcher", "DBus", "EventTime", "ResponderdTestKit",
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strict),
    .testTarget(
      name: "SoundServerIntegrationTests",
      dependencies: [
        "SoundServer", "ResponderdKit", "ResponderConfig", "ResponderCore", "EventLoop", "EventTime",
        "DBusTestSupport", "InputCodes", "ResponderdTestKit",
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strict),
    .testTarget(
      name: "DBusTests", dependencies: ["DBus", "EventTime", "ResponderdTestKit"], swiftSettings: strict),
    // libdbus against a private dbus-daemon, with a peer process.
    .testTarget(
      name: "DBusIntegrationTests",
      dependencies: [
        "DBus", "DBusTestSupport", "DBusEchoPeer", "EventLoop", "EventTime", "ResponderdTestKit",
      ],
      swiftSettings: strict),
  ]
)

// The touch demos in a GTK 4 and an SDL 2 window (examples/, docs/touch-apps.md), declared only
// where pkg-config finds the toolkit (libgtk-4-dev, libsdl2-dev): the package builds and tests
// without them, and where they are they build with the rest, in one build (no package of their own
// compiling TouchDispatch again). Their tests skip when they were not built. The toolkit's flags
// are pkg-config's, given here rather than by `systemLibrary(pkgConfig:)`, which warns at every
// build about the flags it drops (glib's `-pthread`, SDL's `-D_REENTRANT`).
for (name, module, library) in [("touch-demo-gtk", "CGtk4", "gtk4"), ("touch-demo-sdl", "CSDL2", "sdl2")] {
  guard let cflags = pkgConfig("--cflags \(library)"), let libs = pkgConfig("--libs \(library)") else {
    continue
  }
  let importer = cflags.filter { $0.hasPrefix("-I") || $0.hasPrefix("-D") }.flatMap { ["-Xcc", $0] }
  let linker = libs.filter { $0.hasPrefix("-L") || $0.hasPrefix("-l") }
  package.targets += [
    .systemLibrary(name: module, path: "examples/\(module)"),
    .executableTarget(
      name: name,
      dependencies: [
        .target(name: module), "EventTime", "ResponderCore", "SystemCalls", "TouchDispatch", "TouchScenes",
      ] + (name == "touch-demo-sdl" ? ["CWaylandClient"] : []),
      path: "examples/\(name)", swiftSettings: strict + [.unsafeFlags(importer)],
      linkerSettings: [.unsafeFlags(linker)]),
  ]
}

/// Keeps the targets named in `roots` and the targets they depend on, and nothing else.
@MainActor func keepOnly(_ roots: Set<String>) {
  var needed = roots
  var grew = true
  while grew {
    grew = false
    for target in package.targets where needed.contains(target.name) {
      for dependency in target.dependencies {
        switch dependency {
        case .targetItem(let name, _), .byNameItem(let name, _):
          if needed.insert(name).inserted { grew = true }
        default:
          break
        }
      }
    }
  }
  package.targets = package.targets.filter { needed.contains($0.name) }
  package.products = []
}

// `scripts/test-sanitized` builds one test target alone, under the address sanitizer: with
// RESPONDERD_ONLY_TESTS set to a test target's name, the package declares that target and the
// targets it depends on, and nothing else.
if let only = Context.environment["RESPONDERD_ONLY_TESTS"] {
  keepOnly([only])
  package.dependencies = []
} else if Context.environment["RESPONDERD_FUZZ"] != nil {
  // `scripts/fuzz` builds the libFuzzer targets (Fuzz/, `--sanitize=fuzzer`): with RESPONDERD_FUZZ
  // set, the package declares them and what they depend on, and nothing else (libFuzzer brings
  // the entry point: the other executables would not link).
  let fuzzTargets: [(name: String, dependencies: [Target.Dependency])] = [
    ("FuzzConfig", ["ResponderConfig"]), ("FuzzEvemu", ["InputCodes"]),
    ("FuzzMotionTrace", ["ResponderTools", "TouchScenes"]),
    ("FuzzTouchScene", ["ResponderTools", "TouchScenes"]),
    ("FuzzDBusValue", ["DBus"]),
  ]
  for fuzzTarget in fuzzTargets {
    package.targets.append(
      .executableTarget(
        name: fuzzTarget.name, dependencies: fuzzTarget.dependencies, path: "Fuzz/\(fuzzTarget.name)",
        swiftSettings: strict + [.unsafeFlags(["-parse-as-library"])]))
  }
  keepOnly(Set(fuzzTargets.map(\.name)))
}
