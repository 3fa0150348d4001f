// GestureConfig module (work in progress)
