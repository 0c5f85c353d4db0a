//! A loaded entry point's [`KernelInfo`]: the description `#[ld::kernel]`
//! writes into its expansion at compile time, built here at run time from
//! the same compiler output (`ld_compiler::Compiled` and its `Facts`), so
//! every mode, check and report treats both kinds of kernel alike.

use crate::cpu::twin::BarrierKind as TwinBarrier;
use crate::kernel::*;
use ld_compiler::front::words::{place, Layout};
use ld_compiler::front::{line_column, wgsl_name, ParamSource, Shader};
use ld_compiler::ir::{self, MemRef, Scalar, Type};
use ld_compiler::{analysis::targets::Class, wgsl, Compiled};
use std::any::TypeId;

/// The element type of every buffer of a loaded kernel: the launch binds
/// any buffer whose size fits the shader's variable (`bind.rs` checks
/// it), so no Rust type stands for them.
pub(crate) struct ShaderElement;

/// A string that lives as long as the process: a loaded kernel's
/// description is kept in the loader's cache for the process's life, as
/// the macro's are in the binary.
fn leak(s: impl Into<String>) -> &'static str {
    Box::leak(s.into().into_boxed_str())
}

/// The description of `kernel` (entry point `entry` of `shader`), compiled
/// as `compiled`.
pub(super) fn describe(shader: &Shader, entry: &str, kernel: &ld_compiler::front::Kernel, compiled: Compiled) -> KernelInfo {
    let source = leak(shader.source.clone());
    let sites: Vec<(u32, u32)> = kernel.spans.iter().map(|s| line_column(source, *s).unwrap_or((0, 0))).collect();
    let at = |span: ld_compiler::Span| span.index().and_then(|i| sites.get(i).copied()).unwrap_or((0, 0));
    let m = &kernel.module;
    let facts = &compiled.facts;
    let params = m.kernel.params.iter().zip(&facts.classes).zip(&kernel.layouts).zip(&kernel.params);
    let params = params.map(|(((p, c), l), s)| param(m, p, *c, l.as_ref(), matches!(s, ParamSource::Buffer { one: true, .. }))).collect::<Vec<_>>();
    let shared = m.kernel.shared.iter().zip(&facts.shared_targets).zip(&kernel.shared_one).map(|((s, &target), &whole)| SharedInfo {
        name: leak(s.name.clone()),
        elem_words: s.elem.words(m),
        len: s.len,
        place: placer(m, &s.elem),
        target,
        whole,
    });
    let targets = facts.targets.iter().map(|t| match *t {
        MemRef::Param(i) => TargetPlace::Param(i),
        MemRef::Shared(a) => TargetPlace::Shared(a),
        MemRef::FnSlice(_) => unreachable!("targets are kernel memories"),
    });
    let barriers = facts.barriers.iter().enumerate().map(|(i, &(kind, span))| BarrierInfo { id: i as u32, kind: barrier_kind(kind), line: at(span).0 });
    let site_table = |v: &[wgsl::Site]| -> &'static [Site] {
        let v: Vec<Site> = v.iter().map(|s| site(s, at(s.span))).collect();
        Box::leak(v.into_boxed_slice())
    };
    let i = &facts.in_place;
    let sites_tables = [&compiled.native.1, &compiled.instrumented.1, &compiled.folded.1, &compiled.probe.1].map(|v| site_table(v));
    // Leaked as the description is: invocations then borrow it without
    // counting references (a shared count, bumped by every invocation of
    // every thread, would cost more than the invocation's work).
    let new_group = crate::cpu::loaded(compiled.settled, sites.clone());
    KernelInfo {
        name: leak(entry),
        workgroup_size: m.kernel.workgroup_size,
        params: Box::leak(params.into_boxed_slice()),
        shared: Box::leak(shared.collect::<Vec<_>>().into_boxed_slice()),
        targets: Box::leak(targets.collect::<Vec<_>>().into_boxed_slice()),
        lane_safe: facts.lane_safe,
        one_value: facts.one_value,
        in_place: InPlace { row: i.row, plane: i.plane, stride: i.stride },
        barriers: Box::leak(barriers.collect::<Vec<_>>().into_boxed_slice()),
        wgsl: leak(compiled.native.0),
        wgsl_plain: leak(compiled.plain),
        wgsl_instrumented: leak(compiled.instrumented.0),
        wgsl_folded: leak(compiled.folded.0),
        wgsl_probe: leak(compiled.probe.0),
        sites: sites_tables,
        new_group,
        source: Source { file: leak(shader.path.display().to_string()), first_line: 1, text: source },
        bounds: m.kernel.bounds,
    }
}

/// `one`: the variable is one value, its words named from the variable
/// (`args.y`, not `args[0].y`).
fn param(m: &ir::Module, p: &ir::Param, class: Class, layout: Option<&Layout>, one: bool) -> ParamInfo {
    let check = match class {
        Class::ReadOnly => CheckClass::ReadOnly,
        Class::Atomic => CheckClass::Atomic,
        Class::Target => CheckClass::Target,
    };
    let elem = |t: &Type| match layout {
        Some(l) => layout_info(m, t, l),
        None => ElemInfo { whole: one, ..elem_info(m, t) },
    };
    let kind = match &p.kind {
        ir::ParamKind::Storage { elem: t, access } => ParamKind::Storage { elem: elem(t), writable: *access == ir::Access::ReadWrite },
        ir::ParamKind::Atomic { elem: s } => ParamKind::Atomic { elem: elem(&Type::Atomic(*s)) },
        ir::ParamKind::Uniform { ty } => ParamKind::Uniform { scalar: scalar_kind(*ty) },
    };
    ParamInfo { name: leak(p.name.clone()), kind, check }
}

fn elem_info(m: &ir::Module, t: &Type) -> ElemInfo {
    ElemInfo { name: leak(wgsl_name(&m.structs, t)), words: t.words(m), type_id: TypeId::of::<ShaderElement>, place: placer(m, t), whole: false }
}

/// A buffer read word by word: its elements are words (`word`), named by
/// their path in its layout.
fn layout_info(m: &ir::Module, word: &Type, layout: &Layout) -> ElemInfo {
    let (structs, layout) = (m.structs.clone(), layout.clone());
    let place: PlaceFn = Box::leak(Box::new(move |w: u32, out: &mut String| layout.place(&structs, w, out)));
    ElemInfo { name: leak(wgsl_name(&m.structs, word)), words: 1, type_id: TypeId::of::<ShaderElement>, place, whole: true }
}

fn scalar_kind(s: Scalar) -> ScalarKind {
    match s {
        Scalar::U32 => ScalarKind::U32,
        Scalar::I32 => ScalarKind::I32,
        Scalar::F32 => ScalarKind::F32,
        // (naga refuses a `bool` in a uniform: not host-shareable.)
        Scalar::Bool => ScalarKind::U32,
    }
}

fn barrier_kind(k: ir::BarrierKind) -> TwinBarrier {
    match k {
        ir::BarrierKind::Workgroup => TwinBarrier::Workgroup,
        ir::BarrierKind::Storage => TwinBarrier::Storage,
    }
}

fn site(s: &wgsl::Site, (line, column): (u32, u32)) -> Site {
    let what = match s.what {
        wgsl::SiteWhat::Buffer => SiteKind::Buffer,
        wgsl::SiteWhat::Shared => SiteKind::Shared,
        wgsl::SiteWhat::Array => SiteKind::Array,
        wgsl::SiteWhat::Loop => SiteKind::Loop,
    };
    Site { what, array: leak(s.array.clone()), len: s.len.unwrap_or(0), line, column }
}

/// Names a word of a value of type `t` as WGSL spells the path to it
/// (`.vel.y`, `[3]`): what reports print after the variable and element.
fn placer(m: &ir::Module, t: &Type) -> PlaceFn {
    let (structs, t) = (m.structs.clone(), t.clone());
    Box::leak(Box::new(move |word: u32, out: &mut String| place(&structs, &t, word, out)))
}
