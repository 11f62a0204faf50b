//! Boxes in reading order: lines top to bottom, boxes left to right within a line.
//!
//! Two boxes are on one line when their vertical middles lie within each other's height. A
//! screen's line is one line of text; the boxes of one line (a terminal prompt and the command
//! after a gap, a table's cells) are joined by a space.

use super::detect::TextBox;

/// `read` (boxes with their text) in reading order, empty texts left out.
pub fn reading_order(read: Vec<(TextBox, String)>) -> Vec<(TextBox, String)> {
    let mut read: Vec<_> = read.into_iter().filter(|(_, t)| !t.is_empty()).collect();
    read.sort_by_key(|(b, _)| (b.y0 + b.y1, b.x0));
    let mut lines: Vec<Vec<(TextBox, String)>> = Vec::new();
    for item in read {
        match lines.last_mut() {
            Some(line) if same_line(&line[0].0, &item.0) => line.push(item),
            _ => lines.push(vec![item]),
        }
    }
    lines
        .into_iter()
        .flat_map(|mut line| {
            line.sort_by_key(|(b, _)| b.x0);
            line
        })
        .collect()
}

/// The texts of boxes in reading order as lines of text.
pub fn join_lines(read: &[(TextBox, String)]) -> String {
    let mut out = String::new();
    let mut line_start: Option<&TextBox> = None;
    for (text_box, text) in read {
        match line_start {
            Some(start) if same_line(start, text_box) => out.push(' '),
            Some(_) => {
                out.push('\n');
                line_start = Some(text_box);
            }
            None => line_start = Some(text_box),
        }
        out.push_str(text);
    }
    out
}

fn same_line(a: &TextBox, b: &TextBox) -> bool {
    let middle = |t: &TextBox| (t.y0 + t.y1) / 2;
    (a.y0..a.y1).contains(&middle(b)) && (b.y0..b.y1).contains(&middle(a))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(x0: u32, y0: u32, x1: u32, y1: u32, text: &str) -> (TextBox, String) {
        (TextBox { x0, y0, x1, y1 }, text.to_string())
    }

    #[test]
    fn boxes_read_line_by_line_and_left_to_right() {
        let read = reading_order(vec![
            at(300, 42, 500, 60, "refused"),
            at(10, 40, 280, 62, "connection"),
            at(10, 5, 200, 25, "$ psql"),
            at(10, 80, 90, 100, ""),
            at(12, 120, 400, 140, "ERROR E1042"),
        ]);
        assert_eq!(join_lines(&read), "$ psql\nconnection refused\nERROR E1042");
    }
}
