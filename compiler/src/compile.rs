//! A kernel's IR to every WGSL variant a mode runs: the one sequence of
//! checks and writers that every front-end's kernels go through.

use crate::ir::Module;
use crate::wgsl::{self, Site};
use crate::{analysis, Diagnostics};

/// A kernel's WGSL, each variant with the guard's sites in it.
#[derive(Debug, Clone)]
pub struct Compiled {
    /// The kernel with its settled reads marked
    /// (`analysis::settled::mark`): what check and deterministic modes
    /// run, on the GPU and in the CPU reference.
    pub settled: Module,
    /// The kernel as written (native mode).
    pub native: (String, Vec<Site>),
    /// Check mode's kernel.
    pub instrumented: (String, Vec<Site>),
    /// Deterministic mode's kernel.
    pub folded: (String, Vec<Site>),
    /// The probe of check and deterministic modes.
    pub probe: (String, Vec<Site>),
}

/// Checks `m` (barrier uniformity, the engine's target count) and writes
/// every variant, each validated by naga.
pub fn compile(m: &Module) -> Result<Compiled, Diagnostics> {
    analysis::uniformity::check(&m.kernel)?;
    analysis::targets::check_count(m).map_err(|d| vec![d])?;
    let validate = |(text, sites): (String, Vec<Site>), what: &str| match wgsl::validate(&text, m.kernel.span, what) {
        Ok(()) => Ok((text, sites)),
        Err(d) => Err(vec![d]),
    };
    let native = validate(wgsl::native(m), "native")?;
    // Check and deterministic modes read settled reads without tags; the
    // native kernel does not look.
    let mut settled = m.clone();
    analysis::settled::mark(&mut settled);
    let instrumented = validate(wgsl::instrumented(&settled), "instrumented (check mode)")?;
    let folded = validate(wgsl::folded(&settled), "folded (deterministic mode)")?;
    let probe = validate(wgsl::probe(&settled), "probe (check and deterministic modes)")?;
    Ok(Compiled { settled, native, instrumented, folded, probe })
}
