//! Mapping between [`Memory`]/[`Revision`] and rows, and keeping the tag tables and the full
//! text in step with every write of a memory.
//!
//! A memory's tags live canonically in `tags`/`memory_tags` (for filtering) and as a
//! space-joined copy in `memories.tags` (for the document and for loading a memory in one read);
//! its `fts` document is rewritten whenever its title, content, tags or image text change.

use cairn_core::embedding::VectorSpace;
use cairn_core::{Memory, MemoryId, Result, Revision, Tag};
use std::collections::HashMap;

use postgres::Row;

use crate::columns::{get, tags_to_text};
use crate::error::{SqlResult, corrupt};
use crate::params::Params;
use crate::sql::Sql;
use crate::text::{document_of, memory_document, words_of};
use crate::written::{MemoryColumns, RevisionColumns};
use cairn_core::memory::columns::{MemoryRow, RevisionRow};
use cairn_core::query::WordSink;

pub use cairn_core::memory::columns::{MEMORY_COLUMNS, REVISION_COLUMNS};

/// Reads the [`MEMORY_COLUMNS`] starting at column `first`.
pub fn memory_from_row(row: &Row, first: usize) -> Result<Memory> {
    let at = |n: usize| first + n;
    MemoryRow {
        id: get(row, at(0))?,
        content: get(row, at(1))?,
        title: get(row, at(2))?,
        category: get(row, at(3))?,
        project: get(row, at(4))?,
        topic_key: get(row, at(5))?,
        entered_by: get(row, at(6))?,
        session_id: get(row, at(7))?,
        source: get(row, at(8))?,
        importance: get(row, at(9))?,
        created_at: get(row, at(10))?,
        updated_at: get(row, at(11))?,
        expires_at: get(row, at(12))?,
        deleted_at: get(row, at(13))?,
        tags: get(row, at(14))?,
    }
    .into_memory()
    .map_err(corrupt)
}

/// Runs a query selecting [`MEMORY_COLUMNS`] and reads every row.
pub fn query_memories(client: &mut impl Sql, sql: &str, params: &Params) -> Result<Vec<Memory>> {
    client
        .query(sql, &params.refs())
        .sql()?
        .iter()
        .map(|row| memory_from_row(row, 0))
        .collect()
}

fn revision_from_row(row: &Row) -> Result<Revision> {
    RevisionRow {
        number: get(row, 0)?,
        content: get(row, 1)?,
        title: get(row, 2)?,
        category: get(row, 3)?,
        tags: get(row, 4)?,
        importance: get(row, 5)?,
        expires_at: get(row, 6)?,
        written_at: get(row, 7)?,
    }
    .into_revision()
    .map_err(corrupt)
}

/// The internal row key of a memory, if it exists.
pub fn seq_of(client: &mut impl Sql, id: &MemoryId) -> Result<Option<i64>> {
    Ok(client
        .query_opt("SELECT seq FROM memories WHERE id = $1", &[&id.to_string()])
        .sql()?
        .map(|row| row.get(0)))
}

/// Replaces the tag links of the memory at `seq` with `tags`, dropping tags nobody uses.
fn write_tags(client: &mut impl Sql, seq: i64, tags: &[Tag]) -> Result<()> {
    let old: Vec<i64> = client
        .query(
            "DELETE FROM memory_tags WHERE memory_seq = $1 RETURNING tag_id",
            &[&seq],
        )
        .sql()?
        .iter()
        .map(|row| row.get(0))
        .collect();
    let names: Vec<&str> = tags.iter().map(Tag::as_str).collect();
    client
        .execute(
            "INSERT INTO tags (name) SELECT unnest($1::text[]) ON CONFLICT (name) DO NOTHING",
            &[&names],
        )
        .sql()?;
    client
        .execute(
            "INSERT INTO memory_tags (memory_seq, tag_id) \
             SELECT $1, id FROM tags WHERE name = ANY($2) ON CONFLICT DO NOTHING",
            &[&seq, &names],
        )
        .sql()?;
    drop_unused_tags(client, &old)
}

/// Deletes those of `tag_ids` that no memory links to any more.
pub fn drop_unused_tags(client: &mut impl Sql, tag_ids: &[i64]) -> Result<()> {
    if tag_ids.is_empty() {
        return Ok(());
    }
    client
        .execute(
            "DELETE FROM tags t WHERE t.id = ANY($1) \
             AND NOT EXISTS (SELECT 1 FROM memory_tags mt WHERE mt.tag_id = t.id)",
            &[&tag_ids],
        )
        .sql()?;
    Ok(())
}

/// Inserts a memory row, its document and its tags, and queues it for embedding: one
/// statement, so a write costs one round trip.
pub fn insert_memory(
    client: &mut impl Sql,
    memory: &Memory,
    words: &mut WordSink<'_>,
) -> Result<()> {
    insert_memories(client, &[memory], words).map(drop)
}

/// Inserts new memories (every id new, none twice): their rows, documents and tag links, and
/// their places in the embedding queue, in one statement whatever their number. Returns their
/// row keys, in their order.
pub fn insert_memories(
    client: &mut impl Sql,
    memories: &[&Memory],
    words: &mut WordSink<'_>,
) -> Result<Vec<i64>> {
    if memories.is_empty() {
        return Ok(Vec::new());
    }
    let mut ids = Vec::with_capacity(memories.len());
    let mut columns = MemoryColumns::default();
    // The words of each memory's title, tags and content, as the document reads them.
    let mut document_words: [Vec<String>; 3] = Default::default();
    // Which tag each memory links to, as (memory id, tag name) pairs.
    let (mut link_ids, mut link_names) = (Vec::new(), Vec::new());
    for memory in memories {
        let id = memory.id.to_string();
        let tags = tags_to_text(&memory.tags);
        let title = memory.title.as_deref().unwrap_or("");
        for (words, text) in document_words
            .iter_mut()
            .zip([title, &tags, &memory.content])
        {
            words.push(words_of(text));
        }
        for tag in &memory.tags {
            link_ids.push(id.clone());
            link_names.push(tag.as_str().to_string());
        }
        words.remember([title, memory.content.as_str(), tags.as_str()]);
        columns.push(memory, tags);
        ids.push(id);
    }
    let mut params = Params::default();
    let ids_array = params.bind(ids);
    let written = columns.bind(&mut params);
    let [title_words, tag_words, content_words] = document_words.map(|w| params.bind(w));
    let document = document_of(&[
        "i.title_words".into(),
        "i.tag_words".into(),
        "i.content_words".into(),
        "''".into(),
    ]);
    let space = params.bind(VectorSpace::Text.as_str().to_string());
    let link_ids = params.bind(link_ids);
    let link_names = params.bind(link_names);
    let names = written.names();
    // Data-modifying CTEs see the tables as they were before the statement: the tags it creates
    // come from `created`'s RETURNING, the others from `tags`.
    let sql = format!(
        "WITH input AS (SELECT * FROM unnest({ids_array}::text[], {arrays}, \
                        {title_words}::text[], {tag_words}::text[], {content_words}::text[]) \
                        WITH ORDINALITY \
                        AS i(id, {names}, title_words, tag_words, content_words, ord)), \
              inserted AS (INSERT INTO memories (id, {names}, fts) \
                           SELECT id, {names}, {document} FROM input i ORDER BY ord \
                           RETURNING seq, id), \
              queued AS (INSERT INTO embedding_queue (memory_seq, space) \
                         SELECT seq, {space} FROM inserted), \
              links AS (SELECT * FROM unnest({link_ids}::text[], {link_names}::text[]) \
                        AS l(id, name)), \
              created AS (INSERT INTO tags (name) SELECT DISTINCT name FROM links \
                          ON CONFLICT (name) DO NOTHING RETURNING id, name), \
              linked AS (INSERT INTO memory_tags (memory_seq, tag_id) \
                         SELECT inserted.seq, t.id FROM links \
                         JOIN inserted ON inserted.id = links.id \
                         JOIN (SELECT id, name FROM tags WHERE name IN (SELECT name FROM links) \
                               UNION ALL SELECT id, name FROM created) t \
                         ON t.name = links.name) \
         SELECT id, seq FROM inserted",
        arrays = written.arrays(),
    );
    let seqs: HashMap<String, i64> = client
        .query(&sql, &params.refs())
        .sql()?
        .iter()
        .map(|row| Ok((get(row, 0)?, get(row, 1)?)))
        .collect::<Result<_>>()?;
    memories
        .iter()
        .map(|memory| {
            seqs.get(&memory.id.to_string())
                .copied()
                .ok_or_else(|| corrupt(format!("memory {} was not inserted", memory.id)))
        })
        .collect()
}

/// Overwrites the row of `memory.id` and its tags; `false` when no such memory exists.
pub fn update_memory(
    client: &mut impl Sql,
    memory: &Memory,
    words: &mut WordSink<'_>,
) -> Result<bool> {
    let Some(old) = client
        .query_opt(
            "SELECT seq, title, content, tags, image_text FROM memories WHERE id = $1",
            &[&memory.id.to_string()],
        )
        .sql()?
    else {
        return Ok(false);
    };
    let seq: i64 = get(&old, 0)?;
    let old_title: Option<String> = get(&old, 1)?;
    let old_content: String = get(&old, 2)?;
    let old_tags: String = get(&old, 3)?;
    let image_text: String = get(&old, 4)?;
    let tags = tags_to_text(&memory.tags);
    let mut params = Params::default();
    let mut columns = MemoryColumns::default();
    columns.push(memory, tags.clone());
    let written = columns.bind(&mut params);
    let mut assignments = vec![format!(
        "({}) = (SELECT * FROM unnest({}))",
        written.names(),
        written.arrays()
    )];
    let text_changed = (old_title.as_deref(), old_content.as_str())
        != (memory.title.as_deref(), memory.content.as_str());
    if text_changed || old_tags != tags {
        let document = memory_document(
            &mut params,
            memory.title.as_deref(),
            &memory.content,
            &tags,
            &image_text,
        );
        assignments.push(format!("fts = {document}"));
        words.remember([
            memory.title.as_deref().unwrap_or(""),
            memory.content.as_str(),
            tags.as_str(),
        ]);
    }
    let sql = format!(
        "UPDATE memories SET {} WHERE seq = {}",
        assignments.join(", "),
        params.bind(seq)
    );
    client.execute(&sql, &params.refs()).sql()?;
    if text_changed {
        // The embedded text changed: the memory is pending again.
        crate::embedding_queue::queue(client, seq)?;
    }
    write_tags(client, seq, &memory.tags)?;
    Ok(true)
}

/// Sets a memory's image text to the texts of the images it shows (oldest image first), and
/// when that changes it, rewrites its document, learns the new words and queues the memory to
/// be embedded again.
pub fn refresh_image_text(client: &mut impl Sql, seq: i64, words: &mut WordSink<'_>) -> Result<()> {
    let row = client
        .query_one(
            "SELECT title, content, tags, image_text, \
             coalesce((SELECT string_agg(t.text, E'\\n' ORDER BY i.created_at, i.id) \
                       FROM memory_images l JOIN images i ON i.id = l.image_id \
                       JOIN image_texts t ON t.image_id = l.image_id \
                       WHERE l.memory_seq = m.seq AND t.text <> ''), '') \
             FROM memories m WHERE m.seq = $1",
            &[&seq],
        )
        .sql()?;
    let title: Option<String> = get(&row, 0)?;
    let content: String = get(&row, 1)?;
    let tags: String = get(&row, 2)?;
    let old: String = get(&row, 3)?;
    let image_text: String = get(&row, 4)?;
    if image_text == old {
        return Ok(());
    }
    let mut params = Params::default();
    let document = memory_document(&mut params, title.as_deref(), &content, &tags, &image_text);
    let sql = format!(
        "UPDATE memories SET image_text = {}, fts = {document} WHERE seq = {}",
        params.bind(image_text.clone()),
        params.bind(seq)
    );
    client.execute(&sql, &params.refs()).sql()?;
    words.remember([image_text.as_str()]);
    crate::embedding_queue::queue(client, seq)
}

/// Adds `revision` to the memory at `seq`.
pub fn insert_revision(client: &mut impl Sql, seq: i64, revision: &Revision) -> Result<()> {
    let mut columns = RevisionColumns::default();
    columns.push(seq, revision);
    insert_revisions(client, columns)
}

/// Adds revisions, any number in one statement.
pub fn insert_revisions(client: &mut impl Sql, columns: RevisionColumns) -> Result<()> {
    let mut params = Params::default();
    let written = columns.bind(&mut params);
    let sql = format!(
        "INSERT INTO memory_revisions ({}) SELECT * FROM unnest({})",
        written.names(),
        written.arrays()
    );
    client.execute(&sql, &params.refs()).sql()?;
    Ok(())
}

pub fn revisions_of(client: &mut impl Sql, seq: i64) -> Result<Vec<Revision>> {
    client
        .query(
            &format!(
                "SELECT {REVISION_COLUMNS} FROM memory_revisions WHERE memory_seq = $1 \
                 ORDER BY number"
            ),
            &[&seq],
        )
        .sql()?
        .iter()
        .map(revision_from_row)
        .collect()
}
