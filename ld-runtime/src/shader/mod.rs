//! Kernels that exist only at run time: a WGSL or GLSL compute shader's
//! entry point, translated by `ld_compiler::front`, compiled as
//! `#[ld::kernel]` compiles at build time, described as the macro
//! describes its kernels (`describe.rs`), and bound by (group, binding)
//! (`bind.rs`). The CPU reference interprets the kernel's IR
//! (`cpu::interp`).

mod bind;
mod describe;
#[cfg(test)]
mod tests;

pub use bind::Bindings;

use crate::error::{Error, Result};
use crate::kernel::{Bounds, Kernel, KernelInfo};
use crate::launch::{Grid, Launch};
use crate::runtime::Runtime;
use ld_compiler::front::{ParamSource, Shader, ShaderError};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, OnceLock};

/// An entry point of a shader, compiled for every mode: launch it with
/// [`ShaderKernel::launch`], its buffers bound by (group, binding).
///
/// ```no_run
/// # fn main() -> ld_runtime::Result<()> {
/// let shader = ld_runtime::Shader::load("shaders/blur.wgsl".as_ref())?;
/// let blur = ld_runtime::ShaderKernel::new(&shader, "main", &[("TILE", 64.0)])?;
/// let rt = ld_runtime::Runtime::new()?;
/// let input = rt.upload(&vec![1.0f32; 4096])?;
/// let mut output = rt.zeros::<f32>(4096)?;
/// let params = 4096u32.to_le_bytes();
/// let bindings = ld_runtime::Bindings::new().uniform(0, 0, &params).buffer(0, 1, &input).buffer(0, 2, &mut output);
/// let report = blur.launch(&rt, [64, 1, 1], bindings)?.check()?;
/// println!("{report}");
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Copy)]
pub struct ShaderKernel {
    loaded: &'static Loaded,
}

/// What loading an entry point keeps: the kernel's description and where
/// each of its parameters comes from in the shader's bindings.
struct Loaded {
    info: KernelInfo,
    sources: Vec<ParamSource>,
    /// Every resource the shader declares, by (group, binding): its name.
    declared: BTreeMap<(u32, u32), String>,
    /// The error a launch of more than one invocation gets: the kernel
    /// stores plain values into a storage buffer of atomic words, which
    /// no check watches (`ld_compiler::front::words`).
    unchecked_stores: Option<String>,
}

/// What identifies a compiled entry point: the shader (its name and
/// text), the entry point, the override values and whether indices out
/// of bounds fault.
type Key = (String, String, String, Vec<(String, u64)>, bool);

/// Each entry point is compiled once per process for its override values;
/// its description lives as long as the process, as a macro's does.
fn cache() -> &'static Mutex<HashMap<Key, &'static Loaded>> {
    static CACHE: OnceLock<Mutex<HashMap<Key, &'static Loaded>>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

impl ShaderKernel {
    /// Entry point `entry` of `shader`, with its override constants set to
    /// `overrides` (name, value; those not named keep their defaults).
    /// Errors: an entry point or override the shader lacks, an override
    /// without a default left unset, or a construct ld cannot check, each
    /// shown at its line.
    pub fn new(shader: &Shader, entry: &str, overrides: &[(&str, f64)]) -> Result<ShaderKernel> {
        Self::with(shader, entry, overrides, Bounds::Clamp)
    }

    /// Entry point `entry` of `shader` with indices out of bounds under
    /// `bounds` (the round trip reads a Rust kernel back under Rust's).
    pub(crate) fn under(shader: &Shader, entry: &str, bounds: Bounds) -> Result<ShaderKernel> {
        Self::with(shader, entry, &[], bounds)
    }

    fn with(shader: &Shader, entry: &str, overrides: &[(&str, f64)], bounds: Bounds) -> Result<ShaderKernel> {
        let overrides: BTreeMap<String, f64> = overrides.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        let key: Key = (
            shader.path.display().to_string(),
            shader.source.clone(),
            entry.to_string(),
            overrides.iter().map(|(k, v)| (k.clone(), v.to_bits())).collect(),
            bounds == Bounds::Fault,
        );
        if let Some(loaded) = cache().lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return Ok(ShaderKernel { loaded });
        }
        let loaded: &'static Loaded = Box::leak(Box::new(load(shader, entry, &overrides, bounds)?));
        cache().lock().unwrap_or_else(|e| e.into_inner()).insert(key, loaded);
        Ok(ShaderKernel { loaded })
    }

    /// The entry point's name.
    pub fn name(&self) -> &'static str {
        self.loaded.info.name
    }

    /// `@workgroup_size`, with overrides applied.
    pub fn workgroup_size(&self) -> [u32; 3] {
        self.loaded.info.workgroup_size
    }

    /// A launch of the kernel on `rt` over `grid`, its buffers and uniforms
    /// taken from `bindings`. Errors when a binding the entry point uses is
    /// missing, is not what the shader declares there (a uniform's bytes
    /// for a uniform, a buffer for a storage variable, `&mut` for a
    /// writable one), or has a size that is not a whole number of the
    /// shader's elements (less than the variable, for one value); or when
    /// `bindings` names a binding the shader does not declare.
    pub fn launch<'a>(&self, rt: &'a Runtime, grid: impl Into<Grid>, bindings: Bindings<'a>) -> Result<Launch<'a>> {
        let grid = grid.into();
        let [x, y, z] = self.loaded.info.workgroup_size;
        if let Some(message) = &self.loaded.unchecked_stores {
            if grid.workgroups() * (x * y * z) as u64 > 1 {
                return Err(Error::Shader(ShaderError::Unsupported { message: message.clone() }));
            }
        }
        let args = bind::args(self.loaded, bindings)?;
        Ok(rt.launch(*self, grid, args))
    }
}

impl Kernel for ShaderKernel {
    fn info(&self) -> &'static KernelInfo {
        &self.loaded.info
    }
}

impl std::fmt::Debug for ShaderKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ShaderKernel({} of {})", self.loaded.info.name, self.loaded.info.source.file)
    }
}

fn load(shader: &Shader, entry: &str, overrides: &BTreeMap<String, f64>, bounds: Bounds) -> Result<Loaded> {
    let shown = shader.path.display().to_string();
    let mut kernel = shader.kernel(entry, overrides)?;
    kernel.module.kernel.bounds = bounds;
    let compiled = ld_compiler::compile(&kernel.module).map_err(|ds| {
        let text: Vec<String> = ds.iter().map(|d| ld_compiler::front::render(&shown, &shader.source, span_of(&kernel, d.span), &d.message)).collect();
        Error::Shader(ShaderError::Unsupported { message: text.concat() })
    })?;
    // Workgroup memory: only the workgroup's invocations reach it, and
    // its size is known now (before the description, which lives as long
    // as the process).
    let [x, y, z] = kernel.module.kernel.workgroup_size;
    if let Some(s) = kernel.atomic_memory_stores.iter().find(|s| s.workgroup && x * y * z > 1) {
        let message = "a plain store into workgroup memory that holds atomics, in a workgroup of more than one invocation: ld checks no word of such memory for races, so it checks this kernel only with one invocation per workgroup. Move the plain members to a variable of their own";
        return Err(Error::Shader(ShaderError::Unsupported { message: ld_compiler::front::render(&shown, &shader.source, s.at, message) }));
    }
    let declared = shader.bindings().into_iter().map(|(gb, h)| (gb, shader.module.global_variables[h].name.clone().unwrap_or_default())).collect();
    let info = describe::describe(shader, entry, &kernel, compiled);
    let unchecked_stores = kernel.atomic_memory_stores.iter().find(|s| !s.workgroup).map(|s| {
        let message = "a plain store into a struct that holds atomics, in a dispatch of more than one invocation: ld checks no word of such memory for races, so it checks this kernel only when one invocation runs it. Move the plain members to a buffer of their own, or dispatch one invocation";
        ld_compiler::front::render(&shown, &shader.source, s.at, message)
    });
    Ok(Loaded { info, sources: kernel.params, declared, unchecked_stores })
}

/// The shader span behind an IR span.
fn span_of(kernel: &ld_compiler::front::Kernel, span: ld_compiler::Span) -> naga::Span {
    span.index().and_then(|i| kernel.spans.get(i).copied()).unwrap_or_default()
}
