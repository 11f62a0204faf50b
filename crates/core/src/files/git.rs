//! What git says about a workspace's files: the one witness that tells a hand edit from a
//! branch switch.
//!
//! A unit can vanish from its file in two ways that look the same in the file: someone cut it
//! (an edit, which means "forget this"), or git put another version of the file in place (a
//! checkout, a stash, a reset, a pull: this branch's view, which means nothing about the
//! memory). Git knows which: a file git changed is exactly as it is committed at `HEAD`, while
//! an edit leaves it modified. [`Checkout`] asks the `git` program, and only when a sync finds
//! a unit missing, so a workspace whose units are all where they were costs no process.
//!
//! Nothing here ever changes the repository: every command is a read, run with
//! `GIT_OPTIONAL_LOCKS=0` so it never takes the index lock from a git command the user runs.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A git operation that rewrites the work tree step by step; while one is under way, the
/// files are half of one state and half of another, and a sync waits for it to end.
const OPERATIONS: &[(&str, &str)] = &[
    ("MERGE_HEAD", "merge"),
    ("rebase-merge", "rebase"),
    ("rebase-apply", "rebase"),
    ("CHERRY_PICK_HEAD", "cherry-pick"),
    ("REVERT_HEAD", "revert"),
];

/// The repository a workspace's directory is in, as it stands now.
#[derive(Debug, Clone)]
pub struct Checkout {
    /// The directory commands run in (the workspace's): paths are given relative to it.
    dir: PathBuf,
    /// The commit checked out; `None` in a repository without commits.
    pub head: Option<String>,
}

/// The git operation under way in the repository `dir` is in (`merge`, `rebase` …), read from
/// the repository's own markers without running git (so a sync that finds none costs nothing).
pub fn operation_under_way(dir: &Path) -> Option<&'static str> {
    let git_dir = git_dir_of(dir)?;
    OPERATIONS
        .iter()
        .find(|(marker, _)| git_dir.join(marker).exists())
        .map(|(_, name)| *name)
}

/// The git directory of the work tree `dir` is in: `.git` itself, or where a worktree's `.git`
/// file points (its own directory, which holds its `MERGE_HEAD`).
fn git_dir_of(dir: &Path) -> Option<PathBuf> {
    for candidate in dir.ancestors() {
        let dot_git = candidate.join(".git");
        if dot_git.is_dir() {
            return Some(dot_git);
        }
        if dot_git.is_file() {
            let text = std::fs::read_to_string(&dot_git).ok()?;
            let target = text.strip_prefix("gitdir:")?.trim();
            return Some(candidate.join(target));
        }
    }
    None
}

impl Checkout {
    /// The checkout `dir` is in; `None` when it is in no git repository (or git is not
    /// installed), and then every change to the files is an edit.
    pub fn of(dir: &Path) -> Option<Checkout> {
        git(dir, &["rev-parse", "--git-dir"])?;
        Some(Checkout {
            dir: dir.to_path_buf(),
            head: head_of(dir),
        })
    }

    /// True when `file` (relative to the workspace's directory) is exactly as committed at
    /// `HEAD`, in the index and the work tree: both absent counts. False for a modified,
    /// deleted, added, untracked or ignored file, and when git cannot tell.
    pub fn is_committed(&self, file: &str) -> bool {
        git(
            &self.dir,
            &[
                "status",
                "--porcelain",
                "--untracked-files=all",
                "--ignored=matching",
                "--",
                file,
            ],
        )
        .is_some_and(|status| status.trim().is_empty())
    }

    /// True when `HEAD` is `commit` or a later commit on top of it (a pull, a merge, a
    /// commit), false after a switch to another branch, a reset or a rebase.
    pub fn descends_from(&self, commit: &str) -> bool {
        let Some(head) = &self.head else {
            return false;
        };
        head == commit || status(&self.dir, &["merge-base", "--is-ancestor", commit, head])
    }

    /// `file` as it was committed at `commit`; `None` when it was not there (or the commit is
    /// gone).
    pub fn file_at(&self, commit: &str, file: &str) -> Option<String> {
        git(&self.dir, &["show", &format!("{commit}:./{file}")])
    }
}

/// The commit checked out in the repository `dir` is in; `None` outside one, in one without
/// commits, or without git. Read from the repository's files (`HEAD`, the branch's ref, or
/// `packed-refs`) when they say it plainly, so a sync in a repository costs no process; asked
/// of git otherwise.
pub fn head_of(dir: &Path) -> Option<String> {
    let git_dir = git_dir_of(dir)?;
    match head_from_files(&git_dir) {
        Some(head) => Some(head),
        None => git(dir, &["rev-parse", "-q", "--verify", "HEAD^{commit}"])
            .map(|head| head.trim().to_string())
            .filter(|head| !head.is_empty()),
    }
}

/// `HEAD` as the files hold it: a commit id, or a branch whose ref file or `packed-refs` line
/// holds one (a worktree's refs live in the common directory).
fn head_from_files(git_dir: &Path) -> Option<String> {
    let is_id = |text: &str| text.len() >= 40 && text.bytes().all(|b| b.is_ascii_hexdigit());
    let head = std::fs::read_to_string(git_dir.join("HEAD")).ok()?;
    let head = head.trim();
    let Some(branch) = head.strip_prefix("ref:").map(str::trim) else {
        return is_id(head).then(|| head.to_string());
    };
    let common = std::fs::read_to_string(git_dir.join("commondir"))
        .map(|c| git_dir.join(c.trim()))
        .unwrap_or_else(|_| git_dir.to_path_buf());
    for base in [git_dir, common.as_path()] {
        if let Ok(id) = std::fs::read_to_string(base.join(branch)) {
            let id = id.trim();
            return is_id(id).then(|| id.to_string());
        }
    }
    let packed = std::fs::read_to_string(common.join("packed-refs")).ok()?;
    packed.lines().find_map(|line| {
        let (id, name) = line.split_once(' ')?;
        (name == branch && is_id(id)).then(|| id.to_string())
    })
}

/// A git command's standard output when it succeeded.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let output = command(dir, args).stdout(Stdio::piped()).output().ok()?;
    if !output.status.success() {
        return None;
    }
    String::from_utf8(output.stdout).ok()
}

/// Whether a git command succeeded.
fn status(dir: &Path, args: &[&str]) -> bool {
    command(dir, args)
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

fn command(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new("git");
    command
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .stdin(Stdio::null())
        .stderr(Stdio::null());
    command
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(dir: &Path, args: &[&str]) -> String {
        let output = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@cairn.invalid"])
            .args(["-c", "init.defaultBranch=main"])
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .expect("git runs");
        assert!(output.status.success(), "git {args:?}: {output:?}");
        String::from_utf8(output.stdout).unwrap().trim().to_string()
    }

    #[test]
    fn the_head_read_from_the_files_is_the_one_git_names() {
        let repo = tempfile::tempdir().unwrap();
        let dir = repo.path();
        run(dir, &["init", "-q"]);
        assert_eq!(head_of(dir), None, "no commit yet");
        std::fs::create_dir_all(dir.join(".cairn/memory")).unwrap();
        std::fs::write(dir.join(".cairn/memory/day.md"), "a\n").unwrap();
        run(dir, &["add", "-A"]);
        run(dir, &["commit", "-qm", "one"]);
        let memory = dir.join(".cairn/memory");
        let first = run(dir, &["rev-parse", "HEAD"]);
        assert_eq!(head_of(&memory).as_deref(), Some(first.as_str()));
        run(dir, &["pack-refs", "--all"]);
        assert_eq!(head_of(&memory).as_deref(), Some(first.as_str()), "packed");
        std::fs::write(dir.join(".cairn/memory/day.md"), "b\n").unwrap();
        run(dir, &["commit", "-qam", "two"]);
        let second = run(dir, &["rev-parse", "HEAD"]);
        assert_eq!(head_of(&memory).as_deref(), Some(second.as_str()));
        run(dir, &["checkout", "-q", "--detach", &first]);
        assert_eq!(
            head_of(&memory).as_deref(),
            Some(first.as_str()),
            "detached"
        );
        let worktree = tempfile::tempdir().unwrap();
        let other = worktree.path().join("other");
        run(
            dir,
            &["worktree", "add", "-q", other.to_str().unwrap(), "main"],
        );
        assert_eq!(
            head_of(&other).as_deref(),
            Some(second.as_str()),
            "a worktree"
        );
        let outside = tempfile::tempdir().unwrap();
        assert_eq!(head_of(outside.path()), None);
    }
}
