"""The trainer adapters against the real trainers (tests/trainers/test_real_trainers.py)."""
