//! Full text in PostgreSQL: documents, queries and the vocabulary.
//!
//! Text is split into words in Rust exactly as the SQLite store's tokenizer splits it (runs of
//! letters and digits, [`word_spans`]), lowercased and joined by spaces before PostgreSQL sees
//! it, so an address, a path or a version (`db.internal:5432`, `v1.2.3`) is words, not one
//! token of PostgreSQL's own parser. The `cairn` text search configuration (migration 1) stems
//! them in English and keeps every word (no stop words, as in SQLite). A memory's document
//! weighs its title A, its tags B, its content and image text D.
//!
//! Ranking is BM25-like, as SQLite's FTS5 ranks ([`bm25_score`]): each word, phrase or prefix
//! of the query counts by its rarity in the store (inverse document frequency) times how much
//! of the memory it makes up (`ts_rank` with [`RANK_WEIGHTS`], in the proportions of the SQLite
//! store's BM25 column weights, normalised by the memory's length). Rarity needs how many
//! memories hold the part: FTS5 reads that off its index, PostgreSQL would have to visit them,
//! so a part held by [`COUNTED_HOLDERS`] or more takes its count from the statistics `ANALYZE`
//! sampled instead (migration 4).

use cairn_core::query::{Match, WordSink, word_spans};

use crate::error::PostgresError;
use crate::params::Params;
use crate::sql::Sql;

/// `ts_rank`'s weights for D, C, B and A: content and image text 1, tags 1.5, title 2 (halved,
/// as ts_rank takes weights up to 1).
pub const RANK_WEIGHTS: &str = "'{0.5, 0.5, 0.75, 1.0}'";

/// `text` as the index's words: lowercased, separated by single spaces.
pub fn words_of(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for span in word_spans(text) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(span.chars().flat_map(char::to_lowercase));
    }
    out
}

/// The SQL of a memory's document, its four parts bound into `params`.
pub fn memory_document(
    params: &mut Params,
    title: Option<&str>,
    content: &str,
    tags: &str,
    image_text: &str,
) -> String {
    let parts =
        [title.unwrap_or(""), tags, content, image_text].map(|text| params.bind(words_of(text)));
    document_of(&parts)
}

/// The SQL of a memory's document from SQL expressions of its title, tags, content and image
/// text as [`words_of`] gives them.
pub fn document_of(parts: &[String; 4]) -> String {
    parts
        .iter()
        .zip(['A', 'B', 'D', 'D'])
        .map(|(words, weight)| format!("setweight(to_tsvector('cairn', {words}), '{weight}')"))
        .collect::<Vec<_>>()
        .join(" || ")
}

/// The SQL of an observation's document (every part weighs the same, as in SQLite).
pub fn observation_document(params: &mut Params, parts: &[Option<&str>]) -> String {
    let text: Vec<&str> = parts.iter().map(|p| p.unwrap_or("")).collect();
    format!(
        "to_tsvector('cairn', {})",
        params.bind(words_of(&text.join(" ")))
    )
}

/// The `tsquery` of a match expression, bound into `params`: every word is a quoted lexeme
/// (no input is read as query syntax) and every operator is parenthesised.
pub fn tsquery(params: &mut Params, expression: &Match) -> String {
    format!(
        "to_tsquery('cairn', {})",
        params.bind(tsquery_text(expression))
    )
}

/// The text form of a `tsquery` for `expression`.
pub fn tsquery_text(expression: &Match) -> String {
    let lexemes = |words: &[String]| -> Vec<String> {
        words
            .iter()
            .flat_map(|w| word_spans(w).map(|s| format!("'{}'", s.to_lowercase())))
            .collect()
    };
    let join = |items: &[Match], op: &str| {
        let parts: Vec<String> = items.iter().map(tsquery_text).collect();
        format!("({})", parts.join(op))
    };
    match expression {
        Match::Term(word) => {
            let words = lexemes(std::slice::from_ref(word));
            format!("({})", words.join(" <-> "))
        }
        Match::Phrase(words) => format!("({})", lexemes(words).join(" <-> ")),
        Match::Prefix(words) => {
            let mut words = lexemes(words);
            if let Some(last) = words.last_mut() {
                last.push_str(":*");
            }
            format!("({})", words.join(" <-> "))
        }
        Match::All(items) => join(items, " & "),
        Match::Any(items) => join(items, " | "),
        Match::Without { base, excluded } => excluded.iter().fold(tsquery_text(base), |acc, e| {
            format!("({acc} & !{})", tsquery_text(e))
        }),
    }
}

/// The `tsquery` texts of the parts of `expression` a memory is scored by: its words, phrases
/// and prefixes, once each, without those it excludes.
fn scored_parts(expression: &Match, out: &mut Vec<String>) {
    match expression {
        Match::Term(_) | Match::Phrase(_) | Match::Prefix(_) => {
            let part = tsquery_text(expression);
            if !out.contains(&part) {
                out.push(part);
            }
        }
        Match::All(items) | Match::Any(items) => {
            items.iter().for_each(|item| scored_parts(item, out))
        }
        Match::Without { base, .. } => scored_parts(base, out),
    }
}

/// Up to this many memories holding a part of a query are counted; a part held by more is
/// common, and its count comes from the statistics (migration 4,
/// `cairn_memories_holding_parts`). In a store this small, and for every rarer part, ranking is
/// exact, as SQLite's is.
pub const COUNTED_HOLDERS: i64 = 1_000;

/// The SQL of a memory `m`'s BM25-like score for `expression`, with a `WITH` clause to put
/// before the statement. The clause finds, once per statement and in one call for all the
/// parts, how many memories hold each part (exactly up to [`COUNTED_HOLDERS`]); it is
/// materialised, or PostgreSQL would inline it into the score and count again for every
/// candidate.
pub fn bm25_score(params: &mut Params, expression: &Match) -> (String, String) {
    let mut parts = Vec::new();
    scored_parts(expression, &mut parts);
    let queries: Vec<String> = parts
        .into_iter()
        .map(|part| format!("to_tsquery('cairn', {})", params.bind(part)))
        .collect();
    let cap = params.bind(COUNTED_HOLDERS);
    let with = format!(
        // How many memories there are: PostgreSQL's own estimate once it has one (counting
        // would read every row of the index), else a count; and the pages they fill, for
        // `newest_matches`.
        "WITH stored AS MATERIALIZED (SELECT CASE WHEN c.reltuples >= 0 THEN c.reltuples::float8 \
                                      ELSE (SELECT count(*)::float8 FROM memories) END AS n, \
                                      greatest(c.relpages, 1)::float8 AS pages \
                                      FROM pg_class c WHERE c.oid = 'memories'::regclass), \
         parts AS MATERIALIZED (SELECT p.q, p.n, \
                                       ln(1 + (stored.n - p.n + 0.5) / (p.n + 0.5)) AS idf \
                   FROM stored, (SELECT ARRAY[{}]::tsquery[] AS all_parts) queried, \
                        unnest(queried.all_parts, \
                               cairn_memories_holding_parts(queried.all_parts, {cap})) p(q, n))",
        queries.join(", ")
    );
    let score = format!(
        "(SELECT coalesce(sum(parts.idf * ts_rank({RANK_WEIGHTS}, m.fts, parts.q, 1)), 0) \
          FROM parts)"
    );
    (with, score)
}

/// The SQL of the `window` most recently written memories matching `query` (a bound
/// `tsquery` of the expression [`bm25_score`] scored, whose clause it extends), with the `WITH`
/// entry to append to that clause.
///
/// Two plans find them, and PostgreSQL's planner cannot tell which is faster: its estimate for
/// a union of uncommon words adds up a guess per word, so it walks the table newest first
/// hoping to meet `window` matches soon, and for 464 matches of fifteen fuzzy candidates it
/// read all 1,000,000 memories (2.5 s). The walk reads about `window` × memories ÷ matches rows,
/// many to a page; the other plan, every match found through the text index and the newest
/// kept, reads about a page per match. The parts' counts bound the matches: when they add up
/// to fewer than √(`window` × pages), the index path is taken (4 ms for those 464; ordering by
/// `seq + 0` is what keeps the planner off the walk, as no index yields that order); with more,
/// the walk, which stops early (77 ms for a word in 61,000 memories, against 0.36 s through
/// the index). Both give the same memories.
pub fn newest_matches(query: &str, window: &str) -> (String, String) {
    let with = format!(
        "sizes AS MATERIALIZED (SELECT coalesce((SELECT sum(parts.n) FROM parts) \
                                                < sqrt({window}::bigint * stored.pages), true) \
                                       AS few \
                                FROM stored)"
    );
    let matches = format!(
        "(SELECT * FROM memories WHERE fts @@ ({query}) AND (SELECT few FROM sizes) \
          ORDER BY seq + 0 DESC LIMIT {window}) \
         UNION ALL \
         (SELECT * FROM memories WHERE fts @@ ({query}) AND NOT (SELECT few FROM sizes) \
          ORDER BY seq DESC LIMIT {window})"
    );
    (with, matches)
}

/// Stores the words `sink` collected since the transaction began.
pub fn flush_words(client: &mut impl Sql, sink: &WordSink<'_>) -> Result<(), PostgresError> {
    if sink.added.is_empty() {
        return Ok(());
    }
    client.execute(
        "INSERT INTO vocabulary (word) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING",
        &[&sink.sorted()],
    )?;
    Ok(())
}

/// How alike by letter triples (pg_trgm's similarity: shared triples over all triples of the
/// two words, each word padded with two spaces before and one after) a vocabulary word must be
/// to be a candidate near-spelling; set on every connection. One edit — a letter changed,
/// added or dropped, or two neighbours swapped — breaks at most four of the n + 1 triples of a
/// word of n letters, so the word and its typo share at least n − 3 and are at least
/// (n − 3) / (n + 5) alike: a fifth at five letters. Every single-edit typo of a word of five
/// letters or more thus reaches its word through the trigram index; for shorter words
/// `similar_words` also looks up the words that begin alike. Measured at 100,000 memories
/// (73,000 words; 399 typos, a swap, a dropped, an added or a changed letter in words of four
/// letters or more): the same near-spellings as the 40 nearest by trigram distance in all but
/// one case, in 9 ms a word against 32 at the median.
pub const SIMILARITY_SETTING: &str = "SET pg_trgm.similarity_threshold = 0.2";

/// Candidate near-spellings of `word` from the vocabulary: up to `limit` words at least
/// [`SIMILARITY_SETTING`]'s fifth alike by letter triples (most alike first), then words with
/// its first two letters and a length within two of its own (a word of three or four letters
/// can share too few triples with its typo).
pub fn similar_words(
    client: &mut impl Sql,
    word: &str,
    limit: usize,
) -> Result<Vec<String>, PostgresError> {
    let chars: Vec<char> = word.to_lowercase().chars().collect();
    if chars.len() < 3 {
        return Ok(Vec::new());
    }
    let lowered: String = chars.iter().collect();
    let mut words: Vec<String> = client
        .query(
            // `%`: alike at least as the connection's threshold says, through the GIN index.
            "SELECT word FROM vocabulary WHERE word % $1 \
             ORDER BY similarity(word, $1) DESC, word LIMIT $2",
            &[&lowered, &(limit as i64)],
        )?
        .iter()
        .map(|row| row.get(0))
        .collect();
    let start: String = chars[..2].iter().collect();
    if let Some(next) = char::from_u32(u32::from(chars[1]) + 1) {
        let end: String = [chars[0], next].iter().collect();
        let length = chars.len() as i32;
        let sharing_start = client.query(
            "SELECT word FROM vocabulary WHERE word >= $1 AND word < $2 \
             AND char_length(word) BETWEEN $3 AND $4 LIMIT $5",
            &[&start, &end, &(length - 2), &(length + 2), &(limit as i64)],
        )?;
        for row in sharing_start {
            let candidate: String = row.get(0);
            if !words.contains(&candidate) {
                words.push(candidate);
            }
        }
    }
    Ok(words)
}
