// Fused attention (scores, causal mask, online softmax, P @ V) for small
// tiles: one workgroup per (query block, head), one lane per query row.
// K and V are staged through workgroup memory one KV block and one slice
// of the head dimension at a time; all lanes take part in every staging
// step (and its barriers), only the math is guarded by the row's validity.

const BLOCK: u32 = 16u;       // KV rows per staged block = query rows per workgroup
const SLICE: u32 = 8u;        // head-dim columns per staged slice
const MAX_HEAD_DIM: u32 = 64u;
override LANES: u32 = 16u;    // must equal BLOCK

struct AttnUniforms {
    num_heads: u32,
    num_kv_heads: u32,
    head_dim: u32,
    kv_len: u32,
    query_len: u32,
    scale: f32,
    causal: u32,
    start_pos: u32,
}

@group(0) @binding(0) var<uniform> u: AttnUniforms;
@group(0) @binding(1) var<storage, read> q_in: array<f32>;        // [query_len, num_heads, head_dim]
@group(0) @binding(2) var<storage, read> k_in: array<f32>;        // [kv_len, num_kv_heads, head_dim]
@group(0) @binding(3) var<storage, read> v_in: array<f32>;
@group(0) @binding(4) var<storage, read_write> attn_out: array<f32>;

var<workgroup> k_tile: array<f32, BLOCK * SLICE>;
var<workgroup> v_tile: array<f32, BLOCK * SLICE>;

fn masked(qpos: u32, kpos: u32) -> bool {
    return u.causal != 0u && kpos > qpos + u.start_pos;
}

// lane `row` copies its KV row's slice [d0, d0 + len) into `tile`, zero-padding past kv_len
fn stage(is_k: bool, row: u32, kv0: u32, kv_head: u32, d0: u32, len: u32) {
    let kpos = kv0 + row;
    let src = (kpos * u.num_kv_heads + kv_head) * u.head_dim + d0;
    for (var t = 0u; t < len; t++) {
        var x = 0.0;
        if (kpos < u.kv_len) {
            x = select(v_in[src + t], k_in[src + t], is_k);
        }
        if (is_k) { k_tile[row * SLICE + t] = x; } else { v_tile[row * SLICE + t] = x; }
    }
}

@compute @workgroup_size(LANES, 1, 1)
fn attend(@builtin(local_invocation_id) lid: vec3<u32>,
          @builtin(workgroup_id) wid: vec3<u32>) {
    let head = wid.x % u.num_heads;
    let qblock = wid.x / u.num_heads;
    let kv_head = head / (u.num_heads / u.num_kv_heads);
    let hd = u.head_dim;
    if (hd > MAX_HEAD_DIM) { return; }
    let lane = lid.x;
    let qpos = qblock * BLOCK + lane;
    let live = qpos < u.query_len;

    var qv: array<f32, MAX_HEAD_DIM>;
    var acc: array<f32, MAX_HEAD_DIM>;
    if (live) {
        for (var d = 0u; d < hd; d++) {
            qv[d] = q_in[(qpos * u.num_heads + head) * hd + d];
            acc[d] = 0.0;
        }
    }
    var m_run = -3.4e38;
    var l_run = 0.0;
    let kv_blocks = (u.kv_len + BLOCK - 1u) / BLOCK;
    let slices = (hd + SLICE - 1u) / SLICE;

    for (var kb = 0u; kb < kv_blocks; kb++) {
        let kv0 = kb * BLOCK;
        var s: array<f32, BLOCK>;
        for (var sl = 0u; sl < slices; sl++) {
            let d0 = sl * SLICE;
            let len = min(SLICE, hd - d0);
            stage(true, lane, kv0, kv_head, d0, len);
            workgroupBarrier();
            if (live) {
                for (var j = 0u; j < BLOCK; j++) {
                    if (kv0 + j >= u.kv_len || masked(qpos, kv0 + j)) { continue; }
                    var part = 0.0;
                    for (var t = 0u; t < len; t++) { part += qv[d0 + t] * k_tile[j * SLICE + t]; }
                    s[j] += part;
                }
            }
            workgroupBarrier();
        }
        var m_new = m_run;
        if (live) {
            for (var j = 0u; j < BLOCK; j++) {
                if (kv0 + j >= u.kv_len || masked(qpos, kv0 + j)) { continue; }
                s[j] *= u.scale;
                m_new = max(m_new, s[j]);
            }
            let fix = exp(m_run - m_new);
            l_run *= fix;
            for (var d = 0u; d < hd; d++) { acc[d] *= fix; }
        }
        for (var sl = 0u; sl < slices; sl++) {
            let d0 = sl * SLICE;
            let len = min(SLICE, hd - d0);
            stage(false, lane, kv0, kv_head, d0, len);
            workgroupBarrier();
            if (live) {
                for (var j = 0u; j < BLOCK; j++) {
                    if (kv0 + j >= u.kv_len || masked(qpos, kv0 + j)) { continue; }
                    let w = exp(s[j] - m_new);
                    if (sl == 0u) { l_run += w; }
                    for (var t = 0u; t < len; t++) { acc[d0 + t] += w * v_tile[j * SLICE + t]; }
                }
            }
            workgroupBarrier();
        }
        m_run = m_new;
    }

    if (live) {
        let inv = select(0.0, 1.0 / l_run, l_run > 0.0);
        for (var d = 0u; d < hd; d++) {
            attn_out[(qpos * u.num_heads + head) * hd + d] = acc[d] * inv;
        }
    }
}
