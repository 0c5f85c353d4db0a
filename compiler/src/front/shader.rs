//! A shader file as naga reads it: WGSL, or a GLSL compute shader through
//! naga's GLSL front-end, validated once; its entry points become kernels
//! with [`Shader::kernel`].

use naga::valid::{Capabilities, ModuleInfo, ValidationFlags, Validator};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Why a shader cannot be read or checked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ShaderError {
    /// The file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// naga rejects the shader (or its override values).
    #[error("{message}")]
    Invalid {
        /// naga's message, rendered with the shader's path and line.
        message: String,
    },
    /// The shader uses a construct ld cannot check: each at its line and
    /// column, with the source line and a caret.
    #[error("{message}")]
    Unsupported {
        /// The errors, rendered as rustc renders its own.
        message: String,
    },
}

/// A shader module, read and validated by naga.
#[derive(Debug)]
#[non_exhaustive]
pub struct Shader {
    /// The file it was read from (or the name it was given).
    pub path: PathBuf,
    /// Its text.
    pub source: String,
    /// naga's module.
    pub module: naga::Module,
    /// naga's analysis of it (which globals each entry point uses).
    pub info: ModuleInfo,
    /// The sizes and alignments of its types (WGSL's host-shareable layout).
    pub layouter: naga::proc::Layouter,
}

impl Shader {
    /// Reads a shader file (WGSL, or GLSL: see [`Shader::parse`]) and
    /// validates it; naga's errors come back rendered with the file's
    /// path, line and column.
    pub fn load(path: &Path) -> Result<Shader, ShaderError> {
        let source = std::fs::read_to_string(path).map_err(|e| ShaderError::Read { path: path.to_owned(), source: e })?;
        Self::parse(source, path)
    }

    /// [`Shader::load`] of a shader already read: GLSL for a `.comp` or
    /// `.glsl` path (a compute shader, through naga's GLSL front-end),
    /// WGSL otherwise. `path` names the shader in errors and reports.
    pub fn parse(source: String, path: &Path) -> Result<Shader, ShaderError> {
        let shown = path.display().to_string();
        let invalid = |message: String| ShaderError::Invalid { message };
        let glsl = path.extension().is_some_and(|e| e == "comp" || e == "glsl");
        let module = if glsl {
            let options = naga::front::glsl::Options::from(naga::ShaderStage::Compute);
            naga::front::glsl::Frontend::default().parse(&options, &source).map_err(|e| invalid(e.emit_to_string_with_path(&source, &shown)))?
        } else {
            naga::front::wgsl::parse_str(&source).map_err(|e| invalid(e.emit_to_string_with_path(&source, &shown)))?
        };
        let info =
            Validator::new(ValidationFlags::all(), Capabilities::all()).validate(&module).map_err(|e| invalid(e.emit_to_string_with_path(&source, &shown)))?;
        let mut layouter = naga::proc::Layouter::default();
        layouter.update(module.to_ctx()).map_err(|e| invalid(format!("{shown}: {e}")))?;
        Ok(Shader { path: path.to_owned(), source, module, info, layouter })
    }

    /// The resource variables (storage and uniform) by (group, binding).
    pub fn bindings(&self) -> BTreeMap<(u32, u32), naga::Handle<naga::GlobalVariable>> {
        self.module.global_variables.iter().filter_map(|(h, g)| g.binding.as_ref().map(|b| ((b.group, b.binding), h))).collect()
    }

    /// The names of its compute entry points.
    pub fn entry_points(&self) -> Vec<&str> {
        self.module.entry_points.iter().filter(|e| e.stage == naga::ShaderStage::Compute).map(|e| e.name.as_str()).collect()
    }

    /// The names of its override constants.
    pub fn overrides(&self) -> Vec<&str> {
        self.module.overrides.iter().filter_map(|(_, o)| o.name.as_deref()).collect()
    }

    /// Entry point `entry` as a kernel for ld's compiler, with the
    /// override constants `overrides` applied (naga's pipeline-constant
    /// processing, as wgpu applies them when it creates the pipeline).
    /// A construct ld cannot check is an error at its line and column.
    pub fn kernel(&self, entry: &str, overrides: &BTreeMap<String, f64>) -> Result<super::Kernel, ShaderError> {
        let shown = self.path.display().to_string();
        if !self.entry_points().contains(&entry) {
            let message = format!("{shown} has no compute entry point `{entry}` (it has: {})", self.entry_points().join(", "));
            return Err(ShaderError::Invalid { message });
        }
        if let Some(name) = overrides.keys().find(|k| !self.overrides().contains(&k.as_str())) {
            let known = self.overrides();
            let message = format!("{shown} has no override `{name}` (it has: {})", if known.is_empty() { "none".into() } else { known.join(", ") });
            return Err(ShaderError::Invalid { message });
        }
        let constants: naga::back::PipelineConstants = overrides.iter().map(|(k, v)| (k.clone(), *v)).collect();
        let stage = Some((naga::ShaderStage::Compute, entry));
        let (module, info) = naga::back::pipeline_constants::process_overrides(&self.module, &self.info, stage, &constants)
            .map_err(|e| ShaderError::Invalid { message: format!("{shown}: entry point `{entry}`'s override constants: {e}") })?;
        super::translate(&module, &info, entry).map_err(|r| ShaderError::Unsupported { message: r.render(&shown, &self.source) })
    }

    /// Whether the module declares a global variable (a storage, uniform or
    /// workgroup one) of this name.
    pub fn declares(&self, name: &str) -> bool {
        self.module.global_variables.iter().any(|(_, g)| g.name.as_deref() == Some(name))
    }
}
