#[ld::kernel(workgroup_size = 64)]
fn k(counter: &[AtomicU32]) {
    if counter[0].load() > 10 {
        barrier();
    }
}

fn main() {}
