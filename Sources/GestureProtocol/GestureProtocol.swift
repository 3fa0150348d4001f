// GestureProtocol module (work in progress)
