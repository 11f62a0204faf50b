//! cairn-bench as a library: the corpus generator, the measuring tools and the workloads, so
//! that tests can hold retrieval quality to a floor (`tests/retrieval.rs`) with the same code the
//! benchmark prints from.

pub mod agents;
pub mod clip;
pub mod collection;
pub mod conflicts;
pub mod corpus;
pub mod cranfield;
pub mod embedding;
pub mod exchange;
pub mod faults;
pub mod files;
pub mod history;
pub mod hybrid;
pub mod images;
pub mod locomo;
pub mod look;
pub mod measure;
pub mod metrics;
pub mod ocr;
pub mod scale;
pub mod serve;
