//! The radix sort kernels (see `samples/radix_sort.rs`): CUDA SDK 2.0's
//! `radixSortBlocks`, `findRadixOffsets` and `reorderData`, and the scan
//! of the digit counters (CUDPP's `scan` in the SDK) as one kernel.

#[ld::kernels]
pub mod radix_sort {
    /// Invocations per workgroup.
    const CTA: u32 = 64;
    /// Keys per invocation and per workgroup (block).
    const PER: u32 = 16;
    const BLOCK: u32 = 1024;
    /// Bits per pass and digits (radices) per pass.
    const BITS: u32 = 4;
    const RADIX: u32 = 16;

    /// Sorts each block of `BLOCK` keys by bits `start_bit..start_bit + BITS`
    /// with `BITS` stable one-bit splits (the SDK's `radixSortBlocks`):
    /// every invocation holds `PER` consecutive keys and counts those whose
    /// bit is clear; an exclusive scan of the counts over the workgroup
    /// ranks every key, and the keys are permuted through shared memory.
    /// The SDK's `scan4`/`scanwarp` rely on warp-synchronous execution (no
    /// barrier inside a warp); WGSL has no such guarantee, so here each
    /// invocation reads all `CTA` counts after a barrier (its prefix and
    /// the total), two barriers per bit.
    #[kernel(workgroup_size = 64)]
    pub fn radix_sort_blocks(keys_in: &[u32], keys_out: &mut [u32], start_bit: u32) {
        let s_keys = shared::<[u32; 1024]>();
        let counts = shared::<[u32; 64]>();
        let lid = local_index();
        let base = workgroup_id().x * BLOCK;
        let first = lid * PER;
        let mut k = [0u32; 16];
        for j in 0..PER {
            k[j] = keys_in[base + first + j];
        }
        for b in 0..BITS {
            let shift = start_bit + b;
            // Keys whose bit is clear go first (a stable split).
            let mut mine = 0u32;
            for j in 0..PER {
                mine += 1 - ((k[j] >> shift) & 1);
            }
            counts[lid] = mine;
            barrier();
            let mut before = 0u32;
            let mut total_clear = 0u32;
            for t in 0..CTA {
                let c = counts[t];
                if t < lid {
                    before += c;
                }
                total_clear += c;
            }
            // Clear-bit keys after the clear-bit keys before them; set-bit
            // keys after all clear-bit keys and the set-bit keys before them.
            let mut clear = before;
            for j in 0..PER {
                let i = first + j;
                if ((k[j] >> shift) & 1) == 0 {
                    s_keys[clear] = k[j];
                    clear += 1;
                } else {
                    s_keys[total_clear + i - clear] = k[j];
                }
            }
            barrier();
            for j in 0..PER {
                k[j] = s_keys[first + j];
            }
            // No barrier needed here: `counts` and `s_keys` are written
            // again only after the next bit's first barrier.
        }
        for j in 0..PER {
            keys_out[base + first + j] = k[j];
        }
    }

    /// For each block of `BLOCK` locally sorted keys: where each digit's run
    /// starts (`block_offsets[block * RADIX + digit]`) and how long it is
    /// (`counters[digit * num_blocks + block]`, digit-major so that one
    /// exclusive scan of `counters` gives every run's global position).
    /// Runs are found by comparing each key's digit with its neighbours'
    /// (the SDK's `findRadixOffsets`).
    #[kernel(workgroup_size = 64)]
    pub fn find_radix_offsets(keys: &[u32], counters: &mut [u32], block_offsets: &mut [u32], start_bit: u32) {
        let start = shared::<[u32; 16]>();
        let end = shared::<[u32; 16]>();
        let lid = local_index();
        let block = workgroup_id().x;
        let num_blocks = num_workgroups().x;
        let base = block * BLOCK;
        if lid < RADIX {
            start[lid] = 0;
            end[lid] = 0;
        }
        barrier();
        for j in 0..PER {
            let i = j * CTA + lid;
            let d = (keys[base + i] >> start_bit) & (RADIX - 1);
            if i > 0 && ((keys[base + i - 1] >> start_bit) & (RADIX - 1)) != d {
                start[d] = i;
            }
            if i == BLOCK - 1 {
                end[d] = BLOCK;
            } else if ((keys[base + i + 1] >> start_bit) & (RADIX - 1)) != d {
                end[d] = i + 1;
            }
        }
        barrier();
        if lid < RADIX {
            counters[lid * num_blocks + block] = end[lid] - start[lid];
            block_offsets[block * RADIX + lid] = start[lid];
        }
    }

    /// Exclusive scan of `data` in place by one workgroup: each invocation
    /// sums its contiguous chunk, reads the sums of the chunks before its
    /// own after a barrier, then writes its chunk's prefixes.
    #[kernel(workgroup_size = 256)]
    pub fn scan_counters(data: &mut [u32]) {
        let sums = shared::<[u32; 256]>();
        let lid = local_index();
        let n = data.len();
        let chunk = (n + 255) / 256;
        let first = (lid * chunk).min(n);
        let last = (first + chunk).min(n);
        let mut mine = 0u32;
        for i in first..last {
            mine += data[i];
        }
        sums[lid] = mine;
        barrier();
        let mut running = 0u32;
        for t in 0..lid {
            running += sums[t];
        }
        for i in first..last {
            let c = data[i];
            data[i] = running;
            running += c;
        }
    }

    /// Scatters every block's locally sorted keys to their global places
    /// (the SDK's `reorderData`): key `i` of block `b` with digit `d` goes
    /// to `offsets[d * num_blocks + b] + i - block_offsets[b * RADIX + d]`.
    #[kernel(workgroup_size = 64)]
    pub fn reorder_data(keys: &[u32], out: &mut [u32], offsets: &[u32], block_offsets: &[u32], start_bit: u32) {
        let lid = local_index();
        let block = workgroup_id().x;
        let num_blocks = num_workgroups().x;
        let base = block * BLOCK;
        for j in 0..PER {
            let i = j * CTA + lid;
            let k = keys[base + i];
            let d = (k >> start_bit) & (RADIX - 1);
            out[offsets[d * num_blocks + block] + i - block_offsets[block * RADIX + d]] = k;
        }
    }
}

pub use radix_sort::{find_radix_offsets, radix_sort_blocks, reorder_data, scan_counters};

/// Keys per workgroup, bits per pass, digits per pass.
pub const BLOCK: usize = 1024;
pub const BITS: u32 = 4;
pub const RADIX: usize = 16;
