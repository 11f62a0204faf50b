//! The files a project's agents already follow, as `cairn import --instructions` and the
//! SessionStart hook hand them to core to follow (`files::followed`): `CLAUDE.md`,
//! `.claude/CLAUDE.md` and `AGENTS.md` at the project's root, and Claude Code's auto-memory
//! for the project, `<claude config>/projects/<the root, each character but letters and digits
//! as '-'>/memory/MEMORY.md`. Files the user keeps for every project (`~/.claude/CLAUDE.md`,
//! `~/.codex/AGENTS.md`, where setup puts cairn's own protocol) are not read.

use std::path::Path;

use cairn_core::files::FollowedFile;

/// The files agents follow in the project at `root` (whether they exist or not: a file that
/// is gone drops what was read of it).
pub fn instruction_files(root: &Path, home: &Path) -> Vec<FollowedFile> {
    let file = |path: std::path::PathBuf, title: &str| FollowedFile {
        path,
        title: title.to_string(),
    };
    let claude_dir = std::env::var_os("CLAUDE_CONFIG_DIR")
        .filter(|v| !v.is_empty())
        .map_or_else(|| home.join(".claude"), Into::into);
    let encoded: String = root
        .display()
        .to_string()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    vec![
        file(root.join("CLAUDE.md"), "CLAUDE.md"),
        file(root.join(".claude/CLAUDE.md"), ".claude/CLAUDE.md"),
        file(root.join("AGENTS.md"), "AGENTS.md"),
        file(
            claude_dir
                .join("projects")
                .join(encoded)
                .join("memory/MEMORY.md"),
            "Claude Code auto-memory (MEMORY.md)",
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_auto_memory_is_found_where_claude_code_keeps_it_for_the_project() {
        let files = instruction_files(Path::new("/tmp/.tmpY3v88y/project"), Path::new("/home/u"));
        let memory = files.last().unwrap();
        if std::env::var_os("CLAUDE_CONFIG_DIR").is_none() {
            assert_eq!(
                memory.path,
                Path::new("/home/u/.claude/projects/-tmp--tmpY3v88y-project/memory/MEMORY.md")
            );
        }
        assert_eq!(
            files[0].path,
            Path::new("/tmp/.tmpY3v88y/project/CLAUDE.md")
        );
    }
}
