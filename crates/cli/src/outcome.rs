//! How a successful run of the binary ended, for its exit status: every command, the hooks and
//! setup answer with one. A leaf, so the modules that run (`commands`, `hook`, `setup`) need
//! nothing of each other to say how they ended.

/// How a successful command ended, for the exit status.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    Done,
    /// A search that found nothing (exit status 1).
    NothingFound,
    /// `cairn doctor` found something that needs attention (exit status 1).
    Findings,
    /// An answer that says nothing was written for the input (exit status 2; the answer is
    /// already printed).
    Refused,
}
