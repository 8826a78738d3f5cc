"""The actor: a seat's pose as a pure function of time and its script."""
from __future__ import annotations

import functools

import numpy as np

from sample_videos.acting.actions import SeatContext, body_pose, head_pose, mask_arm, mask_pose
from sample_videos.acting.pose import ArmPose, Pose, ease, lerp
from sample_videos.acting.script import ActionEvent, Channel, SeatScript

MASK_HAND_LEAD = 0.15   # the hand reaches the mask this long before it moves
MASK_DELAY = 0.1


def _blend_dicts(a: dict, b: dict, w: float) -> dict:
    return {k: lerp(a[k], b[k], w) for k in b}


def _channel_state(events: tuple[ActionEvent, ...], t: float, value, delay: float = 0.0) -> dict:
    """Value of a channel at t: each event eases in from whatever was showing."""
    starts = [e.t + delay for e in events]
    i = int(np.searchsorted(starts, t, side="right")) - 1
    if i < 0:
        return value(None, 0.0)
    # walk back to the newest event whose transition had finished by t
    j = i
    while j > 0 and (t - starts[j]) < events[j].transition:
        j -= 1
    state = value(events[j], t - starts[j]) if (j > 0 or t - starts[0] >= events[0].transition) \
        else _blend_dicts(value(None, 0.0), value(events[0], t - starts[0]), ease((t - starts[0]) / events[0].transition))
    for k in range(j + 1, i + 1):
        w = ease((t - starts[k]) / events[k].transition)
        state = _blend_dicts(state, value(events[k], t - starts[k]), w)
    return state


def _mask_hand_weight(events: tuple[ActionEvent, ...], t: float) -> float:
    """How far the hand is toward the mask: up before each mask change, down after."""
    w = 0.0
    prev = None
    for e in events:
        key = (e.action, tuple(e.params))
        if key == prev:
            continue
        prev = key
        t_in, t_top = e.t + MASK_DELAY - MASK_HAND_LEAD - 0.35, e.t + MASK_DELAY - MASK_HAND_LEAD + 0.2
        t_out0 = e.t + MASK_DELAY + e.transition
        t_out1 = t_out0 + 0.4
        if t_in <= t <= t_out1:
            if t < t_top:
                w = max(w, ease((t - t_in) / (t_top - t_in)))
            elif t <= t_out0:
                w = 1.0
            else:
                w = max(w, 1 - ease((t - t_out0) / (t_out1 - t_out0)))
    return w


@functools.lru_cache(maxsize=64)
def _idle_params(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.uniform(0.12, 0.45, 8), rng.uniform(0, 2 * np.pi, 8)


def _idle(ctx: SeatContext, t: float) -> np.ndarray:
    """Small slow sway so no two frames are identical (seeded per seat)."""
    freq, phase = _idle_params(ctx.seed)
    return np.sin(2 * np.pi * freq * t + phase)


def pose_at(ctx: SeatContext, script: SeatScript, t: float) -> Pose:
    body = _channel_state(script.channel(Channel.BODY), t, lambda e, tau: body_pose(ctx, e, tau))
    head = _channel_state(script.channel(Channel.HEAD), t, lambda e, tau: head_pose(ctx, e, tau))
    mask_events = script.channel(Channel.MASK)
    mask = _channel_state(mask_events, t, lambda e, tau: mask_pose(ctx, e), delay=MASK_DELAY)
    right: ArmPose = body["right"]
    w = _mask_hand_weight(mask_events, t)
    if w > 0:
        right = lerp(right, mask_arm(ctx, float(body["lean"])), w)
    s = _idle(ctx, t)
    right = ArmPose(right.wrist + 0.004 * s[5:8], right.forward, right.palm, right.elbow, right.gesture)
    left: ArmPose = body["left"]
    left = ArmPose(left.wrist + 0.004 * s[[7, 5, 6]], left.forward, left.palm, left.elbow, left.gesture)
    return Pose(lean=float(body["lean"]) + 0.012 * s[0], rise=float(body["rise"]),
                torso_yaw=float(body["torso_yaw"]) + 0.02 * s[1],
                head_yaw=float(head["head_yaw"]) + 0.035 * s[2],
                head_pitch=float(head["head_pitch"] + body["head_pitch_add"]) + 0.025 * s[3],
                head_roll=float(head["head_roll"]) + 0.015 * s[4],
                right=right, left=left,
                mask_lift=float(mask["mask_lift"]), mask_on_head=float(mask["mask_on_head"]),
                present=float(body["present"]))
