// swift-tools-version:6.2
import PackageDescription

let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]

let package = Package(
  name: "responderd",
  platforms: [.macOS(.v14)],
  products: [
    .executable(name: "responderd", targets: ["responderd"]),
    .executable(name: "responderctl", targets: ["responderctl"]),
    .library(name: "ResponderCore", targets: ["ResponderCore"]),
    .library(name: "TouchDispatch", targets: ["TouchDispatch"]),
    .library(name: "ResponderClient", targets: ["ResponderClient"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
    .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
  ],
  targets: [
    // System libraries (module.modulemap + shim.h).
    .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
    .systemLibrary(name: "CEvdev", pkgConfig: "libevdev", providers: [.apt(["libevdev-dev"])]),
    // libiio (libiio-dev's header), loaded with dlopen when a sensor is first wanted.
    .target(name: "CIIO"),
    .systemLibrary(name: "CUdev", pkgConfig: "libudev", providers: [.apt(["libudev-dev"])]),
    .systemLibrary(
      name: "CUmockdev", pkgConfig: "umockdev-1.0", providers: [.apt(["libumockdev-dev"])]),
    // System calls as swift-system makes them: one error type naming the call and the file, and
    // whole-file reads and writes (for the adapters, the config and the tools).
    .target(
      name: "SystemCalls", dependencies: [.product(name: "SystemPackage", package: "swift-system")],
      swiftSettings: strict),
    // Linux calls the Glibc module does not import (epoll, timerfd, signalfd, eventfd, pidfd, spawn);
    // EventLoop wraps them in swift-system's style (FileDescriptor, Errno).
    .target(name: "CSystemShims"),

    // Pure Swift core: no C modules.
    .target(
      name: "ResponderCore",
      swiftSettings: strict),
    .target(
      name: "TouchDispatch", dependencies: ["ResponderCore"],
      swiftSettings: strict),
    .target(
      name: "RemoteControl", dependencies: ["ResponderCore"],
      swiftSettings: strict),
    .target(
      name: "Motion", dependencies: ["ResponderCore"],
      swiftSettings: strict),

    // Adapters.
    .target(
      name: "EventLoop",
      dependencies: [
        "ResponderCore", "CSystemShims", "SystemCalls",
        .product(name: "HeapModule", package: "swift-collections"),
        .product(name: "SystemPackage", package: "swift-system"),
      ],
      swiftSettings: strict),
    .target(
      name: "DBus",
      dependencies: ["CDBus", "EventLoop", .product(name: "SystemPackage", package: "swift-system")],
      swiftSettings: strict),
    .target(
      name: "MPRIS",
      dependencies: ["DBus", "ResponderCore", "EventLoop", .product(name: "Logging", package: "swift-log")],
      swiftSettings: strict),
    .target(
      name: "EvdevInput",
      dependencies: [
        "SystemCalls",
        "CEvdev", "CUdev", "EventLoop", "RemoteControl", "TouchDispatch",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "SystemPackage", package: "swift-system"),
      ],
      swiftSettings: strict),
    .target(
      name: "IIOInput",
      dependencies: [
        "SystemCalls",
        "CIIO", "CUdev", "EventLoop", "Motion", .product(name: "Logging", package: "swift-log"),
        .product(name: "SystemPackage", package: "swift-system"),
      ],
      swiftSettings: strict),

    // Wiring and executables.
    .target(
      name: "Responderd",
      dependencies: [
        "SystemCalls",
        "ResponderCore", "TouchDispatch", "RemoteControl", "Motion", "EventLoop", "DBus", "MPRIS",
        "EvdevInput", "IIOInput", "ResponderClient",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "SystemPackage", package: "swift-system"),

      ],
      swiftSettings: strict),
    .target(
      name: "ResponderClient", dependencies: ["DBus", "EventLoop", "ResponderCore"],
      swiftSettings: strict),
    .executableTarget(
      name: "responderd",
      // No swift-argument-parser here: it brings Foundation (DaemonCommandLine parses by hand).
      dependencies: [
        "SystemCalls", "Responderd", "EventLoop", .product(name: "Logging", package: "swift-log"),
      ],
      exclude: ["link"],
      swiftSettings: strict,
      // Resident memory (release; see README, Benchmarks): no dynamic export of every symbol (the
      // static Swift runtime's link flags ask for it; the dynamic linker then searches the daemon's
      // 7,700 symbols); packed relative relocations (lld; glibc 2.36) instead of 26,000 RELA entries
      // read at start; the functions the daemon runs placed together (link/responderd.order, from
      // scripts/order-file); libstdc++ linked in, not loaded (link/libstdc++.so).
      linkerSettings: [
        .unsafeFlags(
          [
            "-use-ld=lld", "-L", "\(Context.packageDirectory)/Sources/responderd/link",
            "-Xlinker", "--no-export-dynamic", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
            "-Xlinker",
            "--symbol-ordering-file=\(Context.packageDirectory)/Sources/responderd/link/responderd.order",
            "-Xlinker", "--no-warn-symbol-ordering",
          ], .when(configuration: .release))
      ]),
    .executableTarget(
      name: "responderctl",
      dependencies: [
        "SystemCalls",
        "Responderd", "ResponderClient", "DBus", "EventLoop", "ResponderCore",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      swiftSettings: strict),
    // Examples.
    .executableTarget(
      name: "shake-to-undo", dependencies: ["ResponderClient", "DBus", "EventLoop", "ResponderCore"],
      path: "examples/shake-to-undo", swiftSettings: strict),

    // Benchmarks (release mode).
    .executableTarget(
      name: "KeyLatency",
      dependencies: [
        "SystemCalls",
        "BenchmarkSupport", "DBusTestSupport", "DeviceTestSupport", "EventLoop", "EvdevInput",
        "ResponderCore",
        "Responderd",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "SystemPackage", package: "swift-system"),
      ],
      path: "Benchmarks/KeyLatency",
      swiftSettings: strict),
    .executableTarget(
      name: "MotionCost",
      dependencies: [
        "Motion", "IIOInput", "EventLoop", "CUmockdev", "ResponderCore",
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Benchmarks/MotionCost", swiftSettings: strict),
    // End to end against the peer setup, in one run (scripts/bench): responderd, thd + playerctl,
    // playerctld, mpv on a private bus, devices emulated by umockdev.
    .executableTarget(
      name: "EndToEnd",
      dependencies: [
        "SystemCalls",
        "BenchmarkSupport", "CBenchmarkShims", "DBus", "DBusTestSupport", "DeviceTestSupport", "EventLoop",
        .product(name: "SystemPackage", package: "swift-system"),
      ],
      path: "Benchmarks/EndToEnd", swiftSettings: strict),
    // What the benchmarks share: umockdev testbed and fixtures, statistics.
    .target(
      name: "BenchmarkSupport",
      dependencies: ["CUmockdev", "DeviceTestSupport", "ResponderCore", "SystemCalls"],
      path: "Benchmarks/BenchmarkSupport",
      swiftSettings: strict),
    .target(name: "CBenchmarkShims", path: "Benchmarks/CBenchmarkShims"),
    .executableTarget(
      name: "TouchFrame", dependencies: ["TouchDispatch", "ResponderCore"], path: "Benchmarks/TouchFrame",
      swiftSettings: strict),

    // Tests: one target per module.
    .testTarget(name: "ResponderCoreTests", dependencies: ["ResponderCore"], swiftSettings: strict),
    .testTarget(
      name: "EventLoopTests",
      dependencies: ["EventLoop", "SystemCalls", .product(name: "SystemPackage", package: "swift-system")],
      swiftSettings: strict),
    .testTarget(name: "MotionTests", dependencies: ["Motion"], swiftSettings: strict),
    .testTarget(name: "IIOInputTests", dependencies: ["IIOInput"], swiftSettings: strict),
    .testTarget(name: "TouchDispatchTests", dependencies: ["TouchDispatch"], swiftSettings: strict),
    .testTarget(
      name: "TouchDispatchDeviceTests",
      dependencies: [
        "SystemCalls",
        "DeviceTestSupport", "TouchDispatch", "EvdevInput", "EventLoop", "ResponderCore", "CUmockdev",
        "Responderd",
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strict),
    .testTarget(
      name: "IIOInputDeviceTests",
      dependencies: [
        "SystemCalls",
        "IIOInput", "CUmockdev", "EventLoop", "Motion", "Responderd",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "SystemPackage", package: "swift-system"),
      ],
      swiftSettings: strict),
    .testTarget(
      name: "RemoteControlTests", dependencies: ["RemoteControl", "ResponderCore"], swiftSettings: strict),
    .testTarget(
      name: "EvdevInputDeviceTests",
      dependencies: [
        "DeviceTestSupport", "EvdevInput", "RemoteControl", "ResponderCore", "EventLoop", "CUmockdev",
        "Responderd",
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: strict),
    .testTarget(
      name: "ResponderdTests",
      dependencies: [
        "SystemCalls",
        "Responderd", "DBus", "DBusTestSupport", "ResponderClient", "ResponderCore", "EventLoop",
        "RemoteControl",
      ],
      swiftSettings: strict),
    .testTarget(
      name: "ResponderClientTests",
      dependencies: ["ResponderClient", "DBus", "DBusTestSupport", "ResponderCore", "EventLoop"],
      swiftSettings: strict),

    // D-Bus test harness (private dbus-daemon, child processes), reusable by any test target,
    // and a peer process exporting an echo object.
    .target(
      name: "DBusTestSupport",
      dependencies: [
        "DBus", "EventLoop", "CDBus", "CSystemShims", "SystemCalls",
        .product(name: "SystemPackage", package: "swift-system"),
      ],
      path: "Tests/DBusTestSupport",
      swiftSettings: strict),
    // umockdev testbed for the device tests (emulated evdev devices).
    .target(
      name: "DeviceTestSupport",
      dependencies: [
        "CUmockdev", "ResponderCore", "SystemCalls", .product(name: "SystemPackage", package: "swift-system"),
      ],
      path: "Tests/DeviceTestSupport",
      swiftSettings: strict),
    .executableTarget(
      name: "DBusEchoPeer", dependencies: ["DBus", "EventLoop"], path: "Tests/DBusEchoPeer",
      swiftSettings: strict),
    .executableTarget(
      name: "DBusRoundTrip", dependencies: ["DBus", "DBusTestSupport", "EventLoop"],
      path: "Benchmarks/DBusRoundTrip", swiftSettings: strict),
    .executableTarget(
      name: "MPRISRoundTrip",
      dependencies: [
        "MPRIS", "Responderd", "DBus", "DBusTestSupport", "EventLoop", "ResponderCore",
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Benchmarks/MPRISRoundTrip", swiftSettings: strict),
    .testTarget(
      name: "MPRISTests",
      dependencies: [
        "MPRIS", "Responderd", "DBus", "DBusTestSupport", "EventLoop", "ResponderCore", "SystemCalls",
        .product(name: "SystemPackage", package: "swift-system"),
      ],
      swiftSettings: strict),
    .testTarget(
      name: "DBusTests",
      dependencies: ["DBus", "DBusTestSupport", "DBusEchoPeer", "EventLoop", "ResponderCore"],
      swiftSettings: strict),
  ]
)
