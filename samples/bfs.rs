//! Placeholder: the bfs sample is being written.
fn main() {
    eprintln!("bfs: not implemented yet");
    std::process::exit(1);
}
