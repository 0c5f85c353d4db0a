// User names that are WGSL words or meet ld's own declarations, renamed:
// locals (`read`, an access mode), a helper and the local it initialises, the two
// instances of a window helper beside locals named like them, a struct and
// fields (`target` is reserved), buffers, a uniform and a workgroup array.
#[ld::kernels]
mod wgsl_words {
    pub struct vec2 {
        pub target: u32,
        pub read: f32,
    }

    fn square(x: u32) -> u32 {
        x * x
    }

    fn tally(w: &[u32], j: u32) -> u32 {
        w[j] + 1
    }

    #[kernel(workgroup_size = 64)]
    pub fn wgsl_words(storage: &[vec2], write: &mut [u32], atomicAdd: &[AtomicU32], uniform: u32) {
        let private = shared::<[u32; 64]>();
        let i = global_id().x;
        private[local_index()] = i;
        barrier();
        let read = storage[i].target + uniform;
        let square = square(read);
        let tally_1 = tally(&private[..], local_index());
        let tally = tally(&write[..], i);
        write[i] = square + tally + tally_1 + storage[i].read as u32;
        atomicAdd[0].fetch_add(1);
    }
}
