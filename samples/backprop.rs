//! Placeholder: the backprop sample is being written.
fn main() {
    eprintln!("backprop: not implemented yet");
    std::process::exit(1);
}
