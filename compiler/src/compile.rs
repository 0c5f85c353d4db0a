//! A kernel's IR to every WGSL variant a mode runs: the one sequence of
//! checks and writers that every front-end's kernels go through.

use crate::analysis::{in_place::InPlace, targets::Class};
use crate::ir::{BarrierKind, MemRef, Module};
use crate::wgsl::{self, Site};
use crate::{analysis, Diagnostics, Span};

/// A kernel's WGSL, each variant with the guard's sites in it.
#[derive(Debug, Clone)]
pub struct Compiled {
    /// The kernel with its settled reads marked
    /// (`analysis::settled::mark`): what check and deterministic modes
    /// run, on the GPU and in the CPU reference.
    pub settled: Module,
    /// The kernel as written (native mode).
    pub native: (String, Vec<Site>),
    /// The kernel as plain WGSL, without ld's guard (`wgsl::plain`).
    pub plain: String,
    /// Check mode's kernel.
    pub instrumented: (String, Vec<Site>),
    /// Deterministic mode's kernel.
    pub folded: (String, Vec<Site>),
    /// The probe of check and deterministic modes.
    pub probe: (String, Vec<Site>),
    /// What the runtime needs to know of the kernel to run those variants.
    pub facts: Facts,
}

/// The analyses' findings a launch needs, one value each: the macro
/// writes them into its kernel's description, the shader loader builds
/// the same description from them at run time.
#[derive(Debug, Clone)]
pub struct Facts {
    /// How check mode treats each parameter (`analysis::targets::params`).
    pub classes: Vec<Class>,
    /// Which workgroup arrays are privatized (`analysis::targets::shared`).
    pub shared_targets: Vec<bool>,
    /// The memories check and deterministic modes privatize, in target order.
    pub targets: Vec<MemRef>,
    /// `analysis::targets::lane_safe`.
    pub lane_safe: u32,
    /// `analysis::targets::one_value`.
    pub one_value: u32,
    /// The targets accessed in place (`analysis::in_place`).
    pub in_place: InPlace,
    /// Every barrier statement in source order: its kind and span.
    pub barriers: Vec<(BarrierKind, Span)>,
}

impl Facts {
    fn of(m: &Module) -> Facts {
        use analysis::targets;
        Facts {
            classes: targets::params(m),
            shared_targets: targets::shared(m),
            targets: targets::list(m),
            lane_safe: targets::lane_safe(m),
            one_value: targets::one_value(m),
            in_place: analysis::in_place::in_place(m),
            barriers: wgsl::barriers(m),
        }
    }
}

/// Checks `m` (barrier uniformity, the engine's target count) and writes
/// every variant, each validated by naga.
pub fn compile(m: &Module) -> Result<Compiled, Diagnostics> {
    analysis::uniformity::check(m)?;
    analysis::targets::check_count(m).map_err(|d| vec![d])?;
    let validate = |(text, sites): (String, Vec<Site>), what: &str| match wgsl::validate(&text, m.kernel.span, what) {
        Ok(()) => Ok((text, sites)),
        Err(d) => Err(vec![d]),
    };
    let native = validate(wgsl::native(m), "native")?;
    let plain = validate((wgsl::plain(m), vec![]), "plain")?.0;
    // Check and deterministic modes read settled reads without tags; the
    // native kernel does not look.
    let mut settled = m.clone();
    analysis::settled::mark(&mut settled);
    let instrumented = validate(wgsl::instrumented(&settled), "instrumented (check mode)")?;
    let folded = validate(wgsl::folded(&settled), "folded (deterministic mode)")?;
    let probe = validate(wgsl::probe(&settled), "probe (check and deterministic modes)")?;
    Ok(Compiled { settled, native, plain, instrumented, folded, probe, facts: Facts::of(m) })
}
