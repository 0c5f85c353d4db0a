//! The launch file as written: buffers, dispatches and an optional case.
//! Unknown fields are errors (a misspelt field would otherwise be ignored
//! and the launch run without it).

use crate::LaunchError;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A launch file: named buffers, then the dispatches that bind them.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct LaunchFile {
    /// What a test expects of this launch, and what it is modelled on.
    #[serde(default)]
    pub case: Option<Case>,
    /// The buffers, by name, and what each holds before the first dispatch.
    #[serde(default)]
    pub buffers: BTreeMap<String, BufferSpec>,
    /// The dispatches, run in order.
    #[serde(default, rename = "dispatch")]
    pub dispatches: Vec<Dispatch>,
    /// The file's own path: shaders are found beside it.
    #[serde(skip)]
    pub path: PathBuf,
}

/// A test's expectations of a launch, and the real shader it follows.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Case {
    /// The public shader it is modelled on: `owner/repository path`.
    pub follows: String,
    /// What of that shader it keeps (types, layout, barriers, passes).
    #[serde(default)]
    pub kept: Option<String>,
    /// The verdict under WGSL's memory model.
    pub verdict: Verdict,
    /// Why: which invocations touch which words, and what orders them.
    pub reason: String,
    /// The races the launch holds for certain (a racy case names at least
    /// one): exact mode sees each; check mode, comparing values, may miss a
    /// write of the value a word already holds.
    #[serde(default, rename = "race")]
    pub races: Vec<ExpectedRace>,
    /// For a mutant: the case it was made from.
    #[serde(default)]
    pub mutant_of: Option<String>,
    /// For a mutant: the one bug planted.
    #[serde(default)]
    pub bug: Option<String>,
}

/// Whether a launch races.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// No two invocations race.
    RaceFree,
    /// At least one race.
    Racy,
}

/// A race the launch holds.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ExpectedRace {
    /// The WGSL variable (a storage or workgroup global).
    pub variable: String,
    /// Read-write or write-write.
    pub kind: RaceKind,
    /// Within a workgroup or between workgroups.
    pub scope: Scope,
}

/// The accesses of a race.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RaceKind {
    /// One invocation reads a word another writes.
    ReadWrite,
    /// Two invocations write a word.
    WriteWrite,
}

/// Where the racing invocations are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    /// In one workgroup.
    Workgroup,
    /// In different workgroups of one dispatch.
    Global,
}

/// A 32-bit scalar type of buffer contents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScalarType {
    /// `u32`.
    U32,
    /// `i32`.
    I32,
    /// `f32`.
    F32,
}

/// A buffer as written: exactly one of its fields says what it holds
/// ([`BufferSpec::contents`]).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct BufferSpec {
    /// Zero bytes.
    pub zeros: Option<u64>,
    /// `count` words of one value.
    pub fill: Option<Fill>,
    /// `count` words `start`, `start + 1`, ...
    pub iota: Option<Iota>,
    /// `count` words drawn by a generator seeded `seed`: floats in
    /// `[min, max)`, integers in `min..=max`.
    pub random: Option<Random>,
    /// The words given.
    pub values: Option<Values>,
    /// A uniform struct's fields, by name: a vector or array as a TOML
    /// array, a nested struct as a table.
    pub uniform: Option<toml::Table>,
    /// A file's bytes (relative to the launch file): an `.npy` file's
    /// data, any other file as it is.
    pub file: Option<PathBuf>,
}

/// `fill = { type, count, value }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fill {
    /// The words' type.
    #[serde(rename = "type")]
    pub ty: ScalarType,
    /// How many words.
    pub count: u64,
    /// The value of each.
    pub value: f64,
}

/// `iota = { type, count, start }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Iota {
    /// The words' type.
    #[serde(rename = "type")]
    pub ty: ScalarType,
    /// How many words.
    pub count: u64,
    /// The first word's value (0 unless given).
    #[serde(default)]
    pub start: f64,
}

/// `random = { type, count, min, max, seed }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Random {
    /// The words' type.
    #[serde(rename = "type")]
    pub ty: ScalarType,
    /// How many words.
    pub count: u64,
    /// The least value.
    pub min: f64,
    /// The bound: excluded for floats, included for integers.
    pub max: f64,
    /// The generator's seed.
    pub seed: u64,
}

/// `values = { type, data }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Values {
    /// The words' type.
    #[serde(rename = "type")]
    pub ty: ScalarType,
    /// The words, in order.
    pub data: Vec<f64>,
}

/// What a buffer holds, once its one field is known.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Contents<'a> {
    /// Zero bytes.
    Zeros(u64),
    /// One value.
    Fill(&'a Fill),
    /// A sequence.
    Iota(&'a Iota),
    /// Seeded random words.
    Random(&'a Random),
    /// The words given.
    Values(&'a Values),
    /// A uniform struct's fields.
    Uniform(&'a toml::Table),
    /// A file's bytes.
    File(&'a Path),
}

impl BufferSpec {
    /// The buffer's one kind of contents; `None` where it names none or
    /// several.
    pub fn contents(&self) -> Option<Contents<'_>> {
        let all = [
            self.zeros.map(Contents::Zeros),
            self.fill.as_ref().map(Contents::Fill),
            self.iota.as_ref().map(Contents::Iota),
            self.random.as_ref().map(Contents::Random),
            self.values.as_ref().map(Contents::Values),
            self.uniform.as_ref().map(Contents::Uniform),
            self.file.as_deref().map(Contents::File),
        ];
        let mut given = all.into_iter().flatten();
        let first = given.next()?;
        given.next().is_none().then_some(first)
    }

    /// Its size in bytes, where the contents say (a uniform's is the
    /// struct's, known from the shader; a file's, once it is read).
    pub fn bytes(&self) -> Option<u64> {
        match self.contents()? {
            Contents::Zeros(n) => Some(n),
            Contents::Fill(f) => Some(f.count * 4),
            Contents::Iota(i) => Some(i.count * 4),
            Contents::Random(r) => Some(r.count * 4),
            Contents::Values(v) => Some(v.data.len() as u64 * 4),
            Contents::Uniform(_) | Contents::File(_) => None,
        }
    }
}

/// One dispatch: a shader's entry point over a grid of workgroups.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Dispatch {
    /// The shader file, relative to the launch file.
    pub shader: PathBuf,
    /// The entry point.
    pub entry: String,
    /// Workgroups along x, y and z (one to three numbers).
    pub workgroups: Vec<u32>,
    /// Pipeline-overridable constants, by name.
    #[serde(default)]
    pub overrides: BTreeMap<String, f64>,
    /// `"group:binding" = buffer name`.
    #[serde(default)]
    pub bindings: BTreeMap<String, String>,
}

impl LaunchFile {
    /// Reads and parses a launch file, and checks what it says of itself
    /// (each buffer names one kind of contents, each dispatch a grid, each
    /// binding a declared buffer); [`LaunchFile::resolve`] checks it
    /// against its shaders.
    pub fn load(path: &Path) -> Result<LaunchFile, LaunchError> {
        let text = std::fs::read_to_string(path).map_err(|source| LaunchError::Read { path: path.to_owned(), source })?;
        Self::parse(&text, path)
    }

    /// [`LaunchFile::load`] of text already read from `path`.
    pub fn parse(text: &str, path: &Path) -> Result<LaunchFile, LaunchError> {
        let mut file: LaunchFile = toml::from_str(text).map_err(|e| LaunchError::Toml { path: path.to_owned(), message: e.to_string() })?;
        file.path = path.to_owned();
        file.check_self()?;
        Ok(file)
    }

    pub(crate) fn field_error(&self, field: impl Into<String>, message: impl Into<String>) -> LaunchError {
        let (field, message) = (field.into(), message.into());
        match self.path == Path::new(COMMAND_LINE) {
            true => LaunchError::Flag { flag: flag_of(&field), message },
            false => LaunchError::Field { path: self.path.clone(), field, message },
        }
    }

    fn check_self(&self) -> Result<(), LaunchError> {
        for (name, spec) in &self.buffers {
            if spec.contents().is_none() {
                return Err(self.field_error(format!("buffers.{name}"), "give exactly one of `zeros`, `fill`, `iota`, `random`, `values`, `uniform` or `file`"));
            }
        }
        if self.dispatches.is_empty() {
            return Err(self.field_error("dispatch", "no dispatch: add a `[[dispatch]]` table with `shader`, `entry`, `workgroups` and `bindings`"));
        }
        for (i, d) in self.dispatches.iter().enumerate() {
            let max = ld_shaders::abi::MAX_WORKGROUPS_PER_DIMENSION;
            if d.workgroups.is_empty() || d.workgroups.len() > 3 || d.workgroups.iter().any(|&n| n == 0 || n > max) {
                return Err(
                    self.field_error(format!("dispatch[{i}].workgroups"), format!("one to three counts, each from 1 to {max}: found {:?}", d.workgroups))
                );
            }
            for (key, buffer) in &d.bindings {
                parse_binding(key)
                    .ok_or_else(|| self.field_error(format!("dispatch[{i}].bindings.\"{key}\""), "a binding is written \"group:binding\", such as \"0:1\""))?;
                if !self.buffers.contains_key(buffer) {
                    return Err(self.field_error(format!("dispatch[{i}].bindings.\"{key}\""), format!("no buffer `{buffer}` in `[buffers]`")));
                }
            }
        }
        if let Some(case) = &self.case {
            if (case.verdict == Verdict::Racy) == case.races.is_empty() {
                return Err(self.field_error("case.race", "a racy case names at least one `[[case.race]]`, a race-free case none"));
            }
        }
        Ok(())
    }

    /// The dispatch's grid as three counts.
    pub fn grid(d: &Dispatch) -> [u32; 3] {
        let mut g = [1; 3];
        g[..d.workgroups.len()].copy_from_slice(&d.workgroups);
        g
    }
}

/// `"group:binding"` as numbers.
/// The path of a launch made from the command line's flags: its fields
/// are named by the flags that set them.
const COMMAND_LINE: &str = "<command line>";

/// The flag that sets `field` of a launch made from the command line.
fn flag_of(field: &str) -> &'static str {
    let field = field.strip_prefix("dispatch[0].").unwrap_or(field);
    match field.split(['.', '[']).next().unwrap_or_default() {
        "overrides" => "--override",
        "bindings" | "buffers" => "--bind",
        "workgroups" => "--workgroups",
        "entry" => "--entry",
        _ => "SHADER",
    }
}

pub(crate) fn parse_binding(key: &str) -> Option<(u32, u32)> {
    let (g, b) = key.split_once(':')?;
    Some((g.trim().parse().ok()?, b.trim().parse().ok()?))
}

impl LaunchFile {
    /// One dispatch given on the command line: `shader`'s `entry` over
    /// `workgroups`, each binding a buffer named by its `group:binding`.
    pub fn single(
        shader: PathBuf,
        entry: String,
        workgroups: Vec<u32>,
        bindings: Vec<((u32, u32), BufferSpec)>,
        overrides: BTreeMap<String, f64>,
    ) -> Result<LaunchFile, LaunchError> {
        let mut buffers = BTreeMap::new();
        let mut bound = BTreeMap::new();
        for ((g, b), spec) in bindings {
            let key = format!("{g}:{b}");
            buffers.insert(key.clone(), spec);
            bound.insert(key.clone(), key);
        }
        let dispatch = Dispatch { shader, entry, workgroups, overrides, bindings: bound };
        // Shaders are found beside the file: the working directory here.
        let file = LaunchFile { case: None, buffers, dispatches: vec![dispatch], path: PathBuf::from(COMMAND_LINE) };
        file.check_self()?;
        Ok(file)
    }
}

impl BufferSpec {
    /// `zeros:BYTES`, or a file's bytes (an `.npy` file's data).
    pub fn from_spec(spec: &str) -> Result<BufferSpec, String> {
        match spec.strip_prefix("zeros:") {
            Some(n) => n
                .trim()
                .parse()
                .map(|n| BufferSpec { zeros: Some(n), ..Default::default() })
                .map_err(|_| format!("`{spec}`: write zeros:BYTES, such as zeros:4096")),
            None => Ok(BufferSpec { file: Some(PathBuf::from(spec)), ..Default::default() }),
        }
    }
}
