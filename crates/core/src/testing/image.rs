//! Behaviours of images kept with memories: stored once by content, referenced by memories,
//! let go with their last reference, held to a quota, refused whole when bad.

use super::local;
use std::io::Cursor;
use std::path::{Path, PathBuf};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

use super::*;
use crate::id::MemoryId;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::image::look_vector::normalised;
use crate::image::{
    ClipModel, Image, ImageDir, ImageFormat, ImageId, ImageSource, ImageSpace, ImageTotals,
    LookModel, MatchScale, PendingWork,
};
use crate::memory::WriteOutcome;
use crate::search::SearchRequest;
use crate::store::in_transaction;

/// A harness whose service keeps images in a fresh temporary directory.
pub struct ImageHarness {
    pub h: Harness,
    pub dir: tempfile::TempDir,
}

impl ImageHarness {
    pub fn new(factory: StoreFactory, config: &Config) -> Self {
        Self::with_look_model(factory, config, None)
    }

    /// A harness whose service makes look vectors with `model`.
    pub fn with_look_model(
        factory: StoreFactory,
        config: &Config,
        model: Option<Arc<dyn LookModel>>,
    ) -> Self {
        Self::with_models(factory, config, model, None)
    }

    /// A harness whose service makes look vectors with `look` and CLIP vectors with `clip`.
    pub fn with_models(
        factory: StoreFactory,
        config: &Config,
        look: Option<Arc<dyn LookModel>>,
        clip: Option<Arc<dyn ClipModel>>,
    ) -> Self {
        let dir = tempfile::tempdir().expect("temporary directory");
        let (clock, handle) = Clock::manual(start_time());
        let parts = ApiParts {
            clock,
            images: Some(ImageDir::new(dir.path().join("images"))),
            look_model: look,
            clip_model: clip,
            ..ApiParts::new(factory())
        };
        ImageHarness {
            h: Harness {
                api: Api::open(parts, config),
                clock: handle,
            },
            dir,
        }
    }

    fn store(&self, text: &str, png: &[u8]) -> crate::Result<WriteOutcome> {
        let new = NewMemory::new(text, project("acme"), Source::Mcp);
        let inline = format!("data:image/png;base64,{}", STANDARD.encode(png));
        self.h
            .api
            .write(&local(), new, Some(&ImageSource::Inline(inline)))
    }

    /// Every file under the image directory (thumbnails included), sorted.
    fn files(&self) -> Vec<PathBuf> {
        let mut found = files_under(&self.dir.path().join("images"));
        found.sort();
        found
    }
}

/// Every file under `dir`, at any depth (none when it does not exist).
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(files_under(&path));
        } else {
            found.push(path);
        }
    }
    found
}

/// A PNG of `width` × `height` pixels in a pattern seeded by `seed` (different seeds, different
/// bytes).
pub fn test_png(width: u32, height: u32, seed: u8) -> Vec<u8> {
    let picture = ::image::RgbaImage::from_fn(width, height, |x, y| {
        ::image::Rgba([
            (x as u8).wrapping_mul(seed),
            (y as u8).wrapping_add(seed),
            seed,
            255,
        ])
    });
    encode_png(&picture.into())
}

/// `picture` as PNG bytes.
fn encode_png(picture: &::image::DynamicImage) -> Vec<u8> {
    let mut bytes = Vec::new();
    picture
        .write_to(&mut Cursor::new(&mut bytes), ::image::ImageFormat::Png)
        .expect("encode a PNG");
    bytes
}

pub fn an_image_is_stored_once_by_content_and_shown_by_every_memory_that_uses_it(
    factory: StoreFactory,
) {
    let t = ImageHarness::new(factory, &Config::default());
    let png = test_png(48, 20, 7);
    let first = t
        .store("login page renders blank after deploy", &png)
        .unwrap();
    assert_eq!(first.status, WriteStatus::Created);
    let image = first.image.clone().expect("the outcome names the image");
    assert_eq!(image.id, ImageId::of(&png));
    assert_eq!(
        (image.width, image.height, image.bytes),
        (48, 20, png.len() as u64)
    );
    t.h.clock.advance(Span::new().minutes(1));
    let second = t
        .store("the blank page comes from a CSP error", &png)
        .unwrap();
    assert_eq!(second.status, WriteStatus::Created);
    assert_eq!(
        second.image.as_ref(),
        Some(&image),
        "the first record, first time included"
    );
    let dir =
        t.h.domains()
            .image_dir
            .as_ref()
            .expect("an image directory");
    let file = dir.path(&image.id, image.format);
    assert_eq!(
        std::fs::read(&file).unwrap(),
        png,
        "the file holds the bytes sent"
    );
    assert_eq!(t.files(), vec![file], "one file for both memories");
    let shown =
        t.h.domains()
            .store
            .memory_images(&[first.memory.id, second.memory.id])
            .unwrap();
    assert_eq!(shown.len(), 2);
    assert!(shown.iter().all(|s| s.image == image));
    assert_eq!(
        t.h.api.backend().image_references(&image.id).unwrap(),
        vec![first.memory.id, second.memory.id]
    );
    // Search results carry the images their memories show; a memory without one, none.
    let plain = t.h.add("the blank login page is fixed", &[]);
    let request = SearchRequest::new("blank", MemoryFilter::default(), 10);
    let hits = t.h.api.search_request(&local(), &request).unwrap().hits;
    assert_eq!(hits.len(), 3);
    for hit in &hits {
        let expected = match hit.memory.id == plain.id {
            true => vec![],
            false => vec![image.clone()],
        };
        assert_eq!(hit.images, expected, "{}", hit.memory.content);
    }
    // Without text, the memory is named by the image and found by that name.
    let untitled = t.store("", &test_png(10, 10, 9)).unwrap();
    let short = untitled.image.as_ref().unwrap().id.short().to_string();
    assert_eq!(
        untitled.memory.content,
        format!("Image (PNG, 10×10, {short})")
    );
    let found = t.h.search(&short, MemoryFilter::default());
    assert_eq!(ids(&found), ids(&[untitled.memory]));
}

pub fn the_same_words_with_another_picture_is_a_new_memory(factory: StoreFactory) {
    let t = ImageHarness::new(factory, &Config::default());
    let (red, blue) = (test_png(16, 16, 1), test_png(16, 16, 2));
    let first = t.store("the error dialog", &red).unwrap();
    let again = t.store("the error dialog", &red).unwrap();
    assert_eq!(again.status, WriteStatus::Duplicate);
    assert_eq!(again.memory.id, first.memory.id);
    let other = t.store("the error dialog", &blue).unwrap();
    assert_eq!(
        other.status,
        WriteStatus::Created,
        "another picture, another memory"
    );
    assert_ne!(other.memory.id, first.memory.id);
    // Each pair of words and picture is found again, whichever was stored first.
    let blue_again = t.store("the error dialog", &blue).unwrap();
    assert_eq!(blue_again.status, WriteStatus::Duplicate);
    assert_eq!(blue_again.memory.id, other.memory.id);
    assert_eq!(t.h.count_all(), 2);
    assert_eq!(t.files().len(), 2);
}

pub fn a_revision_by_topic_key_keeps_its_pictures_and_gains_the_new_one(factory: StoreFactory) {
    let t = ImageHarness::new(factory, &Config::default());
    let revise = |text: &str, png: &[u8]| {
        let mut new = NewMemory::new(text, project("acme"), Source::Cli);
        new.topic_key = Some("db/diagram".into());
        let inline = ImageSource::Inline(STANDARD.encode(png));
        t.h.api.write(&local(), new, Some(&inline)).unwrap()
    };
    let (v1, v2) = (test_png(30, 20, 12), test_png(30, 20, 13));
    let first = revise("the schema diagram, v1", &v1);
    assert_eq!(first.status, WriteStatus::Created);
    t.h.clock.advance(Span::new().minutes(5));
    let second = revise("the schema diagram, v2", &v2);
    assert_eq!(second.status, WriteStatus::Updated);
    assert_eq!(second.memory.id, first.memory.id);
    let shown: Vec<ImageId> =
        t.h.domains()
            .store
            .memory_images(&[first.memory.id])
            .unwrap()
            .into_iter()
            .map(|s| s.image.id)
            .collect();
    assert_eq!(shown, vec![ImageId::of(&v1), ImageId::of(&v2)]);
    assert_eq!(t.h.count_all(), 1);
}

pub fn purging_the_last_memory_that_shows_an_image_deletes_its_record_and_file(
    factory: StoreFactory,
) {
    let t = ImageHarness::new(factory, &Config::default());
    let png = test_png(32, 32, 3);
    let one = t.store("first screenshot note", &png).unwrap();
    let two = t.store("second screenshot note", &png).unwrap();
    let image = one.image.unwrap();
    let dir = t.h.domains().image_dir.as_ref().unwrap();
    let thumbnail = dir
        .thumbnail(&image, &crate::config::ImagesConfig::default())
        .unwrap();
    assert!(thumbnail.exists());
    // Forgetting keeps the memory, so it keeps its image.
    t.h.api
        .forget(&local(), &one.memory.id.to_string(), false)
        .unwrap();
    t.h.api
        .forget(&local(), &one.memory.id.to_string(), true)
        .unwrap();
    assert!(
        t.h.api.backend().image(&image.id).unwrap().is_some(),
        "still shown by two"
    );
    assert_eq!(t.files().len(), 2, "the file and its thumbnail stay");
    // The last reference goes by prune: the record and every file go with it.
    let rule = PruneRule::CreatedBefore(t.h.now() + Span::new().minutes(1));
    t.h.api.prune(rule, false).unwrap();
    assert!(
        t.h.domains()
            .store
            .memory_images(&[two.memory.id])
            .unwrap()
            .is_empty()
    );
    assert_eq!(t.h.api.backend().image(&image.id).unwrap(), None);
    assert_eq!(t.files(), Vec::<PathBuf>::new());
    // Storing it again brings it back whole.
    let back = t.store("third screenshot note", &png).unwrap();
    assert_eq!(
        std::fs::read(dir.path(&image.id, image.format)).unwrap(),
        png
    );
    assert_eq!(back.image.unwrap().id, image.id);
}

pub fn an_image_past_the_quota_is_refused_and_unreferenced_images_go_first(factory: StoreFactory) {
    let [a, b, c, d] = [4, 5, 6, 7].map(|seed| test_png(40, 40, seed));
    let mut config = Config::default();
    config.images.quota_bytes = (a.len() + c.len()) as u64;
    let t = ImageHarness::new(factory, &config);
    t.store("note a", &a).unwrap();
    // An image nothing references (its release was cut short by a crash, say).
    let orphan = Image {
        id: ImageId::of(&b),
        format: ImageFormat::Png,
        width: 40,
        height: 40,
        bytes: b.len() as u64,
        created_at: t.h.now(),
        text: None,
    };
    let dir = t.h.domains().image_dir.as_ref().unwrap();
    dir.put(&orphan, &b).unwrap();
    in_transaction(t.h.api.backend(), |tx| tx.put_image(&orphan)).unwrap();
    // `c` fits once the unreferenced image is let go; `a`, still shown, is never touched.
    assert_eq!(t.store("note c", &c).unwrap().status, WriteStatus::Created);
    assert_eq!(t.h.api.backend().image(&orphan.id).unwrap(), None);
    assert_eq!(
        std::fs::read(dir.path(&ImageId::of(&a), ImageFormat::Png)).unwrap(),
        a
    );
    assert_eq!(t.files().len(), 2);
    // Past the quota with nothing left to let go: refused, and nothing is written.
    let before = t.h.export();
    let err = t.store("note d", &d).unwrap_err();
    assert!(matches!(err, Error::TooLarge { .. }), "{err}");
    assert!(err.to_string().contains("images.quota_bytes"), "{err}");
    assert_eq!(t.h.export(), before, "a refused image writes nothing");
    assert_eq!(t.files().len(), 2, "and leaves no file");
}

pub fn bad_images_are_refused_before_anything_is_written(factory: StoreFactory) {
    let mut config = Config::default();
    config.images.max_bytes = 4096;
    config.images.max_side = 1000;
    let t = ImageHarness::new(factory, &config);
    let inline = |text: String| {
        t.h.api.write(
            &local(),
            NewMemory::new("a screenshot", project("acme"), Source::Http),
            Some(&ImageSource::Inline(text)),
        )
    };
    let oversize = STANDARD.encode(vec![0u8; 4097]);
    let wide = test_png(1001, 1, 1);
    let refusals = [
        (inline(oversize), "images.max_bytes"),
        (inline("not base64 at all!".into()), "not valid base64"),
        (inline(STANDARD.encode(b"GIF87a")), "not a readable GIF"),
        (
            inline(STANDARD.encode(b"%PDF-1.7")),
            "PNG, JPEG, GIF or WebP",
        ),
        (inline(STANDARD.encode(&wide)), "images.max_side"),
    ];
    for (result, says) in refusals {
        let err = result.unwrap_err();
        assert_eq!(err.field(), Some("image"), "{err}");
        assert!(err.to_string().contains(says), "{err} should say {says}");
    }
    assert_eq!(t.h.count_all(), 0);
    assert!(t.files().is_empty());
    // A store without an image directory refuses images, and says why.
    let plain = Harness::new(factory);
    let err = plain
        .api
        .write(
            &local(),
            NewMemory::new("x", project("acme"), Source::Cli),
            Some(&ImageSource::Inline(STANDARD.encode(test_png(2, 2, 1)))),
        )
        .unwrap_err();
    assert!(err.to_string().contains("keeps no image files"), "{err}");
    assert_eq!(plain.count_all(), 0);
}

pub fn an_images_text_makes_every_memory_that_shows_it_findable(factory: StoreFactory) {
    let t = ImageHarness::new(factory, &Config::default());
    let png = test_png(64, 24, 11);
    let first = t.store("", &png).unwrap();
    let second = t
        .store("the staging database after the upgrade", &png)
        .unwrap();
    let id = first.image.clone().expect("an image").id;
    let store = t.h.api.backend();
    assert_eq!(
        store.image_totals(&PendingWork::default()).unwrap().unread,
        1
    );
    assert_eq!(
        store
            .pending_images(
                10,
                &PendingWork {
                    read_text: true,
                    ..PendingWork::default()
                },
                None
            )
            .unwrap()
            .iter()
            .map(|i| &i.id)
            .collect::<Vec<_>>(),
        [&id]
    );
    assert!(t.h.search("refused", MemoryFilter::default()).is_empty());
    let pending_before = t.h.api.embedding_status().unwrap().counts.pending;

    in_transaction(store, |tx| {
        tx.put_image_text(
            &id,
            "psql: Connection refused\nport 5432",
            "reader-under-test",
        )
    })
    .unwrap();

    assert_eq!(
        store.image_totals(&PendingWork::default()).unwrap().unread,
        0
    );
    // Read, but its look is not hashed yet: still pending, for its look alone.
    let hashing_only = PendingWork::default();
    assert_eq!(
        store.pending_images(10, &hashing_only, None).unwrap().len(),
        1
    );
    let mut found: Vec<MemoryId> =
        t.h.search("connection refused 5432", MemoryFilter::default())
            .iter()
            .map(|m| m.id)
            .collect();
    found.sort();
    let mut both = vec![first.memory.id, second.memory.id];
    both.sort();
    assert_eq!(
        found, both,
        "every memory that shows the image is found by its text"
    );
    // The memories' own words still find them, and the image carries its text.
    assert_eq!(
        t.h.search("staging upgrade", MemoryFilter::default())
            .iter()
            .map(|m| m.id)
            .collect::<Vec<_>>(),
        [second.memory.id]
    );
    let shown = store.memory_images(&[first.memory.id]).unwrap();
    assert_eq!(
        shown[0].image.text.as_deref(),
        Some("psql: Connection refused\nport 5432")
    );
    // Typo-tolerant search knows the image's words.
    let fuzzy = SearchRequest {
        mode: Some(crate::search::SearchMode::Fuzzy),
        ..SearchRequest::new("refsued", MemoryFilter::default(), 10)
    };
    assert_eq!(
        t.h.api.search_request(&local(), &fuzzy).unwrap().hits.len(),
        2
    );
    // Their embedded text changed: both wait to be embedded again.
    let pending_after = t.h.api.embedding_status().unwrap().counts.pending;
    assert!(
        pending_after >= pending_before.max(2),
        "pending {pending_before} → {pending_after}"
    );

    // A memory that shows the image later takes its text at once.
    t.h.clock.advance(Span::new().minutes(1));
    let third = t.store("a third look at the same screen", &png).unwrap();
    assert!(
        t.h.search("5432", MemoryFilter::default())
            .iter()
            .any(|m| m.id == third.memory.id)
    );

    // Reading again replaces the text; the old words no longer find it.
    in_transaction(store, |tx| {
        tx.put_image_text(&id, "all green", "reader-under-test")
    })
    .unwrap();
    assert!(t.h.search("refused", MemoryFilter::default()).is_empty());
    assert_eq!(t.h.search("green", MemoryFilter::default()).len(), 3);

    // The text of an image no longer recorded is not kept.
    for memory in [&first, &second, &third] {
        t.h.api
            .forget(&local(), &memory.memory.id.to_string(), true)
            .unwrap();
    }
    in_transaction(store, |tx| {
        tx.put_image_text(&id, "late reading", "reader-under-test")
    })
    .unwrap();
    assert_eq!(
        store.image_totals(&PendingWork::default()).unwrap(),
        ImageTotals::default()
    );
}

/// A drawn "screen" as a PNG: a terminal (bars of text from the left) or a dialog (a box with a
/// title bar and a button), in `ink` on `paper`, `seed` varying the lines.
pub fn screen_png(
    width: u32,
    height: u32,
    dialog: bool,
    ink: [u8; 3],
    paper: [u8; 3],
    seed: u32,
) -> Vec<u8> {
    let picture = ::image::RgbImage::from_fn(width, height, |x, y| {
        let (fx, fy) = (x as f32 / width as f32, y as f32 / height as f32);
        let on = if dialog {
            let frame = (0.2..0.8).contains(&fx) && (0.25..0.75).contains(&fy);
            let title = frame && fy < 0.32;
            let button = (0.6..0.75).contains(&fx) && (0.62..0.7).contains(&fy);
            let line = frame && (0.4..0.5).contains(&fy) && fx < 0.3 + (seed % 4) as f32 / 10.0;
            (frame && (!(0.205..=0.795).contains(&fx) || fy > 0.745)) || title || button || line
        } else {
            let row = (fy * 12.0) as u32;
            let length = 0.2 + ((row * 7 + seed * 13) % 10) as f32 / 14.0;
            fy > 0.05 && (fy * 12.0).fract() < 0.5 && fx > 0.03 && fx < length
        };
        ::image::Rgb(if on { ink } else { paper })
    });
    encode_png(&picture.into())
}

pub fn an_image_is_found_by_its_look_and_its_copies_fold_into_it(factory: StoreFactory) {
    use crate::image::{QueryPicture, VisionQuery, VisionSignalKind};
    let t = ImageHarness::new(factory, &Config::default());
    let (ink, paper) = ([225, 225, 215], [28, 28, 34]);
    let terminal = screen_png(640, 360, false, ink, paper, 1);
    // The same screen, half the size and in warmer colours: another file, the same look.
    let copy = screen_png(320, 180, false, [240, 200, 120], [40, 30, 20], 1);
    let dialog = screen_png(640, 360, true, ink, paper, 2);
    let original = t
        .store("the deploy dashboard after the outage", &terminal)
        .unwrap();
    let smaller = t.store("the deploy dashboard, smaller", &copy).unwrap();
    let other = t.store("a settings dialog", &dialog).unwrap();
    let elsewhere = {
        let new = NewMemory::new(
            "the deploy dashboard of another team",
            project("other"),
            Source::Mcp,
        );
        let png = screen_png(640, 360, false, ink, paper, 5);
        let inline = STANDARD.encode(png);
        t.h.api
            .write(&local(), new, Some(&ImageSource::Inline(inline)))
            .unwrap()
    };
    let id = |outcome: &WriteOutcome| outcome.image.clone().expect("an image").id;
    let api = &t.h.api;
    let query = |text: Option<&str>, png: Option<&[u8]>, filter: MemoryFilter| VisionQuery {
        text: text.map(String::from),
        image: png.map(|png| {
            api.query_image(
                &local(),
                &QueryPicture::Source(ImageSource::Inline(STANDARD.encode(png))),
            )
            .unwrap()
        }),
        filter,
        limit: 10,
        mode: None,
    };
    let probe = screen_png(800, 450, false, [200, 255, 200], [0, 20, 0], 1);

    // Looks are hashed after the write: until then, image → image finds nothing and says why.
    let before = api
        .vision_query(
            &local(),
            &query(None, Some(&probe), MemoryFilter::default()),
        )
        .unwrap();
    assert!(before.hits.is_empty(), "{before:?}");
    // Not hashed yet, and (no look model here) only copies of the screen are looked for.
    assert_eq!(before.notices.len(), 2, "{before:?}");
    assert!(
        before.notices[1].contains("cairn model install look"),
        "{before:?}"
    );
    let report = api.read_pending_images(&mut |_| {}).unwrap();
    assert_eq!((report.hashed, report.read, report.reader), (4, 0, None));
    assert_eq!(api.domains.image_totals().unwrap().unhashed, 0);

    // Another copy of the terminal finds it first, its smaller copy folded into it; the dialog
    // does not look alike; the other project's terminal is outside the filter.
    let acme = MemoryFilter::in_scope(crate::scope::ScopeFilter::ProjectAndGlobal(
        crate::scope::ProjectName::new("acme").unwrap(),
    ));
    let found = api
        .vision_query(&local(), &query(None, Some(&probe), acme.clone()))
        .unwrap();
    assert_eq!(found.hits.len(), 1, "{found:?}");
    let hit = &found.hits[0];
    let mut screen = vec![hit.image.id.clone()];
    screen.extend(hit.copies.iter().cloned());
    screen.sort();
    let mut both = vec![id(&original), id(&smaller)];
    both.sort();
    assert_eq!(screen, both, "one hit, the other its copy: {found:?}");
    assert_eq!(hit.memories, [original.memory.id, smaller.memory.id]);
    assert_eq!(hit.signals[0].signal, VisionSignalKind::Look);
    assert!(hit.signals[0].score > 0.95, "{found:?}");
    // Every project: the other team's screen, with other lines, is a look-alike of its own.
    let everywhere = api
        .vision_query(
            &local(),
            &query(None, Some(&probe), MemoryFilter::default()),
        )
        .unwrap();
    assert!(
        everywhere.hits.iter().any(|h| h.image.id == id(&elsewhere)),
        "{everywhere:?}"
    );
    assert!(
        everywhere.hits.iter().all(|h| h.image.id != id(&other)),
        "{everywhere:?}"
    );

    // By words: the memories' text; the copy still folds into the better hit.
    let words = api
        .vision_query(
            &local(),
            &query(Some("deploy dashboard"), None, acme.clone()),
        )
        .unwrap();
    assert_eq!(words.hits.len(), 1, "{words:?}");
    assert_eq!(words.hits[0].signals[0].signal, VisionSignalKind::Text);
    // Without an OCR model, a search by words says the images' own text was not searched.
    assert!(
        words
            .notices
            .iter()
            .any(|n| n.contains("cairn model install ocr")),
        "{words:?}"
    );
    assert_eq!(words.hits[0].copies.len(), 1);
    // A stored image as the query: itself first, its copy folded under it.
    let stored = VisionQuery {
        image: Some(
            api.query_image(&local(), &QueryPicture::Stored(id(&original)))
                .unwrap(),
        ),
        ..query(None, None, acme.clone())
    };
    let alike = api.vision_query(&local(), &stored).unwrap();
    assert_eq!(alike.hits[0].image.id, id(&original), "{alike:?}");
    assert_eq!(alike.hits[0].signals[0].score, 1.0, "{alike:?}");
    assert_eq!(alike.hits[0].copies, [id(&smaller)], "{alike:?}");

    // Refusals name the field.
    let err = api
        .vision_query(&local(), &query(None, None, acme.clone()))
        .unwrap_err();
    assert_eq!(err.field(), Some("query_text"));
    let err = api
        .vision_query(
            &local(),
            &VisionQuery {
                limit: 0,
                ..query(Some("deploy"), None, acme)
            },
        )
        .unwrap_err();
    assert_eq!(err.field(), Some("top_k"));
    let err = api
        .query_image(
            &local(),
            &QueryPicture::Stored(ImageId::of(b"never stored")),
        )
        .unwrap_err();
    assert_eq!(err.field(), Some("image_ref"));
}

/// A look model for the storage behaviours: an image's vector is its mean colour in each
/// quarter (12 numbers), so pictures in like colours look alike and red is far from blue. It
/// counts the pictures it looks at. (The real model, EfficientNet-Lite0, is `cairn-embed`'s,
/// tested there with real photos.)
#[derive(Default)]
pub struct QuarterColours {
    pub looked_at: AtomicUsize,
}

impl LookModel for QuarterColours {
    fn name(&self) -> &str {
        "test/quarter-colours"
    }

    fn dimensions(&self) -> usize {
        12
    }

    fn look_vector(&self, image: &::image::RgbImage) -> crate::Result<Vec<f32>> {
        self.looked_at.fetch_add(1, Ordering::SeqCst);
        let (width, height) = image.dimensions();
        let mut sums = vec![0f32; 12];
        for (x, y, pixel) in image.enumerate_pixels() {
            let quarter = (usize::from(x * 2 >= width) + 2 * usize::from(y * 2 >= height)) * 3;
            for channel in 0..3 {
                sums[quarter + channel] += f32::from(pixel.0[channel]);
            }
        }
        Ok(normalised(sums))
    }
}

pub fn images_that_look_alike_are_found_by_their_look_vectors(factory: StoreFactory) {
    use crate::image::{QueryPicture, VisionQuery, VisionSignalKind};
    let model = Arc::new(QuarterColours::default());
    let t = ImageHarness::with_look_model(factory, &Config::default(), Some(model.clone()));
    let api = &t.h.api;
    let store = api.backend();
    let red_terminal = t
        .store(
            "the red alert terminal",
            &screen_png(640, 360, false, [240, 40, 30], [120, 10, 10], 1),
        )
        .unwrap();
    // Another screen (a dialog, not a copy of the terminal) in like colours.
    let red_dialog = t
        .store(
            "the red alert dialog",
            &screen_png(640, 360, true, [220, 60, 40], [110, 20, 15], 2),
        )
        .unwrap();
    let blue_terminal = t
        .store(
            "the calm blue terminal",
            &screen_png(640, 360, false, [40, 60, 240], [10, 10, 120], 3),
        )
        .unwrap();
    let elsewhere = {
        let new = NewMemory::new("another team's red screen", project("other"), Source::Mcp);
        let png = screen_png(640, 360, false, [230, 30, 30], [120, 10, 10], 4);
        t.h.api
            .write(
                &local(),
                new,
                Some(&ImageSource::Inline(STANDARD.encode(png))),
            )
            .unwrap()
    };
    let id = |outcome: &WriteOutcome| outcome.image.clone().expect("an image").id;

    // Vectors are made after the write, with the looks, once per image.
    assert_eq!(
        store
            .image_totals(&PendingWork::default())
            .unwrap()
            .without_vector,
        4
    );
    let work = PendingWork {
        look_model: Some(model.name()),
        ..PendingWork::default()
    };
    assert_eq!(store.pending_images(10, &work, None).unwrap().len(), 4);
    let report = api.read_pending_images(&mut |_| {}).unwrap();
    assert_eq!(report.look_vectors, 4);
    assert_eq!(report.look_model.as_deref(), Some("test/quarter-colours"));
    assert_eq!(model.looked_at.load(Ordering::SeqCst), 4);
    assert_eq!(
        store
            .image_totals(&PendingWork::default())
            .unwrap()
            .without_vector,
        0
    );
    assert!(store.pending_images(10, &work, None).unwrap().is_empty());
    // Another model's vectors are not these: every image waits for one of its own.
    let other_model = PendingWork {
        look_model: Some("another/model"),
        ..PendingWork::default()
    };
    assert_eq!(
        store.pending_images(10, &other_model, None).unwrap().len(),
        4
    );
    let waiting = |work: &PendingWork| store.image_totals(work).unwrap().without_vector;
    assert_eq!((waiting(&other_model), waiting(&work)), (4, 0));
    assert!(
        store
            .image_vectors_of(ImageSpace::Look, &[id(&red_terminal)], "another/model")
            .unwrap()
            .is_empty()
    );

    // A red probe: both red screens of the project look alike, the blue one does not, the
    // other project's is outside the filter.
    let acme = MemoryFilter::in_scope(crate::scope::ScopeFilter::ProjectAndGlobal(
        crate::scope::ProjectName::new("acme").unwrap(),
    ));
    let probe = screen_png(800, 450, false, [250, 50, 40], [130, 15, 10], 9);
    let query = |image, filter| VisionQuery {
        text: None,
        image: Some(image),
        filter,
        limit: 10,
        mode: None,
    };
    let picture = api
        .query_image(
            &local(),
            &QueryPicture::Source(ImageSource::Inline(STANDARD.encode(&probe))),
        )
        .unwrap();
    assert_eq!(
        model.looked_at.load(Ordering::SeqCst),
        5,
        "the probe is looked at"
    );
    let found = api
        .vision_query(&local(), &query(picture, acme.clone()))
        .unwrap();
    // (The blue terminal's look hash is near the probe's — a hash sees brightness, not colour —
    // so it may be listed, by that signal alone and below both red screens.)
    let ids: Vec<&ImageId> = found.hits.iter().map(|h| &h.image.id).collect();
    assert_eq!(
        ids[..2],
        [&id(&red_terminal), &id(&red_dialog)],
        "{found:?}"
    );
    let looks_alike = |image: &ImageId| {
        found.hits.iter().any(|h| {
            h.image.id == *image
                && h.signals
                    .iter()
                    .any(|s| s.signal == VisionSignalKind::LookVector)
        })
    };
    assert!(!looks_alike(&id(&blue_terminal)), "{found:?}");
    assert!(!ids.contains(&&id(&elsewhere)), "{found:?}");
    assert!(found.notices.is_empty(), "{found:?}");
    let dialog = found
        .hits
        .iter()
        .find(|h| h.image.id == id(&red_dialog))
        .unwrap();
    assert_eq!(
        dialog.signals.len(),
        1,
        "a look-alike, not the same screen: {dialog:?}"
    );
    assert_eq!(dialog.signals[0].signal, VisionSignalKind::LookVector);
    assert!(dialog.signals[0].score > 0.9, "{dialog:?}");
    assert_eq!(dialog.memories, [red_dialog.memory.id]);

    // A stored image as the query uses its stored vector (the model is not run again) and
    // finds itself first, then what looks like it.
    let stored = api
        .query_image(&local(), &QueryPicture::Stored(id(&red_terminal)))
        .unwrap();
    assert_eq!(model.looked_at.load(Ordering::SeqCst), 5);
    let alike = api.vision_query(&local(), &query(stored, acme)).unwrap();
    assert_eq!(alike.hits[0].image.id, id(&red_terminal), "{alike:?}");
    assert_eq!(alike.hits[1].image.id, id(&red_dialog), "{alike:?}");

    // The vector goes with its image.
    api.forget(&local(), &red_dialog.memory.id.to_string(), true)
        .unwrap();
    assert!(
        store
            .image_vectors_of(ImageSpace::Look, &[id(&red_dialog)], model.name())
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        store.image_totals(&PendingWork::default()).unwrap().images,
        3
    );
}

/// A CLIP model for the storage behaviours: an image means its mean colour (a unit RGB vector)
/// and the words `red`, `green` and `blue` mean their colour's axis (any other text, grey), so
/// "red" finds red pictures whatever their memories say. It counts the texts it embeds. (The
/// real towers are `cairn-embed`'s, checked there against an independent implementation.)
/// Its match scale is CLIP's unless a test sets another.
pub struct ColourMeaning {
    pub texts: AtomicUsize,
    pub scale: std::sync::Mutex<MatchScale>,
}

impl Default for ColourMeaning {
    fn default() -> Self {
        ColourMeaning {
            texts: AtomicUsize::new(0),
            scale: std::sync::Mutex::new(MatchScale::CLIP),
        }
    }
}

impl ClipModel for ColourMeaning {
    fn name(&self) -> &str {
        "test/colour-meaning"
    }

    fn dimensions(&self) -> usize {
        3
    }

    fn image_vector(&self, image: &::image::RgbImage) -> crate::Result<Vec<f32>> {
        let mut sums = vec![0f32; 3];
        for pixel in image.pixels() {
            for (sum, value) in sums.iter_mut().zip(pixel.0) {
                *sum += f32::from(value);
            }
        }
        Ok(normalised(sums))
    }

    fn text_vector(&self, text: &str) -> crate::Result<Vec<f32>> {
        self.texts.fetch_add(1, Ordering::SeqCst);
        let axis = ["red", "green", "blue"]
            .iter()
            .position(|colour| text.to_lowercase().contains(colour));
        Ok(match axis {
            Some(axis) => (0..3).map(|i| f32::from(u8::from(i == axis))).collect(),
            None => normalised(vec![1.0; 3]),
        })
    }

    fn match_scale(&self) -> MatchScale {
        *self.scale.lock().unwrap()
    }
}

/// The clip signal's cosine of the only hit of `found`.
fn found_cosine(found: &crate::image::VisionResults) -> f64 {
    assert_eq!(found.hits.len(), 1, "{found:?}");
    found.hits[0].signals[0].score
}

pub fn images_are_found_by_what_words_describe_with_a_clip_model(factory: StoreFactory) {
    use crate::image::{CLIP_FLOOR, VisionQuery, VisionSignalKind};
    let model = Arc::new(ColourMeaning::default());
    let t = ImageHarness::with_models(factory, &Config::default(), None, Some(model.clone()));
    let api = &t.h.api;
    let store = api.backend();
    // Captions that never say the colour.
    let red = t
        .store(
            "the first screenshot of the deploy",
            &screen_png(640, 360, true, [250, 30, 20], [200, 20, 10], 1),
        )
        .unwrap();
    let blue = t
        .store(
            "the second screenshot of the deploy",
            &screen_png(640, 360, false, [20, 40, 250], [10, 10, 200], 2),
        )
        .unwrap();
    let elsewhere = {
        let new = NewMemory::new("another team's screenshot", project("other"), Source::Mcp);
        let png = screen_png(640, 360, false, [240, 20, 20], [200, 10, 10], 3);
        t.h.api
            .write(
                &local(),
                new,
                Some(&ImageSource::Inline(STANDARD.encode(png))),
            )
            .unwrap()
    };
    let id = |outcome: &WriteOutcome| outcome.image.clone().expect("an image").id;

    // CLIP vectors are made after the write, once per image, under the model's name.
    assert_eq!(
        store
            .image_totals(&PendingWork::default())
            .unwrap()
            .without_clip_vector,
        3
    );
    let work = PendingWork {
        clip_model: Some(model.name()),
        ..PendingWork::default()
    };
    assert_eq!(store.pending_images(10, &work, None).unwrap().len(), 3);
    let report = api.read_pending_images(&mut |_| {}).unwrap();
    assert_eq!(report.clip_vectors, 3);
    assert_eq!(report.clip_model.as_deref(), Some("test/colour-meaning"));
    assert_eq!(report.look_vectors, 0);
    let totals = store.image_totals(&PendingWork::default()).unwrap();
    assert_eq!((totals.without_clip_vector, totals.without_vector), (0, 3));
    assert!(store.pending_images(10, &work, None).unwrap().is_empty());
    let other = PendingWork {
        clip_model: Some("another/clip"),
        ..PendingWork::default()
    };
    assert_eq!(store.pending_images(10, &other, None).unwrap().len(), 3);
    // Counted against a model, images wait for that model's vectors: all three for another
    // model, none for this one (the service counts against its own).
    let waiting = |work: &PendingWork| store.image_totals(work).unwrap().without_clip_vector;
    assert_eq!((waiting(&other), waiting(&work)), (3, 0));
    assert_eq!(api.domains.image_totals().unwrap().without_clip_vector, 0);
    // The spaces are apart: a CLIP vector is not a look vector.
    let ids = [id(&red)];
    assert_eq!(
        store
            .image_vectors_of(ImageSpace::Clip, &ids, model.name())
            .unwrap()
            .len(),
        1
    );
    assert!(
        store
            .image_vectors_of(ImageSpace::Look, &ids, model.name())
            .unwrap()
            .is_empty()
    );

    let acme = MemoryFilter::in_scope(crate::scope::ScopeFilter::ProjectAndGlobal(
        crate::scope::ProjectName::new("acme").unwrap(),
    ));
    let query = |text: &str| VisionQuery {
        text: Some(text.into()),
        image: None,
        filter: acme.clone(),
        limit: 10,
        mode: None,
    };
    // "red" is in no memory's words: the red screenshot is found by meaning alone; the blue
    // one means something else (below the floor), the other project's is outside the filter.
    let found = api
        .vision_query(&local(), &query("a red error banner"))
        .unwrap();
    assert_eq!(
        model.texts.load(Ordering::SeqCst),
        1,
        "the words are embedded once"
    );
    let hits: Vec<&ImageId> = found.hits.iter().map(|h| &h.image.id).collect();
    assert_eq!(hits, [&id(&red)], "{found:?}");
    let signals = &found.hits[0].signals;
    assert_eq!(signals.len(), 1, "{signals:?}");
    assert_eq!(signals[0].signal, VisionSignalKind::Clip);
    assert!(signals[0].score > 0.9, "{signals:?}");
    assert_eq!(found.hits[0].memories, [red.memory.id]);
    assert!(
        found.hits[0].score > 0.0 && found.hits[0].score <= 0.5,
        "{found:?}"
    );
    let found = api
        .vision_query(&local(), &query("something blue"))
        .unwrap();
    assert_eq!(found.hits[0].image.id, id(&blue), "{found:?}");
    assert!(found.hits.iter().all(|h| h.image.id != id(&elsewhere)));

    // Words and meaning together: the caption's words find both screenshots, and the one
    // that also means "blue" comes first.
    let found = api
        .vision_query(&local(), &query("deploy screenshot blue"))
        .unwrap();
    assert_eq!(found.hits.len(), 2, "{found:?}");
    assert_eq!(found.hits[0].image.id, id(&blue), "{found:?}");
    assert!(
        found.hits[0]
            .signals
            .iter()
            .any(|s| s.signal == VisionSignalKind::Text)
    );
    assert!(
        found.hits[0]
            .signals
            .iter()
            .any(|s| s.signal == VisionSignalKind::Clip)
    );
    assert!(
        found.hits[1]
            .signals
            .iter()
            .all(|s| s.signal != VisionSignalKind::Clip),
        "the red one means blue below the floor ({CLIP_FLOOR}): {found:?}"
    );

    // The model's own scale decides: read on a stricter one, where the red screenshot's
    // cosine with "red" falls short of the floor, meaning finds nothing.
    let cosine = found_cosine(&api.vision_query(&local(), &query("red")).unwrap());
    *model.scale.lock().unwrap() = MatchScale {
        floor: cosine + 0.001,
        full: cosine + 0.01,
    };
    let found = api.vision_query(&local(), &query("red")).unwrap();
    assert!(found.hits.is_empty(), "{found:?}");
    *model.scale.lock().unwrap() = MatchScale {
        floor: cosine - 0.01,
        full: cosine + 0.01,
    };
    let found = api.vision_query(&local(), &query("red")).unwrap();
    assert_eq!(found.hits.len(), 1, "{found:?}");
    // Half weight, at the middle of the model's scale: a quarter.
    assert!((found.hits[0].score - 0.25).abs() < 0.01, "{found:?}");
    *model.scale.lock().unwrap() = MatchScale::CLIP;

    // The vector goes with its image.
    api.forget(&local(), &red.memory.id.to_string(), true)
        .unwrap();
    assert!(
        store
            .image_vectors_of(ImageSpace::Clip, &ids, model.name())
            .unwrap()
            .is_empty()
    );
}

pub fn one_image_is_looked_at_on_demand_and_only_what_it_lacks_is_made(factory: StoreFactory) {
    use crate::access::Right;
    use crate::api::VisionEmbedInput;
    let model = Arc::new(QuarterColours::default());
    let t = ImageHarness::with_look_model(factory, &Config::default(), Some(model.clone()));
    let api = &t.h.api;
    let store = api.backend();
    let first = t
        .store("the red alert terminal", &test_png(64, 24, 1))
        .unwrap();
    let second = t
        .store("the blue calm terminal", &test_png(64, 24, 2))
        .unwrap();
    let id = |outcome: &WriteOutcome| outcome.image.clone().expect("an image").id;
    let embed = |caller: &crate::api::Caller, image_ref: String| {
        api.embed_image(
            caller,
            VisionEmbedInput {
                image_ref,
                ..VisionEmbedInput::default()
            },
        )
    };
    let looked = embed(&local(), id(&first).to_string()).unwrap();
    assert_eq!(looked.image.id, id(&first));
    assert_eq!(
        (looked.report.hashed, looked.report.look_vectors),
        (1, 1),
        "{:?}",
        looked.report
    );
    assert_eq!(model.looked_at.load(Ordering::SeqCst), 1);
    // Only the other image still waits for its look and its vector.
    let work = PendingWork {
        look_model: Some(model.name()),
        ..PendingWork::default()
    };
    let waiting: Vec<ImageId> = store
        .pending_images(10, &work, None)
        .unwrap()
        .into_iter()
        .map(|image| image.id)
        .collect();
    assert_eq!(waiting, [id(&second)]);
    // Looked at again, it gets no second vector of the same model.
    let again = embed(&local(), id(&first).to_string()).unwrap();
    assert_eq!(again.report.look_vectors, 0);
    assert_eq!(model.looked_at.load(Ordering::SeqCst), 1);

    // A token that only reads the project, or writes another, may not; one that writes it may.
    for (project_name, right) in [("acme", Right::Read), ("other", Right::Write)] {
        let caller = super::token_caller(api, project_name, right);
        let error = embed(&caller, id(&second).to_string()).unwrap_err();
        assert!(
            matches!(error, crate::Error::Forbidden { .. }),
            "{project_name}: {error:?}"
        );
    }
    assert_eq!(store.pending_images(10, &work, None).unwrap().len(), 1);
    let writer = super::token_caller(api, "acme", Right::Write);
    assert_eq!(
        embed(&writer, id(&second).to_string())
            .unwrap()
            .report
            .look_vectors,
        1
    );
    assert!(store.pending_images(10, &work, None).unwrap().is_empty());

    // An id no image has, and a path outside the image store, are refused naming the field.
    for reference in [
        ImageId::of(b"never stored").to_string(),
        "/etc/passwd".into(),
    ] {
        let error = embed(&local(), reference.clone()).unwrap_err();
        assert_eq!(error.field(), Some("image_ref"), "{reference}: {error:?}");
    }
}
