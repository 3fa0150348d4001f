// GestureClient module (work in progress)
