//! The read side of [`Store`](cairn_core::store::Store): listings, full-text ranking, stats and
//! export, all under a [`MemoryFilter`] condition.

use cairn_core::memory::SignalHit;
use cairn_core::memory::{
    ListQuery, MemoryFilter, NamedCount, PruneRule, STATS_DAYS, SortKey, SortOrder, StoreStats,
    TagCount, Visibility,
};
use cairn_core::query::Match;
use cairn_core::{Memory, MemoryId, Result, Revision, ScopeFilter, Tag};
use jiff::Timestamp;
use rusqlite::{Connection, OptionalExtension, params_from_iter, types::Value};

use crate::columns::millis;
use crate::error::SqlResult;
use crate::filter::{TagTest, condition, condition_testing_tags, expired_sql, visible_sql};
use crate::rows::{self, MEMORY_COLUMNS, memory_from_row};

/// BM25 column weights for (title, content, tags, image text): a word in the title or a tag says
/// more about what a memory is about than the same word in its body; the text read from its
/// images counts as body.
const BM25_WEIGHTS: &str = "2.0, 1.0, 1.5, 1.0";

/// Runs a query selecting [`MEMORY_COLUMNS`] and reads every row.
pub(crate) fn query_memories(
    conn: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
) -> Result<Vec<Memory>> {
    conn.prepare_cached(sql)
        .sql()?
        .query_map(params, memory_from_row)
        .sql()?
        .collect::<Result<Vec<_>, _>>()
        .sql()
}

pub fn get(conn: &Connection, ids: &[MemoryId]) -> Result<Vec<Memory>> {
    let mut out = Vec::with_capacity(ids.len());
    for chunk in ids.chunks(500) {
        let marks = vec!["?"; chunk.len()].join(", ");
        let sql = format!("SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.id IN ({marks})");
        let params: Vec<Value> = chunk.iter().map(|id| Value::Text(id.to_string())).collect();
        out.extend(query_memories(conn, &sql, params_from_iter(params))?);
    }
    Ok(out)
}

pub fn ids_with_prefix(conn: &Connection, prefix: &str, limit: usize) -> Result<Vec<MemoryId>> {
    // Ids hold only [0-9a-f-], all below '~', so [prefix, prefix~) is exactly the prefix range.
    let upper = format!("{prefix}~");
    let ids: Vec<String> = conn
        .prepare_cached("SELECT id FROM memories WHERE id >= ?1 AND id < ?2 ORDER BY id LIMIT ?3")
        .sql()?
        .query_map(rusqlite::params![prefix, upper, limit as i64], |row| {
            row.get(0)
        })
        .sql()?
        .collect::<Result<_, _>>()
        .sql()?;
    ids.iter().map(|id| id.parse()).collect()
}

pub fn list(conn: &Connection, query: &ListQuery, now: Timestamp) -> Result<Vec<Memory>> {
    let direction = match query.order {
        SortOrder::Asc => "ASC",
        SortOrder::Desc => "DESC",
    };
    let time_column = match query.sort {
        SortKey::Created => Some("created_at"),
        SortKey::Updated => Some("updated_at"),
        SortKey::Expires | SortKey::Content => None,
    };
    let order = match (query.sort, time_column) {
        (_, Some(column)) => format!("m.{column} {direction}, m.seq {direction}"),
        (SortKey::Content, None) => {
            format!("m.content COLLATE NOCASE {direction}, m.seq {direction}")
        }
        (_, None) => {
            format!("m.expires_at IS NULL, m.expires_at {direction}, m.seq {direction}")
        }
    };
    let page = [
        Value::Integer(query.limit as i64),
        Value::Integer(query.offset as i64),
    ];
    if let (ScopeFilter::ProjectAndGlobal(project), Some(column)) =
        (&query.filter.scope, time_column)
    {
        // Each scope walks its (project, time) index in order and stops at the page; the two
        // short runs are merged. Sorting the whole project instead costs tens of milliseconds
        // at 100K memories.
        let rest = condition(
            &MemoryFilter {
                scope: ScopeFilter::All,
                ..query.filter.clone()
            },
            now,
        );
        let arm = format!(
            "SELECT * FROM (SELECT {MEMORY_COLUMNS}, m.seq AS seq_key FROM memories m \
             WHERE m.project = ? AND {} ORDER BY {order} LIMIT ?)",
            rest.sql
        );
        let sql = format!(
            "{arm} UNION ALL {arm} ORDER BY {column} {direction}, seq_key {direction} \
             LIMIT ? OFFSET ?"
        );
        let mut params = Vec::new();
        for scope in [project.as_str(), ""] {
            params.push(Value::Text(scope.to_string()));
            params.extend(rest.params.iter().cloned());
            params.push(Value::Integer((query.offset + query.limit) as i64));
        }
        params.extend(page);
        return query_memories(conn, &sql, params_from_iter(params));
    }
    let cond = condition(&query.filter, now);
    let sql = format!(
        "SELECT {MEMORY_COLUMNS} FROM memories m WHERE {} ORDER BY {order} LIMIT ? OFFSET ?",
        cond.sql
    );
    let mut params = cond.params;
    params.extend(page);
    query_memories(conn, &sql, params_from_iter(params))
}

pub fn count(conn: &Connection, filter: &MemoryFilter, now: Timestamp) -> Result<u64> {
    let cond = condition_testing_tags(filter, now, TagTest::FromTagList);
    let sql = format!("SELECT count(*) FROM memories m WHERE {}", cond.sql);
    conn.prepare_cached(&sql)
        .sql()?
        .query_row(params_from_iter(cond.params), |row| row.get::<_, i64>(0))
        .sql()
        .map(|n| n as u64)
}

pub fn lexical(
    conn: &Connection,
    expression: &Match,
    filter: &MemoryFilter,
    now: Timestamp,
    depth: usize,
    window: usize,
) -> Result<Vec<SignalHit>> {
    if depth == 0 || window == 0 {
        return Ok(Vec::new());
    }
    let fts = fts5_expression(expression);
    // The `window`-th newest match, when there are that many: rank only from there on. Walking
    // the index newest-first without scoring is cheap; scoring is what costs.
    let floor: Option<i64> = if window == usize::MAX {
        None
    } else {
        conn.prepare_cached("SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?1 ORDER BY rowid DESC LIMIT 1 OFFSET ?2")
        .sql()?
        .query_row(rusqlite::params![fts, window as i64 - 1], |row| row.get(0))
        .optional()
        .sql()?
    };
    let cond = condition(filter, now);
    let sql = format!(
        "SELECT m.id, bm25(memories_fts, {BM25_WEIGHTS}) AS score \
         FROM memories_fts JOIN memories m ON m.seq = memories_fts.rowid \
         WHERE memories_fts MATCH ? AND memories_fts.rowid >= ? AND {} ORDER BY score LIMIT ?",
        cond.sql
    );
    let mut params = vec![Value::Text(fts), Value::Integer(floor.unwrap_or(i64::MIN))];
    params.extend(cond.params);
    params.push(Value::Integer(depth as i64));
    let rows: Vec<(String, f64)> = conn
        .prepare_cached(&sql)
        .sql()?
        .query_map(params_from_iter(params), |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .sql()?
        .collect::<Result<_, _>>()
        .sql()?;
    rows.into_iter()
        .map(|(id, bm25)| {
            // FTS5's bm25() is negated so that ascending order is best-first; undo that.
            Ok(SignalHit {
                id: id.parse()?,
                raw: -bm25,
            })
        })
        .collect()
}

pub fn match_count(conn: &Connection, expression: &Match, cap: u64) -> Result<u64> {
    conn.prepare_cached(
        "SELECT count(*) FROM (SELECT 1 FROM memories_fts WHERE memories_fts MATCH ?1 LIMIT ?2)",
    )
    .sql()?
    .query_row(
        rusqlite::params![fts5_expression(expression), cap.min(i64::MAX as u64) as i64],
        |row| row.get::<_, i64>(0),
    )
    .sql()
    .map(|n| n as u64)
}

/// The FTS5 form of a match expression. Every word is quoted, so no input can be read as FTS5
/// syntax, and every operator is parenthesised, so FTS5's own precedence never matters.
pub fn fts5_expression(expression: &Match) -> String {
    let quote = |words: &[String]| format!("\"{}\"", words.join(" ").replace('"', "\"\""));
    let join = |items: &[Match], op: &str| {
        let parts: Vec<String> = items.iter().map(fts5_expression).collect();
        format!("({})", parts.join(op))
    };
    match expression {
        Match::Term(word) => quote(std::slice::from_ref(word)),
        Match::Phrase(words) => quote(words),
        Match::Prefix(words) => format!("{}*", quote(&porter_safe_prefix(words))),
        Match::All(items) => join(items, " AND "),
        Match::Any(items) => join(items, " OR "),
        Match::Without { base, excluded } => {
            excluded.iter().fold(fts5_expression(base), |acc, e| {
                format!("({acc} NOT {})", fts5_expression(e))
            })
        }
    }
}

/// FTS5 stems a prefix like a word, and Porter turns a final `y` into `i`: `deploy*` would
/// search `deploi*` and miss "deployment" (indexed as `deploy`). Every other Porter rule only
/// shortens the prefix, which widens the match harmlessly; so a final `y` is dropped instead
/// (`deplo*` matches both forms).
fn porter_safe_prefix(words: &[String]) -> Vec<String> {
    let mut words = words.to_vec();
    if let Some(last) = words.last_mut()
        && last.len() > 3
        && last.ends_with('y')
    {
        last.pop();
    }
    words
}

pub fn revisions(conn: &Connection, id: &MemoryId) -> Result<Vec<Revision>> {
    match rows::seq_of(conn, id)? {
        Some(seq) => Ok(rows::revisions_of(conn, seq)?),
        None => Ok(Vec::new()),
    }
}

pub fn prunable(conn: &Connection, rule: PruneRule) -> Result<Vec<Memory>> {
    let (condition, order, at) = match rule {
        PruneRule::Expired(at) => (expired_sql("m", "?"), "m.expires_at", at),
        PruneRule::CreatedBefore(at) => ("m.created_at < ?".to_string(), "m.created_at", at),
    };
    let sql = format!(
        "SELECT {MEMORY_COLUMNS} FROM memories m WHERE {condition} ORDER BY {order}, m.seq"
    );
    query_memories(conn, &sql, [millis(at)])
}

fn named_counts(conn: &Connection, sql: &str, now: Timestamp) -> Result<Vec<NamedCount>> {
    conn.prepare_cached(sql)
        .sql()?
        .query_map([millis(now)], |row| {
            Ok(NamedCount {
                name: row.get(0)?,
                count: row.get::<_, i64>(1)? as u64,
            })
        })
        .sql()?
        .collect::<Result<_, _>>()
        .sql()
}

pub fn stats(conn: &Connection, now: Timestamp) -> Result<StoreStats> {
    let visible = visible_sql("memories", Visibility::VISIBLE, "?1");
    let scalar = |sql: &str, with_now: bool| -> Result<i64> {
        let mut stmt = conn.prepare_cached(sql).sql()?;
        if with_now {
            stmt.query_row([millis(now)], |row| row.get(0)).sql()
        } else {
            stmt.query_row([], |row| row.get(0)).sql()
        }
    };
    let (oldest, newest): (Option<i64>, Option<i64>) = conn
        .prepare_cached(&format!(
            "SELECT min(created_at), max(created_at) FROM memories WHERE {visible}"
        ))
        .sql()?
        .query_row([millis(now)], |row| Ok((row.get(0)?, row.get(1)?)))
        .sql()?;
    let to_time = |ms: Option<i64>| ms.and_then(|ms| Timestamp::from_millisecond(ms).ok());
    let page_count = scalar("PRAGMA page_count", false)?;
    let page_size = scalar("PRAGMA page_size", false)?;
    Ok(StoreStats {
        memories: scalar(
            &format!("SELECT count(*) FROM memories WHERE {visible}"),
            true,
        )? as u64,
        forgotten: scalar(
            "SELECT count(*) FROM memories WHERE deleted_at IS NOT NULL",
            false,
        )? as u64,
        expired: scalar(
            &format!(
                "SELECT count(*) FROM memories WHERE deleted_at IS NULL AND {}",
                expired_sql("memories", "?1")
            ),
            true,
        )? as u64,
        revisions: scalar("SELECT count(*) FROM memory_revisions", false)? as u64,
        tags: scalar("SELECT count(*) FROM tags", false)? as u64,
        by_category: named_counts(
            conn,
            &format!(
                "SELECT category, count(*) FROM memories WHERE {visible} GROUP BY category ORDER BY 2 DESC, 1"
            ),
            now,
        )?,
        by_project: named_counts(
            conn,
            &format!(
                "SELECT CASE project WHEN '' THEN 'global' ELSE project END, count(*) FROM memories \
                 WHERE {visible} GROUP BY project ORDER BY 2 DESC, 1"
            ),
            now,
        )?,
        by_agent: named_counts(
            conn,
            &format!(
                "SELECT coalesce(entered_by, 'unknown'), count(*) FROM memories WHERE {visible} \
                 GROUP BY 1 ORDER BY 2 DESC, 1"
            ),
            now,
        )?,
        by_day: {
            let mut days = named_counts(
                conn,
                &format!(
                    "SELECT date(created_at / 1000, 'unixepoch'), count(*) FROM memories \
                     WHERE {visible} GROUP BY 1 ORDER BY 1 DESC LIMIT {STATS_DAYS}"
                ),
                now,
            )?;
            days.reverse();
            days
        },
        oldest: to_time(oldest),
        newest: to_time(newest),
        size_bytes: Some((page_count * page_size) as u64),
    })
}

pub fn tag_counts(
    conn: &Connection,
    filter: &MemoryFilter,
    now: Timestamp,
) -> Result<Vec<TagCount>> {
    let cond = condition(filter, now);
    let sql = format!(
        "SELECT t.name, count(*) FROM memory_tags mt JOIN tags t ON t.id = mt.tag_id \
         JOIN memories m ON m.seq = mt.memory_seq WHERE {} GROUP BY t.name ORDER BY 2 DESC, 1",
        cond.sql
    );
    let rows: Vec<(String, i64)> = conn
        .prepare_cached(&sql)
        .sql()?
        .query_map(params_from_iter(cond.params), |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .sql()?
        .collect::<Result<_, _>>()
        .sql()?;
    rows.into_iter()
        .map(|(name, count)| {
            Ok(TagCount {
                tag: Tag::new(&name)?,
                count: count as u64,
            })
        })
        .collect()
}
