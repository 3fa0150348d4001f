// GestureDaemon module (work in progress)
