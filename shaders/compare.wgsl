// Read-write check after pass 2: a pass-2 copy that differs from the union
// is a unit whose result changed when it saw the others' writes (kind bit
// 1: none of its peers wrote in this region, so it read an earlier region's
// write across a barrier that does not order this memory). Fused with the
// epoch commit (base = copies = union at a barrier that orders the memory,
// or the kernel's end) and the next region's snapshot (start = copy).
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = word(id);
    if k == NONE {
        return;
    }
    let g = id.y;
    let n = cfg[1];
    let u = mem[at(g, 1u, k)];
    var writers = 0u;
    for (var w = 0u; w < n; w++) {
        writers += wrote[g * n + w];
    }
    for (var w = 0u; w < n; w++) {
        var q = mem[at(g, 2u + w, k)];
        if cfg[6] == 0u {
            q = mem[at(g, 2u + n + w, k)];
        }
        if q != u {
            let cross = writers - wrote[g * n + w] == 0u;
            record(1u | select(0u, 2u, cross), g, w, NONE, k);
        }
    }
    var commit = false;
    if cfg[11] == 1u {
        let y = yields[g];
        commit = y == NONE || (y < cfg[13] && cfg[14u + y] == 1u);
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
