//! Placeholder: the scan sample is being written.
fn main() {
    eprintln!("scan: not implemented yet");
    std::process::exit(1);
}
