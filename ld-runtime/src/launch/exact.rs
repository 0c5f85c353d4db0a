//! Exact mode: every access monitored on the CPU executor, from the
//! buffers' contents, on any runtime.

use super::{Arg, Launch, Mode, Run};
use crate::check;
use crate::cpu::executor::CpuLaunch;
use crate::cpu::twin::StorageView;
use crate::error::Result;
use crate::exact::{self, input};
use crate::kernel::ParamKind;
use std::time::Instant;

impl Launch<'_> {
    /// Views of host words for the CPU executor, shaped as the arguments.
    pub(super) fn views<'w>(&self, words: &'w input::Words) -> Vec<Option<StorageView<'w>>> {
        self.args
            .iter()
            .zip(words)
            .map(|(a, w)| match (a, w) {
                (Arg::Buffer(b), Some(w)) => Some(StorageView { words: w, elem_words: b.elem_words, len: b.len as u32 }),
                _ => None,
            })
            .collect()
    }

    /// Exact mode: every access monitored on the CPU, from the buffers'
    /// contents; the written buffers get the result once every workgroup
    /// has finished (a fault leaves them as they were).
    pub(super) fn run_exact(self, uniforms: Vec<u32>) -> Result<Run> {
        let warp_size = self.warp_size()?;
        let start = Instant::now();
        let mut words: input::Words = vec![None; self.args.len()];
        for (p, a) in self.args.iter().enumerate() {
            if let Arg::Buffer(b) = a {
                words[p] = Some(input::copy(b.store)?);
            }
        }
        let l = CpuLaunch::new(self.info, self.grid.0, self.views(&words), uniforms, self.fuel()?);
        let seen = exact::run(&l, warp_size, None).map_err(|e| self.fault(e, l.fuel))?;
        for (p, a) in self.args.iter().enumerate() {
            if let (Arg::Buffer(b), Some(w), true) = (a, &words[p], self.writes(p)) {
                input::store(b.store, w)?;
            }
        }
        let elapsed = start.elapsed();
        let targets = check::targets(self.info);
        let mut r = check::records::report(
            self.info,
            self.grid.0,
            &targets,
            &seen.raw,
            None,
            warp_size,
            self.check.max_records,
            self.rt.backend(),
            elapsed.as_secs_f64() * 1e3,
        );
        exact::sources::attach(&mut r, &seen.pairs, self.info, self.grid.0, &targets, warp_size);
        r.mode = Mode::Exact;
        r.buffers = check::report::Buffers::AsNativeOnCpu;
        let out_of_bounds = l.oob.take();
        r.out_of_bounds = out_of_bounds.clone();
        Ok(Run { backend: self.rt.backend(), mode: self.mode, elapsed, report: Some(r), stats: None, out_of_bounds })
    }

    /// Whether the kernel may write parameter `p`.
    fn writes(&self, p: usize) -> bool {
        matches!(self.info.params[p].kind, ParamKind::Storage { writable: true, .. } | ParamKind::Atomic { .. })
    }
}
