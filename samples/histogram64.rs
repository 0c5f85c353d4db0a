//! Placeholder: the histogram64 sample is being written.
fn main() {
    eprintln!("histogram64: not implemented yet");
    std::process::exit(1);
}
