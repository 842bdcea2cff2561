// An app imports `ResponderClient` and nothing else. The event model it subclasses and receives
// (`Responder`, `Application`, `Event`; ResponderCore), its time (`Seconds`, `Scheduler`;
// EventTime) and the names and records of the daemon's API (`ResponderBusAPI`, `MotionBusAPI`;
// ResponderInterfaces, which the daemon shares) are re-exported: wrapping them would duplicate
// them. The loop and the bus connection are wrapped instead (`ClientSession`). `@_exported` is a compile-time attribute (no
// runtime call); it is the only way Swift offers to re-export a module.
@_exported import EventTime
@_exported import ResponderCore
@_exported import ResponderInterfaces
