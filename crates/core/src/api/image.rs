//! Images at the front door: a stored image's thumbnail and totals, a memory stored with an
//! image file, vision search — its JSON input (`memory_vision_search`,
//! `POST /v1/vision/search`), its query picture, and the document each hit becomes — and one
//! image looked at now (`memory_vision_embed`, `POST /v1/vision/embed`).
//!
//! A network client names a query picture by a stored image's id (or a path inside cairn's
//! image store, which resolves to one) or sends it inline; it can never make cairn read a file
//! elsewhere. The CLI may name any file its user can read (`Api::vision_search_with_file`).
//! `top_k` is forgiving: a number out of range is clamped to 1–50, anything that is not a
//! number means the default (10).

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::domains::Domains;
use super::{ImageDocument, StoreInput};
use crate::access::Access;
use crate::api::memory::FilterInput;
use crate::api::{Api, Caller};
use crate::audit::{AuditAction, Change};
use crate::error::{Error, Result};
use crate::id::MemoryId;
use crate::image::search::{DEFAULT_LIMIT, MAX_LIMIT};
use crate::image::{ImageId, ImageSource, QueryPicture, VisionHit, VisionQuery, VisionResults};
use crate::image::{ImageSpace, ImageTotals, QueryImage, ReadReport, VisionSearch};
use crate::memory::{Memory, WriteOutcome};
use crate::scope::Scope;
use crate::search::SearchMode;

/// Input of `memory_vision_search` and `POST /v1/vision/search`: words, a picture, or both.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VisionSearchInput {
    /// Words the image shows (its text is read by OCR) or its memories say.
    #[serde(default, alias = "queryText")]
    pub query_text: Option<String>,
    /// A stored image to find look-alikes of: its id (64 hex digits, as results give it) or a
    /// path inside cairn's image store.
    #[serde(default, alias = "queryImageRef", alias = "query_image_ref")]
    pub image_ref: Option<String>,
    /// An image to find look-alikes of, sent inline: a data URL or raw base64.
    #[serde(default, alias = "queryImageBase64", alias = "query_image_base64")]
    pub image_base64: Option<String>,
    /// Images wanted: 1–50, default 10 (out of range is clamped; not a number means 10).
    #[serde(default, alias = "topK")]
    #[schemars(with = "Option<u32>")]
    pub top_k: Option<serde_json::Value>,
    /// How the words are matched; hybrid when a model is installed, else lexical.
    #[serde(default)]
    pub mode: Option<SearchMode>,
    #[serde(default, flatten)]
    pub filter: FilterInput,
}

/// Input of `memory_vision_embed` and `POST /v1/vision/embed` (agentmemory's
/// `/agentmemory/vision-embed`): the stored image to look at now.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VisionEmbedInput {
    /// The stored image: its id (64 hex digits, as results give it) or a path inside cairn's
    /// image store.
    #[serde(alias = "imageRef")]
    pub image_ref: String,
    /// The session the image came from. agentmemory's clients send it; cairn finds the image
    /// by its id alone, so it is taken and left.
    #[serde(default, alias = "sessionId")]
    pub session_id: Option<String>,
    /// The observation the image came from: taken and left, as `session_id`.
    #[serde(default, alias = "observationId")]
    pub observation_id: Option<String>,
}

/// What looking at one image did, and the image as stored after it.
#[derive(Debug, Clone, Serialize)]
pub struct ImageLooked {
    pub image: crate::image::Image,
    /// The models it ran with and what each made: `hashed` its look, `read` its text (when it
    /// had none), `look_vectors`/`clip_vectors` its vectors (when it had none of that model).
    pub report: ReadReport,
}

/// `top_k` as asked, clamped to 1..=[`MAX_LIMIT`]; [`DEFAULT_LIMIT`] when it is not a number.
pub fn top_k(value: Option<&serde_json::Value>) -> usize {
    let number = match value {
        Some(serde_json::Value::Number(n)) => n.as_f64(),
        Some(serde_json::Value::String(s)) => s.trim().parse::<f64>().ok(),
        _ => None,
    };
    match number {
        Some(n) if n.is_finite() => n.floor().clamp(1.0, MAX_LIMIT as f64) as usize,
        _ => DEFAULT_LIMIT,
    }
}

impl VisionSearchInput {
    /// The query, with the picture a network client named: `file` is the CLI's alone.
    pub(crate) fn into_query(
        self,
        api: &Api,
        caller: &Caller,
        file: Option<&Path>,
    ) -> Result<VisionQuery> {
        let given = [
            self.image_ref.is_some(),
            self.image_base64.is_some(),
            file.is_some(),
        ];
        if given.iter().filter(|g| **g).count() > 1 {
            return Err(Error::invalid(
                "image_ref",
                "give one query image: image_ref or image_base64, not both",
            ));
        }
        let picture = match (self.image_ref, self.image_base64, file) {
            (Some(reference), _, _) => {
                Some(QueryPicture::Stored(stored(&api.domains, &reference)?))
            }
            (_, Some(inline), _) => Some(QueryPicture::Source(ImageSource::Inline(inline))),
            (_, _, Some(file)) => Some(QueryPicture::Source(ImageSource::File(file.to_path_buf()))),
            _ => None,
        };
        let image = picture.map(|p| api.query_image(caller, &p)).transpose()?;
        Ok(VisionQuery {
            text: self.query_text,
            image,
            filter: self.filter.into_filter(&api.domains, caller)?,
            limit: top_k(self.top_k.as_ref()),
            mode: self.mode,
        })
    }
}

/// The stored image a reference names: an id, or a path inside the image store (anything
/// else — `../`, another absolute path, a link out of the store — is refused).
fn stored(domains: &Domains, reference: &str) -> Result<ImageId> {
    if let Ok(id) = ImageId::parse(reference.trim()) {
        return Ok(id);
    }
    match domains.image_dir.as_ref() {
        Some(dir) => dir.managed_image(Path::new(reference)),
        None => Err(Error::invalid("image_ref", "this store keeps no images")),
    }
}

/// A vision hit as adapters show it: the hit, its file and its thumbnail (made on first ask).
#[derive(Debug, Clone, Serialize)]
pub struct VisionHitDocument {
    #[serde(flatten)]
    pub hit: VisionHit,
    pub file: Option<PathBuf>,
    pub thumbnail: Option<PathBuf>,
}

/// A vision search's answer: the hits as documents, and what the user should know.
#[derive(Debug, Clone, Serialize)]
pub struct VisionFound {
    pub hits: Vec<VisionHitDocument>,
    pub notices: Vec<String>,
}

impl VisionFound {
    /// The results with each image's file and thumbnail (a thumbnail that cannot be made is
    /// left out, and logged).
    pub(crate) fn of(results: VisionResults, domains: &Domains) -> Self {
        let dir = domains.image_dir.as_ref();
        let hits = results
            .hits
            .into_iter()
            .map(|hit| {
                let file = dir.map(|d| d.path(&hit.image.id, hit.image.format));
                let thumbnail = dir.and_then(|d| {
                    d.thumbnail(&hit.image, &domains.config.images)
                        .inspect_err(|error| {
                            tracing::warn!(image = %hit.image.id, %error, "no thumbnail");
                        })
                        .ok()
                });
                VisionHitDocument {
                    hit,
                    file,
                    thumbnail,
                }
            })
            .collect();
        VisionFound {
            hits,
            notices: results.notices,
        }
    }
}

impl Api {
    /// How many images the store holds, and where their files are (when on this machine).
    pub fn image_totals(&self) -> Result<(ImageTotals, Option<PathBuf>)> {
        let dir = self
            .domains
            .image_dir
            .as_ref()
            .map(|d| d.root().to_path_buf());
        Ok((self.domains.image_totals()?, dir))
    }

    /// The images these memories show, each with its memory and file.
    pub fn images_of(&self, caller: &Caller, memories: &[Memory]) -> Result<Vec<ImageDocument>> {
        for memory in memories {
            caller.access.read(&memory.scope, "id")?;
        }
        let ids: Vec<MemoryId> = memories.iter().map(|m| m.id).collect();
        let dir = self.domains.image_dir.as_ref();
        Ok(self
            .domains
            .store
            .memory_images(&ids)?
            .into_iter()
            .map(|shown| ImageDocument {
                file: dir.map(|d| d.path(&shown.image.id, shown.image.format)),
                memory: shown.memory,
                image: shown.image,
            })
            .collect())
    }

    /// A stored image's thumbnail for the viewer: a PNG at most
    /// [`THUMBNAIL_SIDE`](crate::image::files::THUMBNAIL_SIDE) pixels a side, made on first ask.
    /// `id` is the image's id as results give it (64 hex digits).
    pub fn thumbnail(&self, caller: &Caller, id: &str) -> Result<Vec<u8>> {
        let id = ImageId::parse(id.trim())?;
        self.readable_image(caller, &id)?;
        let Some(dir) = self.domains.image_dir.as_ref() else {
            return Err(Error::invalid("image", "this store keeps no images"));
        };
        let Some(image) = self.domains.store.image(&id)? else {
            return Err(Error::Missing {
                field: "image".into(),
                message: format!("no stored image has the id {id}"),
            });
        };
        let path = dir.thumbnail(&image, &self.domains.config.images)?;
        std::fs::read(&path)
            .map_err(|error| Error::storage(format!("read {}", path.display()), error))
    }

    /// Looks at one stored image now instead of waiting for the background pass: hashes its
    /// look, and with the models installed reads its text and makes its look and CLIP vectors
    /// where it lacks them (`cairn vision embed`, `memory_vision_embed`, `POST
    /// /v1/vision/embed`). The caller must be able to write where a memory shows the image; the
    /// memories that show it take its text into their searchable text, as after any reading.
    pub fn embed_image(&self, caller: &Caller, input: VisionEmbedInput) -> Result<ImageLooked> {
        let id = stored(&self.domains, &input.image_ref)?;
        self.writable_image(caller, &id)?;
        let (image, report) = self.domains.reading().read_one(&id)?;
        let change = Change::new(AuditAction::ImageEmbed, caller.access.project())
            .of(&id)
            .saying(format!(
                "read {}, hashed {}, look vectors {}, clip vectors {}",
                report.read, report.hashed, report.look_vectors, report.clip_vectors
            ));
        self.audited(caller, change);
        self.written(report.with_text > 0);
        Ok(ImageLooked { image, report })
    }

    /// `store` with an image read from a file the user named: the CLI's alone (MCP and HTTP
    /// clients send images inline and can never make cairn read a path).
    pub fn store_with_image_file(
        &self,
        caller: &Caller,
        input: StoreInput,
        file: &Path,
    ) -> Result<WriteOutcome> {
        if input.image.is_some() {
            return Err(Error::invalid(
                "image",
                "give an image file or inline data, not both",
            ));
        }
        let new = input.into_new_memory(&self.domains, caller)?;
        self.write(caller, new, Some(&ImageSource::File(file.to_path_buf())))
    }

    /// Images found by the words they show and by how they look, as a client asks (a query
    /// picture inline or already stored, never a path outside the image store).
    pub fn vision_search(&self, caller: &Caller, input: VisionSearchInput) -> Result<VisionFound> {
        self.vision(caller, input, None)
    }

    /// `vision_search` with a query picture read from a file the user named: the CLI's alone.
    pub fn vision_search_with_file(
        &self,
        caller: &Caller,
        input: VisionSearchInput,
        file: &Path,
    ) -> Result<VisionFound> {
        self.vision(caller, input, Some(file))
    }

    fn vision(
        &self,
        caller: &Caller,
        input: VisionSearchInput,
        file: Option<&Path>,
    ) -> Result<VisionFound> {
        let query = input.into_query(self, caller, file)?;
        let results = self.vision_query(caller, &query)?;
        Ok(VisionFound::of(results, &self.domains))
    }

    /// The query picture of a vision search: a stored image the caller may see (its file read
    /// from the image directory), or bytes a caller sent or named; with a look model, how it
    /// looks as a vector (a stored image's own, when it has one).
    pub fn query_image(&self, caller: &Caller, picture: &QueryPicture) -> Result<QueryImage> {
        let domains = &self.domains;
        let bytes = match picture {
            QueryPicture::Stored(id) => {
                self.readable_image(caller, id)?;
                let missing =
                    || Error::invalid("image_ref", format!("no stored image has id {id}"));
                let dir = domains.image_dir.as_ref().ok_or_else(missing)?;
                let image = domains.store.image(id)?.ok_or_else(missing)?;
                dir.read(&image)?
            }
            QueryPicture::Source(source) => source.read(&domains.config.images)?.bytes,
        };
        let query = QueryImage::of(&bytes, &domains.config.images)?;
        let Some(model) = domains.look_model.as_deref() else {
            return Ok(query);
        };
        let stored = domains
            .store
            .image_vectors_of(
                ImageSpace::Look,
                std::slice::from_ref(&query.id),
                model.name(),
            )?
            .pop()
            .map(|(_, vector)| vector);
        query.with_vector(&bytes, &domains.config.images, model, stored)
    }

    /// Images ranked by what they say and how they look, the query as its domain takes it
    /// (its picture read by [`Api::query_image`]), in the scopes the caller may read.
    pub fn vision_query(&self, caller: &Caller, query: &VisionQuery) -> Result<VisionResults> {
        let mut query = query.clone();
        caller.access.narrow(&mut query.filter.scope)?;
        let domains = &self.domains;
        VisionSearch::new(
            domains.store.as_ref(),
            domains.searcher(),
            domains.clock.timestamp(),
        )
        .reading_text(domains.reader.is_some())
        .looking_alike(domains.look_model.is_some())
        .with_clip_model(domains.clip_model.as_deref())
        .search(&query)
    }

    /// Checks that the caller may see image `id`: a memory it may read shows it.
    pub(super) fn readable_image(&self, caller: &Caller, id: &ImageId) -> Result<()> {
        if caller.access == Access::Full {
            return Ok(());
        }
        let scopes = self.image_scopes(id)?;
        if scopes.iter().any(|scope| caller.access.can_read(scope)) {
            return Ok(());
        }
        match scopes.first() {
            Some(scope) => caller.access.read(scope, "id"),
            None => Ok(()),
        }
    }

    /// The caller may write where a memory shows image `id`; an image no memory shows, only a
    /// caller with the whole store.
    fn writable_image(&self, caller: &Caller, id: &ImageId) -> Result<()> {
        if caller.access == Access::Full {
            return Ok(());
        }
        let mut refused = None;
        for scope in self.image_scopes(id)? {
            match caller.access.write(&scope, "image_ref") {
                Ok(()) => return Ok(()),
                Err(error) => refused = refused.or(Some(error)),
            }
        }
        match refused {
            Some(error) => Err(error),
            None => caller
                .access
                .whole_store("looking at an image no memory shows"),
        }
    }

    /// The scopes of the memories that show image `id`.
    fn image_scopes(&self, id: &ImageId) -> Result<Vec<Scope>> {
        let referencing = self.domains.store.image_references(id)?;
        Ok(self
            .domains
            .store
            .get(&referencing)?
            .into_iter()
            .map(|memory| memory.scope)
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn agentmemorys_field_names_read_as_cairns() {
        let input: VisionSearchInput = serde_json::from_value(json!({
            "queryText": "connection refused",
            "queryImageRef": "abc",
            "topK": 3,
            "sessionId": "s-1"
        }))
        .unwrap();
        assert_eq!(input.query_text.as_deref(), Some("connection refused"));
        assert_eq!(input.image_ref.as_deref(), Some("abc"));
        assert_eq!(input.top_k, Some(json!(3)));
        assert_eq!(input.filter.session.as_deref(), Some("s-1"));
        let inline: VisionSearchInput =
            serde_json::from_value(json!({"queryImageBase64": "iVBOR"})).unwrap();
        assert_eq!(inline.image_base64.as_deref(), Some("iVBOR"));
        // Unknown names are still refused, and the schema shows only cairn's own.
        assert!(serde_json::from_value::<VisionSearchInput>(json!({"queryTxt": "x"})).is_err());
        let schema = serde_json::to_string(&crate::api::schema::<VisionSearchInput>()).unwrap();
        for theirs in ["queryText", "topK", "queryImage", "sessionId"] {
            assert!(!schema.contains(theirs), "{theirs} in {schema}");
        }
        // Vision embed: agentmemory's body reads as cairn's, its schema shows cairn's names.
        let embed: VisionEmbedInput = serde_json::from_value(
            json!({"imageRef": "abc", "sessionId": "s-1", "observationId": "o-1"}),
        )
        .unwrap();
        assert_eq!(
            (embed.image_ref.as_str(), embed.session_id.as_deref()),
            ("abc", Some("s-1"))
        );
        assert!(serde_json::from_value::<VisionEmbedInput>(json!({"sessionId": "s"})).is_err());
        let schema = serde_json::to_string(&crate::api::schema::<VisionEmbedInput>()).unwrap();
        for theirs in ["imageRef", "sessionId", "observationId"] {
            assert!(!schema.contains(theirs), "{theirs} in {schema}");
        }
    }

    #[test]
    fn top_k_is_clamped_and_anything_else_means_the_default() {
        let cases = [
            (Some(json!(5)), 5),
            (Some(json!("7")), 7),
            (Some(json!(3.7)), 3),
            (Some(json!(0)), 1),
            (Some(json!(-4)), 1),
            (Some(json!(500)), MAX_LIMIT),
            (Some(json!("many")), DEFAULT_LIMIT),
            (Some(json!(null)), DEFAULT_LIMIT),
            (Some(json!([3])), DEFAULT_LIMIT),
            (None, DEFAULT_LIMIT),
        ];
        for (given, expected) in cases {
            assert_eq!(top_k(given.as_ref()), expected, "{given:?}");
        }
    }
}
