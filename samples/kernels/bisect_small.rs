//! The bisect_small kernel (see `samples/bisect_small.rs`): all eigenvalues
//! of a symmetric tridiagonal matrix of order `n <= 256` by bisection in one
//! workgroup, after the CUDA SDK's `bisectKernel` (eigenvalues sample,
//! `bisect_kernel_small.cuh`).

#[ld::kernels]
pub mod bisect_small {
    /// Invocations of the one workgroup (the SDK's
    /// MAX_THREADS_BLOCK_SMALL_MATRIX is 512; WGSL guarantees 256).
    const MAX_THREADS: u32 = 256;

    /// The SDK's `computeMidpoint`: avoids overflow when both ends have the
    /// same sign.
    fn compute_midpoint(left: f32, right: f32) -> f32 {
        let sl = left < 0.0;
        let sr = right < 0.0;
        if sl == sr {
            left + (right - left) * 0.5
        } else {
            (left + right) * 0.5
        }
    }

    /// The SDK's `storeInterval`: stores `[left, right]` with its counts at
    /// `addr`, collapsed to its midpoint once it is narrower than
    /// `max(min_abs, max(|left|, |right|) * precision)`.
    fn store_interval(
        s_left: &mut [f32],
        s_right: &mut [f32],
        s_left_count: &mut [u32],
        s_right_count: &mut [u32],
        addr: u32,
        left: f32,
        right: f32,
        left_count: u32,
        right_count: u32,
        precision: f32,
        min_abs: f32,
    ) {
        s_left_count[addr] = left_count;
        s_right_count[addr] = right_count;
        let t0 = (right - left).abs();
        let t1 = left.abs().max(right.abs()) * precision;
        if t0 <= min_abs.max(t1) {
            let lambda = compute_midpoint(left, right);
            s_left[addr] = lambda;
            s_right[addr] = lambda;
        } else {
            s_left[addr] = left;
            s_right[addr] = right;
        }
    }

    /// Bisects `[lg, ug)` (holding eigenvalues `lg_eig_count..ug_eig_count`)
    /// until every interval holds one eigenvalue to the requested accuracy.
    /// Active intervals live in `s_left`/`s_right`/`s_*_count`, one per
    /// invocation; each level every invocation splits its interval at the
    /// midpoint with a Sturm count, keeps the first non-empty child in its
    /// slot and, if both children hold eigenvalues, appends the second one
    /// after the active ones, at an index found by a scan of
    /// `s_compaction_list` (`createIndicesCompaction` + `compactIntervals`).
    /// Eigenvalue `i` lands in `g_left[i]`, its rank in `g_left_count[i]`.
    ///
    /// `levels` (a bound on the levels bisection needs) and `scan_n`
    /// (`n` rounded up to a power of two) come from the host: see
    /// `samples/bisect_small.rs` for why the loop bounds must be uniform.
    #[kernel(workgroup_size = 256)]
    pub fn bisect_kernel(
        g_d: &[f32],
        g_s: &[f32],
        g_left: &mut [f32],
        g_left_count: &mut [u32],
        n: u32,
        lg: f32,
        ug: f32,
        lg_eig_count: u32,
        ug_eig_count: u32,
        precision: f32,
        min_abs: f32,
        levels: u32,
        scan_n: u32,
    ) {
        let s_left = shared::<[f32; 256]>();
        let s_right = shared::<[f32; 256]>();
        let s_left_count = shared::<[u32; 256]>();
        let s_right_count = shared::<[u32; 256]>();
        // Entry i + 1 is the SDK's `s_compaction_list_exc[i]`.
        let s_compaction_list = shared::<[u32; 257]>();
        let num_threads_active = shared::<[u32; 1]>();

        let tid = local_index();
        s_compaction_list[tid] = 0;
        s_left[tid] = 0.0;
        s_right[tid] = 0.0;
        s_left_count[tid] = 0;
        s_right_count[tid] = 0;
        if tid == MAX_THREADS - 1 {
            s_compaction_list[MAX_THREADS] = 0;
        }
        barrier();
        if tid == 0 {
            s_left[0] = lg;
            s_right[0] = ug;
            s_left_count[0] = lg_eig_count;
            s_right_count[0] = ug_eig_count;
            num_threads_active[0] = 1;
        }

        let mut left = 0.0f32;
        let mut right = 0.0f32;
        let mut left_count = 0u32;
        let mut right_count = 0u32;
        let mut mid = 0.0f32;
        let mut mid_count = 0u32;
        let mut is_active_second = 0u32;

        for _level in 0..levels {
            barrier();
            let num_active = num_threads_active[0];
            is_active_second = 0;
            // subdivideActiveInterval
            if tid < num_active {
                left = s_left[tid];
                right = s_right[tid];
                left_count = s_left_count[tid];
                right_count = s_right_count[tid];
                if left != right {
                    mid = compute_midpoint(left, right);
                }
            }
            barrier();

            // computeNumSmallerEigenvals: the matrix goes into s_left /
            // s_right (scratch: every interval is held in registers now).
            if tid < n {
                s_left[tid] = g_d[tid];
                s_right[tid] = g_s[tid];
            }
            barrier();
            mid_count = 0;
            if tid < num_active && left != right {
                let mut delta = 1.0f32;
                for k in 0..n {
                    delta = s_left[k] - mid - (s_right[k] * s_right[k]) / delta;
                    if delta < 0.0 {
                        mid_count += 1;
                    }
                }
                // A rounding-inconsistent count must still split the interval.
                mid_count = mid_count.clamp(left_count, right_count);
            }
            barrier();

            // Store the first child in place; flag a second one.
            if tid < num_active {
                if left != right {
                    // storeNonEmptyIntervals
                    if left_count != mid_count && mid_count != right_count {
                        store_interval(
                            &mut s_left,
                            &mut s_right,
                            &mut s_left_count,
                            &mut s_right_count,
                            tid,
                            left,
                            mid,
                            left_count,
                            mid_count,
                            precision,
                            min_abs,
                        );
                        is_active_second = 1;
                        s_compaction_list[tid + 1] = 1;
                    } else {
                        is_active_second = 0;
                        s_compaction_list[tid + 1] = 0;
                        if left_count != mid_count {
                            store_interval(
                                &mut s_left,
                                &mut s_right,
                                &mut s_left_count,
                                &mut s_right_count,
                                tid,
                                left,
                                mid,
                                left_count,
                                mid_count,
                                precision,
                                min_abs,
                            );
                        } else {
                            store_interval(
                                &mut s_left,
                                &mut s_right,
                                &mut s_left_count,
                                &mut s_right_count,
                                tid,
                                mid,
                                right,
                                mid_count,
                                right_count,
                                precision,
                                min_abs,
                            );
                        }
                    }
                } else {
                    // storeIntervalConverged: split a multiple eigenvalue.
                    let multiplicity = right_count - left_count;
                    s_left[tid] = left;
                    s_right[tid] = right;
                    s_left_count[tid] = left_count;
                    if multiplicity == 1 {
                        s_right_count[tid] = right_count;
                        is_active_second = 0;
                        s_compaction_list[tid + 1] = 0;
                    } else {
                        mid_count = left_count + (multiplicity >> 1);
                        s_right_count[tid] = mid_count;
                        mid = left;
                        is_active_second = 1;
                        s_compaction_list[tid + 1] = 1;
                    }
                }
            } else {
                s_compaction_list[tid + 1] = 0;
            }

            // createIndicesCompaction: in-place inclusive scan of the flags.
            let mut offset = 1u32;
            let mut d = scan_n >> 1;
            while d > 0 {
                barrier();
                if tid < d {
                    let ai = offset * (2 * tid + 1) - 1;
                    let bi = offset * (2 * tid + 2) - 1;
                    s_compaction_list[bi + 1] += s_compaction_list[ai + 1];
                }
                offset <<= 1;
                d >>= 1;
            }
            let mut d = 2u32;
            while d < scan_n {
                offset >>= 1;
                barrier();
                if tid < d - 1 {
                    let ai = offset * (tid + 1) - 1;
                    let bi = ai + (offset >> 1);
                    s_compaction_list[bi + 1] += s_compaction_list[ai + 1];
                }
                d <<= 1;
            }
            barrier();

            // compactIntervals: second children after the active intervals.
            if tid < num_active && is_active_second == 1 {
                let addr_w = num_active + s_compaction_list[tid];
                s_left[addr_w] = mid;
                s_right[addr_w] = right;
                s_left_count[addr_w] = mid_count;
                s_right_count[addr_w] = right_count;
            }
            // Everyone read `num_threads_active` at the top of this level;
            // the next level's first barrier orders this update before its
            // reads (the SDK spends one more barrier here).
            if tid == 0 {
                num_threads_active[0] = num_active + s_compaction_list[num_active];
            }
        }
        barrier();

        if tid < n {
            g_left[tid] = s_left[tid];
            g_left_count[tid] = s_left_count[tid];
        }
    }
}

/// Invocations of the workgroup: the largest matrix order.
pub const MAX_N: usize = 256;

pub use bisect_small::bisect_kernel;
