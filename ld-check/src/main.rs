//! `ld-check`: finds data races in WGSL (and GLSL) compute shaders, as
//! compute-sanitizer is used on a CUDA program. One dispatch from flags,
//! or a launch file's sequence of dispatches; the report as text, JSON or
//! an HTML page; exit status 0 without races, 3 with races, 1 on an
//! error, 2 on bad usage (a flag malformed or not fitting the shader).

use clap::{ArgGroup, Parser};
use ld_check::{BufferSpec, LaunchError, LaunchFile, Outcome, Resolved};
use ld_runtime::{CheckOptions, Mode, Runtime, Shader};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Finds data races in compute shaders by running them on the GPU (or
/// ld's CPU reference), under WGSL's memory model.
#[derive(Parser)]
#[command(name = "ld-check", version, group(ArgGroup::new("mode").args(["check", "deterministic", "exact", "native"])))]
struct Cli {
    /// The shader (`.wgsl`, or GLSL `.comp`/`.glsl`) for one dispatch given by flags.
    #[arg(required_unless_present = "launch", conflicts_with = "launch")]
    shader: Option<PathBuf>,
    /// A launch file (TOML): named buffers and a sequence of dispatches.
    #[arg(long, value_name = "FILE.toml")]
    launch: Option<PathBuf>,
    /// The entry point (default: the shader's only compute entry point).
    #[arg(long, value_name = "NAME")]
    entry: Option<String>,
    /// Workgroups along x, y and z.
    #[arg(long, value_name = "X[,Y[,Z]]", value_delimiter = ',', default_value = "1")]
    workgroups: Vec<u32>,
    /// A binding's contents: `G:B=zeros:BYTES`, or `G:B=FILE` (raw bytes, or an `.npy` file's data).
    #[arg(long = "bind", value_name = "G:B=SPEC", value_parser = parse_bind)]
    binds: Vec<((u32, u32), BufferSpec)>,
    /// An override constant's value.
    #[arg(long = "override", value_name = "NAME=VALUE", value_parser = parse_override)]
    overrides: Vec<(String, f64)>,
    /// Check for races (the default).
    #[arg(long)]
    check: bool,
    /// Run deterministically: the same outputs on every run and backend, racy or not.
    #[arg(long)]
    deterministic: bool,
    /// Monitor every access on the CPU: slow, and exact.
    #[arg(long)]
    exact: bool,
    /// Run the shader as written.
    #[arg(long)]
    native: bool,
    /// Invocations checked as one warp (a power of two; 1 checks every invocation against every other).
    #[arg(long, value_name = "N")]
    warp_size: Option<u32>,
    /// Bytes the check may allocate.
    #[arg(long, value_name = "BYTES")]
    memory_budget: Option<u64>,
    /// Print the reports as JSON (ld's report document) instead of text.
    #[arg(long)]
    json: bool,
    /// Write the reports as one HTML page.
    #[arg(long, value_name = "PATH")]
    html: Option<PathBuf>,
    /// Write every buffer after the run into DIR, as `NAME.npy`.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

fn parse_bind(s: &str) -> Result<((u32, u32), BufferSpec), String> {
    let (key, spec) = s.split_once('=').ok_or_else(|| format!("`{s}`: write G:B=SPEC, such as 0:1=zeros:4096"))?;
    let (g, b) = key.split_once(':').ok_or_else(|| format!("`{key}`: a binding is GROUP:BINDING, such as 0:1"))?;
    let n = |x: &str| x.trim().parse::<u32>().map_err(|_| format!("`{key}`: a binding is GROUP:BINDING, such as 0:1"));
    Ok(((n(g)?, n(b)?), BufferSpec::from_spec(spec)?))
}

fn parse_override(s: &str) -> Result<(String, f64), String> {
    let (name, value) = s.split_once('=').ok_or_else(|| format!("`{s}`: write NAME=VALUE"))?;
    let v = value.trim().parse().map_err(|_| format!("`{value}` is not a number"))?;
    Ok((name.trim().to_string(), v))
}

impl Cli {
    fn mode(&self) -> Mode {
        match (self.deterministic, self.exact, self.native) {
            (true, _, _) => Mode::Deterministic,
            (_, true, _) => Mode::Exact,
            (_, _, true) => Mode::Native,
            _ => Mode::Check,
        }
    }

    fn options(&self) -> CheckOptions {
        let mut o = CheckOptions::default();
        o.warp_size = self.warp_size;
        o.memory_budget = self.memory_budget;
        o
    }

    /// The launch file, read or made from the flags.
    fn launch_file(&self) -> Result<LaunchFile, LaunchError> {
        if let Some(path) = &self.launch {
            return LaunchFile::load(path);
        }
        let shader = self.shader.clone().expect("clap requires a shader without --launch");
        let entry = match &self.entry {
            Some(e) => e.clone(),
            None => only_entry(&shader)?,
        };
        LaunchFile::single(shader, entry, self.workgroups.clone(), self.binds.clone(), self.overrides.iter().cloned().collect())
    }
}

/// The shader's one compute entry point.
fn only_entry(path: &Path) -> Result<String, LaunchError> {
    let shader = Shader::load(path)?;
    match shader.entry_points().as_slice() {
        [one] => Ok(one.to_string()),
        all => Err(LaunchError::Shader {
            message: format!("{} has {} compute entry points ({}): choose one with --entry", path.display(), all.len(), all.join(", ")),
        }),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(outcome) if outcome.racy() => ExitCode::from(3),
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            // A shader's errors come rendered already (`error: ...`, the
            // line, a caret).
            let text = e.to_string();
            match text.starts_with("error: ") {
                true => eprintln!("{}", text.trim_end()),
                false => eprintln!("error: {text}"),
            }
            // A flag that does not fit the shader is bad usage, as a
            // malformed one is (clap's 2).
            match e.downcast_ref::<LaunchError>() {
                Some(LaunchError::Flag { .. }) => ExitCode::from(2),
                _ => ExitCode::from(1),
            }
        }
    }
}

fn run(cli: &Cli) -> Result<Outcome, Box<dyn std::error::Error>> {
    let file = cli.launch_file()?;
    let resolved = file.resolve()?;
    let rt = Runtime::new()?;
    let outcome = resolved.run(&file, &rt, cli.mode(), &cli.options())?;
    let reports: Vec<ld_runtime::Report> = outcome.dispatches.iter().filter_map(|d| d.run.report.clone()).collect();
    if cli.json {
        println!("{}", serde_json::to_string_pretty(&ld_runtime::report_document(&reports))?);
        // (A run without a report has its indices out of bounds told on
        // stderr: the JSON document holds reports.)
        for d in outcome.dispatches.iter().filter(|d| d.run.report.is_none()) {
            for o in &d.run.out_of_bounds {
                eprint!("{}", o.diagnostic());
            }
        }
    } else {
        print_text(&outcome);
    }
    if let Some(path) = &cli.html {
        std::fs::write(path, ld_runtime::html_report(&reports)).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    if let Some(dir) = &cli.out {
        write_buffers(dir, &resolved, &outcome.buffers)?;
    }
    Ok(outcome)
}

fn print_text(outcome: &Outcome) {
    for d in &outcome.dispatches {
        match &d.run.report {
            Some(report) => println!("dispatch {} ({}):\n{report}", d.index, d.kernel),
            None => {
                println!("dispatch {} ({}): ran in {} on {:?}", d.index, d.kernel, d.run.mode, d.run.backend);
                for o in &d.run.out_of_bounds {
                    print!("{}", o.diagnostic());
                }
            }
        }
    }
}

fn write_buffers(dir: &Path, resolved: &Resolved, buffers: &BTreeMap<String, Vec<u8>>) -> Result<(), Box<dyn std::error::Error>> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    for (name, bytes) in buffers {
        let file = dir.join(format!("{}.npy", name.replace(':', "_")));
        let data = ld_check::npy::write(bytes, resolved.word_type(name))?;
        std::fs::write(&file, data).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    }
    Ok(())
}
