import EventLoop
import Logging
import ResponderConfig
import ResponderdKit
import SystemCalls

#if canImport(Glibc)
  import Glibc
#endif

/// `responderd`: the user-session service. The command line is `DaemonCommandLine` (`--help`).
@main
enum ResponderdCommand {
  static func main() {
    // Before anything is written: a reader of stdout or stderr that goes away (`responderd 2>&1 |
    // head -n 1`) costs lines, not the process (the service's own `run()` says so again).
    signal(SIGPIPE, SIG_IGN)
    let options: DaemonCommandLine
    do {
      switch try DaemonCommandLine.parse(Array(CommandLine.arguments.dropFirst())) {
      case .help:
        writeText(DaemonCommandLine.help, to: .standardOutput)
        exit(0)
      case .version:
        writeText(responderdVersion + "\n", to: .standardOutput)
        exit(0)
      case .completionScript(let script):
        writeText(script, to: .standardOutput)
        exit(0)
      case .run(let parsed):
        options = parsed
      }
    } catch {
      writeText(error.text, to: .standardError)
      exit(64)  // EX_USAGE
    }
    do {
      exit(try run(options))
    } catch {
      writeText("Error: \(error)\n", to: .standardError)
      exit(1)
    }
  }

  /// Runs the service (or checks a config); returns the exit code.
  static func run(_ options: DaemonCommandLine) throws -> Int32 {
    if options.checkConfigRequested {
      // As `sshd -t`: without a FILE, the file the service would load (--config, else the default
      // places), and it says which.
      guard let path = options.checkConfig ?? options.config ?? ResponderdConfig.defaultPath() else {
        writeText(
          "no config file (\(ResponderdConfig.searchedPaths().joined(separator: ", ")) do not exist): the service would run on the built-in defaults\n",
          to: .standardOutput)
        return 0
      }
      if options.checkConfig == nil {
        writeText("checking \(path), the file the service would load\n", to: .standardOutput)
      }
      do {
        let loaded = try ResponderdConfig.load(path: path)
        // Rules a desktop shell takes are accepted (the service starts), with a warning each.
        let shells = loaded.shellProfilesToCheck(currentDesktop: environment("XDG_CURRENT_DESKTOP"))
        for warning in loaded.shellWarnings(for: shells) { writeText("\(warning)\n", to: .standardError) }
        writeText("\(path): OK (chain: \(loaded.chain.joined(separator: " → ")))\n", to: .standardOutput)
        return 0
      } catch {
        writeText("\(error)\n", to: .standardError)
        return 78  // EX_CONFIG, as when the service refuses the same file at start-up
      }
    }

    let loaded: ResponderdConfig
    do {
      if let path = options.config ?? ResponderdConfig.defaultPath() {
        loaded = try ResponderdConfig.load(path: path)
      } else {
        loaded = ResponderdConfig()
      }
    } catch {
      writeText("responderd: refusing to start: \(error)\n", to: .standardError)
      return 78  // EX_CONFIG
    }

    let levelName = options.logLevel ?? loaded.logging.level
    guard let level = Logger.Level(rawValue: levelName) else {
      writeText("responderd: unknown log level '\(levelName)'\n", to: .standardError)
      return 64
    }
    LoggingSystem.bootstrap { label in StderrLogHandler(label: label, level: level) }
    let logger = Logger(label: "responderd")

    if geteuid() == 0 && options.allowRoot {
      logger.warning("running as root because of --allow-root: meant for test containers only")
    } else if geteuid() == 0, let user = options.user {
      do {
        try dropPrivileges(to: user)
      } catch {
        logger.critical("started as root and could not become '\(user)': \(error)")
        return 77  // EX_NOPERM
      }
      // Root's bus is not the user's: the user's own, where `systemctl --user` would run it.
      let runtime = "/run/user/\(getuid())"
      setenv("XDG_RUNTIME_DIR", runtime, 1)
      setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=\(runtime)/bus", 1)
      logger.warning(
        "started as root: now running as '\(user)' (uid \(getuid())) on its session bus; responderd is meant to run as the session user (systemctl --user)"
      )
    } else if geteuid() == 0 {
      // Dropped to a user with no session, it would wait for a bus that never comes; as root it
      // would serve root's, which no desktop session uses.
      writeText(
        "responderd: started as root: a user's responderd cannot reach root's session bus, and root's serves no desktop; run it as your session user (systemctl --user start responderd), or as root with --user NAME (NAME's session) or --allow-root (test containers only)\n",
        to: .standardError)
      return 77  // EX_NOPERM
    }

    let loop = try EventLoop()
    let service = Service(config: loaded, loop: loop, logger: logger)
    StandardComponents.add(to: service)
    logger.info("responderd \(responderdVersion) starting (config: \(loaded.file))")
    try service.run()
    logger.info("responderd stopped")
    return service.exitCode
  }
}
