//! `mairbench-runner`: see the library's documentation ([`mairbench_runner`]).

fn main() {
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    std::process::exit(mairbench_runner::main(&args));
}
