// Level 1 (paper section 4.4): after the kernel's run every workgroup has
// published the pages it changed (in check mode also those it read, with
// the words it read) as records, linked per page. The sweeps take a page
// at its list's head record, four words per invocation, and walk the
// page's records: two workgroups that changed a word race write-write; a
// workgroup that read a word another changed races read-write (nothing
// orders the workgroups of a dispatch); the union takes the value of the
// last writer in workgroup order (deterministic mode writes it straight
// into the user's buffer: the ordered fold). Work is proportional to the
// pages with records, not to the buffer: `args` sizes the indirect
// dispatch from their count (a page that many workgroups publish has as
// many records: one invocation per record, each finding whether it heads
// its page's list, would cost every launch far more).

@group(0) @binding(0) var<storage, read_write> ld_user_buf: array<u32>;
@group(0) @binding(1) var<storage, read_write> ld_args: array<u32>;

// The pages with records (`ld_link_record`: at most one per record).
fn ld_l1_pages() -> u32 {
    return min(atomicLoad(&ld_rec[LD_H_L1_PAGES]), ld_cfg.l1_cap);
}

// Workgroups for the sweeps: one per LD_PAGES_PER_WG pages, spread over
// y past LD_MAX_X (few loop iterations per invocation: lavapipe caps them).
@compute @workgroup_size(1)
fn args() {
    let groups = (ld_l1_pages() + LD_PAGES_PER_WG - 1u) / LD_PAGES_PER_WG;
    ld_args[0] = clamp(groups, 1u, LD_MAX_X);
    ld_args[1] = select((groups + LD_MAX_X - 1u) / LD_MAX_X, 0u, groups == 0u);
    ld_args[2] = 1u;
}

// See engine/state.wgsl: lavapipe cuts the loops of an invocation short after
// 65535 iterations in all; a last loop of two iterations tells.
fn ld_canary() {
    var i = 0u;
    loop {
        i += 1u;
        if i >= ld_cfg.canary {
            break;
        }
    }
    if i < ld_cfg.canary && ld_cfg.round == 777u {
        atomicOr(&ld_rec[LD_H_STATUS], LD_S_LOOP_LIMIT);
    }
}

fn ld_hdr(r: u32) -> u32 {
    return ld_cfg.l1_headers + r * LD_L1_WORDS;
}

// The i-th listed page, as (its list's head record, the page), when it is
// the swept target's (else LD_NONE): the list names the page's first record,
// whose header names the page.
fn ld_listed_page(i: u32) -> vec2<u32> {
    let t = ld_cfg.target_id;
    let h = ld_hdr(ld_l1[ld_cfg.l1_pages + i]);
    if ld_l1[h + LD_L1_TARGET] != t {
        return vec2<u32>(LD_NONE);
    }
    let page = ld_l1[h + LD_L1_PAGE];
    return vec2<u32>(ld_l1[ld_cfg.t[t].heads_off + page] - 1u, page);
}

fn ld_l1_record(kind: u32, a: u32, b: u32, k: u32) {
    let i = atomicAdd(&ld_rec[LD_H_COUNT], 1u);
    if i < ld_cfg.rec_cap {
        let o = ld_cfg.rec_off + i * LD_R_WORDS;
        ld_val[o + LD_R_KIND] = LD_K_LEVEL1 | kind;
        ld_val[o + LD_R_TARGET] = ld_cfg.target_id;
        ld_val[o + LD_R_WG] = a;
        ld_val[o + LD_R_A] = a;
        ld_val[o + LD_R_B] = b;
        ld_val[o + LD_R_WORD] = k;
        ld_val[o + LD_R_REGION] = (LD_NO_BARRIER << 16u) | LD_NO_BARRIER;
        ld_val[o + LD_R_ROUND] = ld_cfg.round;
    }
}

// The sweeps move whole pages as vec4s: LD_LANES invocations per page (a
// vec4 each, from the page's size: `abi::PAGE` asserts what level 1 holds),
// LD_PAGES_PER_WG pages per workgroup. Every invocation reads its page's
// list itself (the same words as its neighbours, plain loads): no
// barrier, which a CPU driver pays for dearly, and nothing to wait for on
// a GPU.
const LD_LANES: u32 = LD_PAGE / 4u;
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

// One page headed by record r, in one walk of its list (any order: the
// workgroups published it concurrently): the words each writer changed, the
// lowest and the highest workgroup that changed each, and the highest's
// value, which the union keeps (the last writer in workgroup order), and
// whether a workgroup read each. Two writers of a word race, and a reader
// that left it as it was with a writer (one that wrote it too races
// write-write with the others: as level 2 judges a warp). A workgroup
// whose lanes wrote the word the value it held, without reading it (a
// silent write), races with a writer (the final value depends on their
// order) and with a reader; one that read it and wrote it the value it
// held, with another workgroup's read. The rare second walks record them.
// Linear in the records: lavapipe caps an invocation's loop iterations.
// `check`: a constant at each entry point (`merge`, `ordered_fold`), so
// that each pipeline compiles its own mode's paths alone.
fn ld_merge_page(r: u32, page: u32, w: u32, check: bool) {
    let k0 = page * LD_PAGE + 4u * w;
    let b = ld_user_vec(k0);
    let inside = ld_inside(k0);
    var u = b;
    var writers = vec4<u32>(0u);
    var lo = vec4<u32>(LD_NONE);
    var hi = vec4<u32>(0u);
    var read = vec4<bool>(false);
    var silent = vec4<bool>(false);
    var quiet = vec4<u32>(0u);
    var q = r + 1u;
    loop {
        if q == 0u {
            break;
        }
        let rec = q - 1u;
        let g = vec4<u32>(ld_l1[ld_hdr(rec) + LD_L1_WG]);
        q = ld_l1[ld_hdr(rec) + LD_L1_NEXT_PAGE];
        let v = ld_l1v[rec * LD_LANES + w];
        let a = ld_access(rec, w);
        let changed = (v != b) & inside & ld_held(a, check);
        let last = changed & ((writers == vec4<u32>(0u)) | (g > hi));
        u = select(u, v, last);
        hi = select(hi, g, last);
        lo = select(lo, g, changed & (g < lo));
        writers += select(vec4<u32>(0u), vec4<u32>(1u), changed);
        read = read | ld_read_bits(a);
        silent = silent | (ld_silent_bits(a, changed) & inside);
        quiet += select(vec4<u32>(0u), vec4<u32>(1u), ld_quiet_bits(a, changed) & inside);
    }
    let written = writers != vec4<u32>(0u);
    if check && any((writers > vec4<u32>(1u)) | (silent & written)) {
        ld_record_clashes(r, k0, b, inside, lo);
    }
    if check && any(read & (written | silent | (quiet != vec4<u32>(0u)))) {
        ld_record_readers(r, k0, b, inside, written | silent, quiet);
    }
    if !check {
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

// The words of a record that hold the workgroup's value: in check mode
// those it accessed (access bits `a`), the only ones `ld_publish` writes
// (a word it did not access holds the user's value); in deterministic
// mode every word of the page.
fn ld_held(a: vec4<u32>, check: bool) -> vec4<bool> {
    return (a != vec4<u32>(0u)) | vec4<bool>(!check);
}

// How record rec's workgroup accessed the words 4w..4w+3 of its page
// (`abi::l1::ACCESS`: two bits per word, sixteen words a header word).
fn ld_access(rec: u32, w: u32) -> vec4<u32> {
    let bits = ld_l1[ld_hdr(rec) + LD_L1_ACCESS + w / 4u] >> (8u * (w % 4u));
    return (vec4<u32>(bits) >> vec4<u32>(0u, 2u, 4u, 6u)) & vec4<u32>(3u);
}

fn ld_read_bits(a: vec4<u32>) -> vec4<bool> {
    return (a & vec4<u32>(LD_L1_READ)) != vec4<u32>(0u);
}

fn ld_silent_bits(a: vec4<u32>, changed: vec4<bool>) -> vec4<bool> {
    return (a == vec4<u32>(LD_L1_WROTE)) & !changed;
}

// Words a workgroup read and wrote the value they held (a read-modify-write
// that changed nothing): a write all the same, racing with the other
// workgroups' reads.
fn ld_quiet_bits(a: vec4<u32>, changed: vec4<bool>) -> vec4<bool> {
    return (a == vec4<u32>(LD_L1_WROTE | LD_L1_READ)) & !changed;
}

// A word's readers that did not change it race with its writers (`wrote`:
// a workgroup changed it, or wrote it silently; or `quiet`: another
// workgroup read it and wrote it the value it held): one record per
// reader, the reader named.
fn ld_record_readers(r: u32, k0: u32, b: vec4<u32>, inside: vec4<bool>, wrote: vec4<bool>, quiet: vec4<u32>) {
    let w = (k0 % LD_PAGE) / 4u;
    var q = r + 1u;
    loop {
        if q == 0u {
            break;
        }
        let rec = q - 1u;
        let g = ld_l1[ld_hdr(rec) + LD_L1_WG];
        q = ld_l1[ld_hdr(rec) + LD_L1_NEXT_PAGE];
        let a = ld_access(rec, w);
        let changed = (ld_l1v[rec * LD_LANES + w] != b) & inside & ld_held(a, true);
        let own = select(vec4<u32>(0u), vec4<u32>(1u), ld_quiet_bits(a, changed) & inside);
        let racy = ld_read_bits(a) & !changed & (wrote | (quiet > own));
        for (var c = 0u; c < 4u; c++) {
            if racy[c] {
                ld_l1_record(LD_K_RW | LD_K_READ, g, LD_NONE, k0 + c);
            }
        }
    }
}

// A word's writers race with its first (lowest) writer `lo`: one record
// per later writer, and per silent writer (where the word has a writer).
fn ld_record_clashes(r: u32, k0: u32, b: vec4<u32>, inside: vec4<bool>, lo: vec4<u32>) {
    let w = (k0 % LD_PAGE) / 4u;
    var q = r + 1u;
    loop {
        if q == 0u {
            break;
        }
        let rec = q - 1u;
        let g = ld_l1[ld_hdr(rec) + LD_L1_WG];
        q = ld_l1[ld_hdr(rec) + LD_L1_NEXT_PAGE];
        let a = ld_access(rec, w);
        let changed = (ld_l1v[rec * LD_LANES + w] != b) & inside & ld_held(a, true);
        let clash = (changed | (ld_silent_bits(a, changed) & inside)) & (lo != vec4<u32>(LD_NONE));
        for (var c = 0u; c < 4u; c++) {
            if clash[c] && g != lo[c] {
                ld_l1_record(0u, min(lo[c], g), max(lo[c], g), k0 + c);
            }
        }
    }
}

// The listed pages, LD_PAGES_PER_WG per workgroup (`check`: see
// `ld_merge_page`).
fn ld_merge_pages(wid: vec3<u32>, nwg: vec3<u32>, i: u32, check: bool) {
    let count = ld_l1_pages();
    let w = i % LD_LANES;
    for (var j = (wid.x + wid.y * nwg.x) * LD_PAGES_PER_WG + i / LD_LANES; j < count; j += nwg.x * nwg.y * LD_PAGES_PER_WG) {
        let p = ld_listed_page(j);
        if p.y != LD_NONE {
            ld_merge_page(p.x, p.y, w, check);
        }
    }
    ld_canary();
}

// Check mode: the races between workgroups, and the union.
@compute @workgroup_size(64)
fn merge(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) i: u32) {
    ld_merge_pages(wid, nwg, i, true);
}

// Deterministic mode: the ordered fold into the user's buffer. An entry
// point of its own, not `merge` reading the mode from the configuration:
// lavapipe runs every path of a shader (masked), and check mode's race
// records, walking a page's records again wherever two workgroups changed
// a word, would make even a fold of a few pages many times as slow.
@compute @workgroup_size(64)
fn ordered_fold(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) i: u32) {
    ld_merge_pages(wid, nwg, i, false);
}

// Check mode's result: the union (the native result when nothing raced).
@compute @workgroup_size(64)
fn fold(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) i: u32) {
    let count = ld_l1_pages();
    let w = i % LD_LANES;
    for (var j = (wid.x + wid.y * nwg.x) * LD_PAGES_PER_WG + i / LD_LANES; j < count; j += nwg.x * nwg.y * LD_PAGES_PER_WG) {
        let p = ld_listed_page(j);
        if p.y != LD_NONE {
            ld_store_user(p.y * LD_PAGE + 4u * w, ld_l1u[p.x * LD_LANES + w]);
        }
    }
    ld_canary();
}
