//! Vision search: images found by what they say and by how they look.
//!
//! A [`VisionQuery`] has text, a picture, or both; it ranks *images* (not memories), each with
//! the memories that show it. Its signals:
//!
//! - **text** — the ordinary search pipeline (lexical, fuzzy, and semantic when a model is
//!   installed) over the memories that show an image, under the query's filter. A memory's
//!   searchable text holds its caption and the text read from its images, so a screenshot with
//!   no caption is found by the words it shows. An image ranks where its best memory ranks; the
//!   query words found in the image's own read text are reported ([`VisionHit::read_words`]).
//! - **look** — the query picture's [`LookHash`] against every hashed image in the filter's
//!   scope (the store keeps the nearest few hundred), by similarity (1 − differing bits / all
//!   bits); images below [`LOOK_FLOOR`] are not the same screen and are left out.
//! - **look_vector** — with a look model ([`LookModel`]), the query picture's look vector
//!   against every image's, by cosine: images that look alike (another terminal, the same
//!   dialog with other words), down to [`LOOK_VECTOR_FLOOR`].
//! - **clip** — with a CLIP model ([`ClipModel`]), the query's words through its text tower
//!   against every image's CLIP vector, by cosine: images that show what the words describe
//!   ("a red error banner"), whatever text they hold, down to the model's floor
//!   ([`MatchScale`]: [`CLIP_FLOOR`] for OpenAI's CLIP).
//!
//! A stored image as the query finds itself first (identical, by both look signals), then
//! its copies folded under it, then what looks like it — as agentmemory's clients expect. A
//! search by words runs text (and clip, with a CLIP model); a search by picture runs look and
//! look_vector.
//!
//! Each signal gives a hit a share from 0 to 1, and the hit's score is their sum: the text
//! signal's scores divided by its best (they are on the search's own scale), the look signals'
//! similarities counted from their floor (0) to identical (1) — absolute, so a weak look-alike
//! does not count as much as the same screen just because nothing nearer exists; clip's cosine
//! from the model's floor to its full match ([`CLIP_FULL`] for OpenAI's CLIP), at half weight.
//! An image that says the words and looks the part comes first. Then copies are folded: an image that is the same screen as a better one ([`SAME_SCREEN_BITS`])
//! is listed under it ([`VisionHit::copies`]), not as a hit of its own.

use std::collections::HashMap;

use rapidfuzz::distance::indel;
use serde::Serialize;

use crate::config::ImagesConfig;
use crate::error::{Error, Result};
use crate::id::MemoryId;
use crate::image::clip::{ClipModel, MatchScale};
use crate::image::input::ImageSource;
use crate::image::inspect::{decode_rgb, inspect};
use crate::image::look::{LookHash, SAME_SCREEN_BITS};
use crate::image::look_vector::LookModel;
use crate::image::model::{Image, ImageId};
use crate::image::store::{ImageSpace, PendingWork};
use crate::memory::filter::MemoryFilter;
use crate::search::snippet::matched_in;
use crate::search::{SearchMode, SearchRequest, Searcher};
use crate::store::Store;

/// Results a vision search returns unless asked otherwise.
pub const DEFAULT_LIMIT: usize = 10;

/// The most results one vision search returns.
pub const MAX_LIMIT: usize = 50;

/// How many memories the text signal ranks, so a page of images survives copies being folded
/// and several memories showing one image.
const TEXT_CANDIDATES: usize = 100;

/// How alike the read texts of two copies of one screen are at least (OCR of a rescaled copy
/// differs by a few characters).
const SAME_TEXT: f64 = 0.8;

/// How many of the nearest looks the look signal ranks (a page is at most [`MAX_LIMIT`], and
/// copies folded into a hit come from these too).
const LOOK_CANDIDATES: usize = 200;

/// Below this look similarity two images do not look alike (unrelated screenshots measure
/// about 0.65–0.7, a screenshot against a photo about 0.5).
pub const LOOK_FLOOR: f64 = 0.85;

/// Below this cosine of look vectors two images do not look alike (`cairn-bench look`: a copy
/// of a screen measures 0.79–1.0, median 0.99; two different drawn screenshots 0.55–1.0, median
/// 0.84; a screenshot against a photo 0.12–0.55, median 0.26).
pub const LOOK_VECTOR_FLOOR: f64 = 0.5;

/// What looking alike counts for, against the same screen (1): less, so a screen that merely
/// looks alike never outranks the same screen on the strength of its style.
const LOOK_VECTOR_WEIGHT: f64 = 0.5;

/// Below this cosine of a text and an image in CLIP's space, the image does not show what the
/// words say; at [`CLIP_FULL`] and above it clearly does ([`MatchScale::CLIP`], OpenAI's
/// CLIP; other models say their own, [`ClipModel::match_scale`]).
pub const CLIP_FLOOR: f64 = MatchScale::CLIP.floor;
pub const CLIP_FULL: f64 = MatchScale::CLIP.full;

/// What a CLIP match counts for against the words themselves (1): half, like looking alike.
const CLIP_WEIGHT: f64 = 0.5;

/// A vision search as adapters ask for it.
#[derive(Debug, Clone)]
pub struct VisionQuery {
    /// Words: what the image shows or what its memories say.
    pub text: Option<String>,
    /// The picture to find look-alikes of (its look hash).
    pub image: Option<QueryImage>,
    /// Which memories' images count (scope, tags, session …).
    pub filter: MemoryFilter,
    pub limit: usize,
    /// The text signal's mode; hybrid with a model, else lexical.
    pub mode: Option<SearchMode>,
}

/// The picture of a query: its id (to leave it out of its own results), its look hash and,
/// with a look model, its look vector.
#[derive(Debug, Clone)]
pub struct QueryImage {
    pub id: ImageId,
    pub look: LookHash,
    pub vector: Option<QueryVector>,
}

/// A query picture's look vector and the model that made it (only its vectors are compared).
#[derive(Debug, Clone)]
pub struct QueryVector {
    pub model: String,
    pub values: Vec<f32>,
}

/// Where a query picture comes from.
#[derive(Debug, Clone)]
pub enum QueryPicture {
    /// A stored image, by id.
    Stored(ImageId),
    /// Bytes a client sent or a file the CLI's user named.
    Source(ImageSource),
}

/// The signals of a vision search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VisionSignalKind {
    /// The memories that show the image matched the words (their text and the image's read text).
    Text,
    /// The image is the same screen as the query picture, or nearly (its look hash).
    Look,
    /// The image looks alike the query picture to the look model (its look vector).
    LookVector,
    /// The image shows what the words describe, to a CLIP model (its CLIP vector).
    Clip,
}

impl VisionSignalKind {
    /// The signal's name, as JSON spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            VisionSignalKind::Text => "text",
            VisionSignalKind::Look => "look",
            VisionSignalKind::LookVector => "look_vector",
            VisionSignalKind::Clip => "clip",
        }
    }
}

/// How one signal saw a hit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VisionSignal {
    pub signal: VisionSignalKind,
    /// 1-based rank within the signal.
    pub rank: usize,
    /// The signal's own score: the fused search score for text, the look hash's similarity
    /// (0–1), the look vectors' cosine, the cosine of the words and the image in CLIP's space.
    pub score: f64,
}

/// One image found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VisionHit {
    pub image: Image,
    /// The signals' shares summed (higher is better): the text score over the best text
    /// score, each look similarity counted from its floor (0) to identical (1).
    pub score: f64,
    pub signals: Vec<VisionSignal>,
    /// The query words (and their near spellings) found in the image's own read text (OCR).
    pub read_words: Vec<String>,
    /// The memories under the filter that show this image or one of its copies, oldest first.
    pub memories: Vec<MemoryId>,
    /// Other images that are the same screen (re-saved, rescaled, recoloured), folded into
    /// this hit.
    pub copies: Vec<ImageId>,
}

/// A vision search's results, best first.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct VisionResults {
    pub hits: Vec<VisionHit>,
    /// Things the user should know (which signal could not run, and why).
    pub notices: Vec<String>,
}

/// Vision search over one store, with the text search it reuses.
pub struct VisionSearch<'a> {
    store: &'a dyn Store,
    searcher: Searcher<'a>,
    now: jiff::Timestamp,
    /// Whether the text in images is read (an OCR model is installed).
    reading_text: bool,
    /// Whether images get look vectors (a look model is installed).
    looking_alike: bool,
    /// The CLIP model images get CLIP vectors of, when one is installed.
    clip_model: Option<&'a dyn ClipModel>,
}

/// An image as the signals see it while ranking.
struct Candidate {
    image: ImageId,
    signals: Vec<VisionSignal>,
    score: f64,
}

impl QueryImage {
    /// The query picture these bytes are: checked like a stored image (format, dimension caps)
    /// and decoded once for its look.
    pub fn of(bytes: &[u8], config: &ImagesConfig) -> Result<Self> {
        let seen = inspect(bytes, config)?;
        let pixels = decode_rgb(bytes, seen.format, config)?;
        Ok(QueryImage {
            id: ImageId::of(bytes),
            look: LookHash::of(&pixels),
            vector: None,
        })
    }

    /// The same picture with its look vector by `model`: `stored` when the store has one, else
    /// made from `bytes` now.
    pub fn with_vector(
        mut self,
        bytes: &[u8],
        config: &ImagesConfig,
        model: &dyn LookModel,
        stored: Option<Vec<f32>>,
    ) -> Result<Self> {
        let values = match stored.filter(|v| v.len() == model.dimensions()) {
            Some(values) => values,
            None => {
                let format = inspect(bytes, config)?.format;
                model.look_vector(&decode_rgb(bytes, format, config)?)?
            }
        };
        self.vector = Some(QueryVector {
            model: model.name().to_string(),
            values,
        });
        Ok(self)
    }
}

impl<'a> VisionSearch<'a> {
    pub fn new(store: &'a dyn Store, searcher: Searcher<'a>, now: jiff::Timestamp) -> Self {
        VisionSearch {
            store,
            searcher,
            now,
            reading_text: true,
            looking_alike: true,
            clip_model: None,
        }
    }

    /// Runs the clip signal for words with `model`, when given.
    pub fn with_clip_model(mut self, model: Option<&'a dyn ClipModel>) -> Self {
        self.clip_model = model;
        self
    }

    /// Says whether images get look vectors; when they do not, a search by picture says that
    /// only copies of one screen are found.
    pub fn looking_alike(mut self, looking: bool) -> Self {
        self.looking_alike = looking;
        self
    }

    /// Says whether the text in images is read; when it is not, a search by words says so.
    pub fn reading_text(mut self, reading: bool) -> Self {
        self.reading_text = reading;
        self
    }

    /// Runs the query's signals, fuses them, folds copies, and returns the first `limit` hits.
    pub fn search(&self, query: &VisionQuery) -> Result<VisionResults> {
        let text = query
            .text
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty());
        if text.is_none() && query.image.is_none() {
            return Err(Error::invalid(
                "query_text",
                "give words to look for, an image to find look-alikes of, or both",
            ));
        }
        if query.limit == 0 || query.limit > MAX_LIMIT {
            return Err(Error::invalid(
                "top_k",
                format!("{} is outside 1..={MAX_LIMIT}", query.limit),
            ));
        }
        let clip_scale = self
            .clip_model
            .map_or(MatchScale::CLIP, |model| model.match_scale());
        let filter = MemoryFilter {
            with_images: true,
            ..query.filter.clone()
        };
        let mut candidates: Vec<Candidate> = Vec::new();
        let mut matched_words = Vec::new();
        let mut notices = Vec::new();
        if let Some(text) = text {
            if !self.reading_text {
                notices.push(
                    "the text in images is not read, so only their memories' words were \
                     searched (cairn model status says why: install the OCR model with \
                     cairn model install ocr, or turn images.ocr on)"
                        .into(),
                );
            }
            let mut request = SearchRequest::new(text, filter.clone(), TEXT_CANDIDATES);
            request.mode = query.mode;
            let results = self.searcher.search(&request)?;
            matched_words = results.matched_words;
            notices.extend(results.notices);
            let order: Vec<MemoryId> = results.hits.iter().map(|h| h.memory.id).collect();
            let scores: HashMap<MemoryId, f64> = results
                .hits
                .iter()
                .map(|h| (h.memory.id, h.score))
                .collect();
            let mut shown = self.store.memory_images(&order)?;
            shown.sort_by_key(|s| order.iter().position(|id| *id == s.memory));
            let mut rank = 0;
            for s in shown {
                if candidates.iter().any(|c| c.image == s.image.id) {
                    continue;
                }
                rank += 1;
                candidates.push(Candidate {
                    image: s.image.id,
                    signals: vec![VisionSignal {
                        signal: VisionSignalKind::Text,
                        rank,
                        score: scores[&s.memory],
                    }],
                    score: 0.0,
                });
            }
            // A CLIP model that cannot run costs the clip signal, not the search.
            let clip = self
                .clip_model
                .and_then(|model| match model.text_vector(text) {
                    Ok(vector) => Some((model, vector)),
                    Err(error) => {
                        notices.push(format!(
                            "images were not searched by meaning: the CLIP model failed ({error})"
                        ));
                        None
                    }
                });
            if let Some((model, vector)) = clip {
                let nearest = self.store.nearest_image_vectors(
                    ImageSpace::Clip,
                    &vector,
                    model.name(),
                    LOOK_CANDIDATES,
                    &filter,
                    self.now,
                )?;
                let floor = clip_scale.floor;
                let shown = nearest
                    .into_iter()
                    .filter(|(_, cosine)| f64::from(*cosine) >= floor);
                for (rank, (id, cosine)) in shown.enumerate() {
                    add_signal(
                        &mut candidates,
                        id,
                        VisionSignalKind::Clip,
                        rank,
                        f64::from(cosine),
                    );
                }
            }
        }
        let mut looks: HashMap<ImageId, LookHash> = HashMap::new();
        if let Some(picture) = &query.image {
            let nearest =
                self.store
                    .nearest_looks(&picture.look, LOOK_CANDIDATES + 1, &filter, self.now)?;
            if nearest.is_empty() {
                let waiting = self.store.image_totals(&PendingWork::default())?.unhashed;
                if waiting > 0 {
                    notices.push(format!(
                        "{waiting} stored image(s) have not been looked at yet; their looks are \
                         hashed after the write (by the command that stored them, the server's \
                         worker, or cairn reindex --images)"
                    ));
                }
            }
            let alike = nearest
                .into_iter()
                .map(|(id, look)| (id, look, look.similarity(&picture.look)))
                .filter(|(_, _, similarity)| *similarity >= LOOK_FLOOR);
            for (rank, (id, look, similarity)) in alike.enumerate() {
                looks.insert(id.clone(), look);
                add_signal(
                    &mut candidates,
                    id,
                    VisionSignalKind::Look,
                    rank,
                    similarity,
                );
            }
            match &picture.vector {
                Some(vector) => {
                    let nearest = self.store.nearest_image_vectors(
                        ImageSpace::Look,
                        &vector.values,
                        &vector.model,
                        LOOK_CANDIDATES + 1,
                        &filter,
                        self.now,
                    )?;
                    let alike = nearest
                        .into_iter()
                        .filter(|(_, cosine)| f64::from(*cosine) >= LOOK_VECTOR_FLOOR);
                    for (rank, (id, cosine)) in alike.enumerate() {
                        let kind = VisionSignalKind::LookVector;
                        add_signal(&mut candidates, id, kind, rank, f64::from(cosine));
                    }
                }
                None if !self.looking_alike => notices.push(
                    "only copies of this screen were looked for: images that merely look alike \
                     need the look model (cairn model status says why: install it with \
                     cairn model install look, or turn images.look on)"
                        .into(),
                ),
                None => {}
            }
        }
        let unknown: Vec<ImageId> = candidates
            .iter()
            .filter(|c| !looks.contains_key(&c.image))
            .map(|c| c.image.clone())
            .collect();
        looks.extend(self.store.looks_of(&unknown)?);
        fuse(&mut candidates, clip_scale);
        if let Some(picture) = &query.image {
            // Among equals (its copies score as high), the query picture itself leads, so the
            // copies fold under it.
            if let Some(at) = candidates.iter().position(|c| c.image == picture.id)
                && candidates[..at]
                    .iter()
                    .all(|c| c.score <= candidates[at].score)
            {
                let own = candidates.remove(at);
                candidates.insert(0, own);
            }
        }
        self.hits(candidates, &looks, &matched_words, &filter, query.limit)
            .map(|hits| VisionResults { hits, notices })
    }

    /// Folds copies into the better hit, loads the images and their memories, cuts the page.
    fn hits(
        &self,
        candidates: Vec<Candidate>,
        looks: &HashMap<ImageId, LookHash>,
        matched_words: &[String],
        filter: &MemoryFilter,
        limit: usize,
    ) -> Result<Vec<VisionHit>> {
        let mut records: HashMap<ImageId, Option<Image>> = HashMap::new();
        let mut kept: Vec<(Candidate, Vec<ImageId>)> = Vec::new();
        for candidate in candidates {
            let mut original = None;
            for (at, (k, _)) in kept.iter().enumerate() {
                if self.same_screen(&mut records, looks, &k.image, &candidate.image)? {
                    original = Some(at);
                    break;
                }
            }
            match original {
                Some(original) => kept[original].1.push(candidate.image),
                None if kept.len() < limit => kept.push((candidate, Vec::new())),
                None => {}
            }
        }
        let everything: Vec<ImageId> = kept
            .iter()
            .flat_map(|(c, copies)| std::iter::once(c.image.clone()).chain(copies.iter().cloned()))
            .collect();
        let mut showing = self.store.image_memories(&everything, filter, self.now)?;
        let mut hits = Vec::new();
        for (candidate, copies) in kept {
            self.load(&mut records, &candidate.image)?;
            let Some(image) = records[&candidate.image].clone() else {
                continue; // let go meanwhile
            };
            let mut memories: Vec<MemoryId> = Vec::new();
            showing.retain(|(id, memory)| {
                let ours = *id == candidate.image || copies.contains(id);
                if ours && !memories.contains(memory) {
                    memories.push(*memory);
                }
                !ours
            });
            let read_words = image
                .text
                .as_deref()
                .map(|text| matched_in(text, matched_words))
                .unwrap_or_default();
            hits.push(VisionHit {
                image,
                score: candidate.score,
                signals: candidate.signals,
                read_words,
                memories,
                copies,
            });
        }
        Ok(hits)
    }
}

impl VisionSearch<'_> {
    /// Whether `b` is a copy of `a`: their looks at most [`SAME_SCREEN_BITS`] apart and, when
    /// both were read, their texts agreeing ([`same_text`]).
    fn same_screen(
        &self,
        records: &mut HashMap<ImageId, Option<Image>>,
        looks: &HashMap<ImageId, LookHash>,
        a: &ImageId,
        b: &ImageId,
    ) -> Result<bool> {
        let looks_alike = match (looks.get(a), looks.get(b)) {
            (Some(a), Some(b)) => a.distance(b) <= SAME_SCREEN_BITS,
            _ => false,
        };
        if !looks_alike {
            return Ok(false);
        }
        self.load(records, a)?;
        self.load(records, b)?;
        Ok(same_text(records[a].as_ref(), records[b].as_ref()))
    }

    /// Reads the image's record into `records`, once per search.
    fn load(&self, records: &mut HashMap<ImageId, Option<Image>>, id: &ImageId) -> Result<()> {
        if !records.contains_key(id) {
            records.insert(id.clone(), self.store.image(id)?);
        }
        Ok(())
    }
}

/// Whether two images that look alike also say the same: when both were read, their texts
/// must agree at [`SAME_TEXT`] or more (normalised Indel similarity, case and spacing aside),
/// so two terminals of one layout showing different errors are not one screen.
fn same_text(a: Option<&Image>, b: Option<&Image>) -> bool {
    let squeeze = |text: &str| {
        text.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    match (
        a.and_then(|a| a.text.as_deref()),
        b.and_then(|b| b.text.as_deref()),
    ) {
        (Some(a), Some(b)) => {
            indel::normalized_similarity(squeeze(a).chars(), squeeze(b).chars()) >= SAME_TEXT
        }
        _ => true,
    }
}

/// What a signal adds to a hit's score, 0–1. The text signal's scores are the search's own
/// scale, so they count relative to the best (`best_text`). The look signals' are absolute
/// similarities, counted from their floor (0) to identical (1): a weak look-alike does not
/// count as much as the same screen just because nothing nearer exists. The clip signal's
/// cosines count on the model's own scale (`clip_scale`).
fn share(signal: &VisionSignal, best_text: f64, clip_scale: MatchScale) -> f64 {
    let from_floor = |floor: f64| ((signal.score - floor) / (1.0 - floor)).clamp(0.0, 1.0);
    match signal.signal {
        VisionSignalKind::Text => signal.score / best_text,
        VisionSignalKind::Look => from_floor(LOOK_FLOOR),
        VisionSignalKind::LookVector => LOOK_VECTOR_WEIGHT * from_floor(LOOK_VECTOR_FLOOR),
        VisionSignalKind::Clip => CLIP_WEIGHT * clip_scale.share(signal.score),
    }
}

/// Adds a signal's view of image `id` (0-based `rank`) to its candidate, making one if needed.
fn add_signal(
    candidates: &mut Vec<Candidate>,
    id: ImageId,
    kind: VisionSignalKind,
    rank: usize,
    score: f64,
) {
    let signal = VisionSignal {
        signal: kind,
        rank: rank + 1,
        score,
    };
    match candidates.iter_mut().find(|c| c.image == id) {
        Some(candidate) => candidate.signals.push(signal),
        None => candidates.push(Candidate {
            image: id,
            signals: vec![signal],
            score: 0.0,
        }),
    }
}

/// Scores each candidate by its signals' shares (0–1 each, [`share`]), summed, and orders them
/// best first (a stable sort: ties keep the text signal's order, then the look signals').
fn fuse(candidates: &mut [Candidate], clip_scale: MatchScale) {
    let mut best_text = f64::MIN_POSITIVE;
    for signal in candidates.iter().flat_map(|c| &c.signals) {
        if signal.signal == VisionSignalKind::Text {
            best_text = best_text.max(signal.score);
        }
    }
    for candidate in candidates.iter_mut() {
        candidate.score = candidate
            .signals
            .iter()
            .map(|s| share(s, best_text, clip_scale))
            .sum();
    }
    candidates.sort_by(|a, b| b.score.total_cmp(&a.score));
}
