//! bfs: TODO doc
mod common;

#[path = "apps/bfs.rs"]
mod bfs;

fn main() {
    common::app::main::<bfs::Bfs>()
}
