//! Terminal colour: plain ANSI escapes, only when the stream is a terminal and `NO_COLOR` is
//! not set (<https://no-color.org>: any non-empty value disables colour).

use std::io::IsTerminal;

/// Whether and how to colour one output stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    enabled: bool,
}

impl Style {
    /// Colour for standard output, when it is a terminal and `NO_COLOR` is unset.
    pub fn stdout() -> Self {
        Self::detect(std::io::stdout().is_terminal())
    }

    /// Colour for standard error, when it is a terminal and `NO_COLOR` is unset.
    pub fn stderr() -> Self {
        Self::detect(std::io::stderr().is_terminal())
    }

    fn detect(is_terminal: bool) -> Self {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Style {
            enabled: is_terminal && !no_color,
        }
    }

    /// No colour at all.
    #[cfg(test)]
    pub fn plain() -> Self {
        Style { enabled: false }
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.enabled {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    /// Errors and failed outcomes.
    pub fn red(&self, text: &str) -> String {
        self.paint("31", text)
    }

    /// Success.
    pub fn green(&self, text: &str) -> String {
        self.paint("32", text)
    }

    /// Warnings and attention.
    pub fn yellow(&self, text: &str) -> String {
        self.paint("33", text)
    }

    /// Names and locations.
    pub fn bold(&self, text: &str) -> String {
        self.paint("1", text)
    }

    /// Secondary detail.
    pub fn dim(&self, text: &str) -> String {
        self.paint("2", text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_style_adds_no_escape_codes() {
        let s = Style::plain();
        assert_eq!(s.red("x"), "x");
        assert_eq!(s.bold("y"), "y");
    }

    #[test]
    fn enabled_style_wraps_in_ansi_codes() {
        let s = Style { enabled: true };
        assert_eq!(s.red("x"), "\x1b[31mx\x1b[0m");
    }
}
