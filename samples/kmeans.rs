//! placeholder doc (written below)

mod common;

#[path = "apps/kmeans.rs"]
mod kmeans;

fn main() {
    common::app::main::<kmeans::Kmeans>()
}
