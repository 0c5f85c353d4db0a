// Level 1 (paper section 4.4): after the first pass every workgroup has
// published the pages it changed as records, linked per page. One
// workgroup of this shader takes a page (at its list's head record), one
// invocation per word, and walks the page's writers in workgroup order:
// two workgroups that changed a word race write-write; the union takes the
// last writer's value (deterministic mode writes it straight into the
// user's buffer: the ordered fold). Work is proportional to the records,
// not to the buffer: `args` sizes the indirect dispatch from their count.

@group(0) @binding(0) var<storage, read_write> ld_user_buf: array<u32>;
@group(0) @binding(1) var<storage, read_write> ld_args: array<u32>;

const LD_MAX_X: u32 = 65535u;

fn ld_l1_count() -> u32 {
    return min(atomicLoad(&ld_rec[LD_H_L1_COUNT]), ld_cfg.l1_cap);
}

// Workgroups for the sweeps: one per LD_PAGES_PER_WG records, at most
// LD_MAX_X (the sweeps stride over the rest).
@compute @workgroup_size(1)
fn args() {
    let groups = (ld_l1_count() + LD_PAGES_PER_WG - 1u) / LD_PAGES_PER_WG;
    ld_args[0] = min(groups, LD_MAX_X);
    ld_args[1] = 1u;
    ld_args[2] = 1u;
}

// See engine.wgsl: lavapipe cuts the loops of an invocation short after
// 65535 iterations in all; a last loop of two iterations tells.
fn ld_canary() {
    var i = 0u;
    loop {
        i += 1u;
        if i >= ld_cfg.canary {
            break;
        }
    }
    if i < ld_cfg.canary {
        atomicOr(&ld_rec[LD_H_STATUS], LD_S_LOOP_LIMIT);
    }
}

fn ld_hdr(r: u32) -> u32 {
    return ld_cfg.l1_headers + r * LD_L1_WORDS;
}

// The page of record r when r heads its page's list (else LD_NONE).
fn ld_head_page(r: u32) -> u32 {
    let t = ld_cfg.target_id;
    let h = ld_hdr(r);
    if ld_l1[h + LD_L1_TARGET] != t {
        return LD_NONE;
    }
    let page = ld_l1[h + LD_L1_PAGE];
    if ld_l1[ld_cfg.t[t].heads_off + page] != r + 1u {
        return LD_NONE;
    }
    return page;
}

fn ld_l1_record(a: u32, b: u32, k: u32) {
    let i = atomicAdd(&ld_rec[LD_H_COUNT], 1u);
    if i < ld_cfg.rec_cap {
        let o = ld_cfg.rec_off + i * LD_R_WORDS;
        ld_val[o + LD_R_KIND] = LD_K_LEVEL1;
        ld_val[o + LD_R_TARGET] = ld_cfg.target_id;
        ld_val[o + LD_R_WG] = a;
        ld_val[o + LD_R_A] = a;
        ld_val[o + LD_R_B] = b;
        ld_val[o + LD_R_WORD] = k;
        ld_val[o + LD_R_REGION] = (LD_NO_BARRIER << 16u) | LD_NO_BARRIER;
        ld_val[o + LD_R_ROUND] = ld_cfg.round;
    }
}

// The sweeps move whole pages as vec4s: LD_LANES invocations per page,
// LD_PAGES_PER_WG pages per workgroup. Every invocation reads its page's
// list itself (the same words as its neighbours, plain loads): no
// barrier, which a CPU driver pays for dearly, and nothing to wait for on
// a GPU.
const LD_LANES: u32 = 16u;
const LD_PAGES_PER_WG: u32 = 4u;

fn ld_user_word(k: u32, words: u32) -> u32 {
    if k < words {
        return ld_user_buf[k];
    }
    return 0u;
}

fn ld_store_user(k0: u32, u: vec4<u32>) {
    let words = ld_cfg.t[ld_cfg.target_id].words;
    for (var c = 0u; c < 4u; c++) {
        if k0 + c < words {
            ld_user_buf[k0 + c] = u[c];
        }
    }
}

// The record after `from` in workgroup order among the page's writers
// listed from record r (LD_NONE: none left). A workgroup listed twice
// counts once.
fn ld_next_writer(r: u32, first_wg: u32) -> u32 {
    var best = LD_NONE;
    var best_wg = LD_NONE;
    var q = r + 1u;
    loop {
        if q == 0u {
            break;
        }
        let g = ld_l1[ld_hdr(q - 1u) + LD_L1_WG];
        if g >= first_wg && (best == LD_NONE || g < best_wg) {
            best = q - 1u;
            best_wg = g;
        }
        q = ld_l1[ld_hdr(q - 1u) + LD_L1_NEXT_PAGE];
    }
    return best;
}

// One page headed by record r: its writers in workgroup order; two that
// changed a word race; the union keeps the last writer's value.
fn ld_merge_page(r: u32, page: u32, w: u32) {
    let k0 = page * LD_PAGE + 4u * w;
    let b = ld_user_vec(k0);
    let inside = ld_inside(k0);
    var u = b;
    var writers = vec4<u32>(0u);
    var first_wg = 0u;
    loop {
        let best = ld_next_writer(r, first_wg);
        if best == LD_NONE {
            break;
        }
        first_wg = ld_l1[ld_hdr(best) + LD_L1_WG] + 1u;
        let v = ld_l1v[best * LD_LANES + w];
        let changed = (v != b) & inside;
        writers += select(vec4<u32>(0u), vec4<u32>(1u), changed);
        u = select(u, v, changed);
    }
    if any(writers > vec4<u32>(1u)) && ld_cfg.mode == LD_MODE_CHECK {
        ld_record_clashes(r, k0, b, inside);
    }
    if ld_cfg.mode == LD_MODE_DET {
        ld_store_user(k0, u);
    } else {
        ld_l1u[r * LD_LANES + w] = u;
    }
}

fn ld_inside(k0: u32) -> vec4<bool> {
    return vec4<u32>(k0) + vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(ld_cfg.t[ld_cfg.target_id].words);
}

fn ld_user_vec(k0: u32) -> vec4<u32> {
    let words = ld_cfg.t[ld_cfg.target_id].words;
    return vec4<u32>(ld_user_word(k0, words), ld_user_word(k0 + 1u, words), ld_user_word(k0 + 2u, words), ld_user_word(k0 + 3u, words));
}

// Rare (a race): the writers again, recording each pair of consecutive
// writers of a word.
fn ld_record_clashes(r: u32, k0: u32, b: vec4<u32>, inside: vec4<bool>) {
    let w = (k0 % LD_PAGE) / 4u;
    var prev = vec4<u32>(LD_NONE);
    var first_wg = 0u;
    loop {
        let best = ld_next_writer(r, first_wg);
        if best == LD_NONE {
            break;
        }
        let g = ld_l1[ld_hdr(best) + LD_L1_WG];
        first_wg = g + 1u;
        let changed = (ld_l1v[best * LD_LANES + w] != b) & inside;
        for (var c = 0u; c < 4u; c++) {
            if changed[c] && prev[c] != LD_NONE {
                ld_l1_record(prev[c], g, k0 + c);
            }
        }
        prev = select(prev, vec4<u32>(g), changed);
    }
}

@compute @workgroup_size(64)
fn merge(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) i: u32) {
    let count = ld_l1_count();
    let w = i % LD_LANES;
    for (var r = wid.x * LD_PAGES_PER_WG + i / LD_LANES; r < count; r += nwg.x * LD_PAGES_PER_WG) {
        let page = ld_head_page(r);
        if page != LD_NONE {
            ld_merge_page(r, page, w);
        }
    }
    ld_canary();
}

// Check mode's result: the union (the native result when nothing raced).
@compute @workgroup_size(64)
fn fold(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) i: u32) {
    let count = ld_l1_count();
    let w = i % LD_LANES;
    for (var r = wid.x * LD_PAGES_PER_WG + i / LD_LANES; r < count; r += nwg.x * LD_PAGES_PER_WG) {
        let page = ld_head_page(r);
        if page != LD_NONE {
            ld_store_user(page * LD_PAGE + 4u * w, ld_l1u[r * LD_LANES + w]);
        }
    }
    ld_canary();
}
