//! Placeholder: the bisect_small sample is being written.
fn main() {
    eprintln!("bisect_small: not implemented yet");
    std::process::exit(1);
}
