//! Plain text tables: columns padded to their widest cell, the last column left free.

/// Renders rows (the first is the header) with two spaces between columns. `paint` colours a
/// cell after padding (so escape codes do not disturb the widths).
pub fn render(rows: &[Vec<String>], paint: &dyn Fn(usize, usize, &str) -> String) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0usize; columns];
    for row in rows {
        for (c, cell) in row.iter().enumerate() {
            if let Some(w) = widths.get_mut(c) {
                *w = (*w).max(cell.chars().count());
            }
        }
    }
    let mut out = String::new();
    for (r, row) in rows.iter().enumerate() {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            let last = c + 1 == row.len();
            let padded = if last {
                cell.clone()
            } else {
                let w = widths.get(c).copied().unwrap_or(0);
                format!("{cell:<w$}  ")
            };
            // Paint the text, not the padding.
            let trimmed_len = padded.trim_end().len();
            let (text, pad) = padded.split_at(trimmed_len);
            line.push_str(&paint(r, c, text));
            line.push_str(pad);
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_align_to_the_widest_cell() {
        let rows = vec![
            vec!["A".to_owned(), "B".to_owned(), "C".to_owned()],
            vec!["long".to_owned(), "x".to_owned(), "last column".to_owned()],
        ];
        let out = render(&rows, &|_, _, t| t.to_owned());
        assert_eq!(out, "A     B  C\nlong  x  last column\n");
    }
}
