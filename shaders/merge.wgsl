// Fused write-write check + union + pass-2 set-up. Copy w wrote word k in
// the epoch iff copy[k] != base[k], in this region iff copy[k] != start[k];
// two epoch writers, one of them in this region, race (kind bit 1: the two
// writes lie in different regions). The union takes the last writer's
// value; pass 2's input is the union except where the copy wrote in this
// region, which goes back to the region's start.
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = word(id);
    if k != NONE {
        merge_word(id.y, k);
    }
}

fn merge_word(g: u32, k: u32) {
    let n = cfg[1];
    let b = mem[at(g, 0u, k)];
    var u = b;
    var last = NONE;
    var last_here = false;
    for (var w = 0u; w < n; w++) {
        let p = mem[at(g, 2u + w, k)];
        let here = p != start_of(g, w, k, b);
        if here {
            wrote[g * n + w] = 1u;
        }
        if p != b {
            if last != NONE && (here || last_here) {
                record(select(0u, 2u, !(here && last_here)), g, last, w, k);
            }
            last = w;
            last_here = here;
            u = p;
        }
    }
    mem[at(g, 1u, k)] = u;
    for (var w = 0u; w < n; w++) {
        let p = mem[at(g, 2u + w, k)];
        let r = start_of(g, w, k, b);
        mem[at(g, 2u + n + w, k)] = select(u, r, p != r);
    }
}
