//! radix_sort: TODO doc
mod common;

#[path = "apps/radix_sort.rs"]
mod radix_sort;

fn main() {
    common::app::main::<radix_sort::RadixSort>()
}
