"""The shared kernel: what every app may import and nothing in it imports an app."""
