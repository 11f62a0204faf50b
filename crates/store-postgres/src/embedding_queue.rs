//! The embedding queue a memory joins whenever its text changes: its vectors made from the old
//! text go, and it waits for the embedding pass. A leaf: every write of a memory (`rows`) calls
//! it, and the vector code (`vectors`) that empties the queue is not needed for that.

use cairn_core::Result;
use cairn_core::embedding::VectorSpace;

use crate::error::SqlResult;
use crate::sql::Sql;

/// Makes the memory at `seq` pending in the spaces made from its text: its vector there (if
/// any) goes, and it joins that queue.
pub fn queue(client: &mut impl Sql, seq: i64) -> Result<()> {
    let space = VectorSpace::Text.as_str();
    for delete in [
        "DELETE FROM memory_vectors WHERE memory_seq = $1 AND space = $2",
        "DELETE FROM memory_sentence_vectors WHERE memory_seq = $1 AND space = $2",
    ] {
        client.execute(delete, &[&seq, &space]).sql()?;
    }
    client
        .execute(
            "INSERT INTO embedding_queue (memory_seq, space) VALUES ($1, $2) \
             ON CONFLICT DO NOTHING",
            &[&seq, &space],
        )
        .sql()?;
    Ok(())
}
