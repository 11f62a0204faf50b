//! Mapping between [`Memory`]/[`Revision`] and rows, and keeping the tag tables in step.
//!
//! A memory's tags live canonically in `tags`/`memory_tags` (for filtering) and as a
//! space-joined copy in `memories.tags` (for the full-text index and for loading a memory in one
//! read). [`write_tags`] is the only code that changes either, always in the same transaction.

use cairn_core::memory::columns::{MemoryRow, RevisionRow};
use cairn_core::query::WordSink;
use cairn_core::{Memory, MemoryId, Revision, Tag, TopicKey};
use rusqlite::{Connection, OptionalExtension, Row, named_params};

use crate::columns::{corrupt, millis, project_column, tags_to_text};
use crate::error::SqliteError;

pub use cairn_core::memory::columns::{MEMORY_COLUMNS, REVISION_COLUMNS};

pub fn memory_from_row(row: &Row<'_>) -> rusqlite::Result<Memory> {
    memory_from_row_at(row, 0)
}

/// Reads the [`MEMORY_COLUMNS`] starting at column `first`.
pub fn memory_from_row_at(row: &Row<'_>, first: usize) -> rusqlite::Result<Memory> {
    let at = |n: usize| first + n;
    MemoryRow {
        id: row.get(at(0))?,
        content: row.get(at(1))?,
        title: row.get(at(2))?,
        category: row.get(at(3))?,
        project: row.get(at(4))?,
        topic_key: row.get(at(5))?,
        entered_by: row.get(at(6))?,
        session_id: row.get(at(7))?,
        source: row.get(at(8))?,
        importance: row.get(at(9))?,
        created_at: row.get(at(10))?,
        updated_at: row.get(at(11))?,
        expires_at: row.get(at(12))?,
        deleted_at: row.get(at(13))?,
        tags: row.get(at(14))?,
    }
    .into_memory()
    .map_err(corrupt)
}

pub fn revision_from_row(row: &Row<'_>) -> rusqlite::Result<Revision> {
    RevisionRow {
        number: row.get(0)?,
        content: row.get(1)?,
        title: row.get(2)?,
        category: row.get(3)?,
        tags: row.get(4)?,
        importance: row.get(5)?,
        expires_at: row.get(6)?,
        written_at: row.get(7)?,
    }
    .into_revision()
    .map_err(corrupt)
}

/// The internal row key of a memory, if it exists.
pub fn seq_of(conn: &Connection, id: &MemoryId) -> Result<Option<i64>, SqliteError> {
    Ok(conn
        .prepare_cached("SELECT seq FROM memories WHERE id = ?1")?
        .query_row([id.to_string()], |row| row.get(0))
        .optional()?)
}

/// Replaces the tag links of the memory at `seq` with `tags`, dropping tags nobody uses.
pub fn write_tags(conn: &Connection, seq: i64, tags: &[Tag]) -> Result<(), SqliteError> {
    let old: Vec<i64> = conn
        .prepare_cached("SELECT tag_id FROM memory_tags WHERE memory_seq = ?1")?
        .query_map([seq], |row| row.get(0))?
        .collect::<Result<_, _>>()?;
    conn.prepare_cached("DELETE FROM memory_tags WHERE memory_seq = ?1")?
        .execute([seq])?;
    link_tags(conn, seq, tags)?;
    drop_unused_tags(conn, &old)
}

/// Links the memory at `seq` (which has no links yet) to `tags`, creating missing tags.
fn link_tags(conn: &Connection, seq: i64, tags: &[Tag]) -> Result<(), SqliteError> {
    let mut find = conn.prepare_cached("SELECT id FROM tags WHERE name = ?1")?;
    let mut create = conn.prepare_cached("INSERT INTO tags(name) VALUES (?1)")?;
    let mut link =
        conn.prepare_cached("INSERT INTO memory_tags(memory_seq, tag_id) VALUES (?1, ?2)")?;
    for tag in tags {
        let existing: Option<i64> = find
            .query_row([tag.as_str()], |row| row.get(0))
            .optional()?;
        let tag_id = match existing {
            Some(id) => id,
            None => {
                create.execute([tag.as_str()])?;
                conn.last_insert_rowid()
            }
        };
        link.execute([seq, tag_id])?;
    }
    Ok(())
}

/// Deletes those of `tag_ids` that no memory links to any more.
pub fn drop_unused_tags(conn: &Connection, tag_ids: &[i64]) -> Result<(), SqliteError> {
    let mut drop = conn.prepare_cached(
        "DELETE FROM tags WHERE id = ?1 AND NOT EXISTS (SELECT 1 FROM memory_tags WHERE tag_id = ?1)",
    )?;
    for tag_id in tag_ids {
        drop.execute([tag_id])?;
    }
    Ok(())
}

/// Named parameters shared by insert and update.
macro_rules! memory_params {
    ($memory:expr, $hash:expr, $tags:expr) => {
        named_params! {
            ":id": $memory.id.to_string(),
            ":content": $memory.content,
            ":title": $memory.title,
            ":category": $memory.category.as_str(),
            ":project": project_column(&$memory.scope),
            ":topic_key": $memory.topic_key.as_ref().map(TopicKey::as_str),
            ":content_hash": $hash,
            ":entered_by": $memory.entered_by,
            ":session_id": $memory.session_id,
            ":source": $memory.source.as_str(),
            ":importance": $memory.importance.get(),
            ":created_at": millis($memory.created_at),
            ":updated_at": millis($memory.updated_at),
            ":expires_at": $memory.expires_at.map(millis),
            ":deleted_at": $memory.deleted_at.map(millis),
            ":tags": $tags,
        }
    };
}

/// Inserts a memory row and its tags; returns its row key.
pub fn insert_memory(
    conn: &Connection,
    memory: &Memory,
    words: &mut WordSink<'_>,
) -> Result<i64, SqliteError> {
    let hash = cairn_core::memory::normalise::content_hash(&memory.content);
    let tags = tags_to_text(&memory.tags);
    conn.prepare_cached(
        "INSERT INTO memories (id, content, title, category, project, topic_key, content_hash, \
         entered_by, session_id, source, importance, created_at, updated_at, expires_at, \
         deleted_at, tags) VALUES (:id, :content, :title, :category, :project, :topic_key, \
         :content_hash, :entered_by, :session_id, :source, :importance, :created_at, \
         :updated_at, :expires_at, :deleted_at, :tags)",
    )?
    .execute(memory_params!(memory, hash, tags))?;
    let seq = conn.last_insert_rowid();
    crate::vector_rows::queue(conn, seq)?;
    index_text(
        conn,
        &IndexedText {
            seq,
            title: memory.title.clone(),
            content: memory.content.clone(),
            tags: tags.clone(),
            image_text: String::new(),
        },
    )?;
    words.remember([
        memory.title.as_deref().unwrap_or(""),
        memory.content.as_str(),
        tags.as_str(),
    ]);
    link_tags(conn, seq, &memory.tags)?;
    Ok(seq)
}

/// Overwrites the row of `memory.id` and its tags; `false` when no such memory exists.
pub fn update_memory(
    conn: &Connection,
    memory: &Memory,
    words: &mut WordSink<'_>,
) -> Result<bool, SqliteError> {
    let Some(old) = indexed_text(conn, &memory.id)? else {
        return Ok(false);
    };
    let hash = cairn_core::memory::normalise::content_hash(&memory.content);
    let tags = tags_to_text(&memory.tags);
    conn.prepare_cached(
        "UPDATE memories SET content = :content, title = :title, category = :category, \
             project = :project, topic_key = :topic_key, content_hash = :content_hash, \
             entered_by = :entered_by, session_id = :session_id, source = :source, \
             importance = :importance, created_at = :created_at, updated_at = :updated_at, \
             expires_at = :expires_at, deleted_at = :deleted_at, tags = :tags WHERE id = :id",
    )?
    .execute(memory_params!(memory, hash, tags))?;
    if (
        old.title.as_deref(),
        old.content.as_str(),
        old.tags.as_str(),
    ) != (
        memory.title.as_deref(),
        memory.content.as_str(),
        tags.as_str(),
    ) {
        if (old.title.as_deref(), old.content.as_str())
            != (memory.title.as_deref(), memory.content.as_str())
        {
            // The embedded text changed: the memory is pending again.
            crate::vector_rows::queue(conn, old.seq)?;
        }
        unindex_text(conn, &old)?;
        index_text(
            conn,
            &IndexedText {
                seq: old.seq,
                title: memory.title.clone(),
                content: memory.content.clone(),
                tags: tags.clone(),
                image_text: old.image_text,
            },
        )?;
        words.remember([
            memory.title.as_deref().unwrap_or(""),
            memory.content.as_str(),
            tags.as_str(),
        ]);
    }
    write_tags(conn, old.seq, &memory.tags)?;
    Ok(true)
}

/// What the full-text index holds for one memory: exactly the values it was indexed with,
/// which FTS5 needs to remove the entry again.
pub struct IndexedText {
    pub seq: i64,
    pub title: Option<String>,
    pub content: String,
    pub tags: String,
    /// The text read from the memory's images.
    pub image_text: String,
}

const INDEXED_COLUMNS: &str = "seq, title, content, tags, image_text";

fn indexed_from_row(row: &Row<'_>) -> rusqlite::Result<IndexedText> {
    Ok(IndexedText {
        seq: row.get(0)?,
        title: row.get(1)?,
        content: row.get(2)?,
        tags: row.get(3)?,
        image_text: row.get(4)?,
    })
}

pub fn indexed_text(conn: &Connection, id: &MemoryId) -> Result<Option<IndexedText>, SqliteError> {
    Ok(conn
        .prepare_cached(&format!(
            "SELECT {INDEXED_COLUMNS} FROM memories WHERE id = ?1"
        ))?
        .query_row([id.to_string()], indexed_from_row)
        .optional()?)
}

/// Adds a memory's text to the full-text index.
fn index_text(conn: &Connection, text: &IndexedText) -> Result<(), SqliteError> {
    conn.prepare_cached(
        "INSERT INTO memories_fts(rowid, title, content, tags, image_text) \
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(rusqlite::params![
        text.seq,
        text.title,
        text.content,
        text.tags,
        text.image_text
    ])?;
    Ok(())
}

/// Removes a memory's text from the full-text index (before its row changes or goes).
pub fn unindex_text(conn: &Connection, old: &IndexedText) -> Result<(), SqliteError> {
    conn.prepare_cached(
        "INSERT INTO memories_fts(memories_fts, rowid, title, content, tags, image_text) \
         VALUES ('delete', ?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(rusqlite::params![
        old.seq,
        old.title,
        old.content,
        old.tags,
        old.image_text
    ])?;
    Ok(())
}

/// Sets a memory's image text to the texts of the images it shows (oldest image first), and
/// when that changes it, re-indexes the memory, learns the new words and queues the memory to
/// be embedded again.
pub fn refresh_image_text(
    conn: &Connection,
    seq: i64,
    words: &mut WordSink<'_>,
) -> Result<(), SqliteError> {
    let old = conn
        .prepare_cached(&format!(
            "SELECT {INDEXED_COLUMNS} FROM memories WHERE seq = ?1"
        ))?
        .query_row([seq], indexed_from_row)?;
    let texts: Vec<String> = conn
        .prepare_cached(
            "SELECT t.text FROM memory_images l JOIN images i ON i.id = l.image_id \
             JOIN image_texts t ON t.image_id = l.image_id \
             WHERE l.memory_seq = ?1 AND t.text <> '' ORDER BY i.created_at, i.id",
        )?
        .query_map([seq], |row| row.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let image_text = texts.join("\n");
    if image_text == old.image_text {
        return Ok(());
    }
    unindex_text(conn, &old)?;
    conn.prepare_cached("UPDATE memories SET image_text = ?2 WHERE seq = ?1")?
        .execute(rusqlite::params![seq, image_text])?;
    words.remember([image_text.as_str()]);
    index_text(conn, &IndexedText { image_text, ..old })?;
    crate::vector_rows::queue(conn, seq)?;
    Ok(())
}

pub fn insert_revision(
    conn: &Connection,
    seq: i64,
    revision: &Revision,
) -> Result<(), SqliteError> {
    conn.prepare_cached(
        "INSERT INTO memory_revisions (memory_seq, number, content, title, category, tags, \
         importance, expires_at, written_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?
    .execute(rusqlite::params![
        seq,
        revision.number,
        revision.content,
        revision.title,
        revision.category.as_str(),
        tags_to_text(&revision.tags),
        revision.importance.get(),
        revision.expires_at.map(millis),
        millis(revision.written_at),
    ])?;
    Ok(())
}

pub fn revisions_of(conn: &Connection, seq: i64) -> Result<Vec<Revision>, SqliteError> {
    let sql = format!(
        "SELECT {REVISION_COLUMNS} FROM memory_revisions WHERE memory_seq = ?1 ORDER BY number"
    );
    Ok(conn
        .prepare_cached(&sql)?
        .query_map([seq], revision_from_row)?
        .collect::<Result<_, _>>()?)
}

/// Stores the words `sink` collected since the transaction began, sorted (see
/// [`WordSink::sorted`]), with their trigram index entries.
pub fn flush_words(conn: &Connection, sink: &WordSink<'_>) -> Result<(), SqliteError> {
    let mut insert = conn.prepare_cached("INSERT OR IGNORE INTO vocabulary(word) VALUES (?1)")?;
    let mut index =
        conn.prepare_cached("INSERT INTO vocabulary_trigrams(rowid, word) VALUES (?1, ?2)")?;
    for word in sink.sorted() {
        if insert.execute([word])? == 1 {
            index.execute(rusqlite::params![conn.last_insert_rowid(), word])?;
        }
    }
    Ok(())
}

/// Candidate near-spellings of `word` from the vocabulary: up to `limit` words sharing letter
/// triples with it (most shared first), then words with its first two letters and a length
/// within two of its own. The second source catches transpositions in short words, which share
/// no triple at all (`dokcer` and `docker`).
pub fn similar_words(
    conn: &Connection,
    word: &str,
    limit: usize,
) -> Result<Vec<String>, SqliteError> {
    let chars: Vec<char> = word.to_lowercase().chars().collect();
    if chars.len() < 3 {
        return Ok(Vec::new());
    }
    let mut words = sharing_trigrams(conn, &chars, limit)?;
    for candidate in sharing_start(conn, &chars, limit)? {
        if !words.contains(&candidate) {
            words.push(candidate);
        }
    }
    Ok(words)
}

fn sharing_start(
    conn: &Connection,
    chars: &[char],
    limit: usize,
) -> Result<Vec<String>, SqliteError> {
    let start: String = chars[..2].iter().collect();
    let Some(next) = char::from_u32(u32::from(chars[1]) + 1) else {
        return Ok(Vec::new());
    };
    let end: String = [chars[0], next].iter().collect();
    let length = chars.len() as i64;
    let words = conn
        .prepare_cached(
            "SELECT word FROM vocabulary WHERE word >= ?1 AND word < ?2 \
             AND length(word) BETWEEN ?3 AND ?4 LIMIT ?5",
        )?
        .query_map(
            rusqlite::params![start, end, length - 2, length + 2, limit as i64],
            |row| row.get(0),
        )?
        .collect::<Result<_, _>>()?;
    Ok(words)
}

fn sharing_trigrams(
    conn: &Connection,
    chars: &[char],
    limit: usize,
) -> Result<Vec<String>, SqliteError> {
    let mut trigrams: Vec<String> = chars
        .windows(3)
        .map(|w| w.iter().collect::<String>())
        .collect();
    trigrams.sort();
    trigrams.dedup();
    let expression = trigrams
        .iter()
        .map(|t| format!("\"{}\"", t.replace('"', "\"\"")))
        .collect::<Vec<_>>()
        .join(" OR ");
    let words = conn
        .prepare_cached(
            "SELECT word FROM vocabulary_trigrams WHERE vocabulary_trigrams MATCH ?1 \
             ORDER BY bm25(vocabulary_trigrams) LIMIT ?2",
        )?
        .query_map(rusqlite::params![expression, limit as i64], |row| {
            row.get(0)
        })?
        .collect::<Result<_, _>>()?;
    Ok(words)
}
