"""GLSL for the table scene.

`fragment(world)`: the default scene compiles `FRAGMENT` as it always was;
wider worlds define WORLD, which adds a spot and a second light, per-player
glasses, beards, hair and masks (look slots), name plates' numbers, glass,
screens and plastic. The WORLD blocks are preprocessor-only, so the default
program's code is untouched.

Shading follows what made MediaPipe see rendered hands (rendering-notes):
linear light (albedo^2.2), 0.35*ao ambient + 0.8 wrapped Lambert (wrap 0.3)
+ 0.25 fill + 0.06 Blinn specular (exponent 24), gamma 1/2.2 back.  Surfaces
are painted procedurally by material id (see meshes.Material): the face
(eyes, brows, lips, hairline, the mask band) is painted per fragment on the
head ellipsoid's unit-sphere coordinates so it stays sharp at any distance.
"""

VERTEX = """
#version 330
uniform mat4 u_vp;
in vec3 in_pos; in vec3 in_nrm; in vec3 in_col; in float in_ao; in float in_mat;
in vec3 in_loc; in vec4 in_par; in vec3 in_col2;
out vec3 v_pos; out vec3 v_nrm; out vec3 v_col; out float v_ao; flat out int v_mat;
out vec3 v_loc; out vec4 v_par; out vec3 v_col2;
void main() {
    v_pos = in_pos; v_nrm = in_nrm; v_col = in_col; v_ao = in_ao; v_mat = int(in_mat + 0.5);
    v_loc = in_loc; v_par = in_par; v_col2 = in_col2;
    gl_Position = u_vp * vec4(in_pos, 1.0);
}
"""

FRAGMENT = """
#version 330
uniform vec3 u_eye;
uniform vec3 u_key;      // direction towards the key light
uniform vec3 u_key_col;
uniform float u_exposure;
#ifdef WORLD
uniform vec3 u_spot_pos;    // a hard spot over the table, pointing down
uniform vec3 u_spot_col;    // colour times strength (0 = off)
uniform float u_spot_cos;   // cosine of its half angle
uniform vec3 u_mix_dir;     // toward a second source of another colour
uniform vec3 u_mix_col;
uniform vec4 u_look[16];    // per look slot: glasses, beard, hair style, mask material
uniform vec4 u_mask[16];    // mask colour, pattern
uniform vec3 u_mask2[16];   // the pattern's colour
#endif
in vec3 v_pos; in vec3 v_nrm; in vec3 v_col; in float v_ao; flat in int v_mat;
in vec3 v_loc; in vec4 v_par; in vec3 v_col2;
out vec4 f_col;

float hash(vec2 p) { return fract(sin(dot(p, vec2(127.1, 311.7))) * 43758.5453); }
float vnoise(vec2 p) {
    vec2 i = floor(p), f = fract(p);
    f = f * f * (3.0 - 2.0 * f);
    return mix(mix(hash(i), hash(i + vec2(1, 0)), f.x), mix(hash(i + vec2(0, 1)), hash(i + vec2(1, 1)), f.x), f.y);
}
float fbm(vec2 p) { return 0.5 * vnoise(p) + 0.3 * vnoise(p * 2.1) + 0.2 * vnoise(p * 4.3); }
#ifdef WORLD
float segment(vec2 p, vec2 a, vec2 b) {
    vec2 pa = p - a, ba = b - a;
    return length(pa - ba * clamp(dot(pa, ba) / dot(ba, ba), 0.0, 1.0));
}
// Seven-segment digit d in a cell (metres): centre cx, 0.03 wide, 0.055 high from y 0.01.
float digit(vec2 q, float cx, int d) {
    int bits[10] = int[10](0x3F, 0x06, 0x5B, 0x4F, 0x66, 0x6D, 0x7D, 0x07, 0x7F, 0x6F);
    int b = bits[d];
    float x0 = cx - 0.013, x1 = cx + 0.013, y0 = 0.013, ym = 0.0375, y1 = 0.062;
    float m = 1.0;
    if ((b & 1) != 0) m = min(m, segment(q, vec2(x0, y1), vec2(x1, y1)));
    if ((b & 2) != 0) m = min(m, segment(q, vec2(x1, ym), vec2(x1, y1)));
    if ((b & 4) != 0) m = min(m, segment(q, vec2(x1, y0), vec2(x1, ym)));
    if ((b & 8) != 0) m = min(m, segment(q, vec2(x0, y0), vec2(x1, y0)));
    if ((b & 16) != 0) m = min(m, segment(q, vec2(x0, y0), vec2(x0, ym)));
    if ((b & 32) != 0) m = min(m, segment(q, vec2(x0, ym), vec2(x0, y1)));
    if ((b & 64) != 0) m = min(m, segment(q, vec2(x0, ym), vec2(x1, ym)));
    return m;
}
#endif

// Painted face: returns albedo; `gloss` raised on the mask band.
vec3 paint_head(vec3 skin, vec3 hair, vec3 loc, vec4 par, inout float gloss) {
    vec3 d = normalize(loc);
    float az = atan(d.x, d.y);
    float el = asin(clamp(d.z, -1.0, 1.0));
    float aaz = abs(az);
    vec3 c = skin;
    // soft shading of the eye sockets and cheeks gives the face detector relief cues
    float side = sign(az);
    vec2 eo = vec2((az - side * 0.36) / 0.17, (el - 0.10) / 0.075);
    float e = dot(eo, eo);
    c *= mix(0.78, 1.0, smoothstep(1.0, 3.2, e));
    vec2 ch = vec2((aaz - 0.5) / 0.25, (el + 0.2) / 0.15);
    c = mix(c, c * vec3(1.08, 0.93, 0.92), 0.5 * (1.0 - smoothstep(0.0, 1.0, dot(ch, ch))));
    if (e < 1.0) {
        c = vec3(0.80, 0.77, 0.72);
        vec2 io = vec2((az - side * 0.36) / 0.062, (el - 0.095) / 0.062);
        float ir = dot(io, io);
        if (ir < 1.0) c = mix(vec3(0.22, 0.14, 0.09), vec3(0.03), step(ir, 0.3));
        if (eo.y > 0.55) c = skin * 0.35;  // upper lid line
    }
    // brows
    float bx = (aaz - 0.36) / 0.22;
    float by = el - (0.27 - 0.04 * bx * bx);
    if (abs(bx) < 1.0 && abs(by) < 0.032) c = hair * 0.8;
    // lips
    vec2 lo = vec2(az / 0.2, (el + 0.42) / 0.06);
    float l = dot(lo, lo);
    if (l < 1.0) c = mix(vec3(0.60, 0.28, 0.28), skin, 0.25);
    if (abs(lo.x) < 0.95 && abs(el + 0.42) < 0.008) c = vec3(0.25, 0.1, 0.1);
    // nostrils shadow under the nose
    if (abs(aaz - 0.06) < 0.035 && abs(el + 0.24) < 0.018) c *= 0.55;
#ifdef WORLD
    vec4 look = u_look[int(par.w + 0.5)];
    if (look.y > 0.5) {  // beard: jaw and chin (full) or a shadow of stubble, lips left clear
        float jaw = smoothstep(-0.2, -0.32, el) * (1.0 - smoothstep(1.05, 1.25, aaz));
        float mous = (1.0 - smoothstep(0.3, 0.36, aaz)) * step(abs(el + 0.335), 0.035);
        float cover = max(jaw, mous) * step(1.0, l);
        float k = look.y > 1.5 ? 0.92 : 0.45;
        c = mix(c, hair * (0.75 + 0.4 * vnoise(vec2(az * 70.0, el * 70.0))), cover * k);
    }
    if (look.x > 0.5) {  // glasses: a frame round each eye and a bridge; lenses slightly tinted
        vec2 go = vec2((aaz - 0.36) / 0.2, (el - 0.09) / 0.12);
        float gr = length(go);
        float rim = look.x > 1.5 ? 0.2 : 0.09;
        if (gr < 1.0 - rim) { c = mix(c, vec3(0.55, 0.6, 0.65), 0.18); gloss = 3.0; }
        else if (gr < 1.0) c = look.x > 1.5 ? vec3(0.04, 0.03, 0.03) : vec3(0.55, 0.5, 0.42);
        if (aaz < 0.17 && abs(el - 0.12) < 0.012) c = look.x > 1.5 ? vec3(0.04, 0.03, 0.03) : vec3(0.55, 0.5, 0.42);
    }
#endif
    // hair: forehead hairline, lower at the sides, down to the nape at the back
    float hl = mix(0.47, 0.02, smoothstep(1.0, 1.55, aaz));
    hl = mix(hl, -0.55, smoothstep(1.75, 2.3, aaz));
#ifdef WORLD
    if (look.z > 1.5) hl = max(hl, mix(1.3, 0.1, smoothstep(1.5, 2.4, aaz)));  // bald on top
#endif
    if (el > hl + 0.03 * (vnoise(vec2(az * 20.0, 0.0)) - 0.5)) {
        float s = vnoise(vec2(az * 60.0, el * 6.0));
        c = hair * (0.8 + 0.35 * s);
        gloss = 0.5;
    }
    // the mask: a near-black band wrapping to the temples, lifted by par.x
    if (par.y > 0.5) {
        float ec = 0.06 + par.x * 0.7;
        float half_h = 0.22 - 0.03 * smoothstep(0.9, 1.7, aaz);
        if (abs(el - ec) < half_h && aaz < 1.75) {
#ifdef WORLD
            int slot = int(par.w + 0.5);
            vec4 mk = u_mask[slot];
            c = mk.rgb * (0.9 + 0.2 * vnoise(vec2(az * 30.0, el * 30.0)));
            float pat = 0.0;
            if (mk.w > 2.5) pat = step(half_h - 0.06, abs(el - ec)) * step(0.5, fract(az * 11.0));      // lace edge
            else if (mk.w > 1.5) { vec2 g = fract(vec2(az * 9.0, (el - ec) * 9.0)) - 0.5; pat = step(dot(g, g), 0.05); }
            else if (mk.w > 0.5) pat = step(fract((el - ec) * 12.0 + az * 1.5), 0.22);             // stripes
            c = mix(c, u_mask2[slot] * (0.85 + 0.3 * vnoise(vec2(az * 50.0, el * 50.0))), pat);
            gloss = 2.0;
            if (look.w > 1.5) {          // hard: a glossy shell with a lit rim
                gloss = 4.5;
                if (half_h - abs(el - ec) < 0.025 || 1.75 - aaz < 0.05) c = c * 1.8 + 0.05;
            } else if (look.w > 0.5) {   // cloth: matte and woven
                gloss = 0.3;
                c *= 0.82 + 0.36 * vnoise(vec2(az * 140.0, el * 140.0));
            }
#else
            c = vec3(0.035, 0.035, 0.045) * (0.9 + 0.2 * vnoise(vec2(az * 30.0, el * 30.0)));
            gloss = 2.0;
#endif
        }
    }
    return c;
}

void main() {
    vec3 n = normalize(v_nrm);
    vec3 v = normalize(u_eye - v_pos);
    if (dot(n, v) < 0.0) n = -n;
    vec3 alb = v_col;
    float gloss = 1.0;
    if (v_mat == 1) {
        alb = paint_head(v_col, v_col2, v_loc, v_par, gloss);
    } else if (v_mat == 2) {  // floor: planks
        float plank = floor(v_pos.y / 0.16);
        float off = hash(vec2(plank, 3.0)) * 2.0;
        float seg = floor((v_pos.x + off) / 1.2);
        float k = hash(vec2(plank, seg));
        float grain = fbm(vec2(v_pos.x * 3.0, v_pos.y * 60.0));
        alb = v_col * (0.75 + 0.35 * k) * (0.85 + 0.3 * grain);
        if (fract(v_pos.y / 0.16) < 0.03 || fract((v_pos.x + off) / 1.2) < 0.004) alb *= 0.5;
    } else if (v_mat == 3) {  // wall
        alb = v_col * (0.93 + 0.1 * fbm(v_pos.xz * 8.0 + v_pos.y * 3.0));
        if (v_pos.z < 0.12) alb = vec3(0.35, 0.3, 0.26);
    } else if (v_mat == 4) {  // table cloth
        alb = v_col * (0.9 + 0.15 * fbm(v_pos.xy * 40.0));
    } else if (v_mat == 5) {  // wood
        float g = fbm(vec2(length(v_pos.xy) * 40.0, v_pos.z * 4.0));
        alb = v_col * (0.8 + 0.35 * g);
        gloss = 1.5;
    } else if (v_mat == 6) {  // fabric
        alb = v_col * (0.88 + 0.18 * fbm(v_pos.xy * 90.0 + v_pos.z * 50.0));
        gloss = 0.3;
    } else if (v_mat == 7) {  // hair
        alb = v_col * (0.75 + 0.4 * vnoise(vec2(atan(v_pos.x, v_pos.y) * 200.0, v_pos.z * 20.0)));
        gloss = 0.5;
    } else if (v_mat == 8) {
        gloss = 2.0;
#ifdef WORLD
    } else if (v_mat == 9) {  // name plate: a dark number on a light card
        vec2 q = v_loc.xy * vec2(0.14, 0.075);
        int num = int(v_par.x + 0.5);
        float m = num >= 10 ? min(digit(q, 0.052, 1), digit(q, 0.088, num - 10)) : digit(q, 0.07, num);
        if (m < 0.0045) alb = vec3(0.08, 0.08, 0.1);
        gloss = 0.6;
    } else if (v_mat == 10) {  // glass
        gloss = 6.0;
    } else if (v_mat == 11) {  // a phone's screen
        gloss = 8.0;
    } else if (v_mat == 12) {  // a plastic table top
        alb = v_col * (0.96 + 0.06 * fbm(v_pos.xy * 6.0));
        gloss = 3.0;
#endif
    }
    vec3 lin = pow(clamp(alb, 0.0, 1.0), vec3(2.2));
    float ao = v_ao;
    float wrap = 0.3;
    float key = max((dot(n, u_key) + wrap) / (1.0 + wrap), 0.0);
    float fill = max(dot(n, v), 0.0);
    vec3 h = normalize(u_key + v);
    float spec = pow(max(dot(n, h), 0.0), 24.0) * 0.06 * gloss;
    vec3 col = lin * (0.35 * ao + 0.8 * key * u_key_col * mix(0.6, 1.0, ao) + 0.25 * fill * ao) + spec * ao;
#ifdef WORLD
    vec3 ls = normalize(u_spot_pos - v_pos);
    float cone = smoothstep(u_spot_cos - 0.006, u_spot_cos + 0.006, -ls.z);   // a hard edge
    float sd = max(dot(n, ls), 0.0);
    float ss = pow(max(dot(n, normalize(ls + v)), 0.0), 24.0) * 0.06 * gloss;
    col += (lin * sd * mix(0.6, 1.0, ao) + ss * ao) * u_spot_col * cone;
    float mk2 = max((dot(n, u_mix_dir) + wrap) / (1.0 + wrap), 0.0);
    col += lin * mk2 * u_mix_col * mix(0.6, 1.0, ao);
#endif
    col *= u_exposure;
    f_col = vec4(pow(clamp(col, 0.0, 1.0), vec3(1.0 / 2.2)), 1.0);
}
"""


def fragment(world: bool) -> str:
    if not world:
        return FRAGMENT
    head, rest = FRAGMENT.lstrip("\n").split("\n", 1)
    return f"{head}\n#define WORLD\n{rest}"
