"""engine package: rule profiles, the native protocol, the replay state machine, audits.

Entry points: `engine.protocol.load_protocol`, `engine.replay.replay`,
`engine.profiles.get_profile`, `engine.generate.random_game` (see docs/engine.md).
"""
