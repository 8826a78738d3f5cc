"""What each action looks like: pure functions (context, event, time in the
action) -> the fields of the pose its channel owns."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sample_videos.acting.pose import ArmPose, BodyDims
from sample_videos.acting.script import PARAMS, Action, ActionEvent
from sample_videos.render.hand_model import gesture_named, lowest_point_offset, Gesture

TABLE_CLEARANCE = 0.004  # a hand "on" the table floats this much above it


@dataclass(frozen=True)
class SeatContext:
    """What an actor knows about its seat (all in the seat frame)."""
    judge_dir: tuple[float, float, float]      # horizontal unit vector toward the camera
    zone: tuple[float, float, float]           # own vote zone on the table
    left_zone: tuple[float, float, float]      # the left neighbour's zone
    right_zone: tuple[float, float, float]     # the right neighbour's zone
    dims: BodyDims = BodyDims()
    hand_scale: float = 1.0
    seed: int = 0

    @property
    def judge_yaw(self) -> float:
        """Angle from straight ahead to the camera, + = to the player's left."""
        x, y, _ = self.judge_dir
        return float(np.arctan2(-x, y))


def _v(*xs) -> np.ndarray:
    return np.array(xs, float)


def _n(v) -> np.ndarray:
    v = np.asarray(v, float)
    return v / np.linalg.norm(v)


def _mirror(arm: ArmPose) -> ArmPose:
    m = _v(-1, 1, 1)
    return ArmPose(arm.wrist * m, arm.forward * m, arm.palm * m, arm.elbow * m, arm.gesture)


def _contact_z(ctx: SeatContext, g: Gesture, fwd, palm, left: bool) -> float:
    return lowest_point_offset(g, fwd, palm, left) * ctx.hand_scale + TABLE_CLEARANCE


def rest_arm(ctx: SeatContext) -> ArmPose:
    g = gesture_named("relaxed")
    fwd, palm = _n([-0.3, 1.0, -0.08]), _v(0, 0, -1)
    z = _contact_z(ctx, g, fwd, palm, False)
    return ArmPose(_v(0.15, 0.09, max(z, 0.035)), fwd, palm, _v(1.0, -0.3, -1.0), g.as_array())


def night_arms(ctx: SeatContext, lean: float) -> tuple[ArmPose, ArmPose]:
    """Arms crossed on the chest: each hand on the other arm, near the elbow."""
    sc = ctx.dims.shoulder_center(lean, 0.0)
    g = gesture_named("relaxed").as_array()
    right = ArmPose(sc + _v(-0.13, 0.13, -0.17), _n([-1, 0.15, 0.25]), _n([0, -1, 0.1]), _v(0.3, 0.2, -1), g)
    left = ArmPose(sc + _v(0.12, 0.16, -0.22), _n([1, 0.1, 0.3]), _n([0, -1, 0.1]), _v(-0.3, 0.2, -1), g)
    return right, left


def vote_arm(ctx: SeatContext, form: str, tau: float, hold, lift_time: float, lean: float) -> ArmPose:
    """Elbow on the table, the hand placed upright in the seat's zone."""
    if form == "thumb_up":
        g, fwd, palm = gesture_named("thumb_up"), _n([-0.2, 1, 0]), _v(-1, 0, 0)
    elif form == "palm":
        g = Gesture((0.05, 0.05, 0.08, 0.1), 0.3, (25.0, 0.0, 0.0, 5.0, 5.0))
        fwd, palm = _n([-0.2, 1, 0.15]), _v(-1, 0, 0)
    else:  # fingertip: index pointing down at the table
        g, fwd, palm = gesture_named("fingertip"), _n([-0.1, 0.45, -1]), _n([-1, 0, 0])
    zone = np.asarray(ctx.zone) + _v(0.07, -0.02, 0)
    z = _contact_z(ctx, g, fwd, palm, False)
    # descend onto the zone during the first half second, lift after `hold`
    z_extra = 0.09 * (1 - min(max(tau / 0.55, 0.0), 1.0)) ** 2
    if hold is not None and tau > hold:
        z_extra += 0.13 * min((tau - hold) / max(lift_time, 0.05), 1.0)
    # the wrist a forearm's length from an elbow resting on the table edge
    wrist = _v(zone[0], zone[1] - 0.07, z + z_extra)
    # aim the elbow at a point resting on the table near its edge
    shoulder = ctx.dims.shoulder_center(lean, 0.0) + _v(ctx.dims.shoulder_half * ctx.dims.scale, 0, -0.02)
    return ArmPose(wrist, fwd, palm, _elbow_on_table(ctx, shoulder, wrist), g.as_array())


def _elbow_on_table(ctx: SeatContext, shoulder: np.ndarray, wrist: np.ndarray, height: float = 0.045) -> np.ndarray:
    """The IK pole that puts the elbow resting on the table (its centre one
    forearm radius above the top), on the outer side, if the arm can."""
    l1, l2 = ctx.dims.upper_arm * ctx.dims.scale, ctx.dims.forearm * ctx.dims.scale
    d_vec = wrist - shoulder
    d = float(np.clip(np.linalg.norm(d_vec), abs(l1 - l2) + 1e-3, l1 + l2 - 1e-3))
    axis = d_vec / np.linalg.norm(d_vec)
    a = (l1 * l1 - l2 * l2 + d * d) / (2 * d)
    h = np.sqrt(max(l1 * l1 - a * a, 0.0))
    u = np.cross(axis, [0.0, 0.0, 1.0])
    u /= np.linalg.norm(u)
    v = np.cross(axis, u)
    phi = np.linspace(0, 2 * np.pi, 145)
    circle = shoulder + axis * a + h * (np.cos(phi)[:, None] * u + np.sin(phi)[:, None] * v)
    cost = np.abs(circle[:, 2] - height) + 0.3 * np.maximum(wrist[0] - circle[:, 0], 0)
    return circle[int(np.argmin(cost))] - shoulder


def raised_arm(ctx: SeatContext, g: Gesture) -> ArmPose:
    """Forearm upright on the elbow, fingers up, palm toward the table centre."""
    return ArmPose(_v(0.17, 0.02, 0.33), _n([-0.1, 0.15, 1]), _n([-0.25, 1, 0]), _v(0.7, -0.2, -1), g.as_array())


def show_arm(ctx: SeatContext, g: Gesture) -> ArmPose:
    """Hand up in front of the shoulder, palm turned to the judge."""
    j = np.asarray(ctx.judge_dir, float)
    palm = _n(j + _v(0, 0, 0.15))
    return ArmPose(_v(0.16, 0.04, 0.30), _n([-0.05, 0.1, 1]), palm, _v(0.7, -0.3, -1), g.as_array())


def body_pose(ctx: SeatContext, ev: ActionEvent | None, tau: float) -> dict:
    """Body-channel fields: lean, rise, torso yaw, extra head pitch, both arms."""
    base_yaw = float(np.clip(0.4 * ctx.judge_yaw, -0.5, 0.5))
    rest_r = rest_arm(ctx)
    out = dict(lean=0.06, rise=0.0, torso_yaw=base_yaw, head_pitch_add=0.0,
               right=rest_r, left=_mirror(rest_r), present=1.0)
    if ev is None or ev.action is Action.REST:
        return out
    a = ev.action
    hand = ev.param("hand") if "hand" in PARAMS[a] else "right"

    def put(arm: ArmPose) -> None:
        # arms are designed for the right hand; the left is their mirror image
        if hand == "left":
            out["left"] = _mirror(arm)
        else:
            out["right"] = arm

    if a is Action.NIGHT_POSE:
        out["lean"] = 0.12
        out["right"], out["left"] = night_arms(ctx, 0.12)
        out["head_pitch_add"] = np.radians(float(ev.param("head_down")))
        out["torso_yaw"] = 0.0
    elif a is Action.VOTE:
        out["lean"] = 0.42
        put(vote_arm(ctx, ev.param("form"), tau, ev.param("hold"), float(ev.param("lift")), 0.42))
    elif a in (Action.RAISE_HAND, Action.SHOT):
        n = int(ev.param("fingers"))
        g = gesture_named(f"count{n}").as_array()
        if a is Action.SHOT:
            u = (tau - float(ev.param("curl_at"))) / float(ev.param("curl_time"))
            if 0.0 < u < 1.0:
                c = 0.95 * np.sin(np.pi * u)
                g = g.copy()
                g[0:n] = c
        out["lean"] = 0.2
        put(raised_arm(ctx, Gesture.from_array(g)))
    elif a is Action.SHOW_FINGERS:
        out["lean"] = 0.15
        arm = show_arm(ctx, gesture_named(f"count{int(ev.param('count'))}"))
        if hand == "left":
            arm = ArmPose(arm.wrist * _v(-1, 1, 1), arm.forward * _v(-1, 1, 1), arm.palm,
                          arm.elbow * _v(-1, 1, 1), arm.gesture)
            out["left"] = arm
        else:
            out["right"] = arm
    elif a in (Action.STAND_UP, Action.LEAVE):
        if a is Action.LEAVE and tau >= float(ev.param("after")):
            out["present"] = 0.0
        out["rise"], out["lean"] = 0.45, -0.02
        sc = ctx.dims.shoulder_center(-0.02, 0.45)
        g = gesture_named("relaxed").as_array()
        r = ArmPose(sc + _v(0.24, -0.02, -0.52), _v(0, 0.1, -1), _v(-1, 0, 0), _v(0.2, -1, 0), g)
        out["right"], out["left"] = r, _mirror(r)
    elif a is Action.TOUCH_NEIGHBOUR:
        side = ev.param("side")
        zone = np.asarray(ctx.right_zone if side == "right" else ctx.left_zone, float)
        hand = ev.param("hand") or side
        g = gesture_named("relaxed")
        fwd = _n(np.r_[zone[:2] - [0.18 if hand == "right" else -0.18, -0.3], -0.15])
        palm = _v(0, 0, -1)
        target = zone + _v(0, -0.08, 0.05)
        arm = ArmPose(target, fwd, palm, _v(1, -0.3, -0.6) * ([1, 1, 1] if hand == "right" else [-1, 1, 1]),
                      g.as_array())
        out["lean"] = 0.3
        out["right" if hand == "right" else "left"] = arm
    elif a is Action.HAND_TO_MASK:
        out["lean"] = 0.08
        put(mask_arm(ctx, 0.08))
    return out


def mask_arm(ctx: SeatContext, lean: float) -> ArmPose:
    """The right hand at the mask's edge by the temple."""
    hc = ctx.dims.head_center(lean, 0.0)
    g = Gesture((0.3, 0.35, 0.45, 0.5), 0.5, (40.0, 20.0, 5.0, 15.0, 10.0))
    return ArmPose(hc + _v(0.12, 0.02, -0.12), _n([-0.3, 0.15, 1]), _n([-1, 0.1, 0]), _v(1, -0.2, -0.6), g.as_array())


def head_pose(ctx: SeatContext, ev: ActionEvent | None, tau: float) -> dict:
    """Head-channel fields: yaw, pitch, roll (relative to the torso)."""
    base_yaw = float(np.clip(0.4 * ctx.judge_yaw, -0.5, 0.5))
    yaw = float(np.clip(ctx.judge_yaw - base_yaw, -1.0, 1.0)) * 0.85
    out = dict(head_yaw=yaw, head_pitch=0.12, head_roll=0.0)
    if ev is None or ev.action is Action.LOOK:
        return out
    if ev.action is Action.HEAD_TURN:
        out["head_yaw"] = np.radians(float(ev.param("yaw"))) - base_yaw
        out["head_pitch"] = np.radians(float(ev.param("pitch")))
    elif ev.action is Action.SPEAK:
        amp = float(ev.param("amplitude"))
        out["head_pitch"] += amp * (0.05 * np.sin(2 * np.pi * 1.7 * tau) + 0.02 * np.sin(2 * np.pi * 3.1 * tau))
        out["head_yaw"] += amp * 0.08 * np.sin(2 * np.pi * 0.45 * tau)
        out["head_roll"] = amp * 0.03 * np.sin(2 * np.pi * 0.8 * tau)
    return out


def mask_pose(ctx: SeatContext, ev: ActionEvent | None) -> dict:
    """Mask-channel fields.  No event yet = mask lying on the table (day)."""
    if ev is None:
        return dict(mask_lift=1.0, mask_on_head=0.0)
    if ev.action is Action.MASK_ON:
        return dict(mask_lift=0.0, mask_on_head=1.0)
    if ev.action is Action.MASK_LIFT:
        return dict(mask_lift=float(ev.param("amount")), mask_on_head=1.0)
    if ev.param("where") == "table":
        return dict(mask_lift=1.0, mask_on_head=0.0)
    return dict(mask_lift=1.0, mask_on_head=1.0)
