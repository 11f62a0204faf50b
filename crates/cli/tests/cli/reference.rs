//! `cairn completions` and `cairn man`: generated from the parser's own definitions, they parse
//! in the shells they are for, complete real commands and flags, and the manual page renders
//! with the README's tour and every command's examples.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::Sandbox;

/// The subcommands the generated files must know (a sample across the command line).
const COMMANDS: [&str; 8] = [
    "store",
    "search",
    "slot",
    "vision",
    "conflicts",
    "doctor",
    "completions",
    "man",
];

/// `text` in file `name` of the sandbox's home.
fn written(sandbox: &Sandbox, name: &str, text: &str) -> PathBuf {
    std::fs::create_dir_all(&sandbox.home).unwrap();
    let file = sandbox.home.join(name);
    std::fs::write(&file, text).unwrap();
    file
}

/// What `command` printed, having checked it ran and succeeded; a failure saying how to install
/// `program` when it is not on this machine.
fn succeeds(command: &mut Command, program: &str, install: &str) -> String {
    let output = match command.output() {
        Ok(output) => output,
        Err(_) => cairn_core::testing::missing(program, install),
    };
    assert!(
        output.status.success(),
        "{program} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Runs `script` in bash and returns what it printed.
fn bash(script: &str) -> String {
    succeeds(
        Command::new("bash").args(["-c", script]),
        "bash",
        "apt-get install bash",
    )
}

/// What bash's completion of cairn offers for `words` (the last one being completed).
fn bash_completes(script: &Path, words: &[&str]) -> Vec<String> {
    let current = words.len() - 1;
    let shown = bash(&format!(
        "source '{}'; COMP_WORDS=({}); COMP_CWORD={current}; _cairn cairn '{}' '{}'; \
         printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script.display(),
        words
            .iter()
            .map(|w| format!("'{w}'"))
            .collect::<Vec<_>>()
            .join(" "),
        words[current],
        words[current - 1],
    ));
    shown.lines().map(String::from).collect()
}

#[test]
fn bash_completions_parse_and_complete_commands_and_flags() {
    let sandbox = Sandbox::new();
    let script = sandbox.ok(&["completions", "bash"]).stdout;
    let file = written(&sandbox, "cairn.bash", &script);
    succeeds(
        Command::new("bash").arg("-n").arg(&file),
        "bash",
        "apt-get install bash",
    );

    assert_eq!(bash_completes(&file, &["cairn", "sto"]), ["store"]);
    assert_eq!(
        bash_completes(&file, &["cairn", "completions", "zs"]),
        ["zsh"]
    );
    let flags = bash_completes(&file, &["cairn", "search", "--fu"]);
    assert!(flags.contains(&"--fuzzy".to_string()), "{flags:?}");
    let commands = bash_completes(&file, &["cairn", ""]);
    for command in COMMANDS {
        assert!(
            commands.iter().any(|c| c == command),
            "{command} in {commands:?}"
        );
    }
}

#[test]
fn an_unknown_shell_is_refused_naming_the_shells() {
    let sandbox = Sandbox::new();
    let run = sandbox.run(&["completions", "tcsh"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        assert!(run.stderr.contains(shell), "{}", run.stderr);
    }
    assert!(run.stdout.is_empty());
}

#[test]
#[ignore = "needs zsh (Debian's zsh; .ci/run installs it)"]
fn zsh_completions_parse_and_name_every_command() {
    let sandbox = Sandbox::new();
    let script = sandbox.ok(&["completions", "zsh"]).stdout;
    let file = written(&sandbox, "_cairn", &script);
    succeeds(
        Command::new("zsh").arg("-n").arg(&file),
        "zsh",
        "apt-get install zsh",
    );
    assert!(script.starts_with("#compdef cairn"), "{}", &script[..80]);
    for command in COMMANDS {
        assert!(script.contains(&format!("'{command}:")), "{command}");
    }
}

/// The README's tour: the first `sh` block after "## A short tour".
fn readme_tour() -> String {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"))
            .unwrap();
    let tour = &readme[readme.find("## A short tour").expect("the tour")..];
    let start = tour.find("```sh\n").expect("its block") + "```sh\n".len();
    let end = start + tour[start..].find("\n```").expect("its end");
    tour[start..end].to_string()
}

#[test]
fn the_man_page_holds_the_readme_tour_and_every_commands_examples() {
    let sandbox = Sandbox::new();
    let page = sandbox.ok(&["man"]).stdout;
    assert!(page.contains(".TH cairn 1"), "{}", &page[..200]);
    // whatis/apropos read NAME as "name - what it is".
    assert!(
        page.contains("cairn \\- persistent memory for AI coding agents\n"),
        "{}",
        &page[..300]
    );
    for section in [
        "NAME",
        "SYNOPSIS",
        "OPTIONS",
        "SUBCOMMANDS",
        "EXAMPLES",
        "COMMANDS",
        "\"FILES AND EXIT STATUS\"",
    ] {
        assert!(page.contains(&format!(".SH {section}")), "{section}");
    }
    // The tour, line for line (as roff writes them: hyphens and apostrophes escaped), in the
    // README's order.
    let tour = readme_tour();
    let mut at = page.find(".SH EXAMPLES").unwrap();
    for line in tour.lines().filter(|l| !l.is_empty()) {
        let found = page[at..]
            .find(&line.replace('-', "\\-").replace('\'', "\\*(Aq"))
            .unwrap_or_else(|| panic!("the tour's line {line:?} is in the page, in order"));
        at += found;
    }
    // Every command with examples in its --help has them in the page.
    for command in ["store", "search", "doctor", "setup", "completions", "man"] {
        assert!(
            page.contains(&format!(".SS \"cairn {command}\"")),
            "{command}"
        );
    }
}

#[test]
#[ignore = "needs man (man-db) and groff; .ci/run installs them"]
fn the_man_page_renders_with_man() {
    let sandbox = Sandbox::new();
    let page = sandbox.ok(&["man"]).stdout;
    let file = written(&sandbox, "cairn.1", &page);
    let text = succeeds(
        Command::new("man")
            .arg("-l")
            .arg(&file)
            .env("MANWIDTH", "100")
            .env("MANPAGER", "cat"),
        "man",
        "apt-get install man-db groff-base",
    );
    for heading in [
        "NAME",
        "SYNOPSIS",
        "EXAMPLES",
        "COMMANDS",
        "FILES AND EXIT STATUS",
    ] {
        assert!(text.lines().any(|l| l == heading), "{heading}:\n{text}");
    }
    assert!(text.contains("cairn search kuberntes ingress"), "{text}");
    assert!(!text.contains(".SH"), "no roff left unrendered");
}

#[test]
fn man_dir_writes_a_page_per_command() {
    let sandbox = Sandbox::new();
    let dir = sandbox.home.join("man1");
    // A page an older cairn left there is neither touched nor named as written.
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("cairn-retired.1"), "old").unwrap();
    let run = sandbox.ok(&["man", "--dir", dir.to_str().unwrap()]);
    assert!(!run.stdout.contains("cairn-retired"), "{}", run.stdout);
    assert_eq!(
        std::fs::read_to_string(dir.join("cairn-retired.1")).unwrap(),
        "old"
    );
    let listed: Vec<&str> = run.stdout.lines().collect();
    for name in [
        "cairn.1",
        "cairn-store.1",
        "cairn-slot-append.1",
        "cairn-completions.1",
    ] {
        let path = dir.join(name);
        assert!(
            listed.contains(&path.to_str().unwrap()),
            "{name}: {listed:?}"
        );
        assert!(path.exists(), "{name}");
    }
    let top = std::fs::read_to_string(dir.join("cairn.1")).unwrap();
    assert!(top.contains(".SH EXAMPLES"), "cairn.1 is the full page");
    let store = std::fs::read_to_string(dir.join("cairn-store.1")).unwrap();
    assert!(store.contains("\\-\\-topic\\-key"), "{store}");
}
