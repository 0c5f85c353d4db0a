// Level 2's result: every workgroup ran in isolation on the dispatch's
// input; fold their final states into the user's buffer in workgroup order
// (later workgroups win words several wrote). `mem` holds the copy sets,
// `out` the user's buffer, still equal to the dispatch's input.
@group(0) @binding(5) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    if k >= cfg[0] {
        return;
    }
    let s = out[k];
    var v = s;
    for (var g = 0u; g < cfg[10]; g++) {
        let b = mem[at(g, 0u, k)];
        if b != s {
            v = b;
        }
    }
    out[k] = v;
}
