//! A resolved launch file run on a runtime: every buffer made from its
//! contents, then each dispatch's entry point loaded (once per override
//! values) and launched in the mode asked for, in order, on the same
//! buffers, as the program the file describes would run them.

use crate::file::LaunchFile;
use crate::shader::Resolved;
use crate::LaunchError;
use ld_runtime::{Bindings, Buffer, CheckOptions, Mode, Run, Runtime, ShaderKernel};
use std::collections::BTreeMap;

/// One dispatch's run.
#[derive(Debug)]
#[non_exhaustive]
pub struct DispatchRun {
    /// Its index in the launch file.
    pub index: usize,
    /// The shader's path and the entry point: `shader.wgsl:main`.
    pub kernel: String,
    /// What the runtime reports of it (in check and exact modes, the report).
    pub run: Run,
}

/// What a launch file's run left.
#[derive(Debug)]
#[non_exhaustive]
pub struct Outcome {
    /// Each dispatch's run, in order.
    pub dispatches: Vec<DispatchRun>,
    /// Every buffer's bytes after the last dispatch, by name.
    pub buffers: BTreeMap<String, Vec<u8>>,
}

impl Outcome {
    /// Whether any dispatch's report holds a race.
    pub fn racy(&self) -> bool {
        self.dispatches.iter().any(|d| d.run.report.as_ref().is_some_and(|r| !r.races.is_empty()))
    }
}

impl Resolved {
    /// Runs every dispatch of `file` on `rt` in `mode` (`options` for check
    /// and deterministic modes), from the buffers' initial contents.
    pub fn run(&self, file: &LaunchFile, rt: &Runtime, mode: Mode, options: &CheckOptions) -> Result<Outcome, LaunchError> {
        let initial = self.buffer_bytes(file)?;
        let mut buffers = self.storage_buffers(rt, &initial)?;
        let mut dispatches = Vec::new();
        for (index, d) in self.dispatches.iter().enumerate() {
            let shader = &self.shaders[d.shader];
            let entry = &shader.module.entry_points[d.entry].name;
            let kernel_name = format!("{}:{entry}", shader.path.display());
            let failed = |source: ld_runtime::Error| LaunchError::Run { dispatch: index, kernel: kernel_name.clone(), source: Box::new(source) };
            let overrides: Vec<(&str, f64)> = d.overrides.iter().map(|(k, v)| (k.as_str(), *v)).collect();
            let kernel = ShaderKernel::new(shader, entry, &overrides).map_err(failed)?;
            let uniforms = self.uniform_bytes(d, &initial, &buffers).map_err(failed)?;
            let mut free: BTreeMap<&str, &mut Buffer<u32>> = buffers.iter_mut().map(|(k, v)| (k.as_str(), v)).collect();
            let mut bindings = Bindings::new();
            for b in &d.bindings {
                bindings = match (b.uniform, free.remove(b.buffer.as_str())) {
                    (true, _) => bindings.uniform(b.group, b.binding, &uniforms[&b.buffer]),
                    (false, Some(buf)) if b.writable => bindings.buffer(b.group, b.binding, buf),
                    (false, Some(buf)) => bindings.buffer(b.group, b.binding, &*buf),
                    (false, None) => {
                        return Err(file.field_error(
                            format!("dispatch[{index}].bindings"),
                            format!("buffer `{}` is bound twice: WGSL forbids aliasing a writable binding", b.buffer),
                        ))
                    }
                };
            }
            let launch = kernel.launch(rt, d.grid, bindings).map_err(failed)?;
            let run = match mode {
                Mode::Native | Mode::Exact => launch.mode(mode).run(),
                _ => launch.check_options(*options).mode(mode).run(),
            }
            .map_err(failed)?;
            dispatches.push(DispatchRun { index, kernel: kernel_name, run });
        }
        let mut out = initial;
        for (name, buf) in &buffers {
            let words = buf.words().map_err(|source| LaunchError::Run {
                dispatch: self.dispatches.len(),
                kernel: "reading the buffers back".into(),
                source: Box::new(source),
            })?;
            let bytes = out.get_mut(name).expect("every buffer has bytes");
            let n = bytes.len();
            bytes.copy_from_slice(&bytemuck::cast_slice::<u32, u8>(&words)[..n]);
        }
        Ok(Outcome { dispatches, buffers: out })
    }

    /// A runtime buffer of words for every buffer some dispatch binds as
    /// storage (its bytes padded with zeros to a whole word).
    fn storage_buffers(&self, rt: &Runtime, initial: &BTreeMap<String, Vec<u8>>) -> Result<BTreeMap<String, Buffer<u32>>, LaunchError> {
        let mut out = BTreeMap::new();
        // (Each named for the first dispatch that binds it.)
        let bound = self.dispatches.iter().enumerate().flat_map(|(i, d)| d.bindings.iter().map(move |b| (i, b)));
        for (dispatch, b) in bound.filter(|(_, b)| !b.uniform) {
            if out.contains_key(&b.buffer) {
                continue;
            }
            let bytes = &initial[&b.buffer];
            let mut words = vec![0u32; bytes.len().div_ceil(4)];
            bytemuck::cast_slice_mut::<u32, u8>(&mut words)[..bytes.len()].copy_from_slice(bytes);
            let buf = rt.upload(&words).map_err(|source| LaunchError::Run {
                dispatch,
                kernel: format!("creating buffer `{}`", b.buffer),
                source: Box::new(source),
            })?;
            out.insert(b.buffer.clone(), buf);
        }
        Ok(out)
    }

    /// The bytes of each uniform `d` binds: as they are now, where an
    /// earlier dispatch may have written them as storage.
    fn uniform_bytes(
        &self,
        d: &crate::ResolvedDispatch,
        initial: &BTreeMap<String, Vec<u8>>,
        storage: &BTreeMap<String, Buffer<u32>>,
    ) -> ld_runtime::Result<BTreeMap<String, Vec<u8>>> {
        let mut out = BTreeMap::new();
        for b in d.bindings.iter().filter(|b| b.uniform) {
            let bytes = match storage.get(&b.buffer) {
                Some(buf) => bytemuck::cast_slice::<u32, u8>(&buf.words()?).to_vec(),
                None => initial[&b.buffer].clone(),
            };
            out.insert(b.buffer.clone(), bytes);
        }
        Ok(out)
    }
}
