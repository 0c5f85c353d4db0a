//! Reproduces the paper's Table VI: every benchmark sample in check mode
//! (the variant the paper ran), in the paper's columns, next to the paper's
//! verdict, with whether Race?/Type/Scope match.
//!
//! `cargo run --release --example table6 -- [--size 0.1] [--cpu] [--runs N]`

mod common;

#[path = "apps/all.rs"]
mod apps;

use common::app::Flags;
use common::table::{measure, print};

#[derive(clap::Parser)]
#[command(about = "The paper's Table VI, measured by ld check mode")]
struct Cli {
    #[command(flatten)]
    flags: Flags,
}

fn main() {
    let cli = <Cli as clap::Parser>::parse();
    let mut flags = cli.flags;
    flags.check = true;
    let rt = match common::runtime(flags.cpu) {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("table6: error: {e}");
            std::process::exit(1);
        }
    };
    // A program that fails (a device limit, say) is reported and the
    // others still run.
    let (mut ok, mut failed) = (Vec::new(), Vec::new());
    macro_rules! row {
        ($t:path, $name:ident, $small:expr) => {
            match measure::<$t>(&rt, &flags) {
                Ok(r) => ok.push(r),
                Err(e) => failed.push((<$t as common::app::App>::NAME, e.to_string())),
            }
        };
    }
    apps::for_each_app!(row);
    print(&ok, &failed, &rt.backend().to_string());
    let all_match = ok.iter().all(|r| {
        let (a, b, c) = r.matches();
        (a && b && c) || !r.differs.is_empty()
    });
    std::process::exit(if all_match && failed.is_empty() { 0 } else { 1 });
}
