//! Placeholder: the kmeans sample is being written.
fn main() {
    eprintln!("kmeans: not implemented yet");
    std::process::exit(1);
}
