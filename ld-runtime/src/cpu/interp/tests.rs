//! The interpreter on small WGSL compute shaders, loaded as run-time
//! loading loads them (naga → `front::translate` → `compile`), run by a
//! driver that steps each workgroup region by region as the executor
//! does; every result is computed independently here. Every dispatch
//! also runs the same IR compiled to native code (`cpu::jit`), which
//! must leave the same words, note the same indices and stop at the
//! same fault. `tests/built.rs`
//! runs IR built by hand: what no WGSL shader reaches (helpers, slices,
//! short circuits), and the exact calls into `Cx`.

mod built;
mod shaders;

use super::Program;
use crate::cpu::executor::unlinear;
use crate::cpu::jit::Jitted;
use crate::cpu::twin::{Cx, Fault, Ids, Invocation, Region, SharedMem, StorageView, UVec3, Yield};
use ld_compiler::ir::{Bounds, Module, ParamKind};
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// A kernel ready to run, with its IR for the driver's bindings.
struct Kernel {
    program: &'static Program,
    native: &'static Jitted,
    module: Module,
}

impl Kernel {
    /// The program leaks, as a loaded shader's does (it lives as long as
    /// the process).
    fn new(module: Module, sites: Vec<(u32, u32)>) -> Kernel {
        let native = Jitted::new(&module, &sites).unwrap_or_else(|u| panic!("not compiled to native code: {}", u.0));
        Kernel { program: Box::leak(Box::new(Program::new(module.clone(), sites))), native: Box::leak(Box::new(native)), module }
    }
}

/// A shader's entry point `main`, translated and compiled; its sites are
/// naga's (line, column) of each span.
#[track_caller]
fn shader(src: &str) -> Kernel {
    shader_under(src, Bounds::Clamp)
}

/// [`shader`], with indices out of bounds under `bounds` (a shader's own
/// rule is WGSL's, `Clamp`; `Fault` is a Rust kernel's).
#[track_caller]
fn shader_under(src: &str, bounds: Bounds) -> Kernel {
    let module = naga::front::wgsl::parse_str(src).unwrap_or_else(|e| panic!("{}", e.emit_to_string(src)));
    let mut v = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all());
    let info = v.validate(&module).unwrap_or_else(|e| panic!("{}", e.emit_to_string(src)));
    let mut kernel = ld_compiler::front::translate(&module, &info, "main").unwrap_or_else(|r| panic!("{}", r.render("t.wgsl", src)));
    kernel.module.kernel.bounds = bounds;
    let compiled = ld_compiler::compile(&kernel.module).unwrap_or_else(|d| panic!("does not compile: {d:?}"));
    let sites = kernel.spans.iter().map(|s| s.location(src)).map(|l| (l.line_number, l.line_position)).collect();
    Kernel::new(compiled.settled, sites)
}

/// The (line, column) where `needle` first stands in `src`.
#[track_caller]
fn at(src: &str, needle: &str) -> (u32, u32) {
    let start = src.find(needle).unwrap_or_else(|| panic!("`{needle}` is not in the source"));
    let before = &src[..start];
    let line = before.matches('\n').count() as u32 + 1;
    let column = (start - before.rfind('\n').map_or(0, |i| i + 1)) as u32 + 1;
    (line, column)
}

/// A fault, and the invocation it stopped: (workgroup, local index).
type Stopped = (UVec3, u32, Fault);

/// Each invocation's first index out of bounds under WGSL's rule, and the
/// invocation: (workgroup, local index), in the order they ran.
type Noted = Vec<(UVec3, u32, Fault)>;

/// A dispatch of `grid` workgroups over named storage buffers (the
/// kernel's parameters, by name; written back afterwards) and the uniform
/// block's words.
struct Dispatch<'a> {
    grid: [u32; 3],
    buffers: &'a mut [(&'static str, Vec<u32>)],
    uniforms: &'a [u32],
    fuel: u64,
}

impl Kernel {
    /// Runs every workgroup in linear order; the first fault stops it.
    /// The interpreter's run is the result; native code's must match it.
    fn run(&self, d: Dispatch) -> Result<Noted, Stopped> {
        let mut copy = d.buffers.to_vec();
        let native = self.run_with(Dispatch { buffers: &mut copy, ..d }, &|| self.native.invocation());
        let Dispatch { grid, buffers, uniforms, fuel } = d;
        let interpreted = self.run_with(Dispatch { grid, buffers: &mut *buffers, uniforms, fuel }, &|| self.program.invocation());
        assert_eq!(native, interpreted, "native code and the interpreter disagree");
        assert_eq!(copy, *buffers, "native code and the interpreter leave different words");
        interpreted
    }

    fn run_with(&self, d: Dispatch, new: &dyn Fn() -> Box<dyn Invocation>) -> Result<Noted, Stopped> {
        let words = self.bind(d.buffers);
        let views = self.views(&words);
        let count = d.grid.iter().product::<u32>() as u64;
        let mut noted = Vec::new();
        let mut result = Ok(());
        for wg in 0..count {
            let wid = unlinear(wg, d.grid);
            result = self.workgroup(&d, wid, &views, &mut noted, new);
            if result.is_err() {
                break;
            }
        }
        for (p, w) in self.module.kernel.params.iter().zip(&words) {
            if let (Some(w), Some((_, buf))) = (w, d.buffers.iter_mut().find(|(n, _)| *n == p.name)) {
                *buf = w.iter().map(|x| x.load(Relaxed)).collect();
            }
        }
        result.map(|()| noted)
    }

    /// Each parameter's words (`None` for a uniform), in parameter order.
    fn bind(&self, buffers: &[(&str, Vec<u32>)]) -> Vec<Option<Vec<AtomicU32>>> {
        let named = |name: &str| buffers.iter().find(|(n, _)| *n == name).unwrap_or_else(|| panic!("no buffer `{name}`"));
        let params = &self.module.kernel.params;
        params
            .iter()
            .map(|p| match p.kind {
                ParamKind::Uniform { .. } => None,
                _ => Some(named(&p.name).1.iter().map(|&w| AtomicU32::new(w)).collect()),
            })
            .collect()
    }

    fn views<'w>(&self, words: &'w [Option<Vec<AtomicU32>>]) -> Vec<Option<StorageView<'w>>> {
        let m = &self.module;
        let elem_words = |k: &ParamKind| match k {
            ParamKind::Storage { elem, .. } => elem.words(m),
            _ => 1,
        };
        let views = m.kernel.params.iter().zip(words).map(|(p, w)| {
            let ew = elem_words(&p.kind);
            w.as_ref().map(|w| StorageView { words: w, elem_words: ew, len: w.len() as u32 / ew })
        });
        views.collect()
    }

    /// One workgroup, region by region, each invocation to its next
    /// barrier in local-index order; all must wait at the same one.
    fn workgroup(
        &self,
        d: &Dispatch,
        wid: UVec3,
        views: &[Option<StorageView>],
        noted: &mut Noted,
        new: &dyn Fn() -> Box<dyn Invocation>,
    ) -> Result<(), Stopped> {
        let k = &self.module.kernel;
        let n = k.workgroup_size.iter().product::<u32>();
        let mut shared: Vec<SharedMem> = k
            .shared
            .iter()
            .map(|s| SharedMem { words: vec![0; (s.elem.words(&self.module) * s.len) as usize], elem_words: s.elem.words(&self.module), len: s.len })
            .collect();
        let mut invocations: Vec<Box<dyn Invocation>> = (0..n).map(|_| new()).collect();
        let mut fuel = vec![d.fuel; n as usize];
        let mut done = vec![false; n as usize];
        let mut quiet = vec![false; n as usize];
        let clamp = k.bounds == Bounds::Clamp;
        while !done.iter().all(|&x| x) {
            let mut waits = Vec::new();
            for li in 0..n {
                let i = li as usize;
                if done[i] {
                    continue;
                }
                let ids = ids(k.workgroup_size, d.grid, wid, li);
                let region = Region::new(None, None, views, &mut shared);
                let mut cx = Cx::new(ids, views, &mut shared, d.uniforms, fuel[i], None, None, &region).bounds(clamp, quiet[i]);
                let r = invocations[i].step(&mut cx);
                fuel[i] = cx.fuel_left();
                if let Some(f) = cx.noted.take() {
                    quiet[i] = true;
                    noted.push((wid, li, f));
                }
                match r.map_err(|f| (wid, li, f))? {
                    Yield::Done => done[i] = true,
                    Yield::Barrier { kind, id } => waits.push((kind, id)),
                }
            }
            assert!(waits.windows(2).all(|w| w[0] == w[1]), "barrier divergence: {waits:?}");
            assert!(waits.is_empty() || done.iter().all(|&x| !x), "some finished while others wait at {:?}", waits[0]);
        }
        Ok(())
    }
}

fn ids(wg: [u32; 3], grid: [u32; 3], wid: UVec3, li: u32) -> Ids {
    let lid = unlinear(li as u64, wg);
    Ids {
        global_id: UVec3::new(wid.x * wg[0] + lid.x, wid.y * wg[1] + lid.y, wid.z * wg[2] + lid.z),
        local_id: lid,
        workgroup_id: wid,
        num_workgroups: UVec3::new(grid[0], grid[1], grid[2]),
        local_index: li,
        workgroup_size: UVec3::new(wg[0], wg[1], wg[2]),
    }
}

/// Plenty of fuel for the kernels that end.
const FUEL: u64 = 1 << 20;
