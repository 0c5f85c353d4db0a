#[ld::kernel(workgroup_size = 64)]
fn k(bins: &mut [AtomicU32]) {
    bins[0].fetch_add(1);
}

fn main() {}
