//! The Rodinia b+tree `findK` kernel (see `samples/bplustree.rs`).

#[ld::kernels]
pub mod bplustree {
    /// Slots per node (Rodinia's `knode.keys[DEFAULT_ORDER + 1]`). Node `n`'s
    /// keys are `node_keys[n * SLOTS ..]`, its children (internal) or records
    /// (leaf) `node_indices[n * SLOTS ..]`; unused slots hold `i32::MAX` keys.
    /// (Rodinia's `knode` struct of two `[i32; 257]` arrays cannot be a kernel
    /// struct: its derived `Default` fails for arrays over 32 elements.)
    const SLOTS: u32 = 257;

    /// `findK`: workgroup `bid` looks up `keys[bid]`. At every level each
    /// invocation `thid` tests whether the key lies in
    /// `[node.keys[thid], node.keys[thid + 1])`; the one that does writes the
    /// child to `offset[bid]`; invocation 0 then moves `curr[bid]` there. At
    /// the leaf the invocation holding the key writes its record to
    /// `ans[bid]`.
    ///
    /// `fixed == 0`: Rodinia's `__syncthreads()` ported as `barrier()`
    /// (WGSL's workgroupBarrier, which orders only workgroup memory), so the
    /// writes to `offset[bid]` of different levels, by different invocations,
    /// are unordered. `fixed != 0`: `storage_barrier()`.
    #[kernel(workgroup_size = 256)]
    pub fn find_k(
        height: u32,
        node_keys: &[i32],
        node_indices: &[i32],
        records: &[i32],
        curr: &mut [i32],
        offset: &mut [i32],
        keys: &[i32],
        ans: &mut [i32],
        fixed: u32,
    ) {
        let thid = local_index();
        let bid = workgroup_id().x;
        let knodes_elem = (node_keys.len() / SLOTS) as i32;
        let key = keys[bid];
        for _i in 0..height {
            let node = curr[bid] as u32 * SLOTS;
            if node_keys[node + thid] <= key && node_keys[node + thid + 1] > key {
                let child = node_indices[offset[bid] as u32 * SLOTS + thid];
                if child < knodes_elem {
                    offset[bid] = child;
                }
            }
            if fixed != 0 {
                storage_barrier();
            } else {
                barrier();
            }
            if thid == 0 {
                curr[bid] = offset[bid];
            }
            if fixed != 0 {
                storage_barrier();
            } else {
                barrier();
            }
        }
        let leaf = curr[bid] as u32 * SLOTS;
        if node_keys[leaf + thid] == key {
            ans[bid] = records[node_indices[leaf + thid] as u32];
        }
    }
}

pub use bplustree::find_k;
