//! Placeholder: the radix_sort sample is being written.
fn main() {
    eprintln!("radix_sort: not implemented yet");
    std::process::exit(1);
}
