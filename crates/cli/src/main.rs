//! `cairn`: the command-line entry point; everything is in the library (`lib.rs`).

fn main() -> std::process::ExitCode {
    cairn_cli::run()
}
