//! Git's own operations on a workspace's files — branch switches, stash, reset, a restored
//! file, a merge under way, a deletion pulled from a teammate — with the real `git` and the
//! real binary: absence is not deletion, so no sequence of them loses a memory or makes cairn
//! rewrite a committed file with fewer units.

use serde_json::Value;

use super::Sandbox;
use super::files::{clone_of, contents, git, memory_files, shared_repository};

/// The project's working tree as git sees it: empty when every file is as committed.
fn git_status(s: &Sandbox) -> String {
    git(
        &s.project,
        &["status", "--porcelain", "--untracked-files=all"],
    )
}

fn sync(s: &Sandbox) -> Value {
    s.ok_json(&["files", "sync"])[0].clone()
}

fn units(s: &Sandbox) -> usize {
    memory_files(&s.project)
        .iter()
        .map(|f| {
            std::fs::read_to_string(f)
                .unwrap()
                .matches("<!-- cairn:unit")
                .count()
        })
        .sum()
}

#[test]
fn branch_switches_stash_reset_and_restored_files_lose_no_memory() {
    let (_scratch, _origin, alice) = shared_repository();
    alice.ok(&["store", "Releases are cut from main on Tuesdays"]);
    git(&alice.project, &["add", "-A"]);
    git(&alice.project, &["commit", "-qm", "main: one memory"]);

    // Three memories committed on a branch.
    git(&alice.project, &["checkout", "-qb", "feature"]);
    for text in [
        "The payment service retries three times",
        "Invoices are rendered with Typst",
        "The feature flag is called new-billing",
    ] {
        alice.ok(&["store", text]);
    }
    git(
        &alice.project,
        &["commit", "-qam", "feature: three memories"],
    );
    let all = contents(&alice);
    assert_eq!(all.len(), 4);

    // Back on main: what SessionStart runs syncs the files, and nothing is forgotten.
    git(&alice.project, &["checkout", "-q", "main"]);
    assert_eq!(units(&alice), 1);
    let preview = alice.ok_json(&["files", "sync", "--dry-run"])[0].clone();
    assert_eq!(preview["forgotten"], 0, "{preview}");
    alice.ok(&["context"]);
    assert_eq!(contents(&alice), all, "a branch switch deleted nothing");
    assert_eq!(git_status(&alice), "", "main's files were not touched");
    let again = sync(&alice);
    assert_eq!(
        (again["forgotten"].clone(), again["absent"].clone()),
        (0.into(), 0.into())
    );

    // Back on the branch: its file is as committed, and every memory is there.
    git(&alice.project, &["checkout", "-q", "feature"]);
    alice.ok(&["context"]);
    assert_eq!(
        git_status(&alice),
        "",
        "the committed file was not rewritten"
    );
    assert_eq!(units(&alice), 4);
    assert_eq!(contents(&alice), all);

    // A memory written but not committed, then stashed away and back.
    alice.ok(&["store", "Staging deploys need a green nightly"]);
    assert_eq!(units(&alice), 5);
    git(&alice.project, &["stash", "-q"]);
    let stashed = sync(&alice);
    assert_eq!(
        (stashed["forgotten"].clone(), stashed["absent"].clone()),
        (0.into(), 1.into()),
        "{stashed}"
    );
    assert_eq!(
        git_status(&alice),
        "",
        "nothing written back over the stash"
    );
    assert_eq!(contents(&alice).len(), 5);
    git(&alice.project, &["stash", "pop", "-q"]);
    alice.ok(&["files", "sync"]);
    assert_eq!(units(&alice), 5);

    // The same file restored from git, and a reset to main's commit.
    let day = memory_files(&alice.project).remove(0);
    git(&alice.project, &["checkout", "--", day.to_str().unwrap()]);
    alice.ok(&["context"]);
    assert_eq!(contents(&alice).len(), 5);
    git(&alice.project, &["reset", "-q", "--hard", "main"]);
    alice.ok(&["context"]);
    assert_eq!(git_status(&alice), "");
    assert_eq!(contents(&alice).len(), 5, "a reset deleted nothing");

    // The branch back where it was; then a unit cut by hand, which is an edit: its memory is
    // forgotten, and comes back on request.
    git(&alice.project, &["reset", "-q", "--hard", "ORIG_HEAD"]);
    // (The reset took the uncommitted unit with it; its memory is kept all the same.)
    assert_eq!(units(&alice), 4);
    let text = std::fs::read_to_string(&day).unwrap();
    let start = text.find("<!-- cairn:unit").unwrap();
    let next = text[start + 1..].find("<!-- cairn:unit").unwrap() + start + 1;
    std::fs::write(&day, format!("{}{}", &text[..start], &text[next..])).unwrap();
    let cut = sync(&alice);
    assert_eq!(cut["forgotten"], 1, "{cut}");
    assert_eq!(cut["forgets"][0]["cut_by"], "edit");
    assert_eq!(contents(&alice).len(), 4);
    let id = cut["forgets"][0]["id"].as_str().unwrap().to_string();
    let undone = alice.ok_json(&["forget", &id, "--undo"]);
    assert_eq!(undone["status"], "restored");
    assert_eq!(contents(&alice).len(), 5);
    assert_eq!(units(&alice), 4, "the unit is written again");
}

#[test]
fn a_deletion_a_teammate_committed_reaches_the_other_clone_and_an_old_checkout_brings_it_back() {
    let (_scratch, origin, alice) = shared_repository();
    alice.ok(&["store", "The build cache lives in S3"]);
    let old = alice.ok_json(&["store", "Use Node 18 for the web app"])["memory"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    git(&alice.project, &["add", "-A"]);
    git(&alice.project, &["commit", "-qm", "two memories"]);
    git(&alice.project, &["push", "-q", "origin", "HEAD:main"]);
    let bob = clone_of(&origin);
    assert_eq!(contents(&bob).len(), 2);

    alice.ok(&["forget", &old]);
    git(
        &alice.project,
        &["commit", "-qam", "forget the Node 18 rule"],
    );
    git(&alice.project, &["push", "-q", "origin", "HEAD:main"]);
    git(&bob.project, &["pull", "-q", "--no-edit", "origin", "main"]);
    let pulled = sync(&bob);
    assert_eq!(pulled["forgotten"], 1, "{pulled}");
    assert_eq!(pulled["forgets"][0]["cut_by"], "commit");
    assert_eq!(contents(&bob), ["The build cache lives in S3"]);

    // The commit before the deletion, checked out: the unit is back, and so is its memory.
    git(&bob.project, &["checkout", "-q", "HEAD~1"]);
    let back = sync(&bob);
    assert_eq!(back["restored"], 1, "{back}");
    assert_eq!(contents(&bob).len(), 2);
    assert_eq!(git_status(&bob), "");
}

#[test]
fn nothing_is_read_while_a_merge_is_under_way() {
    let (_scratch, _origin, alice) = shared_repository();
    std::fs::write(alice.project.join("README.md"), "first\n").unwrap();
    alice.ok(&["store", "Logs are kept for 30 days"]);
    git(&alice.project, &["add", "-A"]);
    git(&alice.project, &["commit", "-qm", "base"]);
    git(&alice.project, &["checkout", "-qb", "other"]);
    std::fs::write(alice.project.join("README.md"), "theirs\n").unwrap();
    git(&alice.project, &["commit", "-qam", "theirs"]);
    git(&alice.project, &["checkout", "-q", "main"]);
    std::fs::write(alice.project.join("README.md"), "ours\n").unwrap();
    git(&alice.project, &["commit", "-qam", "ours"]);
    let merge = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@cairn.invalid"])
        .args(["merge", "-q", "other"])
        .current_dir(&alice.project)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(!merge.status.success(), "the README conflicts");

    // Half-merged files: the unit cut meanwhile is not read as a deletion.
    let day = memory_files(&alice.project).remove(0);
    std::fs::write(&day, "").unwrap();
    let waiting = sync(&alice);
    assert!(
        waiting["warnings"]
            .to_string()
            .contains("middle of a merge"),
        "{waiting}"
    );
    assert_eq!(waiting["forgotten"], 0);
    assert_eq!(contents(&alice), ["Logs are kept for 30 days"]);
    // Once the merge is over, the files are read again: the emptied file is an edit now.
    git(&alice.project, &["merge", "--abort"]);
    let after = sync(&alice);
    assert_eq!(after["forgotten"], 1, "{after}");
    assert_eq!(after["forgets"][0]["cut_by"], "edit");
}
