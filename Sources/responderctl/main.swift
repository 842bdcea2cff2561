print("responderctl")
