"""The director turns a game protocol into a performance: timing, per-seat acting
scripts, injected violations and the ground truth they imply.

Pipeline (each step a pure function of its inputs and a seed):
`game.sample_game` (or any native protocol) -> `timing.time_protocol` ->
`plan.plan_performance` -> `inject.inject` -> `script.seat_scripts` / `truth`.
"""
