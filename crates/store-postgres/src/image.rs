//! Images in PostgreSQL: `images` (one record per stored image, and its look hash once hashed:
//! 68 bytes, or empty for a file that could not be decoded), `memory_images` (which memory
//! shows which; a memory's links go with it), `image_texts` (what was read from each image) and
//! `image_look_vectors`/`image_clip_vectors` (its vector in each space, 8-bit quantised as in
//! SQLite; [`vector_table`]). The nearest looks and vectors are found by reading the candidates
//! a filter shows and ranking them here, as the SQLite store does.
//!
//! A memory's `image_text` column holds the texts of the images it shows, kept whenever an
//! image is read or linked (`rows::refresh_image_text`), so the full text, the vocabulary and
//! the embedding queue see an image's words as the memory's.

use cairn_core::image::look_vector::{self, Quantised};
use cairn_core::image::{
    Image, ImageId, ImageSpace, ImageStore, ImageTotals, ImageTx, LookHash, MemoryImage,
    PendingWork,
};
use cairn_core::memory::MemoryFilter;
use cairn_core::{MemoryId, Result};
use jiff::Timestamp;
use postgres::Row;

use crate::PostgresStore;
use crate::columns::{get, millis, time};
use crate::error::{SqlResult, corrupt};
use crate::filter::condition;
use crate::params::Params;
use crate::rows::refresh_image_text;
use crate::sql::Sql;
use crate::tx::PostgresTx;

/// The image columns, `i` the image and `t` its text (`LEFT JOIN` [`IMAGE_TEXT`]).
const IMAGE_COLUMNS: &str = "i.id, i.format, i.width, i.height, i.bytes, i.created_at, t.text";

/// The join that gives an image `i` its text `t`, when read.
const IMAGE_TEXT: &str = "LEFT JOIN image_texts t ON t.image_id = i.id";

/// An image from [`IMAGE_COLUMNS`], starting at column `first`.
fn image_from_row(row: &Row, first: usize) -> Result<Image> {
    Ok(Image {
        id: ImageId::parse(&get::<String>(row, first)?).map_err(corrupt)?,
        format: get::<String>(row, first + 1)?.parse().map_err(corrupt)?,
        width: get::<i64>(row, first + 2)?.try_into().map_err(corrupt)?,
        height: get::<i64>(row, first + 3)?.try_into().map_err(corrupt)?,
        bytes: get::<i64>(row, first + 4)?.try_into().map_err(corrupt)?,
        created_at: time(get(row, first + 5)?)?,
        text: get(row, first + 6)?,
    })
}

fn images(client: &mut impl Sql, sql: &str, params: &Params) -> Result<Vec<Image>> {
    client
        .query(sql, &params.refs())
        .sql()?
        .iter()
        .map(|row| image_from_row(row, 0))
        .collect()
}

fn image(client: &mut impl Sql, id: &ImageId) -> Result<Option<Image>> {
    let mut params = Params::default();
    let sql = format!(
        "SELECT {IMAGE_COLUMNS} FROM images i {IMAGE_TEXT} WHERE i.id = {}",
        params.bind(id.as_str().to_string())
    );
    Ok(images(client, &sql, &params)?.pop())
}

/// The table that holds the images' vectors in `space`.
fn vector_table(space: ImageSpace) -> &'static str {
    match space {
        ImageSpace::Look => "image_look_vectors",
        ImageSpace::Clip => "image_clip_vectors",
    }
}

/// The condition that some memory matching `filter` shows the image whose id is `image_id`.
fn shown(image_id: &str, filter: &MemoryFilter, now: Timestamp, params: &mut Params) -> String {
    format!(
        "EXISTS (SELECT 1 FROM memory_images l JOIN memories m ON m.seq = l.memory_seq \
         WHERE l.image_id = {image_id} AND {})",
        condition(filter, now, params)
    )
}

/// The `limit` rows of `sql` (an image id, then a blob) nearest by `distance` (lower is
/// nearer), nearest first, ties by id.
fn nearest(
    client: &mut impl Sql,
    sql: &str,
    params: &Params,
    distance: &dyn Fn(&[u8]) -> Result<f32>,
    limit: usize,
) -> Result<Vec<(ImageId, f32, Vec<u8>)>> {
    let mut ranked = client
        .query(sql, &params.refs())
        .sql()?
        .iter()
        .map(|row| {
            let blob: Vec<u8> = get(row, 1)?;
            Ok((get::<String>(row, 0)?, distance(&blob)?, blob))
        })
        .collect::<Result<Vec<_>>>()?;
    ranked.sort_by(|a, b| a.1.total_cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
    ranked.truncate(limit);
    ranked
        .into_iter()
        .map(|(id, d, blob)| Ok((ImageId::parse(&id)?, d, blob)))
        .collect()
}

impl ImageStore for PostgresStore {
    fn image(&self, id: &ImageId) -> Result<Option<Image>> {
        image(&mut *self.reader()?, id)
    }

    fn images(&self) -> Result<Vec<Image>> {
        images(
            &mut *self.reader()?,
            &format!(
                "SELECT {IMAGE_COLUMNS} FROM images i {IMAGE_TEXT} ORDER BY i.created_at, i.id"
            ),
            &Params::default(),
        )
    }

    fn memory_images(&self, memories: &[MemoryId]) -> Result<Vec<MemoryImage>> {
        if memories.is_empty() {
            return Ok(Vec::new());
        }
        let ids: Vec<String> = memories.iter().map(MemoryId::to_string).collect();
        self.reader()?
            .query(
                &format!(
                    "SELECT m.id, {IMAGE_COLUMNS} FROM memories m \
                     JOIN memory_images l ON l.memory_seq = m.seq \
                     JOIN images i ON i.id = l.image_id {IMAGE_TEXT} \
                     WHERE m.id = ANY($1) ORDER BY i.created_at, i.id"
                ),
                &[&ids],
            )
            .sql()?
            .iter()
            .map(|row| {
                Ok(MemoryImage {
                    memory: get::<String>(row, 0)?.parse().map_err(corrupt)?,
                    image: image_from_row(row, 1)?,
                })
            })
            .collect()
    }

    fn image_references(&self, id: &ImageId) -> Result<Vec<MemoryId>> {
        self.reader()?
            .query(
                "SELECT m.id FROM memory_images l JOIN memories m ON m.seq = l.memory_seq \
                 WHERE l.image_id = $1 ORDER BY m.seq",
                &[&id.as_str()],
            )
            .sql()?
            .iter()
            .map(|row| get::<String>(row, 0)?.parse().map_err(corrupt))
            .collect()
    }

    fn image_totals(&self, models: &PendingWork) -> Result<ImageTotals> {
        let row = self
            .reader()?
            .query_one(
                "SELECT count(*), coalesce(sum(bytes), 0)::bigint, \
                 (SELECT count(*) FROM images i WHERE NOT EXISTS \
                  (SELECT 1 FROM image_texts t WHERE t.image_id = i.id)), \
                 count(*) - count(look), \
                 (SELECT count(*) FROM images i WHERE NOT EXISTS \
                  (SELECT 1 FROM image_look_vectors v WHERE v.image_id = i.id \
                   AND ($1::text IS NULL OR v.model = $1))), \
                 (SELECT count(*) FROM images i WHERE NOT EXISTS \
                  (SELECT 1 FROM image_clip_vectors v WHERE v.image_id = i.id \
                   AND ($2::text IS NULL OR v.model = $2))) FROM images",
                &[&models.look_model, &models.clip_model],
            )
            .sql()?;
        let count = |index: usize| -> Result<u64> { Ok(get::<i64>(&row, index)?.max(0) as u64) };
        Ok(ImageTotals {
            images: count(0)?,
            bytes: count(1)?,
            unread: count(2)?,
            unhashed: count(3)?,
            without_vector: count(4)?,
            without_clip_vector: count(5)?,
        })
    }

    fn pending_images(
        &self,
        limit: usize,
        work: &PendingWork<'_>,
        after: Option<&Image>,
    ) -> Result<Vec<Image>> {
        let (after_time, after_id) = match after {
            Some(image) => (millis(image.created_at), image.id.as_str().to_string()),
            None => (i64::MIN, String::new()),
        };
        let mut params = Params::default();
        let sql = format!(
            "SELECT {IMAGE_COLUMNS} FROM images i {IMAGE_TEXT} \
             WHERE (i.created_at, i.id) > ({}, {}) \
             AND (i.look IS NULL OR ({} AND t.image_id IS NULL) \
              OR ({look}::text IS NOT NULL AND NOT EXISTS (SELECT 1 FROM image_look_vectors v \
                  WHERE v.image_id = i.id AND v.model = {look})) \
              OR ({clip}::text IS NOT NULL AND NOT EXISTS (SELECT 1 FROM image_clip_vectors v \
                  WHERE v.image_id = i.id AND v.model = {clip}))) \
             ORDER BY i.created_at, i.id LIMIT {}",
            params.bind(after_time),
            params.bind(after_id),
            params.bind(work.read_text),
            params.bind(limit as i64),
            look = params.bind(work.look_model.map(str::to_string)),
            clip = params.bind(work.clip_model.map(str::to_string)),
        );
        images(&mut *self.reader()?, &sql, &params)
    }

    fn image_memories(
        &self,
        images: &[ImageId],
        filter: &MemoryFilter,
        now: Timestamp,
    ) -> Result<Vec<(ImageId, MemoryId)>> {
        let mut params = Params::default();
        let ids: Vec<String> = images.iter().map(|id| id.as_str().to_string()).collect();
        let sql = format!(
            "SELECT l.image_id, m.id FROM memory_images l JOIN memories m \
             ON m.seq = l.memory_seq WHERE l.image_id = ANY({}) AND {} ORDER BY m.seq",
            params.bind(ids),
            condition(filter, now, &mut params)
        );
        self.reader()?
            .query(&sql, &params.refs())
            .sql()?
            .iter()
            .map(|row| {
                Ok((
                    ImageId::parse(&get::<String>(row, 0)?).map_err(corrupt)?,
                    get::<String>(row, 1)?.parse().map_err(corrupt)?,
                ))
            })
            .collect()
    }

    fn nearest_looks(
        &self,
        look: &LookHash,
        limit: usize,
        filter: &MemoryFilter,
        now: Timestamp,
    ) -> Result<Vec<(ImageId, LookHash)>> {
        let mut params = Params::default();
        let sql = format!(
            "SELECT i.id, i.look FROM images i WHERE length(i.look) > 0 AND {}",
            shown("i.id", filter, now, &mut params)
        );
        let distance = |blob: &[u8]| Ok(LookHash::from_bytes(blob)?.distance(look) as f32);
        nearest(&mut *self.reader()?, &sql, &params, &distance, limit)?
            .into_iter()
            .map(|(id, _, blob)| Ok((id, LookHash::from_bytes(&blob)?)))
            .collect()
    }

    fn looks_of(&self, images: &[ImageId]) -> Result<Vec<(ImageId, LookHash)>> {
        let ids: Vec<String> = images.iter().map(|id| id.as_str().to_string()).collect();
        self.reader()?
            .query(
                "SELECT id, look FROM images WHERE length(look) > 0 AND id = ANY($1)",
                &[&ids],
            )
            .sql()?
            .iter()
            .map(|row| {
                let id = ImageId::parse(&get::<String>(row, 0)?).map_err(corrupt)?;
                let look = LookHash::from_bytes(&get::<Vec<u8>>(row, 1)?).map_err(corrupt)?;
                Ok((id, look))
            })
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
        let mut params = Params::default();
        let sql = format!(
            "SELECT v.image_id, v.vector FROM {} v WHERE v.model = {} \
             AND length(v.vector) > 0 AND {}",
            vector_table(space),
            params.bind(model.to_string()),
            shown("v.image_id", filter, now, &mut params)
        );
        Ok(
            nearest(&mut *self.reader()?, &sql, &params, &distance, limit)?
                .into_iter()
                .map(|(id, distance, _)| (id, 1.0 - distance))
                .collect(),
        )
    }

    fn image_vectors_of(
        &self,
        space: ImageSpace,
        images: &[ImageId],
        model: &str,
    ) -> Result<Vec<(ImageId, Vec<f32>)>> {
        let ids: Vec<String> = images.iter().map(|id| id.as_str().to_string()).collect();
        self.reader()?
            .query(
                &format!(
                    "SELECT image_id, vector FROM {} WHERE model = $1 AND image_id = ANY($2)",
                    vector_table(space)
                ),
                &[&model, &ids],
            )
            .sql()?
            .iter()
            .map(|row| {
                let id = ImageId::parse(&get::<String>(row, 0)?).map_err(corrupt)?;
                let vector = look_vector::from_bytes(&get::<Vec<u8>>(row, 1)?).map_err(corrupt)?;
                Ok((id, vector))
            })
            .collect()
    }
}

impl ImageTx for PostgresTx<'_, '_> {
    fn image(&mut self, id: &ImageId) -> Result<Option<Image>> {
        image(&mut self.tx, id)
    }

    fn put_image(&mut self, image: &Image) -> Result<bool> {
        let inserted = self
            .tx
            .execute(
                "INSERT INTO images (id, format, width, height, bytes, created_at) \
                 VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING",
                &[
                    &image.id.as_str(),
                    &image.format.as_str(),
                    &i64::from(image.width),
                    &i64::from(image.height),
                    &(image.bytes as i64),
                    &millis(image.created_at),
                ],
            )
            .sql()?;
        Ok(inserted > 0)
    }

    fn link_image(&mut self, memory: &MemoryId, image: &ImageId) -> Result<bool> {
        let seq = self.seq(memory)?;
        let inserted = self
            .tx
            .execute(
                "INSERT INTO memory_images (memory_seq, image_id) VALUES ($1, $2) \
                 ON CONFLICT DO NOTHING",
                &[&seq, &image.as_str()],
            )
            .sql()?;
        if inserted > 0 {
            refresh_image_text(&mut self.tx, seq, &mut self.words)?;
        }
        Ok(inserted > 0)
    }

    fn links_image(&mut self, memory: &MemoryId, image: &ImageId) -> Result<bool> {
        let seq = self.seq(memory)?;
        Ok(self
            .tx
            .query_opt(
                "SELECT 1 FROM memory_images WHERE memory_seq = $1 AND image_id = $2",
                &[&seq, &image.as_str()],
            )
            .sql()?
            .is_some())
    }

    fn image_bytes(&mut self) -> Result<u64> {
        let total: i64 = self
            .tx
            .query_one("SELECT coalesce(sum(bytes), 0)::bigint FROM images", &[])
            .sql()?
            .get(0);
        Ok(total.max(0) as u64)
    }

    fn unreferenced_images(&mut self) -> Result<Vec<Image>> {
        let sql = format!(
            "SELECT {IMAGE_COLUMNS} FROM images i {IMAGE_TEXT} WHERE NOT EXISTS \
             (SELECT 1 FROM memory_images l WHERE l.image_id = i.id) ORDER BY i.created_at, i.id"
        );
        images(&mut self.tx, &sql, &Params::default())
    }

    fn delete_image(&mut self, id: &ImageId) -> Result<()> {
        self.tx
            .execute("DELETE FROM images WHERE id = $1", &[&id.as_str()])
            .sql()?;
        Ok(())
    }

    fn put_image_text(&mut self, id: &ImageId, text: &str, reader: &str) -> Result<()> {
        let recorded = self
            .tx
            .execute(
                "INSERT INTO image_texts (image_id, text, reader) \
                 SELECT id, $2, $3 FROM images WHERE id = $1 \
                 ON CONFLICT (image_id) DO UPDATE SET text = excluded.text, reader = excluded.reader",
                &[&id.as_str(), &text, &reader],
            )
            .sql()?;
        if recorded == 0 {
            return Ok(());
        }
        let showing: Vec<i64> = self
            .tx
            .query(
                "SELECT memory_seq FROM memory_images WHERE image_id = $1",
                &[&id.as_str()],
            )
            .sql()?
            .iter()
            .map(|row| row.get(0))
            .collect();
        for seq in showing {
            refresh_image_text(&mut self.tx, seq, &mut self.words)?;
        }
        Ok(())
    }

    fn put_image_look(&mut self, id: &ImageId, look: Option<&LookHash>) -> Result<()> {
        let bytes: &[u8] = look.map_or(&[], LookHash::as_bytes);
        self.tx
            .execute(
                "UPDATE images SET look = $2 WHERE id = $1",
                &[&id.as_str(), &bytes],
            )
            .sql()?;
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
            .execute(
                &format!(
                    "INSERT INTO {} (image_id, model, vector) SELECT id, $2, $3 FROM images \
                     WHERE id = $1 ON CONFLICT (image_id) DO UPDATE SET model = excluded.model, \
                     vector = excluded.vector",
                    vector_table(space)
                ),
                &[&id.as_str(), &model, &bytes],
            )
            .sql()?;
        Ok(())
    }
}
