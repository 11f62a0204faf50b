//! Detecting which project the current directory belongs to.
//!
//! The project name must be the same on every clone of a repository, so the git remote wins:
//! `git@github.com:Acme/api.git` and `https://github.com/Acme/api` both become
//! `github.com/Acme/api`. A repository without a remote is named by its root directory, and a
//! directory outside any repository by itself. Git's config is read directly rather than by
//! running `git`, which keeps hooks fast; worktrees (`.git` files) are followed to the shared
//! config. Explicit choices (flag, `CAIRN_PROJECT`, `.cairn.toml`) are layered above this by the
//! caller.

use std::fs;
use std::path::{Path, PathBuf};

use crate::scope::ProjectName;

/// Where a project name came from, for `--verbose` and `stats`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProjectOrigin {
    GitRemote,
    GitRoot,
    Directory,
}

/// Names the project that `dir` belongs to.
pub fn detect_project(dir: &Path) -> (ProjectName, ProjectOrigin) {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    if let Some((root, git_dir)) = find_git(&dir) {
        if let Some(url) = remote_url(&git_dir)
            && let Ok(name) = ProjectName::new(&normalise_remote(&url))
        {
            return (name, ProjectOrigin::GitRemote);
        }
        if let Ok(name) = ProjectName::new(&root.to_string_lossy()) {
            return (name, ProjectOrigin::GitRoot);
        }
    }
    let name = ProjectName::new(&dir.to_string_lossy())
        .unwrap_or_else(|_| ProjectName::new("/").expect("'/' is a valid project name"));
    (name, ProjectOrigin::Directory)
}

/// The repository root above `dir` and the directory holding its config.
/// The root directory of the project `dir` belongs to: its repository's work tree, else
/// `dir` itself (absolute).
pub fn project_root(dir: &Path) -> PathBuf {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    find_git(&dir).map_or(dir, |(root, _)| root)
}

fn find_git(dir: &Path) -> Option<(PathBuf, PathBuf)> {
    for candidate in dir.ancestors() {
        let dot_git = candidate.join(".git");
        if dot_git.is_dir() {
            return Some((candidate.to_path_buf(), dot_git));
        }
        if dot_git.is_file() {
            // A worktree or submodule: `gitdir: <path>`, whose `commondir` holds the config.
            let text = fs::read_to_string(&dot_git).ok()?;
            let target = text.strip_prefix("gitdir:")?.trim();
            let git_dir = candidate.join(target);
            let common = fs::read_to_string(git_dir.join("commondir"))
                .map(|c| git_dir.join(c.trim()))
                .unwrap_or(git_dir);
            return Some((candidate.to_path_buf(), common));
        }
    }
    None
}

/// The `origin` remote's URL, else the first remote's, from a git config file.
fn remote_url(git_dir: &Path) -> Option<String> {
    let config = fs::read_to_string(git_dir.join("config")).ok()?;
    let mut section = String::new();
    let mut first = None;
    for line in config.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            section = line.to_string();
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if key.trim() != "url" || !section.starts_with("[remote ") {
            continue;
        }
        let url = value.trim().trim_matches('"').to_string();
        if section == "[remote \"origin\"]" {
            return Some(url);
        }
        first.get_or_insert(url);
    }
    first
}

/// `host/path` without scheme, user, password, port or `.git`; the host lowercased.
pub fn normalise_remote(url: &str) -> String {
    let url = url.trim();
    let (host, path) = if let Some((_, rest)) = url.split_once("://") {
        // scheme://[user[:password]@]host[:port]/path
        let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
        let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        let host = host.split(':').next().unwrap_or(host);
        (host.to_string(), path.to_string())
    } else if let Some((user_host, path)) = url.split_once(':').filter(|(h, _)| !h.contains('/')) {
        // scp-like: [user@]host:path
        let host = user_host.rsplit_once('@').map_or(user_host, |(_, h)| h);
        (host.to_string(), path.to_string())
    } else {
        // A local path used as a remote.
        return url
            .trim_end_matches('/')
            .trim_end_matches(".git")
            .to_string();
    };
    let path = path.trim_matches('/').trim_end_matches(".git");
    if host.is_empty() {
        return format!("/{path}");
    }
    format!("{}/{}", host.to_lowercase(), path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remotes_of_one_repository_normalise_to_one_name() {
        for url in [
            "git@github.com:Acme/api.git",
            "https://github.com/Acme/api",
            "https://user:secret@GitHub.com/Acme/api.git/",
            "ssh://git@github.com:22/Acme/api.git",
        ] {
            assert_eq!(normalise_remote(url), "github.com/Acme/api", "{url}");
        }
        assert_eq!(normalise_remote("/srv/git/api.git"), "/srv/git/api");
        assert_eq!(normalise_remote("file:///srv/git/api.git"), "/srv/git/api");
    }

    #[test]
    fn origin_wins_then_git_root_then_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        let nested = repo.join("src/deep");
        fs::create_dir_all(&nested).unwrap();
        fs::create_dir_all(repo.join(".git")).unwrap();

        let (name, origin) = detect_project(&nested);
        assert_eq!(origin, ProjectOrigin::GitRoot);
        assert_eq!(Path::new(name.as_str()), repo.canonicalize().unwrap());

        fs::write(
            repo.join(".git/config"),
            "[core]\n\tbare = false\n[remote \"upstream\"]\n\turl = git@github.com:up/api.git\n\
             [remote \"origin\"]\n\turl = https://github.com/me/api.git\n",
        )
        .unwrap();
        let (name, origin) = detect_project(&nested);
        assert_eq!(origin, ProjectOrigin::GitRemote);
        assert_eq!(name.as_str(), "github.com/me/api");

        let outside = tmp.path().join("plain");
        fs::create_dir_all(&outside).unwrap();
        let (name, origin) = detect_project(&outside);
        assert_eq!(origin, ProjectOrigin::Directory);
        assert_eq!(Path::new(name.as_str()), outside.canonicalize().unwrap());
    }

    #[test]
    fn worktrees_follow_gitdir_to_the_shared_config() {
        let tmp = tempfile::tempdir().unwrap();
        let main_git = tmp.path().join("main/.git");
        let wt_git = main_git.join("worktrees/feature");
        fs::create_dir_all(&wt_git).unwrap();
        fs::write(
            main_git.join("config"),
            "[remote \"origin\"]\n\turl = git@host.dev:team/app\n",
        )
        .unwrap();
        fs::write(wt_git.join("commondir"), "../..\n").unwrap();
        let worktree = tmp.path().join("feature");
        fs::create_dir_all(&worktree).unwrap();
        fs::write(
            worktree.join(".git"),
            format!("gitdir: {}\n", wt_git.display()),
        )
        .unwrap();
        assert_eq!(detect_project(&worktree).0.as_str(), "host.dev/team/app");
    }
}
