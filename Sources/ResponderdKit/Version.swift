/// The version of responderd and responderctl.
public let responderdVersion = "0.5.0"
