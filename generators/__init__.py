"""Generators: turn the schema and the failure-kind registry into every generated artifact.

Run ``python -m generators`` to regenerate, ``python -m generators --check`` to fail on drift.
"""
