//! nbody: TODO doc
mod common;

#[path = "apps/nbody.rs"]
mod nbody;

fn main() {
    common::app::main::<nbody::Nbody>()
}
