print("handz-load: not built yet")
