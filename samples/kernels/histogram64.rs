//! The histogram64 kernels (see `samples/histogram64.rs`): per-invocation
//! byte-counter sub-histograms in workgroup memory, merged per workgroup,
//! then across workgroups.

#[ld::kernels]
pub mod histogram64 {
    /// Invocations per workgroup of the histogram kernel (the SDK's THREAD_N).
    const THREAD_N: u32 = 192;
    const BIN_COUNT: u32 = 64;
    /// Invocations per workgroup of the merge kernel.
    const MERGE_THREADS: u32 = 256;

    /// Counts bin `data` in the invocation's own byte counter: word
    /// `(data >> 2) * THREAD_N + tid`, byte `data & 3` (the SDK's
    /// `s_Hist[threadPos + data * THREAD_N]++` on `unsigned char`s).
    fn add_data64(s_hist: &mut [u32], tid: u32, data: u32) {
        s_hist[(data >> 2) * THREAD_N + tid] += 1u32 << ((data & 3) * 8);
    }

    /// One 64-bin partial histogram per workgroup of the bytes of `d_data`
    /// (4 per word, bin = byte >> 2), into `d_result[block * 64 + bin]`.
    /// Every invocation handles at most 63 words (252 bytes), so its 8-bit
    /// counters cannot overflow.
    #[kernel(workgroup_size = 192)]
    pub fn histogram64_kernel(d_result: &mut [u32], d_data: &[u32], data_n: u32) {
        // 64 byte counters per invocation, packed 4 to a word: 12 KB.
        let s_hist = shared::<[u32; 3072]>();
        let tid = local_index();
        for i in 0..BIN_COUNT / 4 {
            s_hist[tid + i * THREAD_N] = 0;
        }
        barrier();
        let mut pos = workgroup_id().x * THREAD_N + tid;
        let stride = THREAD_N * num_workgroups().x;
        while pos < data_n {
            let data4 = d_data[pos];
            add_data64(&mut s_hist, tid, (data4 >> 2) & 0x3F);
            add_data64(&mut s_hist, tid, (data4 >> 10) & 0x3F);
            add_data64(&mut s_hist, tid, (data4 >> 18) & 0x3F);
            add_data64(&mut s_hist, tid, (data4 >> 26) & 0x3F);
            pos += stride;
        }
        barrier();
        // Merge the invocations' counters: invocation `bin` sums its bin's
        // 192 bytes, starting at a staggered position (the SDK's
        // `(threadIdx.x & 15) * 4`) and wrapping around.
        if tid < BIN_COUNT {
            let row = (tid >> 2) * THREAD_N;
            let shift = (tid & 3) * 8;
            let mut sum = 0u32;
            let mut accum_pos = (tid & 15) * 4;
            for _ in 0..THREAD_N {
                sum += (s_hist[row + accum_pos] >> shift) & 0xFF;
                accum_pos += 1;
                if accum_pos == THREAD_N {
                    accum_pos = 0;
                }
            }
            d_result[workgroup_id().x * BIN_COUNT + tid] = sum;
        }
    }

    /// Sums the `histogram_count` partial histograms: workgroup `bin` adds
    /// column `bin` with a strided loop and a tree reduction in workgroup
    /// memory (the SDK's `mergeHistogram64Kernel`).
    #[kernel(workgroup_size = 256)]
    pub fn merge_histogram64(d_histogram: &mut [u32], d_partial: &[u32], histogram_count: u32) {
        let data = shared::<[u32; 256]>();
        let tid = local_index();
        let bin = workgroup_id().x;
        let mut sum = 0u32;
        let mut i = tid;
        while i < histogram_count {
            sum += d_partial[bin + i * BIN_COUNT];
            i += MERGE_THREADS;
        }
        data[tid] = sum;
        let mut stride = MERGE_THREADS / 2;
        while stride > 0 {
            barrier();
            if tid < stride {
                data[tid] += data[tid + stride];
            }
            stride >>= 1;
        }
        if tid == 0 {
            d_histogram[bin] = data[0];
        }
    }
}

/// Invocations per workgroup of `histogram64_kernel`.
pub const THREAD_N: usize = 192;
pub const BIN_COUNT: usize = 64;
/// Words one invocation may count before its 8-bit counters could overflow.
pub const MAX_WORDS_PER_THREAD: usize = 63;

pub use histogram64::{histogram64_kernel, merge_histogram64};
