//! The progress bar of long work (embedding, migrating, scanning): on standard error when a
//! person is watching, hidden when the output is quiet or not a terminal.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};

use super::Printer;

/// A progress bar on standard error when a person is watching, hidden otherwise.
pub fn bar(out: &Printer) -> ProgressBar {
    if out.quiet() || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("{msg} {wide_bar} {pos}/{len} {eta}")
            .expect("the template is valid"),
    );
    bar
}
