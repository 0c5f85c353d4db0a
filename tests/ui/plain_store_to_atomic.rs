#[ld::kernel(workgroup_size = 64)]
fn k(bins: &[AtomicU32]) {
    bins[global_id().x] = 1;
}

fn main() {}
