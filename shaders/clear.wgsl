// After an epoch commits, every copy of a page equals the base again: the
// page is clean. One invocation per (page, group).
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let pages = cfg[14];
    if id.x >= pages || id.y >= cfg[10] || cfg[13] == NONE {
        return;
    }
    if committed(id.y) {
        dirty[cfg[13] + id.y * pages + id.x] = 0u;
    }
}
