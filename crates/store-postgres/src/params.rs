//! Building a statement and its positional parameters together: [`Params::bind`] adds a value
//! and returns its `$n`, so conditions from several places compose without counting marks.

use postgres::types::ToSql;

/// The values of a statement's `$1`, `$2`, … in order.
#[derive(Default)]
pub struct Params {
    values: Vec<Box<dyn ToSql + Sync>>,
}

impl Params {
    /// Adds `value` and returns the mark that refers to it.
    pub fn bind(&mut self, value: impl ToSql + Sync + 'static) -> String {
        self.values.push(Box::new(value));
        format!("${}", self.values.len())
    }

    /// The values as the client takes them.
    pub fn refs(&self) -> Vec<&(dyn ToSql + Sync)> {
        self.values.iter().map(|v| v.as_ref() as _).collect()
    }
}
