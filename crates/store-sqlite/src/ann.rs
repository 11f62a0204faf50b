//! The HNSW index over the stored vectors of one space: approximate nearest neighbours for large
//! stores.
//!
//! SQLite's `memory_vectors` is the truth; the index is a cache of it, a usearch file beside the
//! database (`<db>.hnsw` for the text space, `<db>.<space>.hnsw` for others, each with a
//! `.json` saying what it holds), rebuildable at any time.
//! Every vector write takes the next number of `vector_clock` (numbers never repeat), and the
//! index holds the vectors numbered up to its *watermark*. A search:
//! - asks the index for candidates and keeps those whose vector is still the one indexed (numbered
//!   at most the watermark) and whose memory passes the filter, scored exactly from SQLite's f32;
//! - scans the *tail* — vectors numbered above the watermark — exactly (`vectors::scan`);
//! - merges the two (disjoint by construction).
//!
//! So a stale index is never wrong, only slower, and a missing or unreadable one means the exact
//! scan. A file is never trusted blindly: its metadata records the store it was built from
//! (`store_key`), the vectors' watermark, its size and CRC-32 and the file's identity just after
//! it was written (device, inode, times); a file whose identity changed since (anyone wrote to
//! it, or it was copied back) is read whole and checked byte by byte before usearch sees it
//! ([`crate::index_file`]). A damaged file, another store's, or one built from vectors the
//! database no longer has (a database copied back from before it: its watermark is ahead of
//! the database's clock) is not used: searches scan exactly, the process warns once, and the
//! next update builds the index anew (`cairn serve`'s worker does it at once; a one-shot
//! command asks `cairn reindex --vector-index` to run in the background). When the filter keeps too few candidates even after widening the search, the exact scan
//! answers instead. [`AnnIndex::update`] adds the tail once it passes `tail_limit`, and builds the
//! index anew when none is valid or too many of its entries are stale (or when asked); stores
//! with fewer than `min_vectors` vectors get none. Other processes' updates are picked up by
//! watching the metadata file; a file replaced under a reader is safe (files are replaced by
//! rename, never rewritten in place).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::{Instant, SystemTime};

use cairn_core::embedding::{ModelIdentity, VectorIndexReport, VectorSpace};
use cairn_core::memory::MemoryFilter;
use cairn_core::{Error, Result};
use jiff::Timestamp;
use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, params_from_iter};
use serde::{Deserialize, Serialize};
use usearch::{Index, IndexOptions, MetricKind, ScalarKind};

use crate::columns::corrupt;
use crate::error::SqlResult;
use crate::filter::condition;
use crate::index_file;
use crate::vector_rows::{self, Scored, clock, dot_with_blob, from_blob};

/// How the index is built, and when it is worth having.
#[derive(Debug, Clone)]
pub struct AnnSettings {
    /// Stores with fewer vectors keep no index. Measured (`cairn-bench hybrid`, 384 dims, two
    /// cores): the exact scan takes about 1 ms at 2,000 vectors, 3.3 ms at 5,000 and 10 ms at
    /// 10,000, the index under 1.2 ms at all three; below 5,000 the exact scan's perfect recall
    /// costs under 3 ms.
    pub min_vectors: u64,
    /// Vectors written since the index was saved are scanned exactly; past this many, the next
    /// update adds them to the index.
    pub tail_limit: u64,
    /// Precision of the vectors inside the index. Candidates are re-scored from the f32 vectors
    /// in SQLite, so this decides which candidates are found, never their similarity. Measured
    /// at 20,000 vectors, before usearch had SIMD kernels here (its `numkong` feature): int8
    /// builds in 2.7 s and searches in 0.45 ms at recall@10 0.926; f32 3.0 s, 0.49 ms, 0.939 at
    /// four times the size; f16 15 s, 1.25 ms, 0.927.
    pub quantization: ScalarKind,
    /// HNSW graph degree (M).
    pub connectivity: usize,
    /// Candidate list size while inserting (efConstruction).
    pub expansion_add: usize,
    /// Candidate list size while searching (ef) in an index of up to
    /// `expansion_search × vectors_per_expansion` vectors; always raised to the number of
    /// candidates asked for. Measured at 100,000 vectors (`cairn-bench hybrid` on its earlier,
    /// noisy blends, medians of three, one sitting): recall@10 against the exact scan 0.871 at
    /// 256, 0.928 at 512, 0.949 at 768 and 0.960 at 1,024, the index search p50 2.5 ms at 256
    /// and 5.9 ms at 1,024 (hybrid search with the query's embedding 7.3 and 12.2 ms). The
    /// neighbours missed at lower settings are near ties (found/true similarity 0.997), but a
    /// search should find what the exact scan finds.
    pub expansion_search: usize,
    /// A larger graph needs a wider search for the same recall, so past that size the breadth
    /// is one candidate per this many vectors, up to 8,192 (`MAX_EXPANSION_SEARCH`; 0: it never
    /// grows). Measured at 1,000,000 vectors (`cairn-bench hybrid --sizes 1000000 --ef-sweep
    /// 1024,2048,4096,6144`, three-vector blends, one build):
    /// recall@10 0.902 at 1,024, 0.955 at 2,048 and 0.971 at 4,096, the index search p50 3.7,
    /// 4.5 and 8.1 ms; a second build gave 0.905 and 0.942 at the first two. 250 gives 4,000
    /// at a million and leaves every store of up to 256,000 vectors at 1,024.
    pub vectors_per_expansion: usize,
}

/// The widest search breadth the size rule gives ([`AnnSettings::vectors_per_expansion`]):
/// about 20 ms of index search on two cores, at 8 million vectors and up.
pub const MAX_EXPANSION_SEARCH: usize = 8_192;

impl AnnSettings {
    /// The search breadth (ef) for an index holding `size` vectors.
    pub fn search_breadth(&self, size: usize) -> usize {
        match self.vectors_per_expansion {
            0 => self.expansion_search,
            per => (size / per).clamp(
                self.expansion_search,
                MAX_EXPANSION_SEARCH.max(self.expansion_search),
            ),
        }
    }
}

impl Default for AnnSettings {
    fn default() -> Self {
        AnnSettings {
            min_vectors: 5_000,
            tail_limit: 1_000,
            quantization: ScalarKind::I8,
            connectivity: 16,
            expansion_add: 128,
            expansion_search: 1_024,
            vectors_per_expansion: 250,
        }
    }
}

/// Candidates asked of the index per wanted result, at first; the filter may reject some.
const CANDIDATE_FACTOR: usize = 4;
const MIN_CANDIDATES: usize = 100;
/// Past this many candidates a filter is too selective for the index: the exact scan answers.
const MAX_CANDIDATES: usize = 5_000;
/// An index with more stale entries than this share of its size is built anew.
const STALE_SHARE: f64 = 0.2;
/// Vectors read from SQLite and added to the index at a time while building.
const BUILD_CHUNK: usize = 4_096;

/// What an index file holds, saved beside it as JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct IndexMeta {
    store_key: String,
    model: ModelIdentity,
    watermark: i64,
    count: u64,
    bytes: u64,
    /// CRC-32 of the file as written (absent in metadata from before files were checked).
    #[serde(default)]
    checksum: Option<u32>,
    /// The file's identity right after it was written: while it still has it, nobody wrote
    /// to it since, and it is used without reading it whole.
    #[serde(default)]
    written: Option<FileIdentity>,
}

/// Which file this is and whether anyone wrote to it: every write changes the change time,
/// and a copy is another inode.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct FileIdentity {
    device: u64,
    inode: u64,
    len: u64,
    modified_ns: i128,
    changed_ns: i128,
}

impl FileIdentity {
    #[cfg(unix)]
    fn of(file: &Path) -> Option<FileIdentity> {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(file).ok()?;
        let ns = |secs: i64, nanos: i64| i128::from(secs) * 1_000_000_000 + i128::from(nanos);
        Some(FileIdentity {
            device: meta.dev(),
            inode: meta.ino(),
            len: meta.len(),
            modified_ns: ns(meta.mtime(), meta.mtime_nsec()),
            changed_ns: ns(meta.ctime(), meta.ctime_nsec()),
        })
    }

    /// Elsewhere no identity is trusted: every file is checked.
    #[cfg(not(unix))]
    fn of(_file: &Path) -> Option<FileIdentity> {
        None
    }
}

struct Loaded {
    index: Index,
    meta: IndexMeta,
    /// The metadata file as last read, to notice another process's update.
    stamp: Option<(SystemTime, u64)>,
    /// True when the index was read whole (or built here) and can take additions; false for a
    /// memory-mapped view.
    writable: bool,
}

/// The HNSW index of one vector space: in a file beside an on-disk database (`<db>.hnsw` for
/// the text space, `<db>.<space>.hnsw` for the others), in memory only otherwise.
pub struct AnnIndex {
    space: VectorSpace,
    file: Option<PathBuf>,
    settings: AnnSettings,
    state: Mutex<Option<Loaded>>,
    /// Why the index file on disk cannot be used, once a search found it so (warned once);
    /// the next update builds it anew and clears this.
    damage: Mutex<Option<String>>,
}

/// Candidates found through the index, and the watermark the tail starts above.
pub struct Indexed {
    pub hits: Vec<Scored>,
    pub watermark: i64,
}

impl AnnIndex {
    pub fn new(database: Option<&Path>, space: VectorSpace, settings: AnnSettings) -> Self {
        let file = database.map(|db| {
            let mut name = db.as_os_str().to_owned();
            // The text space keeps the name its index had before there were spaces.
            if space != VectorSpace::Text {
                name.push(format!(".{space}"));
            }
            name.push(".hnsw");
            PathBuf::from(name)
        });
        AnnIndex {
            space,
            file,
            settings,
            state: Mutex::new(None),
            damage: Mutex::new(None),
        }
    }

    /// Why the index on disk is not used (damaged, another store's, or ahead of the
    /// database), when a search found it so and no update has rebuilt it yet.
    pub fn damage(&self) -> Option<String> {
        self.damage
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// Reads the index file whole and checks it (checksum, structure, which store and vectors
    /// it was built from), whatever its identity says: `cairn doctor`. `None` when it is sound
    /// or there is none; else why it cannot be used (also recorded, so the next update
    /// rebuilds it).
    pub fn check(&self, conn: &Connection) -> Result<Option<String>> {
        let Some(file) = &self.file else {
            return Ok(None);
        };
        let Some(model) = vector_rows::model(conn, self.space)? else {
            return Ok(None);
        };
        if !meta_path(file).exists() && !file.exists() {
            return Ok(None);
        }
        let why = match read_meta(file) {
            Err(error) => Some(error.to_string()),
            Ok((meta, stamp)) => {
                let (store_key, last_write) = clock(conn)?;
                match usable(&meta, &store_key, &model, last_write) {
                    Err(why) if meta.model == model => Some(why),
                    // Another model's index: replaced by the next update, as after any switch.
                    Err(_) => None,
                    Ok(()) => self
                        .open_checked(file, meta, stamp, false)
                        .err()
                        .map(|e| e.to_string()),
                }
            }
        };
        if let Some(why) = &why {
            self.damaged(file, why);
        }
        Ok(why)
    }

    /// Records that the file cannot be used, warning the first time.
    fn damaged(&self, file: &Path, why: &str) {
        let mut damage = self
            .damage
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if damage.is_none() {
            tracing::warn!(
                "the vector index {} cannot be used ({why}); searching exactly while it is \
                 rebuilt (cairn reindex --vector-index)",
                file.display()
            );
        }
        *damage = Some(why.to_string());
    }

    fn state(&self) -> MutexGuard<'_, Option<Loaded>> {
        // The index is only replaced whole, so a panic elsewhere cannot leave it half-changed.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The nearest indexed vectors under the filter, or `None` when there is no usable index or
    /// the filter is too selective for it (the caller then scans exactly).
    pub fn search(
        &self,
        conn: &Connection,
        query: &[f32],
        filter: &MemoryFilter,
        now: Timestamp,
        depth: usize,
    ) -> Result<Option<Indexed>> {
        let mut state = self.state();
        let Some(loaded) = self.current(conn, &mut state)? else {
            return Ok(None);
        };
        let size = loaded.index.size();
        let watermark = loaded.meta.watermark;
        let cond = condition(filter, now);
        let sql = format!(
            "SELECT v.vector FROM memory_vectors v JOIN memories m ON m.seq = v.memory_seq \
             WHERE v.memory_seq = ? AND v.space = ? AND v.written <= ? AND {}",
            cond.sql
        );
        let mut check = conn.prepare_cached(&sql).sql()?;
        let mut seen = HashSet::new();
        let mut hits = Vec::new();
        let mut wanted = (depth * CANDIDATE_FACTOR).max(MIN_CANDIDATES).min(size);
        loop {
            loaded
                .index
                .change_expansion_search(self.settings.search_breadth(size).max(wanted));
            let found = loaded
                .index
                .search(query, wanted)
                .map_err(|e| index_error("search", e))?;
            for key in found.keys {
                if !seen.insert(key) {
                    continue;
                }
                let params = [
                    Value::Integer(key as i64),
                    Value::Text(self.space.as_str().into()),
                    Value::Integer(watermark),
                ]
                .into_iter()
                .chain(cond.params.iter().cloned());
                let similarity = check
                    .query_row(params_from_iter(params), |row| {
                        let blob = row.get_ref(0)?.as_blob().map_err(corrupt)?;
                        Ok(dot_with_blob(query, blob))
                    })
                    .optional()
                    .sql()?;
                if let Some(similarity) = similarity {
                    hits.push(Scored(similarity, key as i64));
                }
            }
            if hits.len() >= depth || wanted >= size {
                return Ok(Some(Indexed { hits, watermark }));
            }
            if wanted >= MAX_CANDIDATES {
                return Ok(None);
            }
            wanted = (wanted * 8).min(size).min(MAX_CANDIDATES);
        }
    }

    /// The loaded index if it is valid for this database and its model, reopening it when
    /// another process replaced the file.
    fn current<'a>(
        &self,
        conn: &Connection,
        state: &'a mut Option<Loaded>,
    ) -> Result<Option<&'a mut Loaded>> {
        let Some(model) = vector_rows::model(conn, self.space)? else {
            *state = None;
            return Ok(None);
        };
        let (store_key, last_write) = clock(conn)?;
        if let Some(file) = &self.file {
            let stamp = stamp(&meta_path(file));
            let fresh = state
                .as_ref()
                .is_some_and(|l| l.stamp == stamp && stamp.is_some());
            if !fresh {
                *state = match stamp {
                    Some(_) => match self.open(file, false) {
                        Ok(loaded) => Some(loaded),
                        Err(e) => {
                            self.damaged(file, &e.to_string());
                            None
                        }
                    },
                    None => None,
                };
                if let Some(loaded) = state.as_ref()
                    && let Err(why) = usable(&loaded.meta, &store_key, &model, last_write)
                {
                    // Another model's index is the normal state after a switch; the rest
                    // means the file does not belong to this database as it is now.
                    if loaded.meta.model == model {
                        self.damaged(file, &why);
                    }
                }
            }
        }
        Ok(state
            .as_mut()
            .filter(|l| usable(&l.meta, &store_key, &model, last_write).is_ok()))
    }

    /// Opens the index file: mapped (`writable` false) or read whole. A file whose identity is
    /// the one recorded when it was written is used as it is; any other is read whole, its
    /// checksum and every byte of its structure checked, and loaded from what was checked.
    fn open(&self, file: &Path, writable: bool) -> Result<Loaded> {
        let (meta, stamp) = read_meta(file)?;
        let identity = FileIdentity::of(file);
        let index = self.empty_index(meta.model.dimensions)?;
        let untouched = meta.written.is_some() && meta.written == identity;
        let bytes = if untouched {
            let path = utf8(file)?;
            match writable {
                true => index.load(path),
                false => index.view(path),
            }
            .map_err(|e| index_error("open", e))?;
            // Replaced between the look and the open: read the new one with the checks.
            if FileIdentity::of(file) != identity {
                return self.open_checked(file, meta, stamp, writable);
            }
            identity.map_or(0, |i| i.len)
        } else {
            return self.open_checked(file, meta, stamp, writable);
        };
        self.loaded(file, index, meta, stamp, writable, bytes)
    }

    /// Reads the file whole, checks it and loads what was checked.
    fn open_checked(
        &self,
        file: &Path,
        meta: IndexMeta,
        stamp: Option<(SystemTime, u64)>,
        writable: bool,
    ) -> Result<Loaded> {
        let bytes = std::fs::read(file)
            .map_err(|e| Error::storage(format!("{}: {e}", file.display()), e))?;
        let damaged = |why: String| {
            Error::storage(
                format!("{} is damaged: {why}", file.display()),
                std::io::Error::other("damaged vector index"),
            )
        };
        if bytes.len() as u64 != meta.bytes {
            return Err(damaged(format!(
                "{} bytes, where its metadata says {}",
                bytes.len(),
                meta.bytes
            )));
        }
        if let Some(expected) = meta.checksum
            && index_file::checksum(&bytes) != expected
        {
            return Err(damaged("its checksum does not match".into()));
        }
        let index = self.empty_index(meta.model.dimensions)?;
        let layout = index_file::layout_of(&self.options(meta.model.dimensions))
            .map_err(|e| index_error("describe", e))?;
        index_file::load(&index, &bytes, &layout).map_err(damaged)?;
        self.loaded(file, index, meta, stamp, writable, bytes.len() as u64)
    }

    fn loaded(
        &self,
        file: &Path,
        index: Index,
        meta: IndexMeta,
        stamp: Option<(SystemTime, u64)>,
        writable: bool,
        bytes: u64,
    ) -> Result<Loaded> {
        if bytes != meta.bytes || index.size() as u64 != meta.count {
            return Err(Error::storage(
                format!(
                    "{} does not match its metadata (another process may be writing it)",
                    file.display()
                ),
                std::io::Error::other("index size mismatch"),
            ));
        }
        Ok(Loaded {
            index,
            meta,
            stamp,
            writable,
        })
    }

    fn options(&self, dimensions: usize) -> IndexOptions {
        IndexOptions {
            dimensions,
            metric: MetricKind::IP,
            quantization: self.settings.quantization,
            connectivity: self.settings.connectivity,
            expansion_add: self.settings.expansion_add,
            expansion_search: self.settings.expansion_search,
            multi: false,
        }
    }

    fn empty_index(&self, dimensions: usize) -> Result<Index> {
        Index::new(&self.options(dimensions)).map_err(|e| index_error("create", e))
    }

    /// Brings the index up to date (see the module docs); `rebuild` builds it anew regardless.
    pub fn update(
        &self,
        conn: &Connection,
        rebuild: bool,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<Option<VectorIndexReport>> {
        let started = Instant::now();
        let space = self.space.as_str();
        let Some(model) = vector_rows::model(conn, self.space)? else {
            return Ok(None);
        };
        let (store_key, last_write) = clock(conn)?;
        let mut state = self.state();
        // Deciding needs only the metadata: a process that merely stored a memory never opens
        // the index itself. A file a search found damaged is built anew.
        let valid = |meta: &IndexMeta| usable(meta, &store_key, &model, last_write).is_ok();
        let rebuild = rebuild || self.damage().is_some();
        let current = match (rebuild, &self.file) {
            (true, _) => None,
            (false, Some(file)) => read_meta(file)
                .ok()
                .filter(|(meta, _)| valid(meta) && file_len(file) == Some(meta.bytes)),
            (false, None) => state
                .as_ref()
                .filter(|l| valid(&l.meta))
                .map(|l| (l.meta.clone(), l.stamp)),
        }
        .map(|(meta, stamp)| (meta.watermark, meta.count, stamp));
        let stored = || {
            count(
                conn,
                "SELECT count(*) FROM memory_vectors WHERE space = ?1",
                [space],
            )
        };
        let plan = match current {
            None => {
                let stored = stored()?;
                if stored < self.settings.min_vectors {
                    return Ok(None);
                }
                Plan::Build { stored }
            }
            Some((watermark, size, stamp)) => {
                // The usual case — a few vectors since the last save — costs one small count.
                let tail = count(
                    conn,
                    "SELECT count(*) FROM memory_vectors WHERE space = ?1 AND written > ?2",
                    (space, watermark),
                )?;
                if tail < self.settings.tail_limit {
                    return Ok(Some(VectorIndexReport {
                        indexed: size,
                        added: 0,
                        unindexed: tail,
                        rebuilt: false,
                        location: self.location(),
                        seconds: started.elapsed().as_secs_f64(),
                    }));
                }
                let stored = stored()?;
                let stale = size.saturating_sub(stored - tail);
                match stale as f64 > STALE_SHARE * size as f64 {
                    true => Plan::Build { stored },
                    false => Plan::Extend {
                        watermark,
                        tail,
                        stamp,
                    },
                }
            }
        };
        let (index, added, rebuilt) = match plan {
            Plan::Build { stored } => {
                let index = self.empty_index(model.dimensions)?;
                let added =
                    add_vectors(conn, self.space, &index, None, last_write, stored, progress)?;
                (index, added, true)
            }
            Plan::Extend {
                watermark,
                tail,
                stamp,
            } => {
                // The index in memory if it is the one decided on and takes additions; else
                // the file, read whole.
                let opened = match state.take() {
                    Some(l) if l.writable && l.stamp == stamp && l.meta.watermark == watermark => {
                        Ok(l.index)
                    }
                    _ => {
                        let file = self.file.as_deref().expect("a saved index has a file");
                        self.open(file, true).map(|loaded| loaded.index)
                    }
                };
                match opened {
                    Ok(index) => {
                        let range = (Some(watermark), last_write);
                        let added = add_vectors(
                            conn, self.space, &index, range.0, range.1, tail, progress,
                        )?;
                        (index, added, false)
                    }
                    // The file on disk turned out damaged: build it anew instead.
                    Err(error) => {
                        let file = self.file.as_deref().expect("a saved index has a file");
                        self.damaged(file, &error.to_string());
                        let stored = stored()?;
                        let index = self.empty_index(model.dimensions)?;
                        let added = add_vectors(
                            conn, self.space, &index, None, last_write, stored, progress,
                        )?;
                        (index, added, true)
                    }
                }
            }
        };
        let mut meta = IndexMeta {
            store_key,
            model,
            watermark: last_write,
            count: index.size() as u64,
            bytes: 0,
            checksum: None,
            written: None,
        };
        let stamp = match &self.file {
            Some(file) => Some(save(&index, file, &mut meta)?),
            None => None,
        };
        let report = VectorIndexReport {
            indexed: meta.count,
            added,
            unindexed: 0,
            rebuilt,
            location: self.location(),
            seconds: started.elapsed().as_secs_f64(),
        };
        *state = Some(Loaded {
            index,
            meta,
            stamp: stamp.flatten(),
            writable: true,
        });
        *self
            .damage
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = None;
        Ok(Some(report))
    }

    fn location(&self) -> Option<String> {
        self.file.as_ref().map(|f| f.display().to_string())
    }
}

enum Plan {
    Build {
        stored: u64,
    },
    Extend {
        watermark: i64,
        tail: u64,
        stamp: Option<(SystemTime, u64)>,
    },
}

/// Adds the vectors numbered in `(after, up_to]` (every one up to `up_to` when `after` is
/// `None`), replacing any older vector of the same memory, on every core.
fn add_vectors(
    conn: &Connection,
    space: VectorSpace,
    index: &Index,
    after: Option<i64>,
    up_to: i64,
    expected: u64,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<u64> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    index
        .reserve_capacity_and_threads(index.size() + expected as usize, threads)
        .map_err(|e| index_error("reserve", e))?;
    let mut statement = conn
        .prepare(
            "SELECT memory_seq, vector FROM memory_vectors \
             WHERE space = ?3 AND written > ?1 AND written <= ?2",
        )
        .sql()?;
    let mut rows = statement
        .query((after.unwrap_or(i64::MIN), up_to, space.as_str()))
        .sql()?;
    let mut added = 0u64;
    let mut chunk: Vec<(u64, Vec<f32>)> = Vec::with_capacity(BUILD_CHUNK);
    progress(0, expected);
    loop {
        let row = rows.next().sql()?;
        if let Some(row) = row {
            let seq: i64 = row.get(0).sql()?;
            let blob = row.get_ref(1).sql()?.as_blob().map_err(corrupt).sql()?;
            chunk.push((seq as u64, from_blob(blob)));
            if chunk.len() < BUILD_CHUNK {
                continue;
            }
        }
        if chunk.is_empty() {
            break;
        }
        if after.is_some() {
            for (key, _) in &chunk {
                if index.contains(*key) {
                    index.remove(*key).map_err(|e| index_error("update", e))?;
                }
            }
        }
        add_in_parallel(index, &chunk, threads)?;
        added += chunk.len() as u64;
        progress(added, expected.max(added));
        chunk.clear();
    }
    Ok(added)
}

/// Vectors an index takes one at a time before insertion goes parallel. Threads inserting into
/// an almost empty graph race for its few entry points and can leave nodes no search reaches
/// (seen as a rare recall drop on a 100-vector index); a graph of this size is a stable
/// skeleton, and inserting it serially costs a few milliseconds.
const SERIAL_SKELETON: usize = 1_000;

fn add_in_parallel(index: &Index, chunk: &[(u64, Vec<f32>)], threads: usize) -> Result<()> {
    let serial = SERIAL_SKELETON
        .saturating_sub(index.size())
        .min(chunk.len());
    let (first, chunk) = chunk.split_at(serial);
    for (key, vector) in first {
        index
            .add(*key, vector)
            .map_err(|e| index_error("add to", e))?;
    }
    if chunk.is_empty() {
        return Ok(());
    }
    let share = chunk.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let workers: Vec<_> = chunk
            .chunks(share)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .try_for_each(|(key, vector)| index.add(*key, vector))
                        .map_err(|e| index_error("add to", e))
                })
            })
            .collect();
        workers
            .into_iter()
            .try_for_each(|worker| worker.join().expect("an index worker panicked"))
    })
}

/// Writes the index and then its metadata, each to a temporary file renamed into place, and
/// returns the metadata file's stamp.
fn save(index: &Index, file: &Path, meta: &mut IndexMeta) -> Result<Option<(SystemTime, u64)>> {
    let temporary = |path: &Path| {
        let mut name = path.as_os_str().to_owned();
        name.push(format!(".tmp-{}", std::process::id()));
        PathBuf::from(name)
    };
    let staged = temporary(file);
    let meta_file = meta_path(file);
    let staged_meta = temporary(&meta_file);
    let saved = write_index(index, file, &staged, meta).and_then(|()| {
        let json = serde_json::to_vec_pretty(meta).expect("index metadata serialises");
        std::fs::write(&staged_meta, json)
            .and_then(|()| std::fs::rename(&staged_meta, &meta_file))
            .map_err(|e| Error::storage(format!("{}: {e}", meta_file.display()), e))
    });
    if saved.is_err() {
        // Nothing half-written is left behind (a full disk, a read-only directory).
        let _ = std::fs::remove_file(&staged);
        let _ = std::fs::remove_file(&staged_meta);
    }
    saved.map(|()| stamp(&meta_file))
}

/// Writes the index to `staged`, records its size and checksum, and puts it in place; then
/// records the file's identity there.
fn write_index(index: &Index, file: &Path, staged: &Path, meta: &mut IndexMeta) -> Result<()> {
    let io = |e: std::io::Error| Error::storage(format!("{}: {e}", file.display()), e);
    index
        .save(utf8(staged)?)
        .map_err(|e| index_error("save", e))?;
    let bytes = std::fs::read(staged).map_err(io)?;
    meta.bytes = bytes.len() as u64;
    meta.checksum = Some(index_file::checksum(&bytes));
    drop(bytes);
    std::fs::rename(staged, file).map_err(io)?;
    meta.written = FileIdentity::of(file);
    Ok(())
}

/// Whether an index built as `meta` says can serve this database now: built from this store's
/// vectors by this model, and not from vectors the database no longer has (its watermark
/// ahead of the database's last vector write: the database was copied back from before).
fn usable(
    meta: &IndexMeta,
    store_key: &str,
    model: &ModelIdentity,
    last_write: i64,
) -> std::result::Result<(), String> {
    if meta.store_key != store_key {
        return Err("it was built for another store".into());
    }
    if meta.model != *model {
        return Err("it was built with another model".into());
    }
    if meta.watermark > last_write {
        return Err(format!(
            "it holds vectors up to number {}, but the database's last is {last_write}: the \
             database is older than the index (copied or restored from before it)",
            meta.watermark
        ));
    }
    Ok(())
}

/// The metadata saved beside `file`, and its stamp.
fn read_meta(file: &Path) -> Result<(IndexMeta, Option<(SystemTime, u64)>)> {
    let meta_file = meta_path(file);
    let stamp = stamp(&meta_file);
    let bytes = std::fs::read(&meta_file)
        .map_err(|e| Error::storage(format!("{}: {e}", meta_file.display()), e))?;
    let meta = serde_json::from_slice(&bytes)
        .map_err(|e| Error::storage(format!("{}: {e}", meta_file.display()), e))?;
    Ok((meta, stamp))
}

fn file_len(file: &Path) -> Option<u64> {
    std::fs::metadata(file).ok().map(|m| m.len())
}

fn meta_path(file: &Path) -> PathBuf {
    let mut name = file.as_os_str().to_owned();
    name.push(".json");
    PathBuf::from(name)
}

fn stamp(path: &Path) -> Option<(SystemTime, u64)> {
    let metadata = std::fs::metadata(path).ok()?;
    Some((metadata.modified().ok()?, metadata.len()))
}

fn utf8(path: &Path) -> Result<&str> {
    path.to_str().ok_or_else(|| {
        Error::storage(
            format!(
                "the vector index path {} is not UTF-8; the index needs one",
                path.display()
            ),
            std::io::Error::other("non-UTF-8 path"),
        )
    })
}

fn count<P: rusqlite::Params>(conn: &Connection, sql: &str, params: P) -> Result<u64> {
    let n: i64 = conn
        .prepare_cached(sql)
        .sql()?
        .query_row(params, |row| row.get(0))
        .sql()?;
    Ok(n as u64)
}

fn index_error(action: &str, error: impl std::fmt::Display) -> Error {
    Error::storage(
        format!(
            "cannot {action} the vector index: {error}; `cairn reindex --vector-index` rebuilds it"
        ),
        std::io::Error::other(error.to_string()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_search_widens_with_the_index_past_its_floor() {
        let settings = AnnSettings::default();
        assert_eq!(settings.search_breadth(5_000), 1_024);
        assert_eq!(settings.search_breadth(100_000), 1_024);
        assert_eq!(settings.search_breadth(256_000), 1_024);
        assert_eq!(settings.search_breadth(1_000_000), 4_000);
        assert_eq!(settings.search_breadth(50_000_000), MAX_EXPANSION_SEARCH);
        let fixed = AnnSettings {
            expansion_search: 300,
            vectors_per_expansion: 0,
            ..AnnSettings::default()
        };
        assert_eq!(fixed.search_breadth(1_000_000), 300);
        // A floor above the ceiling is kept: the ceiling bounds the growth, not the setting.
        let wide = AnnSettings {
            expansion_search: 10_000,
            ..AnnSettings::default()
        };
        assert_eq!(wide.search_breadth(100_000_000), 10_000);
    }
}
