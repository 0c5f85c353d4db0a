//! The EM M-step kernels (see `samples/em.rs`), shared with the tests.

/// Shared layout (words): temp1 [0, 768), dist [768, 1536),
/// Rp [1536, 3840) (9 per invocation), C [3840, 3840 + DIM).
#[ld::kernels]
pub mod em {
    const DIM: u32 = 3;
    const RP: u32 = 1536;
    const C: u32 = 3840;

    /// Accumulates one invocation's points into its `Rp` window and returns
    /// the sum of its weights. `slot` picks its `temp1`/`dist` scratch.
    fn accumulate(s_float: &mut [f32], data: &[f32], memb: &[f32], j: u32, n: u32, slot: u32, lid: u32, first: u32, stride: u32) -> f32 {
        let rp = &mut s_float[RP + lid * 9..];
        let temp1 = &mut s_float[slot * DIM..];
        let dist = &mut s_float[768 + slot * DIM..];
        let c = &s_float[C..];
        for e in 0..9u32 {
            rp[e] = 0.0;
        }
        let mut wsum = 0.0f32;
        for i in (first..n).step_by(stride) {
            let x = memb[j * n + i];
            for cnt in 0..DIM {
                dist[cnt] = data[i * DIM + cnt] - c[cnt];
                temp1[cnt] = dist[cnt] * x;
            }
            for cnt in 0..DIM {
                for inn in 0..DIM {
                    rp[cnt * DIM + inn] += temp1[cnt] * dist[inn];
                }
            }
            wsum += x;
        }
        wsum
    }

    /// Tree-reduces the workgroup's `Rp`s and weights and writes them out.
    fn publish(s_float: &mut [f32], partial: &mut [f32], lid: u32, out: u32) {
        if lid < 9 {
            partial[out * 10 + lid] = s_float[RP + lid];
        }
        if lid == 9 {
            partial[out * 10 + 9] = s_float[0];
        }
    }

    /// The M-step count. `mask` picks each invocation's scratch window:
    /// `lid & mask`. The paper's racy EM sized the scratch for 128
    /// invocations (`mask = 127`): invocations `lid` and `lid + 128` then
    /// share their `temp1`/`dist` windows. `mask = 255` gives each its own.
    #[kernel(workgroup_size = 256)]
    pub fn m_count(data: &[f32], memb: &[f32], centroids: &[f32], partial: &mut [f32], n: u32, mask: u32) {
        let s_float = shared::<[f32; 3843]>();
        let lid = local_index();
        let j = workgroup_id().y;
        if lid < DIM {
            s_float[C + lid] = centroids[j * DIM + lid];
        }
        barrier();
        let w = accumulate(&mut s_float, data, memb, j, n, lid & mask, lid, global_id().x, 256 * num_workgroups().x);
        barrier();
        s_float[lid] = w;
        barrier();
        let mut s = 128u32;
        while s > 0 {
            if lid < s {
                for e in 0..9u32 {
                    s_float[RP + lid * 9 + e] += s_float[RP + (lid + s) * 9 + e];
                }
                s_float[lid] += s_float[lid + s];
            }
            barrier();
            s >>= 1;
        }
        publish(&mut s_float, partial, lid, j * num_workgroups().x + workgroup_id().x);
    }
}

/// The scratch masks of the two variants.
pub const RACY: u32 = 127;
pub const FIXED: u32 = 255;

pub use em::m_count;
