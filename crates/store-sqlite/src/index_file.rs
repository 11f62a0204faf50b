//! What an HNSW index file must be before usearch reads it.
//!
//! usearch trusts its files: a neighbour number past the end of the graph, a level past the
//! top or a node list longer than the file sends its search into memory that is not the
//! index, and the process dies (a few random corruptions in a hundred did). So a file cairn
//! did not just write itself is read here first, byte for byte, against the layout usearch
//! 2.x writes — `[rows u32][bytes per vector u32][the vectors]`, a 64-byte head (`usearch`,
//! the version, the metric, scalar, key and slot kinds, the counts, the dimensions), the
//! graph's header (`size`, `connectivity`, `connectivity_base`, `max_level`, `entry_slot`,
//! each a u64), one i16 level per node, then each node: its key (u64), its level (i16), and
//! per level from 0 up a u32 count and `connectivity_base` (level 0) or `connectivity` u32
//! slots — and every number that could point anywhere is bounded by what the graph holds:
//! a neighbour is a node of the graph, and one listed on a level reaches that level.
//! A file that passes cannot make usearch read outside it; one that does not is damaged.
//!
//! The checksum (CRC-32 of the whole file) catches damage that keeps the structure sound (a
//! flipped bit in a vector), which would only rank candidates worse.

use usearch::{Index, IndexOptions};

/// The parts of the head a file of this build and these settings must repeat exactly, and
/// the size of one stored vector: read from a file usearch wrote with the same options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// The head's bytes 7..17: usearch's version, then the metric, scalar, key and slot kinds.
    pub kinds: [u8; 10],
    pub bytes_per_vector: u64,
    pub dimensions: u64,
}

const MAGIC: &[u8] = b"usearch";
const HEAD: usize = 64;
const GRAPH_HEADER: usize = 40;
/// No graph cairn builds is taller: a level is drawn with probability 1/M per step.
const MAX_LEVEL: u64 = 64;
/// The widest graph usearch allows is far below this; more means a damaged header.
const MAX_CONNECTIVITY: u64 = 4_096;

/// Reads little-endian numbers off a byte slice, failing (never panicking) past its end.
struct Reader<'a> {
    bytes: &'a [u8],
    at: u64,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: u64, what: &str) -> Result<&'a [u8], String> {
        let start = usize::try_from(self.at).map_err(|_| format!("{what}: past the end"))?;
        let end = self
            .at
            .checked_add(n)
            .and_then(|end| usize::try_from(end).ok())
            .filter(|end| *end <= self.bytes.len())
            .ok_or_else(|| {
                format!(
                    "{what} at byte {} runs past the end of the file ({} bytes)",
                    self.at,
                    self.bytes.len()
                )
            })?;
        self.at += n;
        Ok(&self.bytes[start..end])
    }

    fn u16(&mut self, what: &str) -> Result<u16, String> {
        Ok(u16::from_le_bytes(
            self.take(2, what)?.try_into().expect("2 bytes"),
        ))
    }

    fn u32(&mut self, what: &str) -> Result<u32, String> {
        Ok(u32::from_le_bytes(
            self.take(4, what)?.try_into().expect("4 bytes"),
        ))
    }
}

/// Checks `bytes` against the layout (see the module's documentation); the error says what
/// is wrong and where.
pub fn check(bytes: &[u8], layout: &Layout) -> Result<(), String> {
    let mut file = Reader { bytes, at: 0 };
    let rows = u64::from(file.u32("the vectors' row count")?);
    let columns = u64::from(file.u32("the vectors' row size")?);
    if columns != layout.bytes_per_vector {
        return Err(format!(
            "vectors of {columns} bytes, where this index stores {}",
            layout.bytes_per_vector
        ));
    }
    let matrix = rows
        .checked_mul(columns)
        .ok_or("the vectors' size overflows")?;
    file.take(matrix, "the vectors")?;
    let head = file.take(HEAD as u64, "the head")?;
    if &head[..MAGIC.len()] != MAGIC {
        return Err("the head does not start with 'usearch'".into());
    }
    if head[7..17] != layout.kinds {
        return Err("the head names another version, metric or kind of numbers".into());
    }
    let number = |at: usize| u64::from_le_bytes(head[at..at + 8].try_into().expect("8 bytes"));
    let (present, deleted, dimensions) = (number(17), number(25), number(33));
    if dimensions != layout.dimensions {
        return Err(format!(
            "{dimensions} dimensions, where the model has {}",
            layout.dimensions
        ));
    }
    if head[41] != 0 {
        return Err("a multi-vector index, which cairn never writes".into());
    }
    if present.checked_add(deleted) != Some(rows) {
        return Err(format!(
            "the head counts {present} + {deleted} vectors, the file holds {rows}"
        ));
    }

    let graph = file.take(GRAPH_HEADER as u64, "the graph's header")?;
    let field = |n: usize| u64::from_le_bytes(graph[n * 8..n * 8 + 8].try_into().expect("8"));
    let (size, connectivity, base, max_level, entry) =
        (field(0), field(1), field(2), field(3), field(4));
    if size != rows {
        return Err(format!("the graph has {size} nodes for {rows} vectors"));
    }
    if size == 0 {
        return match file.at == bytes.len() as u64 {
            true => Ok(()),
            false => Err("bytes after an empty graph".into()),
        };
    }
    if !(2..=MAX_CONNECTIVITY).contains(&connectivity)
        || !(connectivity..=MAX_CONNECTIVITY).contains(&base)
    {
        return Err(format!(
            "connectivity {connectivity} (base {base}) is not one usearch builds"
        ));
    }
    if max_level > MAX_LEVEL || entry >= size {
        return Err(format!(
            "the entry (node {entry} of {size}, top level {max_level}) is out of bounds"
        ));
    }
    let levels = file.take(
        size.checked_mul(2).ok_or("the level table overflows")?,
        "the level table",
    )?;
    let level_of = |node: u64| {
        let at = (node * 2) as usize;
        i16::from_le_bytes([levels[at], levels[at + 1]])
    };
    for node in 0..size {
        let level = level_of(node);
        if level < 0 || level as u64 > max_level {
            return Err(format!(
                "node {node} has level {level} (the top is {max_level})"
            ));
        }
    }
    // Every level in the table is now 0..=max_level.
    let level_of = |node: u64| level_of(node) as u64;
    if level_of(entry) < max_level {
        return Err("the entry node is below the graph's top level".into());
    }
    for node in 0..size {
        let level = level_of(node);
        file.take(8, "a node's key")?;
        let stored = file.u16("a node's level")? as i16;
        if stored as i64 != level as i64 {
            return Err(format!(
                "node {node} says level {stored}, the level table {level}"
            ));
        }
        for at in 0..=level {
            let width = if at == 0 { base } else { connectivity };
            let count = u64::from(file.u32("a neighbour count")?);
            if count > width {
                return Err(format!(
                    "node {node} lists {count} neighbours on level {at}, room for {width}"
                ));
            }
            let slots = file.take(width * 4, "a neighbour list")?;
            for slot in slots.chunks_exact(4).take(count as usize) {
                let slot = u64::from(u32::from_le_bytes(slot.try_into().expect("4 bytes")));
                if slot >= size {
                    return Err(format!(
                        "node {node} points at node {slot} on level {at}, past the last ({})",
                        size - 1
                    ));
                }
                // A search that steps to a neighbour on this level reads that neighbour's
                // list for this level: the neighbour must reach it.
                if level_of(slot) < at {
                    return Err(format!(
                        "node {node} points at node {slot} on level {at}, which reaches only \
                         level {}",
                        level_of(slot)
                    ));
                }
            }
        }
    }
    match file.at == bytes.len() as u64 {
        true => Ok(()),
        false => Err(format!(
            "{} bytes after the last node",
            bytes.len() as u64 - file.at
        )),
    }
}

/// The file's CRC-32, recorded when it is written and compared when it is read.
pub fn checksum(bytes: &[u8]) -> u32 {
    crc32fast::hash(bytes)
}

/// The layout files of an index with these options have, read off a one-vector index this
/// build of usearch writes.
pub fn layout_of(options: &IndexOptions) -> Result<Layout, String> {
    let index = Index::new(options).map_err(|e| e.to_string())?;
    index.reserve(1).map_err(|e| e.to_string())?;
    index
        .add(0, &vec![0.5f32; options.dimensions])
        .map_err(|e| e.to_string())?;
    let mut bytes = vec![0u8; index.serialized_length()];
    index
        .save_to_buffer(&mut bytes)
        .map_err(|e| e.to_string())?;
    let mut file = Reader {
        bytes: &bytes,
        at: 0,
    };
    let rows = u64::from(file.u32("rows")?);
    let bytes_per_vector = u64::from(file.u32("row size")?);
    file.take(rows * bytes_per_vector, "the vectors")?;
    let head = file.take(HEAD as u64, "the head")?;
    Ok(Layout {
        kinds: head[7..17].try_into().expect("10 bytes"),
        bytes_per_vector,
        dimensions: options.dimensions as u64,
    })
}

/// Loads `bytes` into `index` once [`check`] found them sound: the way in for a file cairn
/// did not just write itself.
pub fn load(index: &Index, bytes: &[u8], layout: &Layout) -> Result<(), String> {
    check(bytes, layout)?;
    index.load_from_buffer(bytes).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use usearch::{MetricKind, ScalarKind};

    use super::*;

    fn options() -> IndexOptions {
        IndexOptions {
            dimensions: 8,
            metric: MetricKind::IP,
            quantization: ScalarKind::I8,
            connectivity: 4,
            expansion_add: 16,
            expansion_search: 16,
            multi: false,
        }
    }

    /// A saved index of `n` vectors, with some removed (as an extended index has).
    fn saved(n: u64) -> Vec<u8> {
        let index = Index::new(&options()).unwrap();
        index.reserve(n as usize).unwrap();
        for key in 0..n {
            let vector: Vec<f32> = (0..8).map(|d| ((key * 7 + d) % 11) as f32 - 5.0).collect();
            index.add(key, &vector).unwrap();
        }
        index.remove(1).unwrap();
        let mut bytes = vec![0u8; index.serialized_length()];
        index.save_to_buffer(&mut bytes).unwrap();
        bytes
    }

    /// Where the first level-1 neighbour slot of a node on level 1 or above is in `bytes`,
    /// and a node that reaches only level 0.
    fn first_upper_neighbour(bytes: &[u8], layout: &Layout) -> (usize, u32) {
        let number = |at: usize, n: usize| {
            let mut le = [0u8; 8];
            le[..n].copy_from_slice(&bytes[at..at + n]);
            u64::from_le_bytes(le) as usize
        };
        let rows = number(0, 4);
        let graph = 8 + rows * layout.bytes_per_vector as usize + 64;
        let (connectivity, base) = (number(graph + 8, 8), number(graph + 16, 8));
        let levels = graph + 40;
        let level = |node: usize| number(levels + node * 2, 2);
        let low = (0..rows)
            .find(|node| level(*node) == 0)
            .expect("a level-0 node");
        let mut at = levels + rows * 2;
        for node in 0..rows {
            at += 8 + 2;
            if level(node) >= 1 {
                // Past level 0's count and list to level 1's count, then its first slot.
                return (at + 4 + base * 4 + 4, low as u32);
            }
            at += (0..=level(node))
                .map(|l| 4 + 4 * if l == 0 { base } else { connectivity })
                .sum::<usize>();
        }
        panic!("no node above level 0");
    }

    #[test]
    fn a_file_usearch_wrote_passes_and_loads() {
        let layout = layout_of(&options()).unwrap();
        for n in [0, 1, 2, 300] {
            let bytes = saved(n);
            check(&bytes, &layout).unwrap_or_else(|e| panic!("{n} vectors: {e}"));
            let index = Index::new(&options()).unwrap();
            load(&index, &bytes, &layout).unwrap();
        }
    }

    #[test]
    fn every_cut_and_a_wrong_layout_are_refused() {
        let layout = layout_of(&options()).unwrap();
        let bytes = saved(50);
        for end in (0..bytes.len()).step_by(7) {
            assert!(check(&bytes[..end], &layout).is_err(), "cut at {end}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(check(&longer, &layout).is_err());
        let other = Layout {
            dimensions: 16,
            ..layout.clone()
        };
        assert!(check(&bytes, &other).is_err());
    }

    #[test]
    fn a_neighbour_past_the_graph_is_refused() {
        let layout = layout_of(&options()).unwrap();
        let bytes = saved(50);
        // The first neighbour slot of the first node: after the vectors, the head, the graph
        // header, the level table and the node's key, level and neighbour count.
        let rows = 50u64;
        let at = 8 + rows * layout.bytes_per_vector + 64 + 40 + rows * 2 + 8 + 2 + 4;
        let mut damaged = bytes.clone();
        damaged[at as usize..at as usize + 4].copy_from_slice(&9_999u32.to_le_bytes());
        let error = check(&damaged, &layout).unwrap_err();
        assert!(error.contains("past the last"), "{error}");
        // A level-1 neighbour that reaches only level 0: a search stepping to it would read
        // its level-1 list, which it does not have.
        let (at, low) = first_upper_neighbour(&bytes, &layout);
        let mut damaged = bytes.clone();
        damaged[at..at + 4].copy_from_slice(&low.to_le_bytes());
        let error = check(&damaged, &layout).unwrap_err();
        assert!(error.contains("reaches only level 0"), "{error}");
        // Random damage anywhere is refused or loads a sound graph; it never crashes.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..2_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let mut damaged = bytes.clone();
            let at = (seed % bytes.len() as u64) as usize;
            damaged[at] ^= (seed >> 32) as u8 | 1;
            let index = Index::new(&options()).unwrap();
            if load(&index, &damaged, &layout).is_ok() {
                index.search(&[1.0; 8], 10).unwrap();
            }
        }
    }
}
