//! The scan kernels (see `samples/scan.rs`): the CUDA SDK's work-efficient
//! (Blelloch) prescan of one block in workgroup memory with bank-conflict
//! padding, and the uniform add that applies the scanned block sums.

#[ld::kernels]
pub mod scan {
    /// Invocations per workgroup (the paper's blocks had 512 threads; WGSL
    /// guarantees 256).
    const THREADS: u32 = 256;
    /// Elements per workgroup: two per invocation.
    const BLOCK: u32 = 512;
    /// `CONFLICT_FREE_OFFSET(i) = i >> LOG_NUM_BANKS` with 32 banks.
    const LOG_NUM_BANKS: u32 = 5;

    /// Exclusive prefix sum of one 512-element block of `g_idata` (elements
    /// past `n` count as 0) into `g_odata`; the block's total goes to
    /// `g_sums[block]`. `sync_down = 0` drops the barrier at the top of the
    /// down-sweep loop (the injected race), `1` keeps it.
    #[kernel(workgroup_size = 256)]
    pub fn prescan(g_idata: &[u32], g_odata: &mut [u32], g_sums: &mut [u32], n: u32, sync_down: u32) {
        // 512 elements + 512 / 32 padding words.
        let temp = shared::<[u32; 528]>();
        let thid = local_index();
        let block = workgroup_id().x;
        let base = block * BLOCK;
        let ai = thid;
        let bi = thid + BLOCK / 2;
        let bank_a = ai >> LOG_NUM_BANKS;
        let bank_b = bi >> LOG_NUM_BANKS;
        temp[ai + bank_a] = if base + ai < n { g_idata[base + ai] } else { 0 };
        temp[bi + bank_b] = if base + bi < n { g_idata[base + bi] } else { 0 };

        // Up-sweep: build the sum in place up the tree.
        let mut offset = 1u32;
        let mut d = BLOCK >> 1;
        while d > 0 {
            barrier();
            if thid < d {
                let mut a = offset * (2 * thid + 1) - 1;
                let mut b = offset * (2 * thid + 2) - 1;
                a += a >> LOG_NUM_BANKS;
                b += b >> LOG_NUM_BANKS;
                temp[b] += temp[a];
            }
            offset *= 2;
            d >>= 1;
        }

        // Save the block total and clear the last element.
        if thid == 0 {
            let last = BLOCK - 1 + ((BLOCK - 1) >> LOG_NUM_BANKS);
            g_sums[block] = temp[last];
            temp[last] = 0;
        }

        // Down-sweep: traverse down the tree building the scan.
        let mut d = 1u32;
        while d < BLOCK {
            offset >>= 1;
            if sync_down != 0 {
                barrier();
            }
            if thid < d {
                let mut a = offset * (2 * thid + 1) - 1;
                let mut b = offset * (2 * thid + 2) - 1;
                a += a >> LOG_NUM_BANKS;
                b += b >> LOG_NUM_BANKS;
                let t = temp[a];
                temp[a] = temp[b];
                temp[b] += t;
            }
            d *= 2;
        }
        barrier();

        if base + ai < n {
            g_odata[base + ai] = temp[ai + bank_a];
        }
        if base + bi < n {
            g_odata[base + bi] = temp[bi + bank_b];
        }
    }

    /// Adds the scanned block sum `uniforms[block]` to every element of the
    /// block (`uniformAdd` of the SDK: invocation 0 stages it in workgroup
    /// memory).
    #[kernel(workgroup_size = 256)]
    pub fn uniform_add(g_data: &mut [u32], uniforms: &[u32], n: u32) {
        let uni = shared::<[u32; 1]>();
        let thid = local_index();
        let block = workgroup_id().x;
        if thid == 0 {
            uni[0] = uniforms[block];
        }
        let address = block * BLOCK + thid;
        barrier();
        if address < n {
            g_data[address] += uni[0];
        }
        if address + THREADS < n {
            g_data[address + THREADS] += uni[0];
        }
    }
}

/// `sync_down` of the two variants: the racy one drops the down-sweep barrier.
pub const RACY: u32 = 0;
pub const FIXED: u32 = 1;
/// Elements one workgroup scans.
pub const BLOCK: usize = 512;

pub use scan::{prescan, uniform_add};
