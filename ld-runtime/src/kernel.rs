//! The contract between `#[ld::kernel]` expansions and the runtime: what a
//! kernel takes, how it is laid out, and its two compiled forms.

// The macro's contract: reached by `#[ld::kernel]` expansions through the hidden
// `__private` module, not part of the documented API.
#![allow(missing_docs)]

use crate::cpu::group::Group;
pub use ld_compiler::ir::Bounds;
use std::any::TypeId;

/// Implemented by the unit struct `#[ld::kernel]` makes of a function;
/// that struct also has a typed `launch` method with the kernel's own
/// parameters.
pub trait Kernel: Copy + Send + Sync + 'static {
    /// The metadata the macro generated (not a stable API).
    #[doc(hidden)]
    fn info(&self) -> &'static KernelInfo;
}

/// Everything `#[ld::kernel]` generates for a kernel: its signature, WGSL
/// variants, analyses and CPU twin (not a stable API).
#[doc(hidden)]
pub struct KernelInfo {
    pub name: &'static str,
    pub workgroup_size: [u32; 3],
    pub params: &'static [ParamInfo],
    pub shared: &'static [SharedInfo],
    /// The memories check and deterministic modes privatize, numbered as
    /// the instrumented WGSL numbers them: written storage buffers, then
    /// workgroup arrays.
    pub targets: &'static [TargetPlace],
    /// The targets (a bit each, by number) on which lanes of a warp cannot
    /// make a result depend on their order: those the kernel only ever
    /// stores one literal value to and never reads (a flag such as
    /// `over[0] = 1`), and those it only accesses at the invocation's own
    /// element (`out[i]` with `i = global_id().x`). Deterministic mode
    /// tags none of their accesses (the engine's `LD_LANE_SAFE`, from the
    /// same analysis: `ld-macros`' `analysis::targets::lane_safe`).
    pub lane_safe: u32,
    /// Of those, the targets the kernel only ever stores one literal value
    /// to (`analysis::targets::one_value`): whatever order invocations
    /// store it in, across workgroups too, the memory ends the same, so
    /// deterministic mode's probe neither tags nor defers them.
    pub one_value: u32,
    /// The storage targets the kernel only accesses at the invocation's
    /// own element of the dispatch, and on which grids (`ld-macros`'
    /// `analysis::in_place`): check and deterministic modes access them in
    /// place, unchecked, as nothing can race on them.
    pub in_place: InPlace,
    /// Every barrier statement, by barrier index (the statements' order in
    /// the kernel body, as the CPU twin and the instrumented WGSL number
    /// them): its kind and source line.
    pub barriers: &'static [BarrierInfo],
    /// Native WGSL. Bindings: storage/atomic parameter `i` at `@binding(i)`,
    /// scalar parameters packed as 32-bit words at `@binding(params.len())`.
    pub wgsl: &'static str,
    /// The native kernel as plain WGSL, without ld's guard (indices
    /// unchecked, loops without fuel): what the round trip reads back
    /// through the shader front-end (`LD_ROUND_TRIP`).
    pub wgsl_plain: &'static str,
    /// The instrumented kernel of check mode: the same `@group(0)` (targets
    /// bound as their words), and the engine's buffers in `@group(1)` (see
    /// `ld_shaders::abi`).
    pub wgsl_instrumented: &'static str,
    /// The folded kernel of deterministic mode: the instrumented kernel's
    /// bindings, each region folded at its barrier.
    pub wgsl_folded: &'static str,
    /// The probe of check and deterministic modes: the instrumented kernel's bindings, the
    /// body on the user's buffers with every access to a target tagged
    /// (`ld_shaders::abi::probe`).
    pub wgsl_probe: &'static str,
    /// Where each guarded access and loop is in the kernel's source, by
    /// the site number the guard records, one table per WGSL text (native,
    /// instrumented, folded, probe: `ld_shaders::abi::guard`'s variants).
    pub sites: [&'static [Site]; ld_shaders::abi::guard::VARIANTS],
    /// A workgroup's invocations on the CPU, fresh, given how many: the
    /// twin's (or, for a loaded shader, native code's or the
    /// interpreter's).
    pub new_group: NewGroup,
    /// Where the kernel is written, for the snippets of reports.
    pub source: Source,
    /// What an index out of bounds does: Rust's rule (a fault) for a Rust
    /// kernel, WGSL's (the run goes on) for a loaded shader.
    pub bounds: Bounds,
}

/// Makes a workgroup's fresh invocations of a kernel's CPU reference: a
/// function item for the macro's twin, a closure over the program for a
/// loaded shader.
pub type NewGroup = &'static (dyn Fn(usize) -> Box<dyn Group> + Send + Sync);

/// Names a word offset within one element (`.mass`, `[1]`, nothing for a
/// scalar): the element type's `Words::place` for a Rust kernel, a walk
/// of the shader's type for a loaded one.
pub type PlaceFn = &'static (dyn Fn(u32, &mut String) + Send + Sync);

/// The targets (a bit each, by number) whose every index is the
/// invocation's own element of the dispatch: `stride * own + offset`, one
/// stride for all of a target's accesses and each offset below it, where
/// `own` is `global_id().x` (or `workgroup_id().x * X + local_id().x`) in a
/// workgroup of one row, on a grid of one row, or `global_id().x +
/// global_id().y * num_workgroups().x * X` in a workgroup of depth 1, on a
/// grid of one plane.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InPlace {
    /// Unique on a grid of one row (`[n, 1, 1]`).
    pub row: u32,
    /// Unique on a grid of one plane (`[n, m, 1]`) too: a subset of `row`.
    pub plane: u32,
    /// The largest stride of their indices.
    pub stride: u32,
}

impl InPlace {
    /// The targets left in place on `grid`: none where the dispatch has
    /// more invocations (times the stride) than a 32-bit index tells apart.
    pub fn on(&self, grid: [u32; 3], invocations_per_workgroup: u32) -> u32 {
        let total = grid.iter().map(|&d| d as u64).product::<u64>() * invocations_per_workgroup as u64 * self.stride.max(1) as u64;
        match grid {
            _ if total > 1 << 32 => 0,
            [_, 1, 1] => self.row,
            [_, _, 1] => self.plane,
            _ => 0,
        }
    }
}

/// A kernel's body as written: its file (`file!()`, relative to where
/// cargo compiled it) and the text of its body from `first_line`, kept in
/// the binary so reports show source lines wherever the program runs.
pub struct Source {
    pub file: &'static str,
    pub first_line: u32,
    pub text: &'static str,
}

impl Source {
    /// The text of source line `line` (1-based), from the kernel's body, or
    /// else from the file if it can be read (helpers outside the body).
    pub fn line(&self, line: u32) -> Option<String> {
        if let Some(i) = line.checked_sub(self.first_line) {
            if let Some(l) = self.text.lines().nth(i as usize) {
                return Some(l.to_string());
            }
        }
        let text = std::fs::read_to_string(self.file).ok()?;
        text.lines().nth(line.checked_sub(1)? as usize).map(String::from)
    }
}

/// Where a target lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TargetPlace {
    /// A storage buffer, by parameter index.
    Param(usize),
    /// A workgroup array, by declaration index.
    Shared(usize),
}

impl KernelInfo {
    pub fn invocations_per_workgroup(&self) -> u32 {
        self.workgroup_size.iter().product()
    }

    /// The targets that are storage buffers, a bit each (the others are
    /// workgroup arrays).
    pub fn storage_targets(&self) -> u32 {
        self.targets.iter().enumerate().filter(|(_, t)| matches!(t, TargetPlace::Param(_))).fold(0, |m, (t, _)| m | 1 << t)
    }

    pub fn uniform_count(&self) -> usize {
        self.params.iter().filter(|p| matches!(p.kind, ParamKind::Uniform { .. })).count()
    }

    /// `name(a: &[f32], out: &mut [f32], n: u32)`, for error messages.
    pub fn signature(&self) -> String {
        let ps: Vec<String> = self.params.iter().map(|p| format!("{}: {}", p.name, p.kind)).collect();
        format!("{}({})", self.name, ps.join(", "))
    }
}

impl std::fmt::Debug for KernelInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.signature())
    }
}

pub struct ParamInfo {
    pub name: &'static str,
    pub kind: ParamKind,
    /// What check mode does with it (from the macro's target analysis).
    pub check: CheckClass,
}

/// How check mode treats a parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckClass {
    /// Never written (scalars, `&[T]`): cannot race.
    ReadOnly,
    /// Every access is atomic: never a data race (each runs once, live).
    Atomic,
    /// Written with plain stores: privatized.
    Target,
}

pub enum ParamKind {
    Storage { elem: ElemInfo, writable: bool },
    Atomic { elem: ElemInfo },
    Uniform { scalar: ScalarKind },
}

impl std::fmt::Display for ParamKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParamKind::Storage { elem, writable: true } => write!(f, "&mut [{}]", elem.name),
            ParamKind::Storage { elem, writable: false } => write!(f, "&[{}]", elem.name),
            ParamKind::Atomic { elem } => write!(f, "&[Atomic{}]", elem.name.to_uppercase()),
            ParamKind::Uniform { scalar } => write!(f, "{scalar}"),
        }
    }
}

/// A buffer element type: its name, size in 32-bit words, and Rust type.
pub struct ElemInfo {
    pub name: &'static str,
    pub words: u32,
    pub type_id: fn() -> TypeId,
    /// Names a word offset within one element.
    pub place: PlaceFn,
    /// `place` names a word of the whole buffer by its path from the
    /// variable (`.items[3].vel.y`) rather than within an element: a
    /// loaded shader's buffer read word by word, whose elements are its
    /// `u32` words.
    pub whole: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarKind {
    U32,
    I32,
    F32,
}

impl std::fmt::Display for ScalarKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ScalarKind::U32 => "u32",
            ScalarKind::I32 => "i32",
            ScalarKind::F32 => "f32",
        })
    }
}

pub struct BarrierInfo {
    /// The barrier index.
    pub id: u32,
    pub kind: crate::cpu::twin::BarrierKind,
    pub line: u32,
}

/// A place in the kernel's source the generated WGSL guards: an indexed
/// access (what it indexes) or a loop.
pub struct Site {
    pub what: SiteKind,
    /// The buffer's or shared array's name (empty for arrays inside locals
    /// or elements, and for loops), as the CPU executor names it.
    pub array: &'static str,
    /// The length the index is checked against: the array's; 0 for a
    /// buffer (its length at launch).
    pub len: u32,
    pub line: u32,
    pub column: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SiteKind {
    Buffer,
    Shared,
    /// A fixed-size array inside a local or an element.
    Array,
    Loop,
}

pub struct SharedInfo {
    pub name: &'static str,
    pub elem_words: u32,
    pub len: u32,
    /// Names a word offset within one element.
    pub place: PlaceFn,
    /// Privatized per warp by check mode (every non-atomic shared array).
    pub target: bool,
    /// `place` names a word of the whole variable: it holds one value,
    /// not an array (a loaded shader's `var<workgroup> total: Sums`).
    pub whole: bool,
}

impl SharedInfo {
    /// Its 32-bit words.
    pub fn words(&self) -> u64 {
        self.len as u64 * self.elem_words as u64
    }
}
