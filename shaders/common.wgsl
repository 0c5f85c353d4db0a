// Shared by the checking shaders. `cfg` words:
//  0 T: words per copy          1 W: copies per group       2 group stride (words)
//  3 k step per group           4 k span per group          5 start mode (0: start slots, 1: base)
//  6 1: record nothing (deterministic mode)                  7 target id
//  8 region index               9 record capacity          10 groups
// 11 commit (0: never, 1: by the group's yield)             12 snapshot start = copy after commit
// 13 dirty-page flags offset (NONE: sweep every page)       14 pages per group
// 15 read-write records may say "across a barrier" (copies are warps, and
//    `wrote` covers every memory of the region)                16 (unused)
// 17 first workgroup of the batch (group g is workgroup g + this)
// 18 memory-adaptive round      19 n: entries in the commit table
// 20.. commit table by yield value
@group(0) @binding(0) var<storage, read> cfg: array<u32>;
@group(0) @binding(1) var<storage, read_write> mem: array<u32>;
@group(0) @binding(2) var<storage, read_write> rec: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read_write> wrote: array<u32>;
@group(0) @binding(4) var<storage, read> yields: array<u32>;
@group(0) @binding(6) var<storage, read_write> dirty: array<u32>;
@group(0) @binding(7) var<storage, read> orig: array<u32>;

const NONE: u32 = 0xffffffffu;

fn at(g: u32, slot: u32, k: u32) -> u32 {
    return g * cfg[2] + slot * cfg[0] + k;
}

fn start_of(g: u32, w: u32, k: u32, b: u32) -> u32 {
    if cfg[5] == 1u {
        return b;
    }
    return mem[at(g, 2u + cfg[1] + w, k)];
}

// Records take a slot only when there is a race; the count stays exact.
fn record(kind: u32, g: u32, a: u32, b: u32, k: u32) {
    if cfg[6] == 1u {
        return;
    }
    let i = atomicAdd(&rec[0], 1u);
    if i < cfg[9] {
        let o = 4u + i * 8u;
        atomicStore(&rec[o], kind);
        atomicStore(&rec[o + 1u], cfg[7]);
        atomicStore(&rec[o + 2u], g + cfg[17]);
        atomicStore(&rec[o + 3u], a);
        atomicStore(&rec[o + 4u], b);
        atomicStore(&rec[o + 5u], k);
        atomicStore(&rec[o + 6u], cfg[8]);
        atomicStore(&rec[o + 7u], cfg[18]);
    }
}

// One invocation per word, one workgroup per 64-word page of one group
// (consecutive invocations read consecutive words). A clean page (no copy of
// it differs from the base: nothing to check or merge) exits at once.
const PAGE: u32 = 64u;

fn word(id: vec3<u32>) -> u32 {
    let g = id.y;
    let k = (g + cfg[17]) * cfg[3] + id.x;
    if id.x >= cfg[4] || g >= cfg[10] || k >= cfg[0] {
        return NONE;
    }
    if cfg[13] != NONE && dirty[cfg[13] + g * cfg[14] + k / PAGE] == 0u {
        return NONE;
    }
    return k;
}

// Whether group g's region ended at a barrier that orders this memory.
fn committed(g: u32) -> bool {
    if cfg[11] != 1u {
        return false;
    }
    let y = yields[g + cfg[17]];
    return y == NONE || (y < cfg[19] && cfg[20u + y] == 1u);
}
