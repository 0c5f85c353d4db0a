//! Placeholder: the bplustree sample is being written.
fn main() {
    eprintln!("bplustree: not implemented yet");
    std::process::exit(1);
}
