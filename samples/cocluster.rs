//! Placeholder: the cocluster sample is being written.
fn main() {
    eprintln!("cocluster: not implemented yet");
    std::process::exit(1);
}
