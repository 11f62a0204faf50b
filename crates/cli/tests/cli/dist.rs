//! The release path, end to end on this machine: `scripts/dist` packs this build's `cairn`
//! (`--binary`: the release build it would otherwise run is the README's first command) into
//! an archive with its checksum, and `scripts/install.sh` installs it into a temporary prefix
//! from the file and from a loopback URL — and refuses a corrupted archive, a missing checksum
//! and a wrong one, installing nothing.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scripts")
        .join(name)
}

/// Runs `sh script args…` with a PATH that holds no cairn; its output.
fn sh(name: &str, args: &[&str]) -> Output {
    let path: Vec<_> = std::env::split_paths(&std::env::var_os("PATH").unwrap())
        .filter(|dir| !dir.join("cairn").exists())
        .collect();
    Command::new("sh")
        .arg(script(name))
        .args(args)
        .env("PATH", std::env::join_paths(path).unwrap())
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The archive and its checksum file that `scripts/dist` wrote into `out`.
fn dist(out: &Path) -> (PathBuf, PathBuf) {
    let packed = sh(
        "dist",
        &[
            "--binary",
            env!("CARGO_BIN_EXE_cairn"),
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert!(packed.status.success(), "{}", text(&packed.stderr));
    let printed = text(&packed.stdout);
    let lines: Vec<&str> = printed.lines().collect();
    assert_eq!(lines.len(), 2, "{printed}");
    (PathBuf::from(lines[0]), PathBuf::from(lines[1]))
}

/// Serves the files of `dir` over HTTP on loopback for `requests` requests; the base URL.
fn serve(dir: &Path, requests: usize) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let dir = dir.to_path_buf();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(requests) {
            let mut stream = stream.unwrap();
            let mut line = String::new();
            BufReader::new(&stream).read_line(&mut line).unwrap();
            let name = line
                .split(' ')
                .nth(1)
                .unwrap_or("/")
                .trim_start_matches('/');
            match std::fs::read(dir.join(name)) {
                Ok(body) => {
                    let head = format!(
                        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                        body.len()
                    );
                    stream.write_all(head.as_bytes()).unwrap();
                    stream.write_all(&body).unwrap();
                }
                Err(_) => stream
                    .write_all(
                        b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                    )
                    .unwrap(),
            }
        }
    });
    url
}

#[test]
fn the_dist_archive_installs_with_its_checksum_and_a_damaged_one_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (archive, sums) = dist(&tmp.path().join("dist"));
    let version = env!("CARGO_PKG_VERSION");
    let name = archive.file_name().unwrap().to_str().unwrap().to_string();
    assert!(
        name.starts_with(&format!("cairn-{version}-")) && name.ends_with(".tar.gz"),
        "{name}"
    );
    // The README's install line asks for this version.
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"))
            .unwrap();
    assert!(readme.contains(&format!("install.sh | sh -s -- --version {version}`")));
    // The checksum is sha256sum's line for the archive.
    let checked = Command::new("sha256sum")
        .arg("--check")
        .arg(sums.file_name().unwrap())
        .current_dir(archive.parent().unwrap())
        .output()
        .unwrap();
    assert!(checked.status.success(), "{}", text(&checked.stdout));
    // What the archive holds.
    let listed = Command::new("tar")
        .arg("-tzf")
        .arg(&archive)
        .output()
        .unwrap();
    let listed = text(&listed.stdout);
    let top = name.trim_end_matches(".tar.gz");
    for file in [
        "bin/cairn",
        "README.md",
        "LICENSE-MIT",
        "LICENSE-APACHE",
        "completions/cairn.bash",
        "completions/_cairn",
        "completions/cairn.fish",
        "completions/_cairn.ps1",
        "completions/cairn.elv",
        "man/man1/cairn.1",
        "man/man1/cairn-search.1",
    ] {
        assert!(
            listed.lines().any(|l| l == format!("{top}/{file}")),
            "{file} in {listed}"
        );
    }

    // Installed from the file: the binary runs, the pages and completions are in place, and
    // the installer says how to put the prefix on PATH.
    let prefix = tmp.path().join("prefix");
    let installed = sh(
        "install.sh",
        &[
            "--prefix",
            prefix.to_str().unwrap(),
            archive.to_str().unwrap(),
        ],
    );
    assert!(installed.status.success(), "{}", text(&installed.stderr));
    let said = text(&installed.stdout);
    assert!(
        said.contains("is not on your PATH") && said.contains("export PATH="),
        "{said}"
    );
    let ran = Command::new(prefix.join("bin/cairn"))
        .arg("--version")
        .output()
        .unwrap();
    assert_eq!(text(&ran.stdout).trim(), format!("cairn {version}"));
    for file in [
        "share/man/man1/cairn.1",
        "share/bash-completion/completions/cairn",
        "share/zsh/site-functions/_cairn",
        "share/fish/vendor_completions.d/cairn.fish",
    ] {
        assert!(prefix.join(file).is_file(), "{file}");
    }

    // Installed from a URL (the checksum fetched beside it).
    let url = serve(archive.parent().unwrap(), 2);
    let from_url = tmp.path().join("from-url");
    let fetched = sh(
        "install.sh",
        &[
            "--prefix",
            from_url.to_str().unwrap(),
            &format!("{url}/{name}"),
        ],
    );
    assert!(fetched.status.success(), "{}", text(&fetched.stderr));
    assert!(from_url.join("bin/cairn").is_file());

    // A corrupted archive beside its checksum is refused, and nothing is installed.
    let damaged_dir = tmp.path().join("damaged");
    std::fs::create_dir_all(&damaged_dir).unwrap();
    let damaged = damaged_dir.join(&name);
    let mut bytes = std::fs::read(&archive).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x40;
    std::fs::write(&damaged, bytes).unwrap();
    std::fs::copy(&sums, damaged_dir.join(sums.file_name().unwrap())).unwrap();
    let nowhere = tmp.path().join("nowhere");
    let refused = sh(
        "install.sh",
        &[
            "--prefix",
            nowhere.to_str().unwrap(),
            damaged.to_str().unwrap(),
        ],
    );
    assert_eq!(refused.status.code(), Some(1));
    let said = text(&refused.stderr);
    assert!(
        said.contains("checksum mismatch") && said.contains("nothing was installed"),
        "{said}"
    );
    assert!(!nowhere.exists(), "a refused archive installed something");

    // A wrong --sha256, and an archive without its checksum file, are refused the same way.
    let wrong = sh(
        "install.sh",
        &[
            "--prefix",
            nowhere.to_str().unwrap(),
            "--sha256",
            &"0".repeat(64),
            archive.to_str().unwrap(),
        ],
    );
    assert!(
        text(&wrong.stderr).contains("checksum mismatch"),
        "{}",
        text(&wrong.stderr)
    );
    std::fs::remove_file(damaged_dir.join(sums.file_name().unwrap())).unwrap();
    let unsummed = sh(
        "install.sh",
        &[
            "--prefix",
            nowhere.to_str().unwrap(),
            damaged.to_str().unwrap(),
        ],
    );
    assert_eq!(unsummed.status.code(), Some(1));
    assert!(
        text(&unsummed.stderr).contains("no checksum beside the archive"),
        "{}",
        text(&unsummed.stderr)
    );
    assert!(!nowhere.exists());
}
