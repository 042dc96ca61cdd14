"""The rules: pure functions over a scene (what lies on the table) and a match state."""
