//! Images in SQLite (tables of migrations 11 to 16): `images` holds one record per stored image
//! (and its look hash once hashed: 68 bytes, or empty for a file that could not be decoded),
//! `memory_images` which memory shows which, `image_texts` what was read from each image,
//! `image_look_vectors` and `image_clip_vectors` its vector in each space ([`vector_table`]). A memory's links go with it (a foreign key that
//! cascades); an image's record stays until the service lets it go, and its text and vector go
//! with it. The nearest looks and look vectors are found by a plain scan that keeps the best few
//! in a heap ([`nearest_images`]).
//!
//! A memory's `image_text` column holds the texts of the images it shows, kept here whenever
//! an image is read or linked ([`refresh_image_text`]), so the full-text index, the vocabulary
//! and the embedding queue see an image's words as the memory's.

use std::collections::{BinaryHeap, HashSet};

use cairn_core::image::look_vector::{self, Quantised};
use cairn_core::image::{
    Image, ImageId, ImageSpace, ImageStore, ImageTotals, ImageTx, LookHash, MemoryImage,
    PendingWork,
};
use cairn_core::memory::MemoryFilter;
use cairn_core::{MemoryId, Result};
use jiff::Timestamp;
use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, Row, params, params_from_iter};

use crate::SqliteStore;
use crate::columns::{corrupt, millis, time};
use crate::error::SqlResult;
use crate::filter::condition;
use crate::rows::refresh_image_text;
use crate::tx::SqliteTx;

/// The image columns, `i` the image and `t` its text (`LEFT JOIN` [`IMAGE_TEXT`]).
const IMAGE_COLUMNS: &str = "i.id, i.format, i.width, i.height, i.bytes, i.created_at, t.text";

/// The join that gives an image `i` its text `t`, when read.
const IMAGE_TEXT: &str = "LEFT JOIN image_texts t ON t.image_id = i.id";

fn image_from_row(row: &Row<'_>) -> rusqlite::Result<Image> {
    image_from_columns(row, 0)
}

/// An image from [`IMAGE_COLUMNS`], starting at column `first`.
fn image_from_columns(row: &Row<'_>, first: usize) -> rusqlite::Result<Image> {
    Ok(Image {
        id: ImageId::parse(&row.get::<_, String>(first)?).map_err(corrupt)?,
        format: row.get::<_, String>(first + 1)?.parse().map_err(corrupt)?,
        width: row.get(first + 2)?,
        height: row.get(first + 3)?,
        bytes: row.get::<_, i64>(first + 4)?.try_into().map_err(corrupt)?,
        created_at: time(row.get(first + 5)?)?,
        text: row.get(first + 6)?,
    })
}

fn image(conn: &Connection, id: &ImageId) -> Result<Option<Image>> {
    conn.prepare_cached(&format!(
        "SELECT {IMAGE_COLUMNS} FROM images i {IMAGE_TEXT} WHERE i.id = ?1"
    ))
    .sql()?
    .query_row([id.as_str()], image_from_row)
    .optional()
    .sql()
}

/// Which images a nearest-image scan reads: a `SELECT` of an image id and a blob, with a
/// `WHERE` clause (a filter's condition is appended with `AND`), the values of its `?` marks,
/// the expression of the image id the filter's condition compares with, and whether the
/// nearest images' blobs are returned (an empty blob stands for each when not).
struct Scan<'a> {
    select: &'a str,
    params: Vec<Value>,
    image_id: &'a str,
    returns_blobs: bool,
}

/// The `limit` images nearest a query among the rows `scan` gives (an image id, then a blob
/// `distance` measures: lower is nearer), nearest first (ties by id), each with its distance
/// and blob; with a filter, only images a memory matching it shows.
fn nearest_images(
    conn: &Connection,
    scan: &Scan<'_>,
    distance: &dyn Fn(&[u8]) -> Result<f32>,
    limit: usize,
    filter: Option<(&MemoryFilter, Timestamp)>,
) -> Result<Vec<(ImageId, f32, Vec<u8>)>> {
    let (shown, filter_params) = match filter {
        Some((filter, now)) => {
            let condition = condition(filter, now);
            (
                format!(
                    "AND EXISTS (SELECT 1 FROM memory_images l JOIN memories m \
                     ON m.seq = l.memory_seq WHERE l.image_id = {} AND {})",
                    scan.image_id, condition.sql
                ),
                condition.params,
            )
        }
        None => (String::new(), Vec::new()),
    };
    let mut statement = conn
        .prepare_cached(&format!("{} {shown}", scan.select))
        .sql()?;
    let params = scan.params.iter().cloned().chain(filter_params);
    let mut rows = statement.query(params_from_iter(params)).sql()?;
    // The `limit` nearest so far, worst on top; an id (and a blob, when asked for) is copied
    // only when it gets in.
    let mut nearest: BinaryHeap<(Distance, String, Vec<u8>)> = BinaryHeap::new();
    while let Some(row) = rows.next().sql()? {
        let blob = row.get_ref(1).sql()?.as_blob().map_err(corrupt).sql()?;
        let d = Distance(distance(blob)?);
        let id = row.get_ref(0).sql()?.as_str().map_err(corrupt).sql()?;
        let better = nearest.len() < limit
            || nearest
                .peek()
                .is_some_and(|(worst, worst_id, _)| (d, id) < (*worst, worst_id.as_str()));
        if better {
            let kept = match scan.returns_blobs {
                true => blob.to_vec(),
                false => Vec::new(),
            };
            nearest.push((d, id.to_string(), kept));
            if nearest.len() > limit {
                nearest.pop();
            }
        }
    }
    nearest
        .into_sorted_vec()
        .into_iter()
        .map(|(d, id, blob)| Ok((ImageId::parse(&id)?, d.0, blob)))
        .collect()
}

/// The rows `sql` gives for `images`, 500 ids at a time: `sql(marks)` is the statement with the
/// ids' `?` marks, after the `?` marks of `leading`; each row is read by `read`.
fn rows_for_images<T>(
    conn: &Connection,
    images: &[ImageId],
    leading: &[Value],
    sql: impl Fn(&str) -> String,
    read: impl Fn(&Row<'_>) -> rusqlite::Result<T>,
) -> Result<Vec<T>> {
    let mut found = Vec::new();
    for chunk in images.chunks(500) {
        let marks = vec!["?"; chunk.len()].join(", ");
        let values = leading
            .iter()
            .cloned()
            .chain(chunk.iter().map(|id| Value::Text(id.as_str().into())));
        let rows: Vec<T> = conn
            .prepare_cached(&sql(&marks))
            .sql()?
            .query_map(params_from_iter(values), &read)
            .sql()?
            .collect::<rusqlite::Result<_>>()
            .sql()?;
        found.extend(rows);
    }
    Ok(found)
}

/// A distance that orders totally (NaN last), for the heap.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Distance(f32);

impl Eq for Distance {}

impl PartialOrd for Distance {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Distance {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

impl SqliteStore {
    /// [`nearest_images`] under `filter`. Most filters show most images: rank every image first
    /// (a plain scan), then keep those the filter shows. Only when that leaves too few among
    /// many does the scan run again, checking the filter on every image (which costs about five
    /// times as much).
    fn nearest_shown(
        &self,
        scan: &Scan<'_>,
        distance: &dyn Fn(&[u8]) -> Result<f32>,
        limit: usize,
        filter: &MemoryFilter,
        now: Timestamp,
    ) -> Result<Vec<(ImageId, f32, Vec<u8>)>> {
        let wide = limit.saturating_mul(4);
        let ranked = nearest_images(&self.reader(), scan, distance, wide, None)?;
        let ids: Vec<ImageId> = ranked.iter().map(|(id, ..)| id.clone()).collect();
        let shown: HashSet<ImageId> = self
            .image_memories(&ids, filter, now)?
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        let complete = ranked.len() < wide;
        let kept: Vec<(ImageId, f32, Vec<u8>)> = ranked
            .into_iter()
            .filter(|(id, ..)| shown.contains(id))
            .take(limit)
            .collect();
        if kept.len() == limit || complete {
            return Ok(kept);
        }
        nearest_images(&self.reader(), scan, distance, limit, Some((filter, now)))
    }

    /// Whether any image waits for `work`, told without reading the images: an unhashed one is
    /// in the (nearly always empty) `images_unhashed` index, and texts and a model's vectors are
    /// one per image at most and go with it, so there are as many as images when none is missing.
    fn any_image_pending(&self, work: &PendingWork<'_>) -> Result<bool> {
        self.reader()
            .prepare_cached(
                "SELECT EXISTS (SELECT 1 FROM images INDEXED BY images_unhashed WHERE look IS NULL) \
                 OR (?1 AND (SELECT count(*) FROM images) > (SELECT count(*) FROM image_texts)) \
                 OR (?2 IS NOT NULL AND (SELECT count(*) FROM images) > \
                     (SELECT count(*) FROM image_look_vectors WHERE model = ?2)) \
                 OR (?3 IS NOT NULL AND (SELECT count(*) FROM images) > \
                     (SELECT count(*) FROM image_clip_vectors WHERE model = ?3))",
            )
            .sql()?
            .query_row(
                params![work.read_text, work.look_model, work.clip_model],
                |row| row.get(0),
            )
            .sql()
    }
}

impl ImageStore for SqliteStore {
    fn image(&self, id: &ImageId) -> Result<Option<Image>> {
        image(&self.reader(), id)
    }

    fn images(&self) -> Result<Vec<Image>> {
        self.reader()
            .prepare_cached(&format!(
                "SELECT {IMAGE_COLUMNS} FROM images i {IMAGE_TEXT} ORDER BY i.created_at, i.id"
            ))
            .sql()?
            .query_map([], image_from_row)
            .sql()?
            .collect::<rusqlite::Result<_>>()
            .sql()
    }

    fn memory_images(&self, memories: &[MemoryId]) -> Result<Vec<MemoryImage>> {
        let conn = self.reader();
        let mut found = Vec::new();
        // Every search page asks: a store no memory of which shows an image (most stores)
        // answers from one probe (~4 µs) instead of looking up each id (~70 µs for ten at 100K).
        let any = conn
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM memory_images)")
            .sql()?
            .query_row([], |row| row.get::<_, bool>(0))
            .sql()?;
        if !any || memories.is_empty() {
            return Ok(found);
        }
        for chunk in memories.chunks(500) {
            let marks = vec!["?"; chunk.len()].join(", ");
            let values = chunk.iter().map(|id| Value::Text(id.to_string()));
            let rows: Vec<MemoryImage> = conn
                .prepare_cached(&format!(
                    "SELECT m.id, {IMAGE_COLUMNS} FROM memories m \
                     JOIN memory_images l ON l.memory_seq = m.seq \
                     JOIN images i ON i.id = l.image_id {IMAGE_TEXT} \
                     WHERE m.id IN ({marks}) ORDER BY i.created_at, i.id"
                ))
                .sql()?
                .query_map(params_from_iter(values), |row| {
                    Ok(MemoryImage {
                        memory: row.get::<_, String>(0)?.parse().map_err(corrupt)?,
                        image: image_from_columns(row, 1)?,
                    })
                })
                .sql()?
                .collect::<rusqlite::Result<_>>()
                .sql()?;
            found.extend(rows);
        }
        Ok(found)
    }

    fn image_totals(&self, models: &PendingWork) -> Result<ImageTotals> {
        self.reader()
            .query_row(
                "SELECT count(*), coalesce(sum(bytes), 0), \
                 (SELECT count(*) FROM images i WHERE NOT EXISTS \
                  (SELECT 1 FROM image_texts t WHERE t.image_id = i.id)), \
                 count(*) - count(look), \
                 (SELECT count(*) FROM images i WHERE NOT EXISTS \
                  (SELECT 1 FROM image_look_vectors v WHERE v.image_id = i.id \
                   AND (?1 IS NULL OR v.model = ?1))), \
                 (SELECT count(*) FROM images i WHERE NOT EXISTS \
                  (SELECT 1 FROM image_clip_vectors v WHERE v.image_id = i.id \
                   AND (?2 IS NULL OR v.model = ?2))) FROM images",
                params![models.look_model, models.clip_model],
                |row| {
                    Ok(ImageTotals {
                        images: row.get::<_, i64>(0)?.max(0) as u64,
                        bytes: row.get::<_, i64>(1)?.max(0) as u64,
                        unread: row.get::<_, i64>(2)?.max(0) as u64,
                        unhashed: row.get::<_, i64>(3)?.max(0) as u64,
                        without_vector: row.get::<_, i64>(4)?.max(0) as u64,
                        without_clip_vector: row.get::<_, i64>(5)?.max(0) as u64,
                    })
                },
            )
            .sql()
    }

    fn pending_images(
        &self,
        limit: usize,
        work: &PendingWork<'_>,
        after: Option<&Image>,
    ) -> Result<Vec<Image>> {
        // The worker asks after every write, nearly always to hear "nothing": that answer comes
        // from counts, not from a walk over every image. (Later batches of a pass go on from
        // their cursor without asking again.)
        if after.is_none() && !self.any_image_pending(work)? {
            return Ok(Vec::new());
        }
        // The cursor walks `images_by_created` from where the last batch ended.
        let (after_time, after_id) = match after {
            Some(image) => (millis(image.created_at), image.id.as_str().to_string()),
            None => (i64::MIN, String::new()),
        };
        self.reader()
            .prepare_cached(&format!(
                "SELECT {IMAGE_COLUMNS} FROM images i {IMAGE_TEXT} \
                 WHERE (i.created_at, i.id) > (?3, ?4) \
                 AND (i.look IS NULL OR (?2 AND t.image_id IS NULL) \
                  OR (?5 IS NOT NULL AND NOT EXISTS (SELECT 1 FROM image_look_vectors v \
                      WHERE v.image_id = i.id AND +v.model = ?5)) \
                  OR (?6 IS NOT NULL AND NOT EXISTS (SELECT 1 FROM image_clip_vectors v \
                      WHERE v.image_id = i.id AND +v.model = ?6))) \
                 ORDER BY i.created_at, i.id LIMIT ?1"
            ))
            .sql()?
            .query_map(
                params![
                    limit as i64,
                    work.read_text,
                    after_time,
                    after_id,
                    work.look_model,
                    work.clip_model
                ],
                image_from_row,
            )
            .sql()?
            .collect::<rusqlite::Result<_>>()
            .sql()
    }

    fn image_memories(
        &self,
        images: &[ImageId],
        filter: &MemoryFilter,
        now: Timestamp,
    ) -> Result<Vec<(ImageId, MemoryId)>> {
        let conn = self.reader();
        let mut found = Vec::new();
        for chunk in images.chunks(500) {
            let shown = condition(filter, now);
            let marks = vec!["?"; chunk.len()].join(", ");
            let mut values: Vec<Value> = chunk
                .iter()
                .map(|id| Value::Text(id.as_str().into()))
                .collect();
            values.extend(shown.params);
            let rows: Vec<(ImageId, MemoryId)> = conn
                .prepare_cached(&format!(
                    "SELECT l.image_id, m.id FROM memory_images l JOIN memories m ON m.seq = l.memory_seq \
                     WHERE l.image_id IN ({marks}) AND {} ORDER BY m.seq",
                    shown.sql
                ))
                .sql()?
                .query_map(params_from_iter(values), |row| {
                    Ok((
                        ImageId::parse(&row.get::<_, String>(0)?).map_err(corrupt)?,
                        row.get::<_, String>(1)?.parse().map_err(corrupt)?,
                    ))
                })
                .sql()?
                .collect::<rusqlite::Result<_>>()
                .sql()?;
            found.extend(rows);
        }
        Ok(found)
    }

    fn nearest_looks(
        &self,
        look: &LookHash,
        limit: usize,
        filter: &MemoryFilter,
        now: Timestamp,
    ) -> Result<Vec<(ImageId, LookHash)>> {
        let distance = |blob: &[u8]| Ok(LookHash::from_bytes(blob)?.distance(look) as f32);
        let scan = Scan {
            select: "SELECT i.id, i.look FROM images i WHERE length(i.look) > 0",
            params: Vec::new(),
            image_id: "i.id",
            returns_blobs: true,
        };
        self.nearest_shown(&scan, &distance, limit, filter, now)?
            .into_iter()
            .map(|(id, _, blob)| Ok((id, LookHash::from_bytes(&blob)?)))
            .collect()
    }

    fn nearest_image_vectors(
        &self,
        space: ImageSpace,
        vector: &[f32],
        model: &str,
        limit: usize,
        filter: &MemoryFilter,
        now: Timestamp,
    ) -> Result<Vec<(ImageId, f32)>> {
        let query = Quantised::of(vector);
        let distance = |blob: &[u8]| Ok(1.0 - query.cosine_with_stored(blob)?);
        let select = format!(
            // The table in storage order, not through the by-model index (a lookup per row).
            "SELECT v.image_id, v.vector FROM {} v NOT INDEXED \
             WHERE v.model = ? AND length(v.vector) > 0",
            vector_table(space)
        );
        let scan = Scan {
            select: &select,
            params: vec![Value::Text(model.into())],
            image_id: "v.image_id",
            returns_blobs: false,
        };
        Ok(self
            .nearest_shown(&scan, &distance, limit, filter, now)?
            .into_iter()
            .map(|(id, distance, _)| (id, 1.0 - distance))
            .collect())
    }

    fn image_vectors_of(
        &self,
        space: ImageSpace,
        images: &[ImageId],
        model: &str,
    ) -> Result<Vec<(ImageId, Vec<f32>)>> {
        rows_for_images(
            &self.reader(),
            images,
            &[Value::Text(model.into())],
            |marks| {
                format!(
                    // By image (`+model` keeps the planner off the by-model index, which
                    // would read every vector of the model).
                    "SELECT image_id, vector FROM {} \
                     WHERE +model = ? AND image_id IN ({marks})",
                    vector_table(space)
                )
            },
            |row| {
                let id = ImageId::parse(&row.get::<_, String>(0)?).map_err(corrupt)?;
                let vector =
                    look_vector::from_bytes(&row.get::<_, Vec<u8>>(1)?).map_err(corrupt)?;
                Ok((id, vector))
            },
        )
    }

    fn looks_of(&self, images: &[ImageId]) -> Result<Vec<(ImageId, LookHash)>> {
        rows_for_images(
            &self.reader(),
            images,
            &[],
            |marks| {
                format!("SELECT id, look FROM images WHERE length(look) > 0 AND id IN ({marks})")
            },
            |row| {
                let id = ImageId::parse(&row.get::<_, String>(0)?).map_err(corrupt)?;
                let look = LookHash::from_bytes(&row.get::<_, Vec<u8>>(1)?).map_err(corrupt)?;
                Ok((id, look))
            },
        )
    }

    fn image_references(&self, id: &ImageId) -> Result<Vec<MemoryId>> {
        self.reader()
            .prepare_cached(
                "SELECT m.id FROM memory_images l JOIN memories m ON m.seq = l.memory_seq \
                 WHERE l.image_id = ?1 ORDER BY m.seq",
            )
            .sql()?
            .query_map([id.as_str()], |row| {
                row.get::<_, String>(0)?.parse().map_err(corrupt)
            })
            .sql()?
            .collect::<rusqlite::Result<_>>()
            .sql()
    }
}

impl ImageTx for SqliteTx<'_, '_> {
    fn image(&mut self, id: &ImageId) -> Result<Option<Image>> {
        image(&self.tx, id)
    }

    fn put_image(&mut self, image: &Image) -> Result<bool> {
        let inserted = self
            .tx
            .prepare_cached(
                "INSERT OR IGNORE INTO images (id, format, width, height, bytes, created_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )
            .sql()?
            .execute(params![
                image.id.as_str(),
                image.format.as_str(),
                image.width,
                image.height,
                image.bytes as i64,
                millis(image.created_at),
            ])
            .sql()?;
        Ok(inserted > 0)
    }

    fn link_image(&mut self, memory: &MemoryId, image: &ImageId) -> Result<bool> {
        let seq = self.seq(memory)?;
        let inserted = self
            .tx
            .prepare_cached(
                "INSERT OR IGNORE INTO memory_images (memory_seq, image_id) VALUES (?1, ?2)",
            )
            .sql()?
            .execute(params![seq, image.as_str()])
            .sql()?;
        if inserted > 0 {
            refresh_image_text(&self.tx, seq, &mut self.words)?;
        }
        Ok(inserted > 0)
    }

    fn links_image(&mut self, memory: &MemoryId, image: &ImageId) -> Result<bool> {
        let seq = self.seq(memory)?;
        self.tx
            .prepare_cached("SELECT 1 FROM memory_images WHERE memory_seq = ?1 AND image_id = ?2")
            .sql()?
            .exists(params![seq, image.as_str()])
            .sql()
    }

    fn image_bytes(&mut self) -> Result<u64> {
        let total: i64 = self
            .tx
            .query_row("SELECT coalesce(sum(bytes), 0) FROM images", [], |row| {
                row.get(0)
            })
            .sql()?;
        Ok(total.max(0) as u64)
    }

    fn unreferenced_images(&mut self) -> Result<Vec<Image>> {
        self.tx
            .prepare_cached(&format!(
                "SELECT {IMAGE_COLUMNS} FROM images i {IMAGE_TEXT} WHERE NOT EXISTS \
                 (SELECT 1 FROM memory_images l WHERE l.image_id = i.id) \
                 ORDER BY i.created_at, i.id"
            ))
            .sql()?
            .query_map([], image_from_row)
            .sql()?
            .collect::<rusqlite::Result<_>>()
            .sql()
    }

    fn delete_image(&mut self, id: &ImageId) -> Result<()> {
        self.tx
            .prepare_cached("DELETE FROM images WHERE id = ?1")
            .sql()?
            .execute([id.as_str()])
            .sql()?;
        Ok(())
    }

    fn put_image_text(&mut self, id: &ImageId, text: &str, reader: &str) -> Result<()> {
        let recorded = self
            .tx
            .prepare_cached(
                "INSERT OR REPLACE INTO image_texts (image_id, text, reader) \
                 SELECT id, ?2, ?3 FROM images WHERE id = ?1",
            )
            .sql()?
            .execute(params![id.as_str(), text, reader])
            .sql()?;
        if recorded == 0 {
            return Ok(());
        }
        let showing: Vec<i64> = self
            .tx
            .prepare_cached("SELECT memory_seq FROM memory_images WHERE image_id = ?1")
            .sql()?
            .query_map([id.as_str()], |row| row.get(0))
            .sql()?
            .collect::<rusqlite::Result<_>>()
            .sql()?;
        for seq in showing {
            refresh_image_text(&self.tx, seq, &mut self.words)?;
        }
        Ok(())
    }

    fn put_image_vector(
        &mut self,
        space: ImageSpace,
        id: &ImageId,
        model: &str,
        vector: Option<&[f32]>,
    ) -> Result<()> {
        let bytes = vector
            .map(|v| Quantised::of(v).to_bytes())
            .unwrap_or_default();
        self.tx
            .prepare_cached(&format!(
                "INSERT OR REPLACE INTO {} (image_id, model, vector) \
                 SELECT id, ?2, ?3 FROM images WHERE id = ?1",
                vector_table(space)
            ))
            .sql()?
            .execute(params![id.as_str(), model, bytes])
            .sql()?;
        Ok(())
    }

    fn put_image_look(&mut self, id: &ImageId, look: Option<&LookHash>) -> Result<()> {
        let bytes: &[u8] = look.map_or(&[], LookHash::as_bytes);
        self.tx
            .prepare_cached("UPDATE images SET look = ?2 WHERE id = ?1")
            .sql()?
            .execute(params![id.as_str(), bytes])
            .sql()?;
        Ok(())
    }
}

/// The table that holds the images' vectors in `space`.
fn vector_table(space: ImageSpace) -> &'static str {
    match space {
        ImageSpace::Look => "image_look_vectors",
        ImageSpace::Clip => "image_clip_vectors",
    }
}
