// Read-write check after pass 2: a pass-2 copy that differs from the union
// (or, where the unit itself wrote, from its own pass-1 value) is a unit
// whose result changed when it saw the others' writes (kind bit 1: none of
// its peers wrote anything in this region, so it read an earlier region's
// write across a barrier that does not order that memory). Fused with the
// epoch commit (base = copies = union at a barrier that orders the memory,
// or the kernel's end) and the next region's snapshot (start = copy).
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = word(id);
    if k != NONE {
        compare_word(id.y, k, committed(id.y));
    }
}

fn compare_word(g: u32, k: u32, commit: bool) {
    let n = cfg[1];
    let u = mem[at(g, 1u, k)];
    var writers = 0u;
    for (var w = 0u; w < n; w++) {
        writers += wrote[g * n + w];
    }
    let b = mem[at(g, 0u, k)];
    for (var w = 0u; w < n; w++) {
        // A copy's own epoch writes must come back unchanged; every other
        // word must read as the union.
        let p = mem[at(g, 2u + w, k)];
        let want = select(u, p, p != b);
        let q = mem[at(g, 2u + n + w, k)];
        if q != want {
            let cross = cfg[15] == 1u && writers - wrote[g * n + w] == 0u;
            record(1u | select(0u, 2u, cross), g, w, NONE, k);
        }
    }
    if commit {
        mem[at(g, 0u, k)] = u;
        for (var w = 0u; w < n; w++) {
            mem[at(g, 2u + w, k)] = u;
        }
    }
    if cfg[12] == 1u {
        for (var w = 0u; w < n; w++) {
            mem[at(g, 2u + n + w, k)] = mem[at(g, 2u + w, k)];
        }
    }
}
