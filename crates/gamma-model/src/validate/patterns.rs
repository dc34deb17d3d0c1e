//! The upstream CRD `pattern`s as hand-written predicates (no regex engine at validation time).
//!
//! Each predicate is named after the upstream type whose `+kubebuilder:validation:Pattern` it
//! implements, and each has a `*_PATTERN` constant holding upstream's regular expression verbatim
//! (reported in [`ErrorKind::Pattern`](super::ErrorKind::Pattern)). The unit tests at the bottom
//! cross-check every predicate against the `regex` crate compiling the upstream pattern, so the
//! two cannot drift apart. Predicates only look at bytes, never allocate, and run in linear time
//! (the two unanchored upstream patterns are quadratic at worst, over at most 253 bytes).
//!
//! Length limits are *not* part of these predicates: the CRDs state them separately
//! (`minLength`/`maxLength`) and [`Errors::length`](super::Errors::length) checks them.

/// `Hostname` (Gateway API shared types).
pub const HOSTNAME_PATTERN: &str =
    r"^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";
/// `PreciseHostname` (Gateway API shared types), also `SectionName` and every RFC 1123 subdomain.
pub const PRECISE_HOSTNAME_PATTERN: &str =
    r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";
/// `SectionName`: the RFC 1123 subdomain pattern.
pub const SECTION_NAME_PATTERN: &str = PRECISE_HOSTNAME_PATTERN;
/// `Namespace`: an RFC 1123 label.
pub const NAMESPACE_PATTERN: &str = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$";
/// `Group`: empty, or an RFC 1123 subdomain.
pub const GROUP_PATTERN: &str =
    r"^$|^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";
/// `Kind`.
pub const KIND_PATTERN: &str = r"^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$";
/// `GatewayController`: `DOMAIN/PATH`.
pub const GATEWAY_CONTROLLER_PATTERN: &str = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/[A-Za-z0-9\/\-._~%!$&'()*+,;=:]+$";
/// `HeaderName` / `HTTPHeaderName` / `GRPCHeaderName`: an RFC 7230 token.
pub const HEADER_NAME_PATTERN: &str = r"^[A-Za-z0-9!#$%&'*+\-.^_\x60|~]+$";
/// The experimental-channel header value pattern (printable ASCII, single inner blanks).
pub const HEADER_VALUE_PATTERN: &str = r"^[!-~]+([\t ]?[!-~]+)*$";
/// The character set of an HTTP path value (`HTTPPathMatch`, ExternalAuth `http.path`).
pub const HTTP_PATH_PATTERN: &str = r"^(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|[%][0-9a-fA-F]{2})+$";
/// `Duration` (GEP-2257).
pub const DURATION_PATTERN: &str = r"^([0-9]{1,5}(h|m|s|ms)){1,4}$";
/// `CORSOrigin`.
pub const CORS_ORIGIN_PATTERN: &str =
    r"(^\*$)|(^(http(s)?):\/\/(((\*\.)?([a-zA-Z0-9\-]+\.)*[a-zA-Z0-9-]+|\*)(:([0-9]{1,5}))?)$)";
/// GRPCMethodMatch `service` (Exact).
pub const GRPC_SERVICE_PATTERN: &str = r"^(?i)\.?[a-z_][a-z_0-9]*(\.[a-z_][a-z_0-9]*)*$";
/// GRPCMethodMatch `method` (Exact).
pub const GRPC_METHOD_PATTERN: &str = r"^[A-Za-z_][A-Za-z_0-9]*$";
/// `ProtocolType` of a listener. Upstream's second alternative is not anchored at the start.
pub const PROTOCOL_TYPE_PATTERN: &str = r"^[a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?$|[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/[A-Za-z0-9]+$";
/// `AddressType` of a Gateway address. Upstream's alternation binds the anchors loosely.
pub const ADDRESS_TYPE_PATTERN: &str = r"^Hostname|IPAddress|NamedAddress|[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/[A-Za-z0-9\/\-._~%!$&'()*+,;=:]+$";
/// Keys of Gateway `infrastructure.labels` / `annotations` (`LabelKey`, `AnnotationKey`).
pub const LABEL_KEY_PATTERN: &str = r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]$";
/// Values of Gateway `infrastructure.labels` (`LabelValue`).
pub const LABEL_VALUE_PATTERN: &str = r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$";
/// BackendTLSPolicy `wellKnownCACertificates`.
pub const WELL_KNOWN_CA_PATTERN: &str = r"^(System|([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]))$";
/// BackendTLSPolicy `subjectAltNames[].uri` (not anchored at the end upstream).
pub const SAN_URI_PATTERN: &str = r"^(([^:/?#]+):)(//([^/?#]*))([^?#]*)(\?([^#]*))?(#(.*))?";

/// `Condition.type` (metav1.Condition): an optional `subdomain/` prefix and a name.
pub const CONDITION_TYPE_PATTERN: &str = r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$";
/// `Condition.reason` (metav1.Condition): CamelCase-like.
pub const CONDITION_REASON_PATTERN: &str = r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$";

/// XTelemetryPolicy `tracing.serviceName` and `tracing.attributes[].name`.
pub const TELEMETRY_NAME_PATTERN: &str = r"^[a-zA-Z0-9_.:/-]+$";
/// XTelemetryPolicy `tracing.attributes[].attributeKey`.
pub const ATTRIBUTE_KEY_PATTERN: &str = r"^[a-z0-9_.-]+$";
/// XTelemetryPolicy `tracing.spanName`: names of [`TELEMETRY_NAME_PATTERN`]'s characters
/// separated by single spaces.
pub const SPAN_NAME_PATTERN: &str = r"^[a-zA-Z0-9_.:/-]+( [a-zA-Z0-9_.:/-]+)*$";

/// [`TELEMETRY_NAME_PATTERN`].
pub fn is_telemetry_name(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'/' | b'-'))
}

/// [`ATTRIBUTE_KEY_PATTERN`].
pub fn is_attribute_key(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| is_lower_alnum(b) || matches!(b, b'_' | b'.' | b'-'))
}

/// [`SPAN_NAME_PATTERN`].
pub fn is_span_name(s: &str) -> bool {
    s.split(' ').all(is_telemetry_name)
}

fn is_lower_alnum(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit()
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`: an RFC 1123 label, without the length limit.
pub fn is_dns_label(s: &str) -> bool {
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(&f), Some(&l)) => {
            is_lower_alnum(f)
                && is_lower_alnum(l)
                && b.iter().all(|&c| is_lower_alnum(c) || c == b'-')
        }
        _ => false,
    }
}

/// An RFC 1123 subdomain as upstream's regex spells it: dot-separated [`is_dns_label`]s
/// (no per-label length limit, no total length limit).
pub fn is_dns_subdomain(s: &str) -> bool {
    // One pass over the bytes, as if a `.` came before the first: a label starts after a `.`
    // with neither `-` nor `.` (so it is not empty), and a `.` or the end follows a lower-case
    // letter or digit. Every object name of every route is checked on each validation; the
    // split into labels cost about three times as much.
    let mut prev = b'.';
    for &c in s.as_bytes() {
        let ok = match c {
            b'.' => is_lower_alnum(prev),
            b'-' => prev != b'.',
            _ => is_lower_alnum(c),
        };
        if !ok {
            return false;
        }
        prev = c;
    }
    is_lower_alnum(prev)
}

/// [`is_dns_subdomain`] as upstream's regex reads: labels split at `.`: the test oracle.
#[cfg(test)]
fn is_dns_subdomain_by_labels(s: &str) -> bool {
    !s.is_empty() && s.split('.').all(is_dns_label)
}

/// `Hostname`: an optional leading `*.` followed by an RFC 1123 subdomain.
pub fn is_hostname(s: &str) -> bool {
    is_dns_subdomain(s.strip_prefix("*.").unwrap_or(s))
}

/// `PreciseHostname`: an RFC 1123 subdomain (no wildcard).
pub fn is_precise_hostname(s: &str) -> bool {
    is_dns_subdomain(s)
}

/// `SectionName`: an RFC 1123 subdomain.
pub fn is_section_name(s: &str) -> bool {
    is_dns_subdomain(s)
}

/// `Namespace`: an RFC 1123 label.
pub fn is_namespace(s: &str) -> bool {
    is_dns_label(s)
}

/// `Group`: empty (the core group) or an RFC 1123 subdomain.
pub fn is_group(s: &str) -> bool {
    s.is_empty() || is_dns_subdomain(s)
}

/// `Kind`: a letter, then letters, digits and dashes, not ending in a dash.
pub fn is_kind(s: &str) -> bool {
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(&f), Some(&l)) => {
            f.is_ascii_alphabetic()
                && l.is_ascii_alphanumeric()
                && b.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'-')
        }
        _ => false,
    }
}

fn is_controller_path_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"/-._~%!$&'()*+,;=:".contains(&c)
}

/// `GatewayController`: `DOMAIN/PATH`, e.g. `example.net/gateway-controller`.
pub fn is_gateway_controller(s: &str) -> bool {
    match s.split_once('/') {
        Some((domain, path)) => {
            is_dns_subdomain(domain)
                && !path.is_empty()
                && path.bytes().all(is_controller_path_char)
        }
        None => false,
    }
}

/// An RFC 7230 `tchar`.
pub const fn is_tchar(c: u8) -> bool {
    // a `matches!` compiles to compares and a bit test; a search of the byte string was a
    // `memchr` call per byte that is not alphanumeric (the `-` of most header names)
    c.is_ascii_alphanumeric()
        || matches!(
            c,
            b'!' | b'#'
                | b'$'
                | b'%'
                | b'&'
                | b'\''
                | b'*'
                | b'+'
                | b'-'
                | b'.'
                | b'^'
                | b'_'
                | b'`'
                | b'|'
                | b'~'
        )
}

/// `HeaderName`: one or more RFC 7230 `tchar`s (so no `:`: pseudo-headers cannot be named).
pub fn is_header_name(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(in_tchars)
}

/// [`is_tchar`] as a table over every byte value: one load per byte of every header name of
/// every match and filter, where the compares of `is_tchar` are several.
#[allow(
    clippy::indexing_slicing,
    reason = "evaluated at compile time, where an index out of range fails the build"
)]
static TCHARS: [bool; 256] = {
    let mut set = [false; 256];
    let mut c = 0usize;
    while c < 256 {
        set[c] = is_tchar(c as u8);
        c += 1;
    }
    set
};

/// [`is_tchar`] through [`TCHARS`].
fn in_tchars(c: u8) -> bool {
    // every `u8` is in range: the check compiles away
    TCHARS.get(usize::from(c)).copied().unwrap_or(false)
}

fn is_visible_ascii(c: u8) -> bool {
    (b'!'..=b'~').contains(&c)
}

/// The experimental header value pattern: visible ASCII, with single spaces or tabs between
/// visible characters (none leading, trailing or doubled; no CR or LF).
pub fn is_header_value(s: &str) -> bool {
    let b = s.as_bytes();
    let (Some(&f), Some(&l)) = (b.first(), b.last()) else {
        return false;
    };
    if !is_visible_ascii(f) || !is_visible_ascii(l) {
        return false;
    }
    let mut prev_blank = false;
    for &c in b {
        if c == b' ' || c == b'\t' {
            if prev_blank {
                return false;
            }
            prev_blank = true;
        } else if is_visible_ascii(c) {
            prev_blank = false;
        } else {
            return false;
        }
    }
    true
}

fn is_path_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"-/._~!$&'()*+,;=:@".contains(&c)
}

/// The HTTP path character set: unreserved and sub-delims characters, `/`, `:`, `@`, and
/// percent-encoded octets. Not empty.
pub fn is_http_path_chars(s: &str) -> bool {
    let b = s.as_bytes();
    if b.is_empty() {
        return false;
    }
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if c == b'%' {
            match (b.get(i + 1), b.get(i + 2)) {
                (Some(h), Some(l)) if h.is_ascii_hexdigit() && l.is_ascii_hexdigit() => i += 3,
                _ => return false,
            }
        } else if is_path_char(c) {
            i += 1;
        } else {
            return false;
        }
    }
    true
}

/// [`is_path_char`] as a table over every byte value (the byte-string search costs ~17
/// compares per byte, a 128-bit set several instructions more than a load, and every path of
/// every route is checked on each validation).
#[allow(
    clippy::indexing_slicing,
    reason = "evaluated at compile time, where an index out of range fails the build"
)]
static PATH_CHARS: [bool; 256] = {
    let mut set = [false; 256];
    let mut c = 0u8;
    while c < 128 {
        set[c as usize] = c.is_ascii_alphanumeric()
            || matches!(
                c,
                b'-' | b'/'
                    | b'.'
                    | b'_'
                    | b'~'
                    | b'!'
                    | b'$'
                    | b'&'
                    | b'\''
                    | b'('
                    | b')'
                    | b'*'
                    | b'+'
                    | b','
                    | b';'
                    | b'='
                    | b':'
                    | b'@'
            );
        c += 1;
    }
    set
};

/// [`is_path_char`] through [`PATH_CHARS`] (the test oracle's; [`is_plain_http_path`] reads
/// the table through its own).
#[cfg(test)]
fn in_path_chars(c: u8) -> bool {
    // every `u8` is in range: the check compiles away
    PATH_CHARS.get(usize::from(c)).copied().unwrap_or(false)
}

/// The states of [`is_plain_http_path`]'s scan: after a byte other than `/` (or at the
/// start), after a `/`, and refused (absorbing).
const AFTER_OTHER: u8 = 0;
const AFTER_SLASH: u8 = 1;
const REFUSED: u8 = 2;

/// The next state of [`is_plain_http_path`]'s scan, shifted left by 8, at `state << 8 | byte`
/// (states 0 to 3, the unused 3 refused: the table covers every index a two-bit state gives,
/// so reading it needs no bounds check). Kept shifted, a state is or-ed with the next byte
/// into the next index. One load per byte, and no branch but the loop's: the refused state
/// absorbs, so the scan need not stop early to be right.
#[allow(
    clippy::indexing_slicing,
    reason = "evaluated at compile time, where an index out of range fails the build"
)]
static PLAIN_PATH_STEP: [u16; 1024] = {
    const fn at(state: u8) -> u16 {
        (state as u16) << 8
    }
    let mut table = [at(REFUSED); 1024];
    let mut c = 0usize;
    while c < 256 {
        let byte = c as u8;
        if PATH_CHARS[c] {
            let next = if byte == b'/' {
                at(AFTER_SLASH)
            } else {
                at(AFTER_OTHER)
            };
            table[at(AFTER_OTHER) as usize | c] = next;
            if byte != b'/' && byte != b'.' {
                table[at(AFTER_SLASH) as usize | c] = next;
            }
        }
        c += 1;
    }
    table
};

/// Whether `value` passes every rule of [`http_path_violations`], decided in one pass for
/// the common path: it starts with `/`, has only path characters (no `%`, no `#`) and no `/`
/// followed by `/` or `.`. That excludes `//`, every dot-segment rule (each needs `/.`),
/// encoded slashes (they need `%`) and `#`; a path this refuses may still be valid and takes
/// the rule-by-rule check.
pub(crate) fn is_plain_http_path(value: &[u8]) -> bool {
    if value.first() != Some(&b'/') {
        return false;
    }
    let step = |state: u16, c: u8| -> u16 {
        let at = (usize::from(state) | usize::from(c)) & 1023;
        PLAIN_PATH_STEP
            .get(at)
            .copied()
            .unwrap_or(u16::from(REFUSED) << 8)
    };
    // four bytes a turn: the loop's own compare and branch, paid once for four
    let mut state = u16::from(AFTER_OTHER) << 8;
    let mut quads = value.chunks_exact(4);
    for quad in &mut quads {
        if let &[a, b, c, d] = quad {
            state = step(step(step(step(state, a), b), c), d);
        }
    }
    for &c in quads.remainder() {
        state = step(state, c);
    }
    state != u16::from(REFUSED) << 8
}

/// [`is_plain_http_path`] as it was written before the state table: the test oracle.
#[cfg(test)]
fn is_plain_http_path_by_bytes(value: &[u8]) -> bool {
    if value.first() != Some(&b'/') {
        return false;
    }
    let mut prev = 0u8;
    for &c in value {
        if !in_path_chars(c) || (prev == b'/' && (c == b'/' || c == b'.')) {
            return false;
        }
        prev = c;
    }
    true
}

/// The CEL rules of `HTTPPathMatch` for `Exact` and `PathPrefix` values, in upstream order,
/// with upstream's messages. Returns every message whose rule `value` violates.
pub fn http_path_violations(value: &str) -> Vec<&'static str> {
    if is_plain_http_path(value.as_bytes()) {
        return Vec::new();
    }
    http_path_violations_each(value)
}

/// [`http_path_violations`], rule by rule.
fn http_path_violations_each(value: &str) -> Vec<&'static str> {
    let mut out = Vec::new();
    if !value.starts_with('/') {
        out.push(
            "value must be an absolute path and start with '/' when type one of ['Exact', 'PathPrefix']",
        );
    }
    let checks: [(&str, &str); 6] = [
        (
            "//",
            "must not contain '//' when type one of ['Exact', 'PathPrefix']",
        ),
        (
            "/./",
            "must not contain '/./' when type one of ['Exact', 'PathPrefix']",
        ),
        (
            "/../",
            "must not contain '/../' when type one of ['Exact', 'PathPrefix']",
        ),
        (
            "%2f",
            "must not contain '%2f' when type one of ['Exact', 'PathPrefix']",
        ),
        (
            "%2F",
            "must not contain '%2F' when type one of ['Exact', 'PathPrefix']",
        ),
        (
            "#",
            "must not contain '#' when type one of ['Exact', 'PathPrefix']",
        ),
    ];
    for (needle, message) in checks {
        if value.contains(needle) {
            out.push(message);
        }
    }
    if value.ends_with("/..") {
        out.push("must not end with '/..' when type one of ['Exact', 'PathPrefix']");
    }
    if value.ends_with("/.") {
        out.push("must not end with '/.' when type one of ['Exact', 'PathPrefix']");
    }
    if !is_http_path_chars(value) {
        out.push(
            "must only contain valid characters (matching ^(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|[%][0-9a-fA-F]{2})+$) for types ['Exact', 'PathPrefix']",
        );
    }
    out
}

/// Parses a Gateway API `Duration` (GEP-2257) into milliseconds: 1 to 4 components, each 1 to 5
/// digits followed by `h`, `m`, `s` or `ms`; repeated units add up. `None` when the text does
/// not match [`DURATION_PATTERN`].
///
/// ```
/// use gamma_model::validate::patterns::parse_duration_ms;
/// assert_eq!(parse_duration_ms("1h2h20m10m"), Some(3 * 3_600_000 + 30 * 60_000));
/// assert_eq!(parse_duration_ms("500ms"), Some(500));
/// assert_eq!(parse_duration_ms("0s"), Some(0));
/// assert_eq!(parse_duration_ms("0"), None);
/// assert_eq!(parse_duration_ms("1.5s"), None);
/// ```
pub fn parse_duration_ms(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut components = 0;
    let mut total: u64 = 0;
    while i < b.len() {
        let start = i;
        let mut n: u64 = 0;
        while let Some(&d) = b.get(i).filter(|d| d.is_ascii_digit()) {
            n = n * 10 + u64::from(d - b'0');
            i += 1;
            if i - start > 5 {
                return None;
            }
        }
        if i == start {
            return None;
        }
        let unit_ms: u64 = match (b.get(i), b.get(i + 1)) {
            (Some(b'm'), Some(b's')) => {
                i += 2;
                1
            }
            (Some(b'h'), _) => {
                i += 1;
                3_600_000
            }
            (Some(b'm'), _) => {
                i += 1;
                60_000
            }
            (Some(b's'), _) => {
                i += 1;
                1_000
            }
            _ => return None,
        };
        total += n * unit_ms;
        components += 1;
        if components > 4 {
            return None;
        }
    }
    (components >= 1).then_some(total)
}

/// `Duration`: whether [`parse_duration_ms`] accepts the text.
pub fn is_duration(s: &str) -> bool {
    parse_duration_ms(s).is_some()
}

/// `CORSOrigin`: `*`, or `http(s)://HOST[:PORT]` where HOST is `*`, or labels of
/// `[a-zA-Z0-9-]` with an optional leading `*.`, and PORT is 1 to 5 digits.
pub fn is_cors_origin(s: &str) -> bool {
    if s == "*" {
        return true;
    }
    let Some(rest) = s
        .strip_prefix("https://")
        .or_else(|| s.strip_prefix("http://"))
    else {
        return false;
    };
    let (host, port) = match rest.rsplit_once(':') {
        Some((h, p)) => (h, Some(p)),
        None => (rest, None),
    };
    if let Some(p) = port
        && (p.is_empty() || p.len() > 5 || !p.bytes().all(|c| c.is_ascii_digit()))
    {
        return false;
    }
    if host == "*" {
        return true;
    }
    let host = host.strip_prefix("*.").unwrap_or(host);
    !host.is_empty()
        && host.split('.').all(|label| {
            !label.is_empty()
                && label
                    .bytes()
                    .all(|c| c.is_ascii_alphanumeric() || c == b'-')
        })
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_ident(s: &str) -> bool {
    let b = s.as_bytes();
    b.first().is_some_and(|&f| is_ident_start(f))
        && b.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'_')
}

/// GRPCMethodMatch `service` for `Exact`: an optional leading dot, then dot-separated
/// identifiers (letters, digits, `_`; not starting with a digit; any case).
pub fn is_grpc_service(s: &str) -> bool {
    let s = s.strip_prefix('.').unwrap_or(s);
    !s.is_empty() && s.split('.').all(is_ident)
}

/// GRPCMethodMatch `method` for `Exact`: one identifier.
pub fn is_grpc_method(s: &str) -> bool {
    is_ident(s)
}

/// `ProtocolType`: an alphanumeric-and-dash token (`HTTP`, `HTTPS`, `TCP`, ...), or anything
/// ending in `domain/NAME` (upstream's second alternative has no start anchor).
pub fn is_protocol_type(s: &str) -> bool {
    let b = s.as_bytes();
    let token = match (b.first(), b.last()) {
        (Some(&f), Some(&l)) => {
            f.is_ascii_alphanumeric()
                && l.is_ascii_alphanumeric()
                && b.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'-')
        }
        _ => false,
    };
    if token {
        return true;
    }
    // `...[a-z0-9]/[A-Za-z0-9]+$`: the shortest domain that can precede the slash is one
    // lower-case alphanumeric character.
    match s.rsplit_once('/') {
        Some((before, name)) => {
            !name.is_empty()
                && name.bytes().all(|c| c.is_ascii_alphanumeric())
                && before.bytes().last().is_some_and(is_lower_alnum)
        }
        None => false,
    }
}

/// `AddressType`, exactly as upstream's loosely anchored alternation reads: starts with
/// `Hostname`, or contains `IPAddress` or `NamedAddress`, or ends in `domain/path`.
pub fn is_address_type(s: &str) -> bool {
    s.starts_with("Hostname")
        || s.contains("IPAddress")
        || s.contains("NamedAddress")
        || ends_with_gateway_controller(s)
}

fn ends_with_gateway_controller(s: &str) -> bool {
    // Any suffix matching the anchored `domain/path` pattern; `s` is at most 253 bytes.
    s.char_indices()
        .any(|(i, _)| s.get(i..).is_some_and(is_gateway_controller))
}

fn is_label_name(s: &str) -> bool {
    // `([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]`: 1 to 63 characters.
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(&f), Some(&l)) => {
            b.len() <= 63
                && f.is_ascii_alphanumeric()
                && l.is_ascii_alphanumeric()
                && b.iter()
                    .all(|&c| c.is_ascii_alphanumeric() || b"-_.".contains(&c))
        }
        _ => false,
    }
}

/// `LabelKey` / `AnnotationKey`: an optional `subdomain/` prefix and a name of 1 to 63
/// characters.
pub fn is_label_key(s: &str) -> bool {
    match s.split_once('/') {
        Some((prefix, name)) => is_dns_subdomain(prefix) && is_label_name(name),
        None => is_label_name(s),
    }
}

/// `LabelValue`: empty, or alphanumerics with `-_.` inside.
pub fn is_label_value(s: &str) -> bool {
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(&f), Some(&l)) => {
            f.is_ascii_alphanumeric()
                && l.is_ascii_alphanumeric()
                && b.iter()
                    .all(|&c| c.is_ascii_alphanumeric() || b"-_.".contains(&c))
        }
        _ => true,
    }
}

/// BackendTLSPolicy `wellKnownCACertificates`: `System`, or `subdomain/name`.
pub fn is_well_known_ca(s: &str) -> bool {
    s == "System"
        || s.split_once('/')
            .is_some_and(|(d, n)| is_dns_subdomain(d) && is_label_name(n))
}

/// BackendTLSPolicy `subjectAltNames[].uri`: a scheme followed by `://` (the rest is free).
pub fn is_san_uri(s: &str) -> bool {
    match s.split_once(':') {
        Some((scheme, rest)) => {
            !scheme.is_empty()
                && !scheme.bytes().any(|c| b"/?#".contains(&c))
                && rest.starts_with("//")
        }
        None => false,
    }
}

/// `Condition.type`: an optional `subdomain/` prefix, then alphanumerics with `-_.` inside.
pub fn is_condition_type(s: &str) -> bool {
    let name = match s.split_once('/') {
        Some((prefix, name)) => {
            if !is_dns_subdomain(prefix) {
                return false;
            }
            name
        }
        None => s,
    };
    !name.is_empty() && is_label_value(name)
}

/// `Condition.reason`: a letter, then letters, digits, `_`, `,`, `:`, ending in a letter, digit
/// or `_`.
pub fn is_condition_reason(s: &str) -> bool {
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(&f), Some(&l)) => {
            f.is_ascii_alphabetic()
                && (l.is_ascii_alphanumeric() || l == b'_')
                && b.iter()
                    .all(|&c| c.is_ascii_alphanumeric() || b"_,:".contains(&c))
        }
        _ => false,
    }
}

/// CEL `isIP`: an IPv4 or IPv6 address.
pub fn is_ip(s: &str) -> bool {
    s.parse::<std::net::IpAddr>().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex::Regex;

    /// Checks the predicate against upstream's regex on every sample: they must agree.
    fn agrees(pattern: &str, pred: fn(&str) -> bool, samples: &[&str]) {
        let re = Regex::new(pattern).unwrap();
        for s in samples {
            assert_eq!(pred(s), re.is_match(s), "{pattern} on {s:?}");
        }
    }

    const HOSTS: &[&str] = &[
        "",
        "a",
        "foo.example.com",
        "*.example.com",
        "*",
        "*.",
        "*.*.example.com",
        "Foo.com",
        "-a.com",
        "a-.com",
        "a..b",
        "a.b.",
        ".a",
        "a_b.com",
        "xn--bcher-kva.example",
        "1.2.3.4",
        "foo.com:80",
        "http://a<",
        "é.com",
        "a*.b",
    ];

    // Gateway API shared types: Hostname / PreciseHostname / SectionName / Namespace / Group
    // patterns.
    #[test]
    fn dns_name_predicates_agree_with_upstream_regexes() {
        agrees(HOSTNAME_PATTERN, is_hostname, HOSTS);
        agrees(PRECISE_HOSTNAME_PATTERN, is_precise_hostname, HOSTS);
        agrees(NAMESPACE_PATTERN, is_namespace, HOSTS);
        agrees(GROUP_PATTERN, is_group, HOSTS);
        agrees(SECTION_NAME_PATTERN, is_section_name, HOSTS);
    }

    #[test]
    fn kind_predicate_agrees_with_upstream_regex() {
        agrees(
            KIND_PATTERN,
            is_kind,
            &[
                "",
                "Service",
                "HTTPRoute",
                "a",
                "1a",
                "a-",
                "a-b",
                "A_b",
                "*",
                "Sé",
            ],
        );
    }

    // Gateway API shared types: GatewayController `DOMAIN/PATH`.
    #[test]
    fn gateway_controller_predicate_agrees_with_upstream_regex() {
        agrees(
            GATEWAY_CONTROLLER_PATTERN,
            is_gateway_controller,
            &[
                "example",
                "example.net/gateway-controller",
                "example.net/",
                "/x",
                "Example.net/x",
                "istio.io/gateway-controller",
                "a/b/c",
                "a/b c",
                "a/%41~!$&'()*+,;=:",
                "a.b/é",
                "a./b",
            ],
        );
    }

    // Gateway API HTTPHeaderMatch: header names are RFC 7230 tokens; `:authority` is not one.
    #[test]
    fn header_name_and_value_predicates_agree_with_upstream_regexes() {
        agrees(
            HEADER_NAME_PATTERN,
            is_header_name,
            &["", "x-foo", ":authority", "magic/", "a b", "`|~", "é"],
        );
        agrees(
            HEADER_VALUE_PATTERN,
            is_header_value,
            &[
                "",
                "a",
                "a b",
                "a  b",
                "a\tb",
                " a",
                "a ",
                "this\nis\rinvalid\r\nvalue",
                "é",
                "a\t\tb",
                "~!",
            ],
        );
    }

    // Gateway API HTTPPathMatch: path characters.
    #[test]
    fn path_chars_predicate_agrees_with_upstream_regex() {
        agrees(
            HTTP_PATH_PATTERN,
            is_http_path_chars,
            &[
                "",
                "/",
                "/a/b",
                "/[]",
                "/my[/]path01",
                "/%2F",
                "/%zz",
                "/%4",
                "/a b",
                "/@:;=",
                "/é",
            ],
        );
    }

    // GEP-1742 timeouts; GEP-2257 durations: Duration.
    #[test]
    fn duration_predicate_agrees_with_upstream_regex() {
        agrees(
            DURATION_PATTERN,
            is_duration,
            &[
                "",
                "0",
                "0s",
                "1ms",
                "1h2m3s4ms",
                "1h2m3s4ms5s",
                "123456s",
                "12345s",
                "1.5s",
                "-1s",
                "1d",
                "1m",
                "ms",
                "1hm",
                "1h 2m",
            ],
        );
    }

    // Gateway API HTTPCORSFilter: CORS origins.
    #[test]
    fn cors_origin_predicate_agrees_with_upstream_regex() {
        agrees(
            CORS_ORIGIN_PATTERN,
            is_cors_origin,
            &[
                "*",
                "https://example.com",
                "http://*.example.com:8080",
                "https://*",
                "https://*:443",
                "ftp://x",
                "https://",
                "https://a..b",
                "https://a:123456",
                "https://a:",
                "https://a/b",
                "https://A_B",
                "https://*.*.a",
            ],
        );
    }

    #[test]
    fn grpc_predicates_agree_with_upstream_regexes() {
        agrees(
            GRPC_SERVICE_PATTERN,
            is_grpc_service,
            &[
                "", ".", "foo.Bar", ".foo", "1foo", "foo..bar", "_a.b_1", "foo/bar",
            ],
        );
        agrees(
            GRPC_METHOD_PATTERN,
            is_grpc_method,
            &["", "Say", "_x1", "1x", "a/b", "a.b"],
        );
    }

    #[test]
    fn loosely_anchored_predicates_agree_with_upstream_regexes() {
        agrees(
            PROTOCOL_TYPE_PATTERN,
            is_protocol_type,
            &[
                "",
                "HTTP",
                "HTTPS",
                "-x",
                "x-",
                "example.com/foo",
                "Example.com/foo",
                "##a/b",
                "a/",
                "a/b/c",
                "a/b-c",
                "UDP",
            ],
        );
        agrees(
            ADDRESS_TYPE_PATTERN,
            is_address_type,
            &[
                "",
                "IPAddress",
                "Hostname",
                "Hostnamex",
                "xIPAddressx",
                "NamedAddress",
                "example.com/custom",
                "Example.com/custom",
                "anything goes",
                "ZZ example.com/custom",
            ],
        );
    }

    #[test]
    fn label_and_policy_predicates_agree_with_upstream_regexes() {
        let keys = &[
            "",
            "app",
            "example.com/app",
            "Example.com/app",
            "a/b/c",
            "-a",
            "a.b_c-d",
            &"a".repeat(63),
            &"a".repeat(64),
        ];
        agrees(LABEL_KEY_PATTERN, is_label_key, keys);
        agrees(
            LABEL_VALUE_PATTERN,
            is_label_value,
            &["", "a", "a-b", "-a", "a_", "a b"],
        );
        agrees(
            WELL_KNOWN_CA_PATTERN,
            is_well_known_ca,
            &["System", "system", "example.com/bundle", "x", "a/-b"],
        );
        agrees(
            SAN_URI_PATTERN,
            is_san_uri,
            &[
                "spiffe://td/ns/x",
                "spiffe:x",
                "://x",
                "a:/b",
                "a?b://c",
                "https://",
            ],
        );
    }

    // Gateway API route conditions: status condition types and reasons.
    #[test]
    fn condition_predicates_agree_with_upstream_regexes() {
        agrees(
            CONDITION_TYPE_PATTERN,
            is_condition_type,
            &[
                "",
                "Accepted",
                "gamma.rs/Owned",
                "a/b/c",
                "-a",
                "a-",
                "A.b_c",
                "Bad/x",
                "x/",
            ],
        );
        agrees(
            CONDITION_REASON_PATTERN,
            is_condition_reason,
            &["", "Accepted", "a_", "a,b:c", "1a", "a,", "a b", "R"],
        );
    }

    // Gateway API HTTPPathMatch: the CEL rules of HTTPPathMatch.
    #[test]
    fn path_value_rules_reject_dot_segments_and_encoded_slashes() {
        assert!(http_path_violations("/a/b").is_empty());
        assert!(http_path_violations("/").is_empty());
        assert!(http_path_violations("/a..b/.c").is_empty());
        for bad in [
            "a", "//", "/a//b", "/./", "/a/../b", "/a%2fb", "/a%2Fb", "/a#b", "/a/..", "/a/.",
        ] {
            assert!(!http_path_violations(bad).is_empty(), "{bad}");
        }
        assert_eq!(http_path_violations("/a/..").len(), 1);
    }

    proptest::proptest! {
        // Gateway API HTTPPathMatch CEL rules: the one-pass check of plain paths never
        // accepts a path that one of the rules, checked one by one, rejects.
        #[test]
        fn plain_path_fast_check_agrees_with_each_rule(
            pieces in proptest::collection::vec(
                proptest::sample::select(
                    &["/", ".", "..", "a", "Z9", "%2f", "%2F", "%4", "#", "-_~", "é", " ", "?", "@:"][..],
                ),
                0..8,
            ),
        ) {
            let value = pieces.concat();
            proptest::prop_assert_eq!(
                http_path_violations(&value),
                http_path_violations_each(&value),
                "{:?}", value
            );
            if is_plain_http_path(value.as_bytes()) {
                proptest::prop_assert!(http_path_violations_each(&value).is_empty(), "{:?}", value);
            }
        }
    }

    /// The state table answers as the byte-by-byte scan did: on every value of up to two
    /// bytes, on every `/` followed by two bytes (every transition from every state), and on
    /// every value of up to three bytes over the bytes the rules name.
    #[test]
    fn plain_path_table_agrees_with_the_byte_scan_exhaustively() {
        let check = |v: &[u8]| {
            assert_eq!(
                is_plain_http_path(v),
                is_plain_http_path_by_bytes(v),
                "{v:?}"
            );
        };
        check(b"");
        for a in 0..=255u8 {
            check(&[a]);
            for b in 0..=255u8 {
                check(&[a, b]);
                check(&[b'/', a, b]);
            }
        }
        let named = b"/.%#2fFa-~\x00\x7f\xc3\xa9";
        for &a in named {
            for &b in named {
                for &c in named {
                    check(&[a, b, c]);
                    check(&[b'/', a, b, c]);
                    for &d in named {
                        // across the four-byte turns and the remainder
                        check(&[b'/', a, b, c, d]);
                        check(&[b'/', b'a', b'b', b'c', a, b, c, d]);
                        check(&[b'/', b'a', b'b', a, b, c, d]);
                    }
                }
            }
        }
    }

    proptest::proptest! {
        /// The state table and the byte scan agree on any bytes, of any length.
        #[test]
        fn plain_path_table_agrees_with_the_byte_scan(
            value in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::sample::select(&b"/.%#a"[..]),
                    proptest::num::u8::ANY,
                ],
                0..24,
            ),
        ) {
            proptest::prop_assert_eq!(
                is_plain_http_path(&value),
                is_plain_http_path_by_bytes(&value),
                "{:?}", value
            );
        }
    }

    #[test]
    fn tchar_is_the_rfc_7230_token_character_set() {
        for c in 0..=255u8 {
            let spelled = c.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&c);
            assert_eq!(is_tchar(c), spelled, "{c}");
            assert_eq!(in_tchars(c), spelled, "{c}");
        }
    }

    /// The one-pass subdomain check answers as the split into labels did, on every string of
    /// up to six bytes over the bytes the rule tells apart.
    #[test]
    fn dns_subdomain_one_pass_agrees_with_labels_exhaustively() {
        let alphabet: &[u8] = b"a0-.A_";
        let mut value = Vec::new();
        fn each(alphabet: &[u8], value: &mut Vec<u8>, left: usize) {
            let s = std::str::from_utf8(value).unwrap();
            assert_eq!(is_dns_subdomain(s), is_dns_subdomain_by_labels(s), "{s:?}");
            if left == 0 {
                return;
            }
            for &c in alphabet {
                value.push(c);
                each(alphabet, value, left - 1);
                value.pop();
            }
        }
        each(alphabet, &mut value, 6);
        for s in ["é", "a.é", "éa", "route-00000", "a.b-c.d", "a..b", "-", "."] {
            assert_eq!(is_dns_subdomain(s), is_dns_subdomain_by_labels(s), "{s:?}");
        }
    }

    #[test]
    fn path_char_table_is_the_path_character_set() {
        for c in 0..=255u8 {
            assert_eq!(in_path_chars(c), is_path_char(c), "{c}");
        }
    }

    #[test]
    fn ip_detection_matches_cel_is_ip() {
        assert!(is_ip("1.2.3.4"));
        assert!(is_ip("::1"));
        assert!(!is_ip("1.2.3"));
        assert!(!is_ip("example.com"));
    }
}
