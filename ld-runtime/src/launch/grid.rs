//! The grid a launch covers: workgroups along x, y and z.

use ld_shaders::abi::MAX_WORKGROUPS_PER_DIMENSION;

/// Number of workgroups along x, y and z.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grid(pub [u32; 3]);

impl Grid {
    /// Enough workgroups of `per_workgroup` invocations to cover `items`,
    /// along x (a launch fails with a clear error beyond 65535 workgroups:
    /// use [`Grid::cover_2d`] then).
    pub fn cover(items: u64, per_workgroup: u32) -> Grid {
        Grid([items.div_ceil(per_workgroup.max(1) as u64).max(1).min(u32::MAX as u64) as u32, 1, 1])
    }

    /// Enough workgroups to cover `items`, spread over y once x holds 65535:
    /// the kernel numbers its item `global_id().x + global_id().y *
    /// num_workgroups().x * W` (W: the workgroup's x size) and skips the
    /// items past the end (the last row may be partly past it).
    pub fn cover_2d(items: u64, per_workgroup: u32) -> Grid {
        let n = items.div_ceil(per_workgroup.max(1) as u64).max(1);
        let x = n.min(MAX_WORKGROUPS_PER_DIMENSION as u64);
        Grid([x as u32, n.div_ceil(x).min(u32::MAX as u64) as u32, 1])
    }

    /// The number of workgroups.
    pub fn workgroups(&self) -> u64 {
        self.0.iter().map(|&d| d as u64).product()
    }
}

impl From<u32> for Grid {
    fn from(x: u32) -> Self {
        Grid([x, 1, 1])
    }
}
impl From<(u32, u32)> for Grid {
    fn from((x, y): (u32, u32)) -> Self {
        Grid([x, y, 1])
    }
}
impl From<(u32, u32, u32)> for Grid {
    fn from((x, y, z): (u32, u32, u32)) -> Self {
        Grid([x, y, z])
    }
}
impl From<[u32; 3]> for Grid {
    fn from(g: [u32; 3]) -> Self {
        Grid(g)
    }
}

#[cfg(test)]
mod tests {
    use super::Grid;

    #[test]
    fn cover_2d_spreads_over_y_only_past_the_limit() {
        assert_eq!(Grid::cover_2d(1000, 64).0, [16, 1, 1]);
        assert_eq!(Grid::cover_2d(65535 * 64, 64).0, [65535, 1, 1]);
        assert_eq!(Grid::cover_2d(65536 * 64, 64).0, [65535, 2, 1]);
        let g = Grid::cover_2d(1 << 32, 256);
        assert!(g.0[0] <= 65535 && g.0[1] <= 65535 && g.workgroups() * 256 >= 1 << 32, "{g:?}");
        assert_eq!(Grid::cover(0, 64).0, [1, 1, 1]);
    }
}
