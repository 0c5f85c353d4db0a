//! The n-body integration kernel (see `samples/nbody.rs`), CUDA SDK 2.0's
//! `integrateBodies<multithreadBodies = true>` with `computeBodyAccel` and
//! `gravitation` inlined.

#[ld::kernels]
pub mod nbody {
    /// A CUDA `float4`: position and mass (`w`), or velocity (`w` unused).
    pub struct Float4 {
        pub x: f32,
        pub y: f32,
        pub z: f32,
        pub w: f32,
    }

    /// Bodies per workgroup (`blockDim.x`, the SDK's `p`).
    const P: u32 = 64;
    /// Invocations per body (`blockDim.y`, the SDK's `q`).
    const Q: u32 = 4;
    /// The SDK's `softeningSquared`.
    const SOFTENING_SQ: f32 = 0.00125;
    /// The row that adds up the partial accelerations.
    const SUM_ROW: u32 = Q - 1;

    /// One integration step. Body `index = workgroup * P + local_id().x`;
    /// row `y = local_id().y` accumulates the forces of the `1/Q` of the
    /// bodies that pass through its quarter of `shared_pos`, tile by tile;
    /// the rows' partial accelerations are then summed by row `SUM_ROW` in
    /// shared memory (`SX_SUM`). `all_rows_write = 1` is the SDK 2.0 code:
    /// every row integrates and stores body `index` with the acceleration
    /// it holds (the other rows only their partial one): a write-write race
    /// on `new_pos`/`new_vel`. `0` lets only the summing row store.
    #[kernel(workgroup_size = (64, 4))]
    pub fn integrate_bodies(
        new_pos: &mut [Float4],
        new_vel: &mut [Float4],
        old_pos: &[Float4],
        old_vel: &[Float4],
        dt: f32,
        damping: f32,
        n: u32,
        all_rows_write: u32,
    ) {
        let shared_pos = shared::<[Float4; 256]>();
        let lx = local_id().x;
        let ly = local_id().y;
        let bx = workgroup_id().x;
        let grid = num_workgroups().x;
        let index = bx * P + lx;
        let mut pos = old_pos[index];
        let mut ax = 0.0f32;
        let mut ay = 0.0f32;
        let mut az = 0.0f32;
        let num_tiles = n / (P * Q);
        for tile in 0..num_tiles {
            // WRAP(blockIdx.x + q * tile + threadIdx.y, gridDim.x)
            let mut src = bx + Q * tile + ly;
            if src >= grid {
                src -= grid;
            }
            shared_pos[lx + P * ly] = old_pos[src * P + lx];
            barrier();
            // gravitation(): this row's P bodies of the tile.
            for c in 0..P {
                let bj = shared_pos[c + P * ly];
                let rx = bj.x - pos.x;
                let ry = bj.y - pos.y;
                let rz = bj.z - pos.z;
                let dist_sqr = rx * rx + ry * ry + rz * rz + SOFTENING_SQ;
                let inv_dist = 1.0 / dist_sqr.sqrt();
                let s = bj.w * (inv_dist * inv_dist * inv_dist);
                ax += rx * s;
                ay += ry * s;
                az += rz * s;
            }
            barrier();
        }
        // multithreadBodies: one row adds up the other rows' partial sums
        // (the SDK's row 0; here row Q - 1, see `samples/nbody.rs`).
        shared_pos[lx + P * ly] = Float4 { x: ax, y: ay, z: az, w: 0.0 };
        barrier();
        if ly == SUM_ROW {
            for i in 0..SUM_ROW {
                let part = shared_pos[lx + P * i];
                ax += part.x;
                ay += part.y;
                az += part.z;
            }
        }
        // SDK 2.0 stores unconditionally; later SDKs added
        // `if (!multithreadBodies || threadIdx.y == 0)`.
        if ly == SUM_ROW || all_rows_write == 1 {
            let mut vel = old_vel[index];
            vel.x += ax * dt;
            vel.y += ay * dt;
            vel.z += az * dt;
            vel.x *= damping;
            vel.y *= damping;
            vel.z *= damping;
            pos.x += vel.x * dt;
            pos.y += vel.y * dt;
            pos.z += vel.z * dt;
            new_pos[index] = pos;
            new_vel[index] = vel;
        }
    }
}

/// `all_rows_write` of the two variants.
pub const RACY: u32 = 1;
pub const FIXED: u32 = 0;

pub use nbody::{integrate_bodies, Float4};
