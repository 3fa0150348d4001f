import GestureConfig
import GestureCore
import GestureProtocol
import SystemCalls

extension Daemon {
    /// SIGHUP: reads the configuration file again. A file that does not load leaves the running
    /// configuration in place, and the log says why. Otherwise the new thresholds and geometry apply to
    /// every device (gestures in flight are cancelled; an orientation set at run time is kept on top of
    /// the new geometry), limits and the log level apply at once, devices now
    /// ignored are dropped and devices now wanted are opened. The socket's path, mode and group apply at the
    /// next start.
    func reload() {
        SystemdNotifier.reloading()
        let path = options.configPath ?? Configuration.defaultPath
        Log.notice("SIGHUP received: reloading the configuration from \(path)")
        var new: DaemonConfiguration
        do {
            new = try loadConfiguration(options.configPath)
        } catch {
            Log.error("configuration not reloaded, keeping the running one: \(error)")
            SystemdNotifier.ready(status: statusLine)
            return
        }
        if let socketPath = options.socketPath { new.daemon.socketPath = socketPath }
        for warning in new.warnings { Log.warning(warning) }
        if new.daemon.socketPath != configuration.daemon.socketPath || new.daemon.socketMode != configuration.daemon.socketMode
            || new.daemon.socketGroup != configuration.daemon.socketGroup
        {
            Log.notice("the socket's path, mode and group change when the daemon restarts (now \(configuration.daemon.socketPath))")
            new.daemon.socketPath = configuration.daemon.socketPath
            new.daemon.socketMode = configuration.daemon.socketMode
            new.daemon.socketGroup = configuration.daemon.socketGroup
        }
        configuration = new
        Log.threshold = new.logPriority
        let tracing = Log.enabled(.debug)
        for slot in devices { slot.engine.tracing = tracing }
        for session in clients.values { session.outgoingLimitBytes = new.daemon.clientBufferBytes }
        if clients.count > new.daemon.maxClients {
            Log.notice("\(clients.count) clients are connected, more than the new max_clients \(new.daemon.maxClients); new ones are refused until fewer remain")
        }

        let now = SystemCall.monotonicMicroseconds()
        for slot in devices {
            var settings = new.resolve(slot.source.description, slot.paths).applyingUdevCalibration(slot.udevCalibration)
            if settings.ignore {
                removeDevice(slot, reason: "the configuration now ignores it")
                if let node = slot.source.hotplugNode { hotplug.closed(node) }
                continue
            }
            if settings.grab != slot.settings.grab {
                Log.notice("\(slot.info.id): a change of grab applies when the device is plugged in again or the daemon restarts")
            }
            for warning in settings.warnings { Log.warning("\(slot.info.id): \(warning)") }
            settings.grab = slot.settings.grab
            if settings.passthrough != (slot.passthrough != nil) {
                // Switched once nothing is down on the panel: a grab taken or released under a finger
                // would leave that touch down for the compositor.
                slot.passthroughWanted = settings.passthrough
            } else {
                slot.passthroughWanted = nil
            }
            settings.recognizer.withholdsTouches = slot.engine.settings.withholdsTouches
            guard settings.recognizer != slot.engine.settings || settings.geometry != slot.settings.geometry else {
                slot.settings = settings
                applyPendingPassthrough(slot)
                continue
            }
            let time = slot.source.eventMicroseconds(forMonotonic: now)
            slot.settings = settings
            // The orientation set at run time stays: it turns the new geometry as it turned the old.
            let geometry = slot.effectiveGeometry
            runEngine(slot, at: time) {
                $0.reconfigure(settings: settings.recognizer, geometry: geometry, atMicroseconds: time, into: &$1, touches: &$2)
            }
            applyPendingPassthrough(slot)
            Log.info("\(slot.info.id): new settings applied")
        }
        if options.discoverDevices { discoverPresentDevices() }
        Log.notice("configuration reloaded from \(path)")
        SystemdNotifier.ready(status: statusLine)
    }
}
