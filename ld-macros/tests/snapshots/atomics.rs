// Atomics: storage atomics of both types, a shared atomic array, every
// operation, and results that are used and ignored.
#[ld::kernel(workgroup_size = 64)]
fn histogram(values: &[u32], bins: &[AtomicU32], stats: &[AtomicI32], nbins: u32) {
    let local = shared::<[AtomicU32; 16]>();
    let lid = local_index();
    if lid < 16 {
        local[lid].store(0);
    }
    barrier();
    let i = global_id().x;
    if i < values.len() {
        let v = values[i];
        local[v % 16].fetch_add(1);
        bins[v % nbins].fetch_add(1);
        let old = stats[0].fetch_max(v as i32);
        stats[1].fetch_min(old);
        stats[2].fetch_sub(1, Ordering::Relaxed);
        bins[0].fetch_and(!0u32);
        bins[0].fetch_or(v & 1);
        bins[0].fetch_xor(0);
        let prev = bins[1].swap(v);
        let seen = bins[2].compare_and_swap(prev, v);
        if seen == prev {
            stats[3].fetch_add(1);
        }
    }
    barrier();
    if lid < 16 {
        bins[lid].fetch_add(local[lid].load());
    }
}
