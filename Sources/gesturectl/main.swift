print("gesturectl")
