//! Placeholder: the nbody sample is being written.
fn main() {
    eprintln!("nbody: not implemented yet");
    std::process::exit(1);
}
