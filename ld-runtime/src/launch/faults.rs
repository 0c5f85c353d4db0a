//! A kernel's fault as the launch reports it: the CPU executor's and the
//! GPU guard's, as the same `Error::Fault`, saying what the launch left in
//! the buffers.

use super::{Arg, Launch, Mode};
use crate::cpu::executor;
use crate::error::{Error, FaultKind};
use crate::guard::Found;
use crate::kernel::ParamKind;

impl Launch<'_> {
    /// Each parameter's length in elements (0 for a scalar).
    pub(super) fn lens(&self) -> Vec<u32> {
        self.args.iter().map(|a| if let Arg::Buffer(b) = a { b.len as u32 } else { 0 }).collect()
    }

    /// A fault the CPU executor found.
    pub(super) fn fault(&self, e: executor::WorkgroupError, fuel: u64) -> Error {
        self.fault_error(e.invocation(self.info), e.kind(self.info, fuel), e.describe(self.info, fuel))
    }

    /// The fault the kernel's guard recorded on the GPU, if any.
    pub(super) fn guarded(&self, words: &[u32]) -> Option<Error> {
        Some(match crate::guard::read(self.info, self.grid.0, &self.lens(), words)? {
            Found::Fault { invocation, kind, text } => self.fault_error(invocation, kind, text),
            Found::LoopLimit { line } => {
                let adapter = self.rt.gpu.as_ref().map_or_else(String::new, |g| g.describe());
                crate::guard::loop_limit(self.info, self.mode, adapter, Some(line))
            }
        })
    }

    /// `Error::Fault`, saying what the launch left in the buffers: the same
    /// words on both backends, for the same mode.
    fn fault_error(&self, invocation: String, kind: FaultKind, text: String) -> Error {
        let written: Vec<&str> = self
            .info
            .params
            .iter()
            .filter(|p| matches!(p.kind, ParamKind::Storage { writable: true, .. } | ParamKind::Atomic { .. }))
            .map(|p| p.name)
            .collect();
        let effects = if written.is_empty() {
            "no buffer was written".to_string()
        } else if self.mode != Mode::Native {
            format!(
                "the buffers this kernel writes ({}) are as they were before the launch: {} writes them only once every workgroup has finished, and puts back those it writes as it runs (atomic buffers, targets left in place) after a fault",
                written.join(", "),
                self.mode
            )
        } else {
            let faulting = match kind {
                FaultKind::OutOfBounds { .. } => "the faulting access was not performed",
                _ => "the faulting invocation stopped there",
            };
            format!(
                "the buffers this kernel writes ({}) may hold partial results: other invocations ran before and alongside the faulting one, and {faulting}",
                written.join(", ")
            )
        };
        Error::Fault { kernel: self.info.name, invocation, kind, message: format!("{text}\n  {effects}") }
    }
}
