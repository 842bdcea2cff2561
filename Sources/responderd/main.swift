print("responderd")
