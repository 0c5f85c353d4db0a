#[ld::kernel(workgroup_size = 1)]
fn k1(out: &mut [u32]) {
    fn put(o: &mut [u32], x: u32) {
        o[0] = x;
    }
    put(out, 5);
}
