/// The scene touch-demo shows without `--scene` (the format of `responderctl touch replay`): a
/// card that pans, a square that pinches and rotates, a button, a pad that highlights on a long
/// press, and a double tap anywhere that puts everything back.
let demoScene = """
  {"screen": {"width": 800, "height": 600},
   "views": [
     {"id": "card", "frame": [60, 80, 260, 160]},
     {"id": "square", "frame": [470, 110, 200, 200], "multipleTouch": true},
     {"id": "button", "frame": [60, 420, 220, 90], "control": "button"},
     {"id": "pad", "frame": [470, 400, 200, 130]}
   ],
   "recognizers": [
     {"id": "pan", "kind": "pan", "view": "card"},
     {"id": "pinch", "kind": "pinch", "view": "square", "simultaneousWith": ["rotate"]},
     {"id": "rotate", "kind": "rotation", "view": "square", "simultaneousWith": ["pinch"]},
     {"id": "press", "kind": "longPress", "view": "pad"},
     {"id": "reset", "kind": "tap", "view": "window", "taps": 2}
   ]}
  """
