//! `cairn completions` and `cairn man`: generated from the parser's own definitions, they parse
//! in the shells they are for, complete real commands and flags, and the manual page renders
//! with the README's tour and every command's examples.

use std::path::Path;
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

/// Runs `script` in bash and returns what it printed.
fn bash(script: &str) -> String {
    let output = Command::new("bash")
        .args(["-c", script])
        .output()
        .expect("bash runs");
    assert!(
        output.status.success(),
        "bash failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("UTF-8")
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
    let file = sandbox.home.join("cairn.bash");
    std::fs::create_dir_all(&sandbox.home).unwrap();
    std::fs::write(&file, &script).unwrap();
    let syntax = Command::new("bash").arg("-n").arg(&file).output().unwrap();
    assert!(
        syntax.status.success(),
        "{}",
        String::from_utf8_lossy(&syntax.stderr)
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
    let file = sandbox.home.join("_cairn");
    std::fs::create_dir_all(&sandbox.home).unwrap();
    std::fs::write(&file, &script).unwrap();
    let syntax = match Command::new("zsh").arg("-n").arg(&file).output() {
        Ok(output) => output,
        Err(_) => cairn_core::testing::missing("zsh", "apt-get install zsh"),
    };
    assert!(
        syntax.status.success(),
        "{}",
        String::from_utf8_lossy(&syntax.stderr)
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
    std::fs::create_dir_all(&sandbox.home).unwrap();
    let file = sandbox.home.join("cairn.1");
    std::fs::write(&file, &page).unwrap();
    let rendered = match Command::new("man")
        .arg("-l")
        .arg(&file)
        .env("MANWIDTH", "100")
        .env("MANPAGER", "cat")
        .output()
    {
        Ok(output) => output,
        Err(_) => cairn_core::testing::missing("man", "apt-get install man-db groff-base"),
    };
    assert!(
        rendered.status.success(),
        "{}",
        String::from_utf8_lossy(&rendered.stderr)
    );
    let text = String::from_utf8_lossy(&rendered.stdout);
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
    let run = sandbox.ok(&["man", "--dir", dir.to_str().unwrap()]);
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
