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

@compute @workgroup_size(1)
fn args() {
    let n = ld_l1_count();
    ld_args[0] = min(n, LD_MAX_X);
    ld_args[1] = select((n + LD_MAX_X - 1u) / LD_MAX_X, 1u, n == 0u);
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
    if atomicLoad(&ld_l1[h + LD_L1_TARGET]) != t {
        return LD_NONE;
    }
    let page = atomicLoad(&ld_l1[h + LD_L1_PAGE]);
    if atomicLoad(&ld_l1[ld_cfg.t[t].heads_off + page]) != r + 1u {
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

@compute @workgroup_size(64)
fn merge(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) w: u32) {
    let t = ld_cfg.target_id;
    let count = ld_l1_count();
    var r = wid.x + wid.y * nwg.x;
    for (; r < count; r += nwg.x * nwg.y) {
        let page = ld_head_page(r);
        let k = page * LD_PAGE + w;
        if page == LD_NONE || k >= ld_cfg.t[t].words {
            continue;
        }
        let b = ld_user_buf[k];
        var u = b;
        var prev = LD_NONE;
        var next_wg = 0u;
        loop {
            // The writer with the smallest workgroup id not yet visited.
            var best = LD_NONE;
            var best_wg = LD_NONE;
            var q = r + 1u;
            loop {
                if q == 0u {
                    break;
                }
                let g = atomicLoad(&ld_l1[ld_hdr(q - 1u) + LD_L1_WG]);
                if g >= next_wg && (best == LD_NONE || g < best_wg) {
                    best = q - 1u;
                    best_wg = g;
                }
                q = atomicLoad(&ld_l1[ld_hdr(q - 1u) + LD_L1_NEXT_PAGE]);
            }
            if best == LD_NONE {
                break;
            }
            next_wg = best_wg + 1u;
            let v = ld_l1v[best * LD_PAGE + w];
            if v != b {
                if prev != LD_NONE && ld_cfg.mode == LD_MODE_CHECK {
                    ld_l1_record(prev, best_wg, k);
                }
                prev = best_wg;
                u = v;
            }
        }
        if ld_cfg.mode == LD_MODE_DET {
            ld_user_buf[k] = u;
        } else {
            ld_l1u[r * LD_PAGE + w] = u;
        }
    }
    ld_canary();
}

// Check mode's result: the union (the native result when nothing raced).
@compute @workgroup_size(64)
fn fold(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) w: u32) {
    let t = ld_cfg.target_id;
    let count = ld_l1_count();
    var r = wid.x + wid.y * nwg.x;
    for (; r < count; r += nwg.x * nwg.y) {
        let page = ld_head_page(r);
        let k = page * LD_PAGE + w;
        if page == LD_NONE || k >= ld_cfg.t[t].words {
            continue;
        }
        ld_user_buf[k] = ld_l1u[r * LD_PAGE + w];
    }
    ld_canary();
}
